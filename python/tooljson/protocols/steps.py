"""One stream read once, told as neutral steps that the protocol encoders write out.

:class:`StreamSteps` owns a :class:`~tooljson.TurnReader` and turns its news into :data:`Step` s: a
response begins, text grows, a call begins, its text grows, a stable preview of its input, the
call ends with its verdict, the response ends with a finish reason, the stream breaks. The reader
decides every verdict; nothing here parses. :meth:`StreamSteps.steps` and :meth:`StreamSteps.asteps` drive it over a sync
or async stream of any source :meth:`~tooljson.TurnReader.feed` reads, and never raise for what the
stream does: an event of the wrong shape or a stream that breaks becomes a :class:`StreamBreaks`
step, and the upstream stream is closed however the consumer stops.

The news comes from two places, both public: the reader's accumulator tells a
:class:`~tooljson.watch.CallWatcher` when a call begins, ends or the response stops (in order, as it
happens), and each block's ``chars`` counter says its text grew. A call's text and preview are read
at most once per ``interval`` seconds (``0``: after every event that added to it), so one part per
fragment is never the cost of a long input: the AI SDK's client re-parses the whole input on every
delta part it gets.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from tooljson.calls import CallState, ToolBlock, ToolCall
from tooljson.errors import JSONDecodeError
from tooljson.providers.registry import is_cut_off
from tooljson.turn import TurnReader, describe_break
from tooljson.watch import CallWatcher

__all__ = [
    "CallBegins",
    "CallDelta",
    "CallEnds",
    "CallPreview",
    "FinishReason",
    "ResponseBegins",
    "ResponseEnds",
    "Step",
    "StreamBreaks",
    "StreamSteps",
    "TextBegins",
    "TextDelta",
    "TextEnds",
    "aclose_stream",
    "close_stream",
    "snapshot",
]

FinishReason = Literal["stop", "length", "tool-calls", "error"]
"""Why a response ended, in the UI protocols' words: ``stop`` (the model finished), ``length`` (the
token limit), ``tool-calls`` (it asks for tools), ``error`` (the stream broke or the model made a
call that is not one)."""


@dataclass(frozen=True, slots=True)
class ResponseBegins:
    """A model response begins (the AI SDK's step)."""


@dataclass(frozen=True, slots=True)
class TextBegins:
    text_id: str


@dataclass(frozen=True, slots=True)
class TextDelta:
    text_id: str
    delta: str


@dataclass(frozen=True, slots=True)
class TextEnds:
    text_id: str


@dataclass(frozen=True, slots=True)
class CallBegins:
    call_id: str
    name: str


@dataclass(frozen=True, slots=True)
class CallDelta:
    """The next piece of a call's argument text (the pieces join to exactly the call's text)."""

    call_id: str
    text: str


@dataclass(frozen=True, slots=True)
class CallPreview:
    """A snapshot of a call's stable preview (:func:`snapshot`): it never changes afterwards."""

    call_id: str
    value: Any


@dataclass(frozen=True, slots=True)
class CallEnds:
    """A call's final word. ``verdict`` is the reader's (:meth:`~tooljson.TurnReader.state`):
    ``complete`` with ``value`` the parsed input, or ``malformed``, ``incomplete``, ``truncated``
    or ``interrupted`` with ``position`` (where the text went wrong or stopped) and ``message``
    (one line that says what happened and where). ``text`` is the call's whole argument text."""

    call_id: str
    name: str
    verdict: CallState
    text: str
    value: Any = None
    position: int | None = None
    message: str | None = None


@dataclass(frozen=True, slots=True)
class ResponseEnds:
    """A model response ended: ``finish`` in the UI protocols' words, ``stop_reason`` in the source's."""

    finish: FinishReason
    stop_reason: str | None


@dataclass(frozen=True, slots=True)
class StreamBreaks:
    """The stream broke off (the upstream raised, or sent an event of the wrong shape): ``message``
    says why in a line. Nothing follows but the end of the responses it cut."""

    message: str


Step = (
    ResponseBegins
    | TextBegins
    | TextDelta
    | TextEnds
    | CallBegins
    | CallDelta
    | CallPreview
    | CallEnds
    | ResponseEnds
    | StreamBreaks
)
"""What one stream says, in order, whichever protocol writes it out."""

_NOTHING: tuple[Step, ...] = ()
_ABSENT = object()


def snapshot(value: Any, open_path: Sequence[str | int] | None) -> Any:
    """A copy of a preview that never changes, at the cost of the containers still open.

    The preview is filled in place, but only along its open path (the core's word: every other
    value in it is complete and never changes again). So copying each container on that path, and
    sharing everything else, gives a value that stays as it was when taken.
    """
    if not isinstance(value, (dict, list)):
        return value
    top: Any = value.copy()
    if not open_path:
        return top
    copied: Any = top
    original: Any = value
    for key in open_path:
        try:
            child = original[key]
        except (KeyError, IndexError, TypeError):
            # The open value is not shown yet: nothing deeper is.
            break
        if not isinstance(child, (dict, list)):
            # A string still growing is replaced, never changed, in its container.
            break
        child_copy = child.copy()
        copied[key] = child_copy
        copied, original = child_copy, child
    return top


class _Call:
    """What the steps know of one call: its block, the id it goes by, how much text was sent."""

    __slots__ = ("announced", "block", "call_id", "chars", "pieces", "sent")

    def __init__(self, block: ToolBlock) -> None:
        self.block = block
        self.call_id = ""
        self.announced = False
        # block.chars when last looked at, and how many characters of its text were sent.
        self.chars = 0
        self.sent = 0
        # With interval 0, the fragments as they came (read without copying the whole text).
        self.pieces: list[str] | None = None


class StreamSteps:
    """The steps of one stream: feed it each event, then :meth:`close` it.

    ``interval`` is the least time, in seconds, between two reads of a call's text and preview
    (one :class:`CallDelta` and one :class:`CallPreview` per call per interval; ``0``: after
    every event that added to it), and between two reads of the response's text (one
    :class:`TextDelta` per interval; whatever is held is said before anything that follows it).
    ``previews=False`` leaves the previews out. ``clock`` is what measures the interval.
    """

    def __init__(
        self,
        *,
        interval: float = 0.05,
        previews: bool = True,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        if not interval >= 0:
            raise ValueError(f"the interval must be a number of seconds, at least 0, not {interval!r}")
        self.reader = TurnReader()
        self.interval = interval
        self.previews = previews
        self.clock = clock
        self._accumulator = self.reader.accumulator
        self._out: list[Step] = []
        self._open: list[_Call] = []
        self._by_block: dict[int, _Call] = {}
        # With interval 0, the open calls by the accumulator's index (their fragments are kept).
        self._by_index: dict[Any, _Call] = {}
        # Calls whose text ended cut off, waiting for the stop reason that says truncated or not.
        self._pending: list[_Call] = []
        self._due = 0.0
        self._text_due = 0.0
        # The clock is looked at every _stride growing events (_countdown: how many are left).
        self._checked = 0.0
        self._stride = 1
        self._countdown = 0
        self._hot: _Call | None = None
        self._feed = self.reader.feed
        self._in_response = False
        self._response_calls = 0
        self._calls_begun = 0
        self._text_id: str | None = None
        self._texts = 0
        self._text_seen = 0
        self._closed = False
        self.finish: FinishReason | None = None
        # Told what the accumulator tells watchers (self is one), then passing it on to whoever
        # watched before (telemetry).
        self._inner: CallWatcher | None = self._accumulator.watcher
        self._accumulator.watcher = self
        if interval == 0:
            self._capture_fragments()

    def _capture_fragments(self) -> None:
        # Reading a call's whole text after every event would cost its length each time: with no
        # interval, each fragment is kept as the accumulator takes it (the instance's add_delta
        # wraps the class's; the Messages fast path and every adapter call it).
        add_delta = self._accumulator.add_delta
        by_index = self._by_index

        def capture(index: Any, fragment: str) -> None:
            add_delta(index, fragment)
            tracked = by_index.get(index)
            if tracked is not None and tracked.pieces is not None:
                tracked.pieces.append(fragment)

        self._accumulator.add_delta = capture  # type: ignore[method-assign]

    def steps(self, events: Iterable[Any]) -> Iterator[Step]:
        """The steps of a sync stream, fed to this object; closes the stream however this ends."""
        try:
            iterator = iter(events)
        except TypeError as error:
            yield from self.close(error, bad_event=events)
            return
        # StreamSteps.feed, inlined: a long input is thousands of events that say nothing new.
        feed = self.reader.feed
        other = self._other
        bad: Exception | None = None
        event: Any = _ABSENT
        # The countdown is kept here, a local: the watcher takes a call off the fast path by
        # setting _hot to None.
        countdown = 0
        try:
            try:
                for event in iterator:
                    try:
                        feed(event)
                        countdown -= 1
                        if countdown > 0 and self._hot is not None:
                            continue
                        produced = other()
                        countdown = self._countdown
                    except Exception as error:  # noqa: BLE001 - an event of the wrong shape: said in a step
                        bad = error
                        break
                    if produced:
                        yield from produced
            except Exception as error:  # noqa: BLE001 - the stream broke: said in a step
                yield from self.close(error)
                return
            yield from self.close(bad, bad_event=event if bad is not None else _ABSENT)
        finally:
            close_stream(events, iterator)

    async def asteps(self, events: AsyncIterable[Any] | Iterable[Any]) -> AsyncIterator[Step]:
        """The steps of an async stream (or a sync one), fed to this object; closes the stream
        however this ends (a client that went away included)."""
        if not isinstance(events, AsyncIterable):
            for step in self.steps(events):
                yield step
            return
        iterator = events.__aiter__()
        feed = self.reader.feed
        other = self._other
        try:
            while True:
                try:
                    event = await iterator.__anext__()
                except StopAsyncIteration:
                    break
                except Exception as error:  # noqa: BLE001 - the stream broke: said in a step
                    for step in self.close(error):
                        yield step
                    return
                try:
                    feed(event)
                    self._countdown -= 1
                    if self._countdown > 0:
                        continue
                    produced = other()
                except Exception as error:  # noqa: BLE001 - an event of the wrong shape: said in a step
                    for step in self.close(error, bad_event=event):
                        yield step
                    return
                for step in produced:
                    yield step
            for step in self.close():
                yield step
        finally:
            await aclose_stream(events, iterator)

    # --- input

    def feed(self, event: Any) -> Sequence[Step]:
        """Take the next event; return the steps it caused (often none). Raises what
        :meth:`~tooljson.TurnReader.feed` raises for an event of the wrong shape."""
        self._feed(event)
        # The bulk of a long stream: more text for the one open call and nothing else (anything else
        # that happened told the watcher, which set the countdown to 0). Looked at every few events
        # while they come much faster than the interval (see _tick); always without one open call.
        self._countdown -= 1
        if self._countdown > 0:
            return _NOTHING
        return self._other()

    def _other(self) -> Sequence[Step]:
        """After an event that began or ended something, added text, or fed several calls."""
        grew = False
        for tracked in self._open:
            if tracked.block.chars != tracked.chars:
                tracked.chars = tracked.block.chars
                grew = True
        if grew:
            if self.interval == 0:
                self._flush_calls()
            else:
                self._tick()
        elif self.interval == 0:
            self._read_text()
        else:
            # The assembled text costs its length to read: at most once per interval too (and
            # before anything else is said, so the order stays the stream's).
            now = self.clock()
            if now >= self._text_due:
                self._text_due = now + self.interval
                self._read_text()
        # The fast path of feed serves a single open call, read at an interval.
        self._hot = self._open[0] if len(self._open) == 1 and self.interval > 0 else None
        if self._hot is None:
            self._countdown = 0
        elif self._countdown <= 0:
            self._countdown = self._stride
        if self._out:
            out, self._out = self._out, []
            return out
        return _NOTHING

    def _tick(self) -> None:
        """Read the open calls if ``interval`` passed since the last read. Looking at the clock
        costs about a sixth of reading an event, so while events come much faster than the interval
        it is looked at every few of them (up to 64: a burst of events read in one go), and as soon
        as they slow down, at each."""
        now = self.clock()
        if now - self._checked < self.interval / 8:
            self._stride = min(self._stride * 2, 64)
        else:
            self._stride = 1
        self._checked = now
        self._countdown = self._stride
        if now >= self._due:
            self._due = now + self.interval
            self._flush_calls()

    def close(self, error: BaseException | None = None, *, bad_event: Any = _ABSENT) -> Sequence[Step]:
        """The stream ended (``error``: it raised that; with ``bad_event``, the event it raised
        reading, whose shape was wrong). Returns the last steps: every call still open or waiting
        gets its verdict, the response ends, and a :class:`StreamBreaks` says why when the stream
        broke, never ended properly, or the model made a call that is not one (Gemini's
        ``MALFORMED_FUNCTION_CALL``). Later calls return nothing."""
        if self._closed:
            return _NOTHING
        self._closed = True
        reader = self.reader
        message: str | None = None
        if error is not None:
            if bad_event is not _ABSENT:
                what = " ".join(str(error).split())
                message = f"event {reader.events} of the stream ({_kind(bad_event)}) cannot be read: {what}"
            else:
                message = describe_break(error, reader.provider)
            reader.interrupt(message, error)
        elif reader.interruption is not None:
            message = reader.interruption
        elif not reader.stopped and reader.events > 0:
            message = describe_break(None, reader.provider)
            reader.interrupt(message)
        elif reader.events == 0:
            message = "the stream ended before its first event"
            reader.interrupt(message)
        elif reader.refused:
            # No call came, only the source's word that the model made one that is not one.
            said = reader.stop_message
            message = f"the model made a call that is not one ({reader.stop_reason})" + (
                f": {said}" if said else ""
            )
        self._read_text()
        self._end_response(broken=message is not None)
        if message is not None:
            self._out.append(StreamBreaks(message))
        out, self._out = self._out, []
        return out

    # --- what a watcher is told (in order, while the reader reads an event)

    def began(self, block: ToolBlock) -> None:
        """A call began (:class:`~tooljson.watch.CallWatcher`)."""
        self._began(block)
        if self._inner is not None:
            self._inner.began(block)

    def ended(self, block: ToolBlock) -> None:
        """A call's text ended and was parsed."""
        self._ended(block)
        if self._inner is not None:
            self._inner.ended(block)

    def stopped(self, blocks: Sequence[ToolBlock], *, whole: bool) -> None:
        """The response, or one part of it, stopped."""
        self._stopped(blocks)
        if self._inner is not None:
            self._inner.stopped(blocks, whole=whole)

    def dropped(self, blocks: Sequence[ToolBlock]) -> None:
        """A new response began in the reader."""
        self._dropped(blocks)
        if self._inner is not None:
            self._inner.dropped(blocks)

    def interrupted(self) -> None:
        """The stream broke off (this object says so at :meth:`close`)."""
        if self._inner is not None:
            self._inner.interrupted()

    def _began(self, block: ToolBlock) -> None:
        self._hot = None
        self._countdown = 0
        self._read_text()
        self._begin_response()
        self._end_text()
        tracked = _Call(block)
        self._open.append(tracked)
        self._by_block[id(block)] = tracked
        if self.interval == 0 and block.free_text is None:
            tracked.pieces = []
            self._by_index[block.index] = tracked
        self._response_calls += 1
        self._announce(tracked)

    def _ended(self, block: ToolBlock) -> None:
        self._hot = None
        self._countdown = 0
        tracked = self._by_block.pop(id(block), None)
        if tracked is None:
            return
        self._open.remove(tracked)
        if self.interval == 0:
            self._by_index.pop(block.index, None)
        call = block.call
        if call is None:
            return
        self._announce(tracked, call)
        if tracked.sent < len(call.raw_json):
            self._out.append(CallDelta(tracked.call_id, call.raw_json[tracked.sent :]))
            tracked.sent = len(call.raw_json)
        if call.status == "incomplete" and self._accumulator.stop_reason_for(call) is None:
            # Cut off: truncated or not is said by the stop reason, which comes later.
            self._pending.append(tracked)
        else:
            self._out.append(self._verdict(tracked, call))

    def _stopped(self, blocks: Sequence[ToolBlock]) -> None:
        """The response (or one part of it) stopped: ``blocks`` were ended by it, and the calls cut
        off before it get their verdict now that the stop reason is known."""
        self._hot = None
        self._countdown = 0
        for block in blocks:
            self._ended(block)
        still = []
        for tracked in self._pending:
            call = tracked.block.call
            if call is not None and self._accumulator.stop_reason_for(call) is None:
                still.append(tracked)
            elif call is not None:
                self._out.append(self._verdict(tracked, call))
        self._pending = still

    def _dropped(self, blocks: Sequence[ToolBlock]) -> None:
        """A new response begins in the reader: the last one ends here, while its state is intact."""
        self._hot = None
        self._countdown = 0
        self._read_text()
        self._end_response(broken=False, dropped=blocks)
        self._text_seen = 0

    # --- reading

    def _read_text(self) -> None:
        text = self.reader.assembler.text
        seen = self._text_seen
        if len(text) == seen:
            return
        if len(text) < seen:
            # The assembler began another response.
            seen = 0
        self._begin_response()
        if self._text_id is None:
            self._texts += 1
            self._text_id = f"text-{self._texts}"
            self._out.append(TextBegins(self._text_id))
        self._out.append(TextDelta(self._text_id, text[seen:]))
        self._text_seen = len(text)

    def _end_text(self) -> None:
        if self._text_id is not None:
            self._out.append(TextEnds(self._text_id))
            self._text_id = None

    def _begin_response(self) -> None:
        if not self._in_response:
            self._in_response = True
            self._response_calls = 0
            self._out.append(ResponseBegins())

    def _announce(self, tracked: _Call, call: ToolCall | None = None, *, mint: bool = False) -> None:
        """Say the call began, once it has an id (some sources send it after the call began); with
        ``call`` or ``mint``, now, under an id made up if it still has none."""
        if tracked.announced:
            return
        call_id = tracked.block.id or (call.id if call is not None else "")
        if not call_id:
            if call is None and not mint:
                return
            call_id = f"call-{self._calls_begun + 1}"
        self._calls_begun += 1
        tracked.call_id = call_id
        tracked.announced = True
        name = tracked.block.name or (call.name if call is not None else "")
        self._out.append(CallBegins(call_id, name))

    def _flush_calls(self) -> None:
        accumulator = self._accumulator
        for tracked in self._open:
            self._announce(tracked)
            if not tracked.announced:
                continue
            block = tracked.block
            if tracked.pieces is not None:
                if not tracked.pieces:
                    continue
                piece = "".join(tracked.pieces)
                tracked.pieces.clear()
            else:
                text = accumulator.received(block)
                if len(text) <= tracked.sent:
                    continue
                piece = text[tracked.sent :]
            self._out.append(CallDelta(tracked.call_id, piece))
            tracked.sent += len(piece)
            if self.previews and block.free_text is None:
                value = accumulator.preview(block.index)
                if value is not None:
                    taken = snapshot(value, accumulator.open_path(block.index))
                    self._out.append(CallPreview(tracked.call_id, taken))

    def _verdict(self, tracked: _Call, call: ToolCall) -> CallEnds:
        verdict = self.reader.state(call)
        name = call.name or tracked.block.name
        if verdict == "complete":
            return CallEnds(tracked.call_id, name, verdict, call.raw_json, call.input)
        error = call.error
        position = error.pos if isinstance(error, JSONDecodeError) else len(call.raw_json)
        stop_reason = self._accumulator.stop_reason_for(call)
        if verdict == "truncated":
            message = (
                f"cut off at the token limit (stop reason {stop_reason}) after {len(call.raw_json)} "
                "characters: the input is incomplete; raise the limit and ask again"
            )
        elif verdict == "malformed":
            where = f"line {error.lineno} column {error.colno} (char {error.pos})" if error else "its text"
            what = error.msg if error is not None else "not valid JSON"
            message = f"malformed JSON at {where}: {what}"
        else:
            message = f"the input ended at char {position} before its JSON was complete" + (
                f" (stop reason {stop_reason})" if stop_reason is not None else ""
            )
        return CallEnds(tracked.call_id, name, verdict, call.raw_json, None, position, message)

    def _end_response(self, *, broken: bool, dropped: Sequence[ToolBlock] | None = None) -> None:
        """End the response being read: settle every call, then its text, then say how it ended.
        ``dropped``: a new response begins (the reader drops those blocks, still open)."""
        accumulator = self._accumulator
        for tracked in self._open:
            block = tracked.block
            self._announce(tracked, mint=True)
            held = block.free_text is not None or block.index in accumulator
            text = accumulator.received(block) if held else ""
            if len(text) > tracked.sent:
                self._out.append(CallDelta(tracked.call_id, text[tracked.sent :]))
                tracked.sent = len(text)
            self._out.append(self._broken_off(tracked, text, dropped=dropped is not None))
        self._open.clear()
        self._by_block.clear()
        self._by_index.clear()
        for tracked in self._pending:
            call = tracked.block.call
            if call is not None:
                self._out.append(self._verdict(tracked, call))
        self._pending = []
        if not self._in_response and dropped is not None:
            # Nothing was said of the response before this one (the first one begins).
            return
        self._begin_response()
        self._end_text()
        reader = self.reader
        stop_reason = reader.stop_reason
        finish: FinishReason
        if broken or reader.refused:
            finish = "error"
        elif reader.provider is not None and is_cut_off(reader.provider, stop_reason):
            finish = "length"
        elif self._response_calls:
            finish = "tool-calls"
        else:
            finish = "stop"
        self.finish = finish
        self._out.append(ResponseEnds(finish, stop_reason))
        self._in_response = False

    def _broken_off(self, tracked: _Call, text: str, *, dropped: bool) -> CallEnds:
        """The verdict on a call whose text never ended: malformed when the text already was,
        else interrupted."""
        block = tracked.block
        accumulator = self._accumulator
        if block.free_text is None and block.index in accumulator:
            status = accumulator.status(block.index)
            if status.state == "malformed":
                message = f"malformed JSON at char {status.pos}: {status.msg}"
                return CallEnds(tracked.call_id, block.name, "malformed", text, None, status.pos, message)
        why = (
            "a new response began before the call's input ended"
            if dropped
            else f"the stream broke off before the call's input ended ({self.reader.interruption})"
        )
        message = f"{why}, after {len(text)} characters"
        return CallEnds(tracked.call_id, block.name, "interrupted", text, None, len(text), message)


def _kind(event: Any) -> str:
    """What an event is, in a few words: its ``type``, else its class."""
    kind = event.get("type") if isinstance(event, dict) else getattr(event, "type", None)
    if isinstance(kind, str):
        return f"{type(event).__name__} of type {kind[:60]!r}"
    return type(event).__name__


def close_stream(*streams: Any) -> None:
    """Close the first of ``streams`` that can be closed (an SDK stream, a generator); closing
    one already closed does nothing."""
    for stream in streams:
        close = getattr(stream, "close", None)
        if callable(close):
            try:
                result = close()
            except Exception:  # noqa: BLE001 - closing what is already broken: nothing more to say
                continue
            if inspect.isawaitable(result):
                # An async stream's close, reached from sync code: nothing can await it here.
                close_awaitable = getattr(result, "close", None)
                if callable(close_awaitable):
                    close_awaitable()
            return


async def aclose_stream(*streams: Any) -> None:
    """Close the first of ``streams`` that can be closed, awaiting an async close."""
    for stream in streams:
        close = getattr(stream, "aclose", None) or getattr(stream, "close", None)
        if callable(close):
            try:
                result = close()
                if inspect.isawaitable(result):
                    await result
            except Exception:  # noqa: BLE001 - closing what is already broken: nothing more to say
                continue
            return
