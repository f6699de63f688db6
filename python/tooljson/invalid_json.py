"""The text of the ``INVALID_JSON`` convention, which answers a call whose arguments are not JSON.

Here, apart from :mod:`tooljson.results` (which builds every result in its source's shape, and so
asks the registry), so that a source that sends its own results, as a framework's guardrail does,
can use the same words without importing the registry that lists it.
"""

from __future__ import annotations

import json

__all__ = ["invalid_json_text"]


def invalid_json_text(raw: str, error: ValueError | None = None) -> str:
    """The text of the ``INVALID_JSON`` convention for arguments ``raw``: the JSON text of
    ``{"INVALID_JSON": raw}``, with, when ``error`` (the parse error) is given, an ``"error"`` member
    saying what is wrong and where (``"invalid escape: line 1 column 37 (char 36)"``)."""
    wrapper = {"INVALID_JSON": raw}
    if error is not None:
        wrapper["error"] = str(error)
    return json.dumps(wrapper)
