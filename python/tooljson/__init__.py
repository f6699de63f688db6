"""tooljson: incremental, exact parsing of streamed LLM tool-call arguments.

The Rust core scans each ``input_json_delta`` fragment once, as it arrives; ``finish`` then returns
exactly what :func:`json.loads` returns for the joined text, or raises a
:class:`json.JSONDecodeError` subclass that tells a cut-off text from a malformed one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tooljson._native import ParseStatus, loads
from tooljson.accumulator import ToolCall, ToolCallAccumulator
from tooljson.collect import acollect_tool_calls, collect_tool_calls
from tooljson.compat import PartialParser, from_json, parse_partial_json
from tooljson.errors import (
    IncompleteJSONError,
    InputTooLargeError,
    JSONDecodeError,
    MalformedEvent,
    MalformedJSONError,
    MaxTurnsExceeded,
    MissingExtra,
    NestingTooDeepError,
    StreamInterrupted,
    ToolLoopError,
    TruncatedToolInput,
)
from tooljson.events import Event
from tooljson.parser import Parser
from tooljson.providers.anthropic.stream import aiter_events, iter_events
from tooljson.results import invalid_json_result
from tooljson.turn import TurnReader

if TYPE_CHECKING:
    __version__: str

    from tooljson.acceleration import accelerate
    from tooljson.loop import LoopEvent, ToolLoopResult, arun_tool_loop, run_tool_loop
    from tooljson.validation import ToolHandler, validate_tool_input

# The loop, validation and accelerate (which import anthropic) are loaded on first use, so that plain
# parsing stays a light import.
_LAZY = {
    "accelerate": "tooljson.acceleration",
    "LoopEvent": "tooljson.loop",
    "ToolLoopResult": "tooljson.loop",
    "arun_tool_loop": "tooljson.loop",
    "run_tool_loop": "tooljson.loop",
    "ToolHandler": "tooljson.validation",
    "validate_tool_input": "tooljson.validation",
}


def __getattr__(name: str) -> Any:
    if name == "__version__":
        # The installed distribution's version, which maturin took from Cargo.toml; read on first use
        # because importing importlib.metadata costs more than importing tooljson.
        from importlib.metadata import version

        globals()["__version__"] = value = version("tooljson")
        return value
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'tooljson' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "Event",
    "IncompleteJSONError",
    "InputTooLargeError",
    "JSONDecodeError",
    "LoopEvent",
    "MalformedEvent",
    "MalformedJSONError",
    "MaxTurnsExceeded",
    "MissingExtra",
    "NestingTooDeepError",
    "ParseStatus",
    "Parser",
    "PartialParser",
    "StreamInterrupted",
    "ToolCall",
    "ToolCallAccumulator",
    "ToolHandler",
    "ToolLoopError",
    "ToolLoopResult",
    "TruncatedToolInput",
    "TurnReader",
    "__version__",
    "accelerate",
    "acollect_tool_calls",
    "aiter_events",
    "arun_tool_loop",
    "collect_tool_calls",
    "from_json",
    "invalid_json_result",
    "iter_events",
    "loads",
    "parse_partial_json",
    "run_tool_loop",
    "validate_tool_input",
]
