"""AWS Bedrock ConverseStream events, as boto3's ``converse_stream(...)["stream"]`` yields them, to calls.

Each event is a dict with one key, the event's name. ``contentBlockStart`` with ``start.toolUse``
begins a call (``toolUseId``, ``name``), ``contentBlockDelta`` with ``delta.toolUse.input`` brings a
fragment, ``contentBlockStop`` ends it, all keyed by ``contentBlockIndex``; ``messageStop`` carries
the ``stopReason`` (``"max_tokens"``: cut off at the token limit); ``messageStart`` begins a
response. Text, reasoning, ``metadata`` and the exception events are not tool calls.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tooljson.providers import event_field

if TYPE_CHECKING:
    from tooljson.accumulator import ToolCall, ToolCallAccumulator

__all__ = ["feed"]


def feed(accumulator: ToolCallAccumulator, event: Any) -> list[ToolCall]:
    """Apply one event; return the calls it ended."""
    body = event.get("contentBlockDelta")
    if body is not None:
        block = accumulator._open.get(event_field(body, "contentBlockIndex"))
        if block is not None:
            fragment = event_field(event_field(event_field(body, "delta"), "toolUse"), "input")
            if fragment is not None:
                accumulator._fragment(block, fragment)
        return []
    body = event.get("contentBlockStart")
    if body is not None:
        tool = event_field(event_field(body, "start"), "toolUse")
        if tool is not None:
            index = event_field(body, "contentBlockIndex")
            accumulator._begin("bedrock", index, event_field(tool, "toolUseId"), event_field(tool, "name"), "toolUse")
        return []
    body = event.get("contentBlockStop")
    if body is not None:
        call = accumulator._end(event_field(body, "contentBlockIndex"))
        return [] if call is None else [call]
    body = event.get("messageStop")
    if body is not None:
        return accumulator._stop(event_field(body, "stopReason"))
    if "messageStart" in event:
        accumulator._new_response()
    return []
