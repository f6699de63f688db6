"""Cohere v2 chat stream events to calls, for one accumulator.

``tool-call-start`` begins a call under its ``index`` (``delta.message.tool_calls`` brings its
``id`` and ``function.name``), ``tool-call-delta`` brings the next fragment of its arguments
(``delta.message.tool_calls.function.arguments``), ``tool-call-end`` ends it; ``message-end``
carries the ``finish_reason`` (``MAX_TOKENS``: cut off at the token limit) and ends whatever is
still open; ``message-start`` begins a response. Text, the tool plan and citations are not calls.

A tool-call delta with no call open at its index, or an event without the shape its ``type``
needs, raises :class:`~tooljson.MalformedEvent`: Cohere's stream says where every call begins, so
a fragment of no call is a broken stream, not an oddity.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tooljson.errors import MalformedEvent
from tooljson.providers import event_field
from tooljson.providers.adapter import Adapter
from tooljson.providers.cohere.checks import arguments_of, check

if TYPE_CHECKING:
    from tooljson.calls import ToolCall

__all__ = ["CohereAdapter"]


def _fragment(event: Any) -> Any:
    """A tool-call delta's fragment, read on the shortest path for a dict or an SDK object; raises
    what a missing level raises (the caller then reads it field by field)."""
    if type(event) is dict:
        return event["delta"]["message"]["tool_calls"]["function"]["arguments"]
    return event.delta.message.tool_calls.function.arguments


class CohereAdapter(Adapter):
    """Cohere v2 chat stream events, read for one accumulator (every event says all it needs: the
    open calls are the accumulator's, by index)."""

    provider = "cohere"

    def begins_response(self, event: Any) -> bool:
        return bool(event_field(event, "type") == "message-start")

    def feed(self, event: Any) -> list[ToolCall]:
        """Apply one event; return the calls it ended."""
        kind = event_field(event, "type")
        if kind == "tool-call-delta":
            try:
                fragment = _fragment(event)
            except (AttributeError, KeyError, TypeError):
                # Another mix of dicts and objects than the SDK's, or a level missing: read field by field.
                fragment = arguments_of(event)
            index = event_field(event, "index")
            if type(fragment) is not str or type(index) is not int:
                raise MalformedEvent(
                    check(event) or "a tool-call-delta without an index and a string fragment"
                )
            block = self.calls.open_call(index)
            if block is None:
                raise MalformedEvent(f"tool-call-delta for index {index}, where no tool call is open")
            if fragment:
                self.calls.add_fragment(block, fragment)
            return []
        if kind in ("tool-call-start", "tool-call-end", "message-end", "message-start"):
            problem = check(event)
            if problem is not None:
                raise MalformedEvent(problem)
        if kind == "tool-call-start":
            return self._start(event)
        if kind == "tool-call-end":
            index = event_field(event, "index")
            call = self.calls.end_call(index)
            if call is None:
                self.calls.warnings.append(
                    f"tool-call-end for index {index!r}, where no tool call is open: ignored"
                )
                return []
            return [call]
        if kind == "message-end":
            return self.calls.stop_response(event_field(event_field(event, "delta"), "finish_reason"))
        if kind == "message-start":
            self.calls.new_response()
        return []

    def _start(self, event: Any) -> list[ToolCall]:
        index = event_field(event, "index")
        tool = event_field(event_field(event_field(event, "delta"), "message"), "tool_calls")
        function = event_field(tool, "function")
        done: list[ToolCall] = []
        if self.calls.open_call(index) is not None:
            # A second start at an index still open: the first call ends as it stands.
            self.calls.warnings.append(f"tool-call-start for index {index!r}, where a tool call is open")
            call = self.calls.end_call(index)
            done = [] if call is None else [call]
        block = self.calls.begin_call(
            self.provider,
            index,
            event_field(tool, "id"),
            event_field(function, "name"),
            event_field(tool, "type") or "function",
        )
        arguments = event_field(function, "arguments")
        if arguments:
            self.calls.add_fragment(block, arguments)
        return done
