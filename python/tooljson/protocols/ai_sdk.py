"""Any source's stream as the Vercel AI SDK's UI message stream (v1), verdicts included.

:func:`parts` yields the stream's parts as dicts, :func:`sse` the server-sent events a ``useChat``
client reads (``data: <json>`` per part, then ``data: [DONE]``), with :data:`HEADERS`;
:func:`aparts` and :func:`asse` do the same for an async stream. They take whatever
:meth:`tooljson.TurnReader.feed` takes (SDK event objects or dicts, of any registered source), and
never raise for what the stream does: an event of the wrong shape or a stream that breaks ends
with an ``error`` part.

Parts, in order: ``start`` {``messageId``}; per response ``start-step``, its text as
``text-start`` / ``text-delta`` / ``text-end``, per call ``tool-input-start``, ``tool-input-delta``
(its text, in pieces that join to exactly it), ``data-tool-input-preview`` (a stable preview of its
input, so the browser parses nothing), then ``tool-input-available`` (``input`` is what
:func:`json.loads` gives for the text) or ``tool-input-error`` (malformed, cut off at the token
limit, or broken off, and where), then ``finish-step``; ``error`` {``errorText``} when the stream
broke; ``finish`` {``finishReason``}. Every part is a new object that nothing changes afterwards
(treat it as read-only: a preview shares its finished values with the next one).
"""

from __future__ import annotations

import json
import math
import uuid
from collections.abc import AsyncGenerator, AsyncIterable, AsyncIterator, Generator, Iterable, Iterator
from typing import Any

from tooljson.protocols.steps import (
    CallBegins,
    CallDelta,
    CallEnds,
    CallPreview,
    FinishReason,
    ResponseBegins,
    ResponseEnds,
    Step,
    StreamBreaks,
    StreamSteps,
    TextBegins,
    TextDelta,
    TextEnds,
    aclose_stream,
    close_stream,
)

__all__ = ["HEADERS", "PREVIEW_PART", "PartWriter", "aparts", "asse", "encode", "parts", "sse"]

HEADERS: dict[str, str] = {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    "x-vercel-ai-ui-message-stream": "v1",
    "x-accel-buffering": "no",
}
"""The response headers of a UI message stream (``x-vercel-ai-ui-message-stream: v1`` tells the
client which protocol it reads; ``x-accel-buffering: no`` keeps a reverse proxy from holding parts)."""

PREVIEW_PART = "data-tool-input-preview"
"""The type of the data part that carries a call's stable preview: ``id`` is the call's id (a data
part with the same ``id`` replaces the last one on the client), ``data`` is ``{"input": preview}``."""

DONE = "data: [DONE]\n\n"


class PartWriter:
    """Steps to parts, for one stream: what :func:`parts` writes each step as, for a caller that
    drives :class:`~tooljson.protocols.steps.StreamSteps` itself (one event at a time, say).
    ``finish`` is the finish reason the last response ended with."""

    __slots__ = ("finish", "names")

    def __init__(self) -> None:
        self.finish: FinishReason = "stop"
        self.names: dict[str, str] = {}

    def part(self, step: Step) -> dict[str, Any]:
        if isinstance(step, CallDelta):
            return {"type": "tool-input-delta", "toolCallId": step.call_id, "inputTextDelta": step.text}
        if isinstance(step, CallPreview):
            return {"type": PREVIEW_PART, "id": step.call_id, "data": {"input": step.value}}
        if isinstance(step, TextDelta):
            return {"type": "text-delta", "id": step.text_id, "delta": step.delta}
        if isinstance(step, CallBegins):
            self.names[step.call_id] = step.name
            return {"type": "tool-input-start", "toolCallId": step.call_id, "toolName": step.name}
        if isinstance(step, CallEnds):
            name = step.name or self.names.get(step.call_id, "")
            if step.verdict == "complete":
                return {
                    "type": "tool-input-available",
                    "toolCallId": step.call_id,
                    "toolName": name,
                    "input": step.value,
                }
            return {
                "type": "tool-input-error",
                "toolCallId": step.call_id,
                "toolName": name,
                "input": step.text,
                "errorText": step.message or step.verdict,
            }
        if isinstance(step, TextBegins):
            return {"type": "text-start", "id": step.text_id}
        if isinstance(step, TextEnds):
            return {"type": "text-end", "id": step.text_id}
        if isinstance(step, ResponseBegins):
            return {"type": "start-step"}
        if isinstance(step, ResponseEnds):
            self.finish = step.finish
            return {"type": "finish-step"}
        if isinstance(step, StreamBreaks):
            self.finish = "error"
            return {"type": "error", "errorText": step.message}
        raise TypeError(f"not a step: {step!r}")  # pragma: no cover - every step is listed above


def _start(message_id: str | None) -> dict[str, Any]:
    return {"type": "start", "messageId": message_id if message_id is not None else f"msg-{uuid.uuid4().hex}"}


def _machine(preview_interval: float) -> StreamSteps:
    return StreamSteps(interval=preview_interval)


def parts(
    events: Iterable[Any], *, preview_interval: float = 0.05, message_id: str | None = None
) -> Generator[dict[str, Any], None, None]:
    """The UI message stream's parts for ``events`` (a sync stream of any source), as dicts.

    ``preview_interval``: at most one ``tool-input-delta`` and one ``data-tool-input-preview`` per
    call, and one ``text-delta``, per that many seconds (each delta carries all the text since the
    last one); ``0``: after every event that added to them. ``message_id``: the ``start`` part's
    ``messageId`` (a new one by default). Closing this generator closes ``events``.
    """
    machine = _machine(preview_interval)
    writer = PartWriter()
    try:
        yield _start(message_id)
        for step in machine.steps(events):
            yield writer.part(step)
        yield {"type": "finish", "finishReason": writer.finish}
    finally:
        # Closed before the steps began (after the start part), the stream is closed here.
        close_stream(events)


async def aparts(
    events: AsyncIterable[Any] | Iterable[Any],
    *,
    preview_interval: float = 0.05,
    message_id: str | None = None,
) -> AsyncGenerator[dict[str, Any], None]:
    """:func:`parts` for an async stream (a sync one works too)."""
    machine = _machine(preview_interval)
    writer = PartWriter()
    try:
        yield _start(message_id)
        async for step in machine.asteps(events):
            yield writer.part(step)
        yield {"type": "finish", "finishReason": writer.finish}
    finally:
        await aclose_stream(events)


def encode(part: dict[str, Any]) -> str:
    """One part as a server-sent event: ``data: <json>`` and a blank line.

    The JSON is ASCII (a lone surrogate the input held is written as its escape, which the browser
    reads); a number JSON cannot write (``NaN``, ``Infinity``, which :func:`json.loads` accepts) is
    written as ``null``, since the browser's ``JSON.parse`` would reject the whole part."""
    try:
        text = json.dumps(part, separators=(",", ":"), allow_nan=False)
    except ValueError:
        text = json.dumps(_finite(part), separators=(",", ":"), allow_nan=False)
    return f"data: {text}\n\n"


def _finite(value: Any) -> Any:
    """``value`` with every float that is not finite made ``None`` (iteratively: any depth)."""
    top: list[Any] = [value]
    stack: list[tuple[Any, Any]] = [(top, 0)]
    while stack:
        holder, key = stack.pop()
        item = holder[key]
        if isinstance(item, float) and not math.isfinite(item):
            holder[key] = None
        elif isinstance(item, dict):
            copied = dict(item)
            holder[key] = copied
            stack.extend((copied, name) for name in copied)
        elif isinstance(item, list):
            copied_list = list(item)
            holder[key] = copied_list
            stack.extend((copied_list, index) for index in range(len(copied_list)))
    return top[0]


def sse(
    events: Iterable[Any], *, preview_interval: float = 0.05, message_id: str | None = None
) -> Iterator[str]:
    """:func:`parts` as server-sent events, ending ``data: [DONE]`` (send with :data:`HEADERS`)."""
    generator = parts(events, preview_interval=preview_interval, message_id=message_id)
    try:
        for part in generator:
            yield _encoded(part)
        yield DONE
    finally:
        generator.close()


async def asse(
    events: AsyncIterable[Any] | Iterable[Any],
    *,
    preview_interval: float = 0.05,
    message_id: str | None = None,
) -> AsyncIterator[str]:
    """:func:`aparts` as server-sent events, ending ``data: [DONE]`` (send with :data:`HEADERS`)."""
    generator = aparts(events, preview_interval=preview_interval, message_id=message_id)
    try:
        async for part in generator:
            yield _encoded(part)
        yield DONE
    finally:
        await generator.aclose()


def _encoded(part: dict[str, Any]) -> str:
    try:
        return encode(part)
    except (TypeError, RecursionError) as error:
        # A value JSON cannot hold (or nested past what the encoder walks): the part is replaced by
        # an error part that says which, and the stream goes on.
        return encode(
            {"type": "error", "errorText": f"a {part.get('type')} part could not be written as JSON: {error}"}
        )
