"""Any source's stream as AG-UI events, verdicts included (the ``ag-ui`` extra).

:func:`events` yields the ``ag-ui-protocol`` package's own event models (``ag_ui.core``), which its
``EventEncoder`` writes as server-sent events; :func:`aevents` does the same for an async stream.
They take whatever :meth:`tooljson.TurnReader.feed` takes, and never raise for what the stream does.

Events, in order: ``RunStarted``; the text as ``TextMessageStart`` / ``TextMessageContent`` /
``TextMessageEnd``; per call ``ToolCallStart``, ``ToolCallArgs`` (its text, in pieces that join to
exactly it) and ``ToolCallEnd``; for a call that is not whole JSON (malformed, cut off at the token
limit, or broken off), right after its end, a ``Custom`` event named
``tooljson.tool_call_verdict`` with value {``toolCallId``, ``verdict``, ``position``, ``message``}
(the protocol has no word of its own for it); then ``RunFinished``, or ``RunError`` when the stream
broke or sent an event of the wrong shape.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterable, Generator, Iterable
from typing import TYPE_CHECKING, Any

from tooljson.extras import require
from tooljson.protocols.steps import (
    CallBegins,
    CallDelta,
    CallEnds,
    Step,
    StreamBreaks,
    StreamSteps,
    TextBegins,
    TextDelta,
    TextEnds,
    aclose_stream,
    close_stream,
)

if TYPE_CHECKING:
    from ag_ui.core import BaseEvent

__all__ = ["VERDICT_EVENT", "aevents", "events"]

VERDICT_EVENT = "tooljson.tool_call_verdict"
"""The name of the ``Custom`` event that gives a call's verdict when its input is not whole JSON."""

ARGS_INTERVAL = 0.05
"""The least time, in seconds, between two ``ToolCallArgs`` of one call (each carries all the text
since the last one)."""


class _Events:
    """Steps to AG-UI events, for one run."""

    def __init__(self, thread_id: str, run_id: str) -> None:
        require("tooljson.protocols.ag_ui", "ag_ui")
        from ag_ui import core

        self.core = core
        self.thread_id = thread_id
        self.run_id = run_id
        self.message_id: str | None = None
        self.broken: str | None = None

    def message(self, text_id: str) -> str:
        """A text's message id, unique in the thread (the steps number texts within one stream)."""
        return f"{self.run_id}-{text_id}"

    def started(self) -> BaseEvent:
        return self.core.RunStartedEvent(thread_id=self.thread_id, run_id=self.run_id)

    def of(self, step: Step) -> list[BaseEvent]:
        core = self.core
        if isinstance(step, CallDelta):
            if not step.text:
                return []
            return [core.ToolCallArgsEvent(tool_call_id=step.call_id, delta=step.text)]
        if isinstance(step, TextDelta):
            if not step.delta:
                return []
            return [core.TextMessageContentEvent(message_id=self.message(step.text_id), delta=step.delta)]
        if isinstance(step, CallBegins):
            return [
                core.ToolCallStartEvent(
                    tool_call_id=step.call_id, tool_call_name=step.name, parent_message_id=self.message_id
                )
            ]
        if isinstance(step, CallEnds):
            ended: list[BaseEvent] = [core.ToolCallEndEvent(tool_call_id=step.call_id)]
            if step.verdict != "complete":
                value = {
                    "toolCallId": step.call_id,
                    "verdict": step.verdict,
                    "position": step.position,
                    "message": step.message,
                }
                ended.append(core.CustomEvent(name=VERDICT_EVENT, value=value))
            return ended
        if isinstance(step, TextBegins):
            self.message_id = self.message(step.text_id)
            return [core.TextMessageStartEvent(message_id=self.message_id, role="assistant")]
        if isinstance(step, TextEnds):
            return [core.TextMessageEndEvent(message_id=self.message(step.text_id))]
        if isinstance(step, StreamBreaks):
            self.broken = step.message
        # Previews and the response boundaries have no AG-UI event.
        return []

    def finished(self) -> BaseEvent:
        if self.broken is not None:
            return self.core.RunErrorEvent(message=self.broken, code="stream_broken")
        return self.core.RunFinishedEvent(thread_id=self.thread_id, run_id=self.run_id)


def events(events: Iterable[Any], *, thread_id: str, run_id: str) -> Generator[BaseEvent, None, None]:
    """The AG-UI events of one run for ``events`` (a sync stream of any source).

    Raises :class:`~tooljson.MissingExtra` without the ``ag-ui-protocol`` package (before reading
    anything). Closing this generator closes ``events``.
    """
    writer = _Events(thread_id, run_id)
    machine = StreamSteps(interval=ARGS_INTERVAL, previews=False)
    return _events(writer, machine, events)


def _events(writer: _Events, machine: StreamSteps, stream: Iterable[Any]) -> Generator[BaseEvent, None, None]:
    try:
        yield writer.started()
        for step in machine.steps(stream):
            yield from writer.of(step)
        yield writer.finished()
    finally:
        # Closed before the steps began (after RunStarted), the stream is closed here.
        close_stream(stream)


def aevents(
    events: AsyncIterable[Any] | Iterable[Any], *, thread_id: str, run_id: str
) -> AsyncGenerator[BaseEvent, None]:
    """:func:`events` for an async stream (a sync one works too)."""
    writer = _Events(thread_id, run_id)
    machine = StreamSteps(interval=ARGS_INTERVAL, previews=False)
    return _aevents(writer, machine, events)


async def _aevents(
    writer: _Events, machine: StreamSteps, stream: AsyncIterable[Any] | Iterable[Any]
) -> AsyncGenerator[BaseEvent, None]:
    try:
        yield writer.started()
        async for step in machine.asteps(stream):
            for event in writer.of(step):
                yield event
        yield writer.finished()
    finally:
        await aclose_stream(stream)
