"""The Messages API's events, read for one accumulator: :class:`MessagesAdapter`.

A tool block's input streams as ``input_json_delta`` fragments, nearly every event of a long input:
:func:`hot_path` takes them in the fewest steps, for dicts and SDK objects alike (it is the
source's :attr:`~tooljson.providers.source.Source.hot_path`; as the registry's default source's, it
is :meth:`tooljson.ToolCallAccumulator.feed`), and hands the API's other events to
:class:`MessagesAdapter` and any other source's to the accumulator's routing. Raw events (``messages.create(stream=True)``)
and the helper stream of ``messages.stream(...)`` both work: the helper's derived events (``text``,
``input_json``, ``thinking``, ``citation``, ``signature``) repeat data of the raw events next to them
and are ignored, so nothing is counted twice.

An event is checked (:func:`~tooljson.providers.anthropic.event_checks.event_problem`) only when
taking it failed, so the bulk of a stream pays nothing for it: a malformed one raises
:class:`~tooljson.MalformedEvent`. A tool-input fragment for a block that is not an open tool block is
a tolerated oddity (a warning), and so is an event type the adapter does not know in a stream it is
reading (a newer event of the API: :meth:`~MessagesAdapter.tolerates`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tooljson.errors import MalformedEvent
from tooljson.providers import event_field
from tooljson.providers.adapter import Adapter, CallOperations
from tooljson.providers.anthropic.event_checks import EVENT_TYPES, event_problem, malformed

if TYPE_CHECKING:
    from tooljson.calls import ToolCall

__all__ = ["TOOL_BLOCK_TYPES", "MessagesAdapter", "hot_path"]

TOOL_BLOCK_TYPES: frozenset[str] = frozenset({"tool_use", "server_tool_use"})
"""The block types whose input streams as ``input_json_delta`` and that become :class:`~tooljson.ToolCall` s."""

# The event types the hot path reads itself: the Messages API's but "error", which the Responses API's
# error event shares (the registry tells the two apart).
_HOT_TYPES = EVENT_TYPES - {"error"}

# What an SDK's event raises when a field its type needs is missing or of the wrong kind.
_READING_ERRORS = (AttributeError, KeyError, TypeError, ValueError, OverflowError)


def hot_path(accumulator: CallOperations, event: Any) -> list[ToolCall]:
    """Take one stream event; return the tool calls it completed (:meth:`tooljson.ToolCallAccumulator.feed`,
    of which this is the hot path: see :meth:`~tooljson.ToolCallAccumulator.route` for the whole of it).

    A Messages API tool-input fragment takes the fewest steps, for dicts and SDK objects alike; the
    API's other events go to its adapter, and any other source's event to the accumulator's routing.
    """
    # Its shape is examined only when taking it failed: a try block costs nothing until it catches.
    try:
        if isinstance(event, dict):
            kind = event.get("type")
            if kind == "content_block_delta":
                block = accumulator.open_calls.get(event.get("index"))
                delta = event["delta"]
                if delta.get("type") == "input_json_delta":
                    fragment = delta["partial_json"]
                    if block is None:
                        return _adapter(accumulator).stray(event)
                    accumulator.add_delta(block.index, fragment)
                    block.deltas += 1
                    block.chars += len(fragment)
                return []
        else:
            # The SDK's events are pydantic models, whose fields live in __dict__: reading "type"
            # there costs what getattr costs when it is present, and nothing like the
            # AttributeError getattr raises inside (microseconds) when it is absent, as on a Chat
            # Completions chunk.
            try:
                kind = event.__dict__.get("type")
            except AttributeError:
                kind = getattr(event, "type", None)
            if kind == "content_block_delta":
                block = accumulator.open_calls.get(event.index)
                delta = event.delta
                if delta.type == "input_json_delta":
                    fragment = delta.partial_json
                    if block is None:
                        return _adapter(accumulator).stray(event)
                    accumulator.add_delta(block.index, fragment)
                    block.deltas += 1
                    block.chars += len(fragment)
                return []
        # The API's other events (pings are one in sixteen of a long stream's): no other source's
        # event has one of their types. (A "type" that cannot be a set member is no source's.)
        if kind in _HOT_TYPES:
            return _adapter(accumulator).take(event, kind)
    except MalformedEvent:
        raise
    except _READING_ERRORS as error:
        raise malformed(event, error) from error
    return accumulator.route(event, kind)


def _adapter(accumulator: CallOperations) -> MessagesAdapter:
    adapter = accumulator.adapter(MessagesAdapter.provider)
    assert isinstance(adapter, MessagesAdapter)
    return adapter


class MessagesAdapter(Adapter):
    """The Messages API's reader, bound to one accumulator; the block index is each call's key."""

    provider = "anthropic"

    def feed(self, event: Any) -> list[ToolCall]:
        try:
            if isinstance(event, dict):
                kind = event.get("type")
            else:
                kind = getattr(event, "type", None)
            if kind == "content_block_delta":
                return self._delta(event)
            return self.take(event, kind)
        except MalformedEvent:
            raise
        except _READING_ERRORS as error:
            raise malformed(event, error) from error

    def _delta(self, event: Any) -> list[ToolCall]:
        delta = event_field(event, "delta")
        if event_field(delta, "type") != "input_json_delta":
            return []
        fragment = event_field(delta, "partial_json")
        block = self.calls.open_call(event_field(event, "index"))
        if block is None:
            return self.stray(event)
        self.calls.add_fragment(block, fragment)
        return []

    def take(self, event: Any, kind: Any) -> list[ToolCall]:
        """A Messages API event other than a tool-input fragment, of type ``kind``."""
        calls = self.calls
        if kind == "content_block_delta":
            return self._delta(event)
        if kind == "content_block_start":
            content = event_field(event, "content_block")
            block_type = event_field(content, "type")
            index = event_field(event, "index")
            done: list[ToolCall] = []
            if calls.open_call(index) is not None:
                # A second start for a block still open: the first one ends as it stands (a verdict
                # rather than a call left streaming forever), and the new one starts afresh.
                call = calls.end_call(index)
                done = [] if call is None else [call]
            if block_type in TOOL_BLOCK_TYPES:
                problem = event_problem(event)
                if problem is not None:
                    raise MalformedEvent(problem)
                calls.begin_call(
                    self.provider, index, event_field(content, "id"), event_field(content, "name"), block_type
                )
            return done
        if kind == "content_block_stop":
            call = calls.end_call(event_field(event, "index"))
            return [] if call is None else [call]
        if kind == "message_delta":
            # A block left open when the message ends still gets its verdict rather than vanishing.
            return calls.stop_response(event_field(event_field(event, "delta"), "stop_reason"))
        if kind == "message_start":
            calls.new_response()
        if kind is None and not isinstance(event, dict):
            # A type the SDK's model does not declare is kept outside __dict__ (an extra field).
            extra = getattr(event, "type", None)
            fields = getattr(event, "__dict__", None)
            if isinstance(extra, str) and isinstance(fields, dict):
                return self.feed({"type": extra, **fields})
        return []

    def stray(self, event: Any) -> list[ToolCall]:
        """A tool-input fragment for a block that is not an open tool block: a warning, unless the
        event is malformed."""
        problem = event_problem(event)
        if problem is not None:
            raise MalformedEvent(problem)
        index = event_field(event, "index")
        self.calls.warnings.append(
            f"tool input for block {index!r}, which is not an open tool block: ignored"
        )
        return []

    @staticmethod
    def tolerates(event: Any) -> bool:
        """An event no source recognises, in a Messages stream: one with a ``type`` string is a newer
        event of the API (the assembler notes it), taken and ignored."""
        return isinstance(event_field(event, "type"), str)

    def begins_response(self, event: Any) -> bool:
        return bool(event_field(event, "type") == "message_start")
