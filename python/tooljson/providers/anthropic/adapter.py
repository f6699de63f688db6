"""The Messages API's events, read for one accumulator: :class:`MessagesAdapter`.

A tool block's input streams as ``input_json_delta`` fragments, nearly every event of a long input:
the adapter's :meth:`~MessagesAdapter.hot_feed` takes them in the fewest steps (the accumulator
makes it its ``feed`` once it has seen a Messages event, see :meth:`tooljson.providers.adapter.Adapter.hot_path`),
for dicts and SDK objects alike, and hands every other event on to :meth:`~MessagesAdapter.feed` or,
for another source's, back to the accumulator's routing. Raw events (``messages.create(stream=True)``)
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

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tooljson.errors import MalformedEvent
from tooljson.providers import event_field
from tooljson.providers.adapter import Adapter, CallOperations
from tooljson.providers.anthropic.event_checks import EVENT_TYPES, event_problem, malformed

if TYPE_CHECKING:
    from tooljson.calls import ToolCall

__all__ = ["TOOL_BLOCK_TYPES", "MessagesAdapter"]

TOOL_BLOCK_TYPES: frozenset[str] = frozenset({"tool_use", "server_tool_use"})
"""The block types whose input streams as ``input_json_delta`` and that become :class:`~tooljson.ToolCall` s."""

# The event types the hot path reads itself: the Messages API's but "error", which the Responses API's
# error event shares (the registry tells the two apart).
_HOT_TYPES = EVENT_TYPES - {"error"}

# What an SDK's event raises when a field its type needs is missing or of the wrong kind.
_READING_ERRORS = (AttributeError, KeyError, TypeError, ValueError, OverflowError)


class MessagesAdapter(Adapter):
    """The Messages API's reader, bound to one accumulator; the block index is each call's key."""

    provider = "anthropic"

    def __init__(self, calls: CallOperations) -> None:
        super().__init__(calls)
        # The accumulator's open calls by key, and its add_delta as it is when the adapter is made (at
        # the stream's first Messages event; a wrapper set on the instance before, as
        # tooljson.protocols.steps sets one, is the one called): the hot path's two steps.
        self._open = calls.open_calls
        self._add_delta: Callable[[Any, str], None] = calls.add_delta
        self._route = calls.route

    def hot_path(self) -> Callable[[Any], list[ToolCall]]:
        return self.hot_feed

    def hot_feed(self, event: Any) -> list[ToolCall]:
        """Any event, a tool-input fragment in the fewest steps: the accumulator's ``feed`` once a
        Messages event was seen. Another source's event goes back to the accumulator's routing."""
        # Its shape is examined only when taking it failed: a try block costs nothing until it catches.
        try:
            if isinstance(event, dict):
                kind = event.get("type")
                if kind == "content_block_delta":
                    block = self._open.get(event.get("index"))
                    delta = event["delta"]
                    if delta.get("type") == "input_json_delta":
                        fragment = delta["partial_json"]
                        if block is None:
                            return self._stray_delta(event)
                        self._add_delta(block.index, fragment)
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
                    block = self._open.get(event.index)
                    delta = event.delta
                    if delta.type == "input_json_delta":
                        fragment = delta.partial_json
                        if block is None:
                            return self._stray_delta(event)
                        self._add_delta(block.index, fragment)
                        block.deltas += 1
                        block.chars += len(fragment)
                    return []
            if type(kind) is str and kind in _HOT_TYPES:
                return self._read(event, kind)
        except MalformedEvent:
            raise
        except _READING_ERRORS as error:
            raise malformed(event, error) from error
        return self._route(event)

    def feed(self, event: Any) -> list[ToolCall]:
        try:
            if isinstance(event, dict):
                kind = event.get("type")
            else:
                kind = getattr(event, "type", None)
            if kind == "content_block_delta":
                return self._delta(event)
            return self._read(event, kind)
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
            return self._stray_delta(event)
        self.calls.add_fragment(block, fragment)
        return []

    def _read(self, event: Any, kind: Any) -> list[ToolCall]:
        """A Messages API event other than a delta."""
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

    def _stray_delta(self, event: Any) -> list[ToolCall]:
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
