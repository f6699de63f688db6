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
from tooljson.providers.adapter import Adapter

if TYPE_CHECKING:
    from tooljson.calls import ToolCall

__all__ = ["ConverseAdapter"]


class ConverseAdapter(Adapter):
    """ConverseStream events, read for one accumulator (every event says all it needs: no state)."""

    provider = "bedrock"

    def feed(self, event: Any) -> list[ToolCall]:
        """Apply one event; return the calls it ended."""
        body = event.get("contentBlockDelta")
        if body is not None:
            block = self.calls.open_call(event_field(body, "contentBlockIndex"))
            if block is not None:
                fragment = event_field(event_field(event_field(body, "delta"), "toolUse"), "input")
                if fragment is not None:
                    self.calls.add_fragment(block, fragment)
            return []
        body = event.get("contentBlockStart")
        if body is not None:
            tool = event_field(event_field(body, "start"), "toolUse")
            if tool is not None:
                index = event_field(body, "contentBlockIndex")
                self.calls.begin_call("bedrock", index, event_field(tool, "toolUseId"), event_field(tool, "name"), "toolUse")
            return []
        body = event.get("contentBlockStop")
        if body is not None:
            call = self.calls.end_call(event_field(body, "contentBlockIndex"))
            return [] if call is None else [call]
        body = event.get("messageStop")
        if body is not None:
            return self.calls.stop_response(event_field(body, "stopReason"))
        if "messageStart" in event:
            self.calls.new_response()
        return []
