"""From stream events to finished tool calls: the accumulator, :class:`ToolCall` and the collectors.

:class:`ToolCallAccumulator` is the native accumulator plus :meth:`~ToolCallAccumulator.feed`, which
takes one stream event at a time (an ``anthropic`` SDK event object or the same event as a plain
dict) and returns the :class:`ToolCall` objects that event completed. Each call is parsed strictly at
its ``content_block_stop``; whether an unparsable call was *truncated* can only be decided once
``message_delta`` has brought the ``stop_reason``, which is why :class:`ToolCall` records the parse
outcome and :meth:`ToolCallAccumulator.state` gives the verdict.

Nothing here imports ``anthropic``: events are read by attribute or by key.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from tooljson import _native
from tooljson.errors import IncompleteJSONError, JSONDecodeError, MalformedJSONError
from tooljson.typed.calls import TypedCalls

__all__ = [
    "TOOL_BLOCK_TYPES",
    "CallState",
    "ParseState",
    "ToolBlock",
    "ToolCall",
    "ToolCallAccumulator",
    "acollect_tool_calls",
    "collect_tool_calls",
    "event_field",
]

ParseState = Literal["complete", "incomplete", "malformed"]
"""Where a text stands, in the parser's words (:attr:`tooljson.ParseStatus.state`)."""

CallState = Literal["streaming", "complete", "incomplete", "malformed", "truncated", "interrupted", "rejected"]
"""Where a tool call stands, in one vocabulary for the stream, the loop and the views: the parser's
words for a call whose block stopped, plus ``streaming`` (its block is still open), ``truncated``
(cut off because the response hit ``max_tokens``), ``interrupted`` (the stream broke off while the
block was open) and ``rejected`` (it parsed, but validation or routing refused it)."""

BlockType = Literal["tool_use", "server_tool_use"]

TOOL_BLOCK_TYPES: frozenset[str] = frozenset({"tool_use", "server_tool_use"})
"""Block types whose input streams as ``input_json_delta`` and that become :class:`ToolCall` s."""


def event_field(obj: Any, name: str) -> Any:
    """Read ``name`` from an SDK object or a dict alike (``None`` when absent)."""
    if isinstance(obj, dict):
        return obj.get(name)
    return getattr(obj, name, None)


@dataclass(eq=False, slots=True)
class ToolBlock:
    """A tool block as it streams: its identity from ``content_block_start`` and its progress."""

    index: Any
    id: str
    name: str
    block_type: BlockType
    deltas: int = 0
    chars: int = 0


@dataclass(frozen=True)
class ToolCall:
    """One tool call, parsed once its block stopped.

    ``input`` is what :func:`json.loads` returns for ``raw_json`` (``{}`` when no text streamed), or
    ``None`` when the text did not parse; ``error`` is then the :class:`tooljson.JSONDecodeError`
    (an :class:`~tooljson.IncompleteJSONError` for a cut-off text, a
    :class:`~tooljson.MalformedJSONError` otherwise) and ``status`` says which, in the parser's words.
    For such a call ``preview`` is the value as far as it was built and ``open_path`` the path left
    open where the text stopped (what a view shows of a broken call).
    """

    index: Any
    id: str
    name: str
    input: Any
    raw_json: str
    # The error follows from raw_json, and exceptions compare by identity: equality ignores it.
    error: JSONDecodeError | None = field(default=None, compare=False)
    status: ParseState = "complete"
    block_type: BlockType = "tool_use"
    preview: Any = field(default=None, compare=False)
    open_path: tuple[str | int, ...] | None = field(default=None, compare=False)
    # For a tool with a model (ToolCallAccumulator(models=...)): the validated instance, and the
    # field errors found while it streamed and at its end.
    parsed: Any = None
    validation_errors: tuple[Any, ...] = field(default=(), compare=False)

    @property
    def ok(self) -> bool:
        """Whether the input parsed."""
        return self.status == "complete"


class ToolCallAccumulator(TypedCalls, _native.ToolCallAccumulator):
    """The native accumulator, fed whole stream events.

    ``start``, ``add_delta``, ``finish`` and the rest keep the native behaviour unchanged; ``feed``
    drives them from events. Raw events (from ``messages.create(stream=True)``) and the helper stream
    of ``messages.stream(...)`` both work: the helper's derived events (``text``, ``input_json``,
    ``thinking``, ``citation``, ``signature``) repeat data of the raw events next to them and are
    ignored, so nothing is counted twice.

    After each event, ``stop_reason`` holds the message's stop reason once ``message_delta`` brought
    it, ``blocks`` lists every tool block started since the last ``message_start`` (with its progress)
    and ``calls`` every call completed since then.
    """

    stop_reason: str | None
    calls: list[ToolCall]
    blocks: list[ToolBlock]

    def __init__(self, *, models: Any = None, on_error: Any = None, **options: Any) -> None:
        # The native __new__ already took the keyword options (max_depth, max_size, preview and
        # event settings); this only sets the Python-side state.
        self.stop_reason = None
        self.calls = []
        self.blocks = []
        # The blocks started and not yet stopped, by index: finish forgets the index even when it raises.
        self._open: dict[Any, ToolBlock] = {}
        self.on_error = on_error

    def feed(self, event: Any) -> list[ToolCall]:
        """Take one stream event; return the tool calls it completed (usually none, or one)."""
        # Deltas are nearly every event of a long input: they take the shortest path, for dicts and
        # SDK objects alike, before anything else is looked at.
        if isinstance(event, dict):
            kind = event.get("type")
            if kind == "content_block_delta":
                block = self._open.get(event.get("index"))
                if block is not None:
                    delta = event["delta"]
                    if delta.get("type") == "input_json_delta":
                        fragment = delta["partial_json"]
                        self.add_delta(block.index, fragment)
                        block.deltas += 1
                        block.chars += len(fragment)
                return []
        else:
            kind = getattr(event, "type", None)
            if kind == "content_block_delta":
                block = self._open.get(event.index)
                if block is not None:
                    delta = event.delta
                    if delta.type == "input_json_delta":
                        fragment = delta.partial_json
                        self.add_delta(block.index, fragment)
                        block.deltas += 1
                        block.chars += len(fragment)
                return []
        if kind == "content_block_start":
            content = event_field(event, "content_block")
            block_type = event_field(content, "type")
            if block_type in TOOL_BLOCK_TYPES:
                index = event_field(event, "index")
                block = ToolBlock(index, event_field(content, "id"), event_field(content, "name"), block_type)
                self.start(index, block.name, block.id)
                self._open[index] = block
                self.blocks.append(block)
            return []
        if kind == "content_block_stop":
            index = event_field(event, "index")
            if index in self._open:
                return [self._finish_call(index)]
            return []
        if kind == "message_delta":
            self.stop_reason = event_field(event_field(event, "delta"), "stop_reason")
            # A block left open when the message ends still gets its verdict rather than vanishing.
            return [self._finish_call(index) for index in list(self._open)]
        if kind == "message_start":
            for index in self._open:
                self.discard(index)
            self._open.clear()
            self.stop_reason = None
            self.calls = []
            self.blocks = []
        return []

    def _finish_call(self, index: Any) -> ToolCall:
        block = self._open.pop(index)
        raw = self.text(index)
        preview = open_path = None
        if raw and self.status(index).state != "complete":
            # Kept for views: what was built before the text broke or stopped, and where.
            preview, open_path = self.preview(index), self.open_path(index)
        try:
            value = self.finish(index)["input"]
        except ValueError as exc:
            # json.loads raises a plain ValueError for integers past the digit limit: still unusable
            # input, so it is reported like any other malformed text.
            error = exc if isinstance(exc, JSONDecodeError) else MalformedJSONError(str(exc), raw, 0)
            status: ParseState = "incomplete" if isinstance(error, IncompleteJSONError) else "malformed"
            call = ToolCall(block.index, block.id, block.name, None, raw, error, status, block.block_type, preview, open_path)
        else:
            parsed, problems = self.validate_finished(index, block.name, raw, value)
            call = ToolCall(block.index, block.id, block.name, value, raw, None, "complete", block.block_type,
                            parsed=parsed, validation_errors=problems)
        self.calls.append(call)
        return call

    def state(self, call: ToolCall) -> CallState:
        """The verdict on a finished call: its parse outcome, or ``truncated`` when it was cut off
        and ``stop_reason`` is ``max_tokens`` (decidable only after ``message_delta``)."""
        if call.status == "incomplete" and self.stop_reason == "max_tokens":
            return "truncated"
        return call.status

    def is_truncated(self, call: ToolCall) -> bool:
        """Whether ``call`` was cut off by ``max_tokens`` (decidable only after ``message_delta``).

        A cut-off call is a valid prefix: answering it with the INVALID_JSON wrapper would not tell
        the model it ran out of tokens, so it calls for a larger ``max_tokens`` instead.
        """
        return self.state(call) == "truncated"

    def is_invalid(self, call: ToolCall) -> bool:
        """Whether ``call`` is unparsable for a reason other than ``max_tokens``: answer it with
        :func:`~tooljson.invalid_json_result` and do not run the tool."""
        return self.state(call) in ("incomplete", "malformed")


def collect_tool_calls(stream: Iterable[Any], **options: Any) -> ToolCallAccumulator:
    """Feed every event of ``stream`` to a new accumulator (made with ``options``) and return it;
    its ``calls`` and ``stop_reason`` say what the stream held."""
    accumulator = ToolCallAccumulator(**options)
    feed = accumulator.feed
    for event in stream:
        feed(event)
    return accumulator


async def acollect_tool_calls(stream: AsyncIterable[Any], **options: Any) -> ToolCallAccumulator:
    """Like :func:`collect_tool_calls` for an async stream."""
    accumulator = ToolCallAccumulator(**options)
    feed = accumulator.feed
    async for event in stream:
        feed(event)
    return accumulator
