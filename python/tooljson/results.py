"""Every ``tool_result`` tooljson builds, in one place.

A tool call is answered in exactly one of these ways: the handler's output (:func:`success_result`),
the handler's exception (:func:`handler_error_result`), input that is not JSON
(:func:`invalid_json_result`), input that failed validation (:func:`rejected_input_result`), or a
call to a tool that does not exist (:func:`unknown_tool_result`). Every error result has
``is_error: true`` and says what happened and what to send instead, which helps a model more than
a bare "failed".
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tooljson.accumulator import ToolCall
    from tooljson.validation import ValidationOutcome

__all__ = [
    "handler_error_result",
    "invalid_json_result",
    "rejected_input_result",
    "success_result",
    "unknown_tool_result",
]

logger = logging.getLogger("tooljson")


def success_result(call: ToolCall, output: Any) -> dict[str, Any]:
    """A handler's return value as a ``tool_result``: text, a list of content blocks, or JSON text."""
    if isinstance(output, str) or (isinstance(output, list) and all(isinstance(block, dict) for block in output)):
        content: Any = output
    else:
        content = json.dumps(output, default=str)
    return {"type": "tool_result", "tool_use_id": call.id, "content": content}


def handler_error_result(call: ToolCall, error: BaseException) -> dict[str, Any]:
    """The ``is_error`` result of a handler that raised; logged as a warning."""
    logger.warning("tool %r (id %s) raised %s: %s", call.name, call.id, type(error).__name__, error)
    return {
        "type": "tool_result",
        "tool_use_id": call.id,
        "is_error": True,
        "content": f"The tool raised {type(error).__name__}: {error}",
    }


def invalid_json_result(call: ToolCall) -> dict[str, Any]:
    """The ``tool_result`` that answers a call whose input is not JSON, without running the tool.

    Its content is the JSON text of ``{"INVALID_JSON": <the raw text>}``, the convention models
    recognise and usually correct on the next turn.
    """
    return {
        "type": "tool_result",
        "tool_use_id": call.id,
        "is_error": True,
        "content": json.dumps({"INVALID_JSON": call.raw_json}),
    }


def rejected_input_result(tool_use_id: str, tool_name: str, outcome: ValidationOutcome) -> dict[str, Any]:
    """The ``is_error`` result for input that failed validation: every problem, then what to do."""
    lines = [f"Invalid input for tool {tool_name!r}; the tool was not run."]
    lines += [f"- {problem.path or '(input)'}: {problem.message}" for problem in outcome.problems]
    lines.append("Fix these fields and call the tool again with the corrected input.")
    return {"type": "tool_result", "tool_use_id": tool_use_id, "is_error": True, "content": "\n".join(lines)}


def unknown_tool_result(tool_use_id: str, tool_name: str, available: Iterable[str]) -> dict[str, Any]:
    """The ``is_error`` result for a call to a tool that does not exist; logged as a routing problem."""
    names = sorted(available)
    logger.warning("call %s routed to unknown tool %r; available: %s", tool_use_id, tool_name, names)
    listing = ", ".join(names) if names else "(none)"
    return {
        "type": "tool_result",
        "tool_use_id": tool_use_id,
        "is_error": True,
        "content": f"No tool named {tool_name!r}; available: {listing}. Call one of these instead.",
    }
