"""tooljson: incremental, exact parsing of streamed LLM tool-call arguments.

The Rust core scans each ``input_json_delta`` fragment once, as it arrives; ``finish`` then returns
exactly what :func:`json.loads` returns for the joined text, or raises a
:class:`json.JSONDecodeError` subclass that tells a cut-off text from a malformed one.
"""

from __future__ import annotations

from tooljson._native import ParseStatus, Parser, ToolCallAccumulator, __version__, loads
from tooljson.errors import (
    IncompleteJSONError,
    JSONDecodeError,
    MalformedJSONError,
    NestingTooDeepError,
)

__all__ = [
    "IncompleteJSONError",
    "JSONDecodeError",
    "MalformedJSONError",
    "NestingTooDeepError",
    "ParseStatus",
    "Parser",
    "ToolCallAccumulator",
    "__version__",
    "loads",
]
