"""Every ``tool_result`` tooljson builds, in one place.

A tool call is answered in exactly one of these ways: the handler's output (:func:`success_result`),
the handler's exception (:func:`handler_error_result`), input that is not JSON
(:func:`invalid_json_result`), input that failed validation (:func:`rejected_input_result`), or a
call to a tool that does not exist (:func:`unknown_tool_result`). Every error result has
``is_error: true`` and says what happened and what to send instead, which helps a model more than
a bare "failed".

The results that answer a :class:`~tooljson.ToolCall` take the shape of the call's provider:

* Messages API: a ``tool_result`` block (``tool_use_id``, ``content``, ``is_error``), sent in one
  user message with the results of every call of the turn;
* Chat Completions: a ``{"role": "tool", "tool_call_id", "content"}`` message, one per call;
* Responses: a ``{"type": "function_call_output", "call_id", "output"}`` input item (a custom tool
  call's: ``custom_tool_call_output``);
* Bedrock Converse: a ``{"toolResult": {"toolUseId", "content", "status"}}`` content block, sent in
  one user message like Messages results.

Chat Completions and Responses results have no error flag: there the text alone says it.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

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


def _answer(call: ToolCall, content: Any, *, is_error: bool, document: Any = None) -> dict[str, Any]:
    """The result answering ``call`` in its provider's shape. ``content`` is text (or, for the
    Messages API, a list of content blocks); ``document``, when given, is the JSON value Bedrock
    carries as a ``json`` block instead of the text."""
    if call.provider == "openai":
        return {"role": "tool", "tool_call_id": call.id, "content": content}
    if call.provider == "openai-agents":
        raise ValueError(
            "calls of 'openai-agents' are not answered by tooljson: the SDK sends the results "
            "(tooljson.frameworks.openai_agents.guard answers malformed ones)"
        )
    if call.provider == "responses":
        kind = "custom_tool_call_output" if call.block_type == "custom_tool_call" else "function_call_output"
        return {"type": kind, "call_id": call.id, "output": content}
    if call.provider == "bedrock":
        block = {"json": document} if document is not None else {"text": content}
        return {"toolResult": {"toolUseId": call.id, "content": [block], "status": "error" if is_error else "success"}}
    result: dict[str, Any] = {"type": "tool_result", "tool_use_id": call.id}
    if is_error:
        result["is_error"] = True
    result["content"] = content
    return result


def success_result(call: ToolCall, output: Any) -> dict[str, Any]:
    """A handler's return value as the call's result: text, a list of content blocks (Messages
    API), or JSON text (for Bedrock, a ``json`` block of the value itself when it is an object)."""
    if call.provider == "anthropic" and isinstance(output, list) and all(isinstance(block, dict) for block in output):
        return _answer(call, output, is_error=False)
    if isinstance(output, str):
        return _answer(call, output, is_error=False)
    document = output if call.provider == "bedrock" and isinstance(output, dict) else None
    return _answer(call, json.dumps(output, default=str), is_error=False, document=document)


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
    return _answer(call, invalid_json_text(call.raw_json), is_error=True, document=wrapper)


def invalid_json_text(raw: str, error: ValueError | None = None) -> str:
    """The text of the ``INVALID_JSON`` convention for arguments ``raw``: the JSON text of
    ``{"INVALID_JSON": raw}``, with, when ``error`` (the parse error) is given, an ``"error"`` member
    saying what is wrong and where (``"invalid escape: line 1 column 37 (char 36)"``)."""
    wrapper = {"INVALID_JSON": raw}
    if error is not None:
        wrapper["error"] = str(error)
    return json.dumps(wrapper)


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
