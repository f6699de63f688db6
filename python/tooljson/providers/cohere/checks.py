"""What is wrong with a Cohere v2 chat stream event, checked in one place.

The adapter checks every event it reads but the tool-call deltas (the bulk of a stream, read on a
short path that falls back to this check when it fails), and a recording's events are checked
before any of them is played. The same checks read plain dicts and the SDK's event objects, field
by field.
"""

from __future__ import annotations

from typing import Any

from tooljson.providers import event_field

__all__ = ["EVENTS", "INDEXED", "arguments_of", "check"]

EVENTS = frozenset(
    {
        "message-start",
        "content-start",
        "content-delta",
        "content-end",
        "tool-plan-delta",
        "tool-call-start",
        "tool-call-delta",
        "tool-call-end",
        "citation-start",
        "citation-end",
        "message-end",
    }
)
"""The ``type`` of every event of a Cohere v2 chat stream (``cohere/v2/types/v2chat_stream_response.py``)."""

INDEXED = frozenset(
    {"content-start", "content-delta", "content-end", "tool-call-start", "tool-call-delta", "tool-call-end"}
)
"""The events that carry the ``index`` of their content item or tool call."""

_NAMES = {str: "a string", dict: "an object", int: "an integer"}


def _is_object(value: Any) -> bool:
    # The SDK carries the nested parts as model objects, a recording as dicts.
    return isinstance(value, dict) or hasattr(value, "model_dump")


def _wrong(value: Any, kind: type, where: str, *, required: bool) -> str | None:
    if value is None:
        return f"{where} is required" if required else None
    if kind is dict:
        good = _is_object(value)
    else:
        good = isinstance(value, kind) and not isinstance(value, bool)
    if good:
        return None
    return f"{where} must be {_NAMES[kind]}, not {type(value).__name__}"


def _at(event: Any, *path: str) -> Any:
    value = event
    for name in path:
        if value is None:
            return None
        value = event_field(value, name)
    return value


def arguments_of(event: Any) -> Any:
    """A ``tool-call-delta``'s fragment (``delta.message.tool_calls.function.arguments``), read
    field by field from dicts and objects alike; ``None`` when a level is missing."""
    return _at(event, "delta", "message", "tool_calls", "function", "arguments")


def check(event: Any) -> str | None:
    """What is wrong with a Cohere v2 chat stream event (``None``: nothing)."""
    kind = event_field(event, "type")
    if kind not in EVENTS:
        return f"not a Cohere v2 chat stream event (type {kind!r})"
    where = kind
    if kind in INDEXED:
        problem = _wrong(event_field(event, "index"), int, f"{where}.index", required=True)
        if problem is not None:
            return problem
    problem = _wrong(event_field(event, "delta"), dict, f"{where}.delta", required=False)
    if problem is None and event_field(event, "delta") is not None:
        problem = _wrong(_at(event, "delta", "message"), dict, f"{where}.delta.message", required=False)
    if problem is not None:
        return problem
    if kind == "tool-call-start":
        call = _at(event, "delta", "message", "tool_calls")
        at = f"{where}.delta.message.tool_calls"
        problem = _wrong(call, dict, at, required=True)
        if problem is None:
            problem = _wrong(event_field(call, "id"), str, f"{at}.id", required=False) or _wrong(
                event_field(call, "function"), dict, f"{at}.function", required=True
            )
        if problem is None:
            function = event_field(call, "function")
            problem = _wrong(
                event_field(function, "name"), str, f"{at}.function.name", required=True
            ) or _wrong(event_field(function, "arguments"), str, f"{at}.function.arguments", required=False)
        return problem
    if kind == "tool-call-delta":
        return _wrong(
            arguments_of(event),
            str,
            f"{where}.delta.message.tool_calls.function.arguments",
            required=True,
        )
    if kind == "content-delta":
        content = _at(event, "delta", "message", "content")
        at = f"{where}.delta.message.content"
        return _wrong(content, dict, at, required=False) or (
            None
            if content is None
            else _wrong(event_field(content, "text"), str, f"{at}.text", required=False)
            or _wrong(event_field(content, "thinking"), str, f"{at}.thinking", required=False)
        )
    if kind == "tool-plan-delta":
        plan = _at(event, "delta", "message", "tool_plan")
        return _wrong(plan, str, f"{where}.delta.message.tool_plan", required=False)
    if kind == "message-end":
        delta = event_field(event, "delta")
        return (
            _wrong(event_field(delta, "finish_reason"), str, f"{where}.delta.finish_reason", required=False)
            or _wrong(event_field(delta, "usage"), dict, f"{where}.delta.usage", required=False)
            or _wrong(event_field(delta, "error"), str, f"{where}.delta.error", required=False)
        )
    if kind == "message-start":
        return _wrong(event_field(event, "id"), str, f"{where}.id", required=False)
    return None
