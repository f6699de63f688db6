"""Every tool result tooljson builds, in one place.

A tool call is answered in exactly one of these ways: the handler's output (:func:`success_result`),
the handler's exception (:func:`handler_error_result`), input that is not JSON
(:func:`invalid_json_result`), input that failed validation (:func:`rejected_input_result`), or a
call to a tool that does not exist (:func:`unknown_tool_result`). Every error result carries its
source's error flag where it has one and says what happened and what to send instead, which helps a
model more than a bare "failed".

The results that answer a :class:`~tooljson.ToolCall` take the shape of the call's source: each
source's :attr:`~tooljson.providers.source.Source.answer` builds it (a ``tool_result`` block, a tool
message, an input item, a content block, ..., as that API takes it back), and the registry finds the
source by the call's ``provider``. Where a source's results have no error flag, the text alone says it.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from tooljson.invalid_json import invalid_json_text
from tooljson.providers.registry import source

if TYPE_CHECKING:
    from tooljson.calls import ToolCall
    from tooljson.validation import ValidationOutcome

__all__ = [
    "handler_error_result",
    "invalid_json_result",
    "invalid_json_text",
    "rejected_input_result",
    "success_result",
    "unknown_tool_result",
]

logger = logging.getLogger("tooljson")


def _answer(call: ToolCall, content: Any, *, is_error: bool, value: Any = None) -> dict[str, Any]:
    """The result answering ``call`` in its source's shape (:attr:`tooljson.providers.source.Source.answer`):
    ``content`` is text, ``value`` the JSON value it stands for (the shapes that carry a value take it)."""
    return source(call.provider).answer(call, content, is_error, value)


def success_result(call: ToolCall, output: Any) -> dict[str, Any]:
    """A handler's return value as the call's result: text as it is, anything else as JSON text (a
    source whose results carry values or content blocks takes the value itself: a list of content
    blocks for the Messages API, an object for Bedrock's ``json`` block)."""
    text = output if isinstance(output, str) else json.dumps(output, default=str)
    return _answer(call, text, is_error=False, value=output)


def handler_error_result(call: ToolCall, error: BaseException) -> dict[str, Any]:
    """The error result of a handler that raised; logged as a warning."""
    logger.warning("tool %r (id %s) raised %s: %s", call.name, call.id, type(error).__name__, error)
    return _answer(call, f"The tool raised {type(error).__name__}: {error}", is_error=True)


def invalid_json_result(call: ToolCall) -> dict[str, Any]:
    """The result that answers a call whose input is not JSON, without running the tool, in the
    shape of the call's provider (see the module's docs).

    It carries ``{"INVALID_JSON": <the raw text>}``, the convention models recognise and usually
    correct on the next turn: as JSON text (Messages ``content``, Chat Completions ``content``,
    Responses ``output``) or, for Bedrock, as a ``json`` content block with ``status: "error"``.
    """
    wrapper = {"INVALID_JSON": call.raw_json}
    return _answer(call, invalid_json_text(call.raw_json), is_error=True, value=wrapper)


def rejected_input_result(call: ToolCall, outcome: ValidationOutcome) -> dict[str, Any]:
    """The error result for a call whose input failed validation (the tool was not run): every
    problem, then what to do."""
    lines = [f"Invalid input for tool {call.name!r}; the tool was not run."]
    lines += [f"- {problem.path or '(input)'}: {problem.message}" for problem in outcome.problems]
    lines.append("Fix these fields and call the tool again with the corrected input.")
    return _answer(call, "\n".join(lines), is_error=True)


def unknown_tool_result(call: ToolCall, available: Iterable[str]) -> dict[str, Any]:
    """The error result for a call to a tool that does not exist; logged as a routing problem."""
    names = sorted(available)
    logger.warning("call %s routed to unknown tool %r; available: %s", call.id, call.name, names)
    listing = ", ".join(names) if names else "(none)"
    text = f"No tool named {call.name!r}; available: {listing}. Call one of these instead."
    return _answer(call, text, is_error=True)
