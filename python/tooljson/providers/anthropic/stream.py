"""A Messages API response's bytes as plain dicts: :func:`iter_events` and :func:`aiter_events`.

They read a ``messages.create(..., stream=True)`` response's bytes with the generic
:class:`~tooljson.sse.SSEDecoder` and decode each event with :func:`json.loads` into a plain dict,
skipping the SDK's typed event objects (they cost more per event than everything tooljson does with
the event).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

from tooljson.sse import SSEDecoder

__all__ = ["aiter_events", "decode_event", "iter_events"]


def decode_event(name: str | None, data: bytes, response: Any) -> dict[str, Any] | None:
    """One event as a dict; ``None`` for what the SDK skips too (pings, unnamed events). An ``error``
    event raises as the SDK does: :class:`anthropic.APIStatusError` with the event as ``body``."""
    if name == "error":
        import anthropic

        try:
            body: Any = json.loads(data)
        except ValueError:
            body = data.decode(errors="replace")
        raise anthropic.APIStatusError(f"{body}", response=response, body=body)
    if name is None or name == "ping":
        return None
    event: dict[str, Any] = json.loads(data.decode("utf-8"))  # SSE is UTF-8; str skips json's detection
    return event


def iter_events(stream: Any) -> Iterator[dict[str, Any]]:
    """The events of a ``client.messages.create(..., stream=True)`` response, as plain dicts.

    Pings are skipped; an ``error`` event raises :class:`anthropic.APIStatusError`, as iterating the
    SDK stream does. Close the stream (``with stream:``) when done.
    """
    response = stream.response
    decoder = SSEDecoder()
    for chunk in response.iter_bytes():
        for name, data in decoder.feed(chunk):
            event = decode_event(name, data, response)
            if event is not None:
                yield event


async def aiter_events(stream: Any) -> AsyncIterator[dict[str, Any]]:
    """:func:`iter_events` for an ``AsyncAnthropic`` stream."""
    response = stream.response
    decoder = SSEDecoder()
    async for chunk in response.aiter_bytes():
        for name, data in decoder.feed(chunk):
            event = decode_event(name, data, response)
            if event is not None:
                yield event
