"""Typed partial results: a pydantic model (or a JSON Schema) validated field by field as the text
streams.

``tooljson.Parser(model=M)`` and ``tooljson.ToolCallAccumulator(models={"tool": M})`` keep, beside the
parse, a partial value of ``M``'s partial form (:func:`partial_model`) that holds exactly the fields
that are complete and valid, and report each field that fails validation (:class:`FieldError`) as
soon as it is complete. See :mod:`tooljson.typed.tracker` for the rules.
"""

from __future__ import annotations

from tooljson.typed.partials import partial_model
from tooljson.typed.schema_checks import FieldError

__all__ = ["FieldError", "partial_model"]
