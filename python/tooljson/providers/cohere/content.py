"""The assistant content of a Cohere v2 response, and the tool results that answer its calls.

The content is one ``{"role": "assistant", ...}`` message in Cohere v2's history shape: the
``tool_plan`` (the model's plan, streamed as ``tool-plan-delta``), the ``tool_calls`` (each with its
arguments as the text that arrived) and the text ``content`` items (``content-delta``). A result is
a ``{"role": "tool", "tool_call_id", "content"}`` message; it has no error flag, so the text says it
(an invalid input is answered with the ``{"INVALID_JSON": ...}`` text, as for every source).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from tooljson.providers import event_field
from tooljson.providers.content import ContentAssembler, error_event, plain

if TYPE_CHECKING:
    from tooljson.calls import ToolCall

__all__ = ["CohereAssembler", "answer", "describe_error", "stop_reason_of"]

# The tool plan's position among the text pieces: before every content item.
_PLAN = -1


def _plain(value: Any) -> dict[str, Any]:
    """The SDK's usage object as plain data (a dict passes as it is)."""
    dump = getattr(value, "model_dump", None)
    if dump is None:
        return dict(plain(value))
    try:
        return dict(dump(mode="json", exclude_none=True))
    except ValueError:
        # A field of a type the SDK's own JSON serialiser cannot write (a number where its billed
        # units object belongs): the fields as they came, rather than losing the event.
        return dict(dump(exclude_none=True, warnings=False))


class CohereAssembler(ContentAssembler):
    """Cohere v2 events: the tool plan and the text of each content item; ends at ``message-end``,
    whose ``delta.error`` (with ``finish_reason: "ERROR"``) is the stream's error."""

    def feed(self, event: Any) -> None:
        kind = event_field(event, "type")
        if kind == "tool-call-delta":
            return
        if kind == "content-delta":
            content = event_field(event_field(event_field(event, "delta"), "message"), "content")
            self._piece(event_field(event, "index"), event_field(content, "text"))
            thinking = event_field(content, "thinking")
            if isinstance(thinking, str):
                self.thinking_chars += len(thinking)
        elif kind == "tool-plan-delta":
            self._piece(_PLAN, event_field(event_field(event_field(event, "delta"), "message"), "tool_plan"))
        elif kind == "message-end":
            self.stopped = True
            delta = event_field(event, "delta")
            usage = event_field(delta, "usage")
            if usage is not None:
                self.usage = _plain(usage)
            message = event_field(delta, "error")
            if message:
                self.error = error_event(event_field(delta, "finish_reason") or "ERROR", message)

    @property
    def content(self) -> list[dict[str, Any]]:
        message: dict[str, Any] = {"role": "assistant"}
        plan = self._joined(_PLAN)
        if plan:
            message["tool_plan"] = plan
        calls = [call for _, call in sorted(self._calls.items(), key=lambda pair: pair[0])]
        if calls:
            message["tool_calls"] = [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.raw_json},
                }
                for call in calls
            ]
        texts = [self._joined(index) for index in sorted(self._text) if index != _PLAN]
        if any(texts):
            message["content"] = [{"type": "text", "text": text} for text in texts if text]
        return [message]


def answer(call: ToolCall, content: Any, is_error: bool, value: Any) -> dict[str, Any]:
    """A ``role: "tool"`` message (no error flag: the text says it)."""
    return {"role": "tool", "tool_call_id": call.id, "content": content}


def stop_reason_of(event: Any) -> str | None:
    """The ``finish_reason`` a ``message-end`` carries."""
    if event_field(event, "type") != "message-end":
        return None
    reason = event_field(event_field(event, "delta"), "finish_reason")
    return reason if isinstance(reason, str) else None


def describe_error(error: BaseException) -> str | None:
    """The cohere SDK's ``ApiError`` (an HTTP error answer), in a line (``None`` for anything else;
    the SDK is looked up only if it was imported, which it was if it raised)."""
    errors = sys.modules.get("cohere.core.api_error")
    api_error = getattr(errors, "ApiError", None)
    if not isinstance(api_error, type) or not isinstance(error, api_error):
        return None
    body = getattr(error, "body", None)
    message = body.get("message") if isinstance(body, dict) else body
    return f"{getattr(error, 'status_code', None) or 'error'}: {message}"
