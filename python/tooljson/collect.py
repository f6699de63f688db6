"""Whole streams read into one accumulator: what a caller that only wants a stream's calls uses.

:func:`collect_tool_calls` and :func:`acollect_tool_calls` feed every event of a stream (of any source
:meth:`tooljson.ToolCallAccumulator.feed` reads) to a new accumulator and return it, its ``calls``
and ``stop_reason`` saying what the stream held. A reader that also needs the assembled content and
the verdicts while the stream runs is a :class:`tooljson.TurnReader`.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, Iterable
from typing import Any

from tooljson.accumulator import ToolCallAccumulator

__all__ = ["acollect_tool_calls", "collect_tool_calls"]


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
