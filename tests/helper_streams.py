"""The SDK's stream helper and an accelerated one, side by side: running them and what they must share.

A :class:`StreamRun` records everything a caller of the helper sees: every event (with a deep copy
of each ``input_json`` snapshot, taken when the event arrived, since an accelerated snapshot is the
live value), the final message, and what iteration raised. :func:`assert_same_events` is the
differential check; :func:`assert_grows` the stable-preview rule a snapshot follows from one event
to the next. Raw events for in-process runs come from :func:`response_events`.
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import httpx2
from anthropic._models import construct_type
from anthropic.types import RawMessageStreamEvent
from anthropic.types.beta import BetaRawMessageStreamEvent
from helpers import assert_same_json

# The derived events: the SDK builds them from its snapshot; the accelerated stream must too.
DERIVED = ("text", "citation", "thinking", "signature", "compaction")


def copy_json(value: Any) -> Any:
    """A deep copy of a decoded JSON value, walked with an explicit stack (any depth)."""
    if not isinstance(value, (dict, list)):
        return value
    root: Any = type(value)()
    stack: list[tuple[Any, Any]] = [(value, root)]
    while stack:
        source, target = stack.pop()
        items = source.items() if isinstance(source, dict) else enumerate(source)
        for key, item in items:
            if isinstance(item, (dict, list)):
                item_copy: Any = type(item)()
                stack.append((item, item_copy))
                item = item_copy
            if isinstance(target, dict):
                target[key] = item
            else:
                target.append(item)
    return root


@dataclass
class StreamRun:
    """What one helper stream gave: its events, snapshot copies, final message and error."""

    events: list[Any] = field(default_factory=list)
    # (block index, deep copy of the snapshot when its input_json event arrived), in order.
    snapshots: list[tuple[int, Any]] = field(default_factory=list)
    final: Any = None
    error: BaseException | None = None
    stream: Any = None

    def take(self, event: Any) -> None:
        self.events.append(event)
        if event.type == "input_json":
            # The raw delta right before an input_json event names its block.
            index = self.events[-2].index
            self.snapshots.append((index, copy_json(event.snapshot)))

    def block_snapshots(self, index: int) -> list[Any]:
        return [snapshot for at, snapshot in self.snapshots if at == index]

    @property
    def types(self) -> list[tuple[str, str]]:
        return [(type(event).__name__, event.type) for event in self.events]


def consume(stream: Any, run: StreamRun | None = None) -> StreamRun:
    """Iterate an entered helper stream to the end, then ask for the final message; into ``run``
    when given (a caller watching it fill)."""
    run = StreamRun(stream=stream) if run is None else run
    try:
        for event in stream:
            run.take(event)
        run.final = stream.get_final_message()
    except Exception as error:  # noqa: BLE001 - recorded: the comparison says which errors are expected
        run.error = error
    return run


async def aconsume(stream: Any, run: StreamRun | None = None) -> StreamRun:
    """:func:`consume` for an async helper stream."""
    run = StreamRun(stream=stream) if run is None else run
    try:
        async for event in stream:
            run.take(event)
        run.final = await stream.get_final_message()
    except Exception as error:  # noqa: BLE001 - recorded for the comparison
        run.error = error
    return run


def assert_grows(before: Any, after: Any, *, whole_strings: bool, path: str = "$") -> None:
    """``after`` is ``before`` grown: same types, no key lost or moved, arrays longer or equal,
    strings extended (equal when ``whole_strings``), every number and literal unchanged."""
    assert type(before) is type(after), f"{path}: {type(before).__name__} became {type(after).__name__}"
    if isinstance(before, dict):
        keys = list(before)
        assert list(after)[: len(keys)] == keys, f"{path}: keys {keys} are not kept first in {list(after)}"
        for key in keys:
            assert_grows(before[key], after[key], whole_strings=whole_strings, path=f"{path}/{key}")
    elif isinstance(before, list):
        assert len(before) <= len(after), f"{path}: the array shrank"
        for position, item in enumerate(before):
            assert_grows(item, after[position], whole_strings=whole_strings, path=f"{path}/{position}")
    elif isinstance(before, str):
        if whole_strings:
            assert before == after, f"{path}: a shown string changed: {before!r:.60} -> {after!r:.60}"
        else:
            assert after.startswith(before), f"{path}: a string did not grow: {before!r:.60} -> {after!r:.60}"
    else:
        assert_same_json(before, after)


def assert_snapshots_grow(run: StreamRun, index: int, final_input: Any, *, whole_strings: bool) -> None:
    """The block's snapshots grow event after event, each toward the final input, the last one
    equal to it (when the block streamed any delta)."""
    snapshots = run.block_snapshots(index)
    for before, after in zip(snapshots, snapshots[1:]):
        assert_grows(before, after, whole_strings=whole_strings)
    for snapshot in snapshots:
        assert_grows(snapshot, final_input, whole_strings=whole_strings)
    if snapshots:
        assert_same_json(snapshots[-1], final_input)


def assert_same_events(sdk: StreamRun, ours: StreamRun, *, compare_blocks: bool = True) -> None:
    """The accelerated stream yielded the SDK's event classes in the SDK's order, with the same raw
    events, derived text/thinking/signature/citation events and ``partial_json`` fields.

    When the SDK's helper raised in the middle (a malformed input), the comparison stops there. Tool
    input snapshots are not compared here (they follow tooljson's preview rules); with
    ``compare_blocks`` the finished blocks and the final message are.
    """
    count = len(sdk.events)
    if sdk.error is None:
        assert ours.types == sdk.types
    else:
        assert ours.types[:count] == sdk.types
    for theirs, mine in zip(sdk.events, ours.events):
        kind = theirs.type
        if kind == "input_json":
            assert mine.partial_json == theirs.partial_json
        elif kind in ("content_block_stop", "message_stop"):
            if compare_blocks:
                assert_same_json(mine.model_dump(), theirs.model_dump())
        else:
            # Raw events and the derived text, citation, thinking and signature events.
            assert_same_json(mine.model_dump(), theirs.model_dump())
    if compare_blocks and sdk.error is None:
        # Type for type and float bits (a NaN in a tool input is equal to itself here).
        assert_same_json(ours.final.model_dump(), sdk.final.model_dump())


def without_tool_inputs(message: Any) -> dict[str, Any]:
    """The message's dump with the input of every tool block left out (where tooljson differs by design)."""
    dump = message.model_dump()
    for block in dump["content"]:
        if block["type"] in ("tool_use", "server_tool_use"):
            block["input"] = None
    return dict(dump)


# --- in-process streams: raw events from dicts, without HTTP


class ListStream:
    """Stands for the SDK's raw ``Stream``: the events, and a response carrying request headers."""

    def __init__(self, events: Sequence[Any], headers: dict[str, str] | None = None) -> None:
        self._events = list(events)
        request = SimpleNamespace(headers=httpx2.Headers(headers or {}))
        self.response = SimpleNamespace(request=request, headers=httpx2.Headers({"request-id": "req_1"}))
        self.closed = False

    def __iter__(self) -> Iterator[Any]:
        yield from self._events

    async def __aiter__(self) -> AsyncIterator[Any]:
        for event in self._events:
            yield event

    def close(self) -> None:
        self.closed = True


class AsyncListStream(ListStream):
    """:class:`ListStream` for the async helper streams, whose ``close`` is awaited."""

    async def close(self) -> None:  # type: ignore[override]
        self.closed = True


def pieces(text: str, rng: random.Random, sizes: tuple[int, int] = (1, 32)) -> list[str]:
    out, at = [], 0
    while at < len(text):
        step = rng.randint(*sizes)
        out.append(text[at : at + step])
        at += step
    return out


def response_events(
    blocks: Sequence[dict[str, Any]],
    stop_reason: str,
    *,
    rng: random.Random | None = None,
    beta: bool = False,
) -> list[Any]:
    """A whole response as SDK raw event objects.

    Each block is a dict: ``{"type": "text", "text": ..., "citations": [...]}``,
    ``{"type": "thinking", "thinking": ..., "signature": ...}``, a tool block (``tool_use``,
    ``server_tool_use``, ``mcp_tool_use``) with ``id``, ``name`` and the argument ``text`` (or the
    exact ``fragments``), or any block that arrives whole (``web_search_tool_result``...).
    """
    rng = rng or random.Random(0)
    message = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 7, "output_tokens": 1},
    }
    events: list[dict[str, Any]] = [{"type": "message_start", "message": message}]

    def delta(index: int, body: dict[str, Any]) -> None:
        events.append({"type": "content_block_delta", "index": index, "delta": body})

    for index, block in enumerate(blocks):
        kind = block["type"]
        if kind == "text":
            events.append(
                {
                    "type": "content_block_start",
                    "index": index,
                    "content_block": {"type": "text", "text": "", "citations": None},
                }
            )
            for piece in pieces(block["text"], rng):
                delta(index, {"type": "text_delta", "text": piece})
            for citation in block.get("citations", ()):
                delta(index, {"type": "citations_delta", "citation": citation})
        elif kind == "thinking":
            events.append(
                {
                    "type": "content_block_start",
                    "index": index,
                    "content_block": {"type": "thinking", "thinking": "", "signature": ""},
                }
            )
            for piece in pieces(block["thinking"], rng):
                delta(index, {"type": "thinking_delta", "thinking": piece})
            delta(index, {"type": "signature_delta", "signature": block["signature"]})
        elif kind in ("tool_use", "server_tool_use", "mcp_tool_use"):
            start = {"type": kind, "id": block["id"], "name": block["name"], "input": {}}
            if kind == "mcp_tool_use":
                start["server_name"] = "files"
            events.append({"type": "content_block_start", "index": index, "content_block": start})
            fragments = block.get("fragments")
            for piece in pieces(block["text"], rng) if fragments is None else fragments:
                delta(index, {"type": "input_json_delta", "partial_json": piece})
        else:
            events.append({"type": "content_block_start", "index": index, "content_block": block})
        events.append({"type": "content_block_stop", "index": index})
    events.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop_reason, "stop_sequence": None},
            "usage": {"output_tokens": 42},
        }
    )
    events.append({"type": "message_stop"})
    # Made as the SDK's Stream makes them from the wire (loose construction, no validation).
    event_type = BetaRawMessageStreamEvent if beta else RawMessageStreamEvent
    return [construct_type(type_=event_type, value=event) for event in events]
