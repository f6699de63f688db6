"""The AI SDK UI message stream from any source: parts, order, verdicts, previews, breaks.

Every source's stream, as dicts and as SDK objects, must give the parts in the protocol's order; the
``tool-input-delta`` pieces must join to exactly each call's text at every way of cutting it, the
``input`` be what :func:`json.loads` gives, each preview grow from the last, and no part yielded
change afterwards.
"""

from __future__ import annotations

import asyncio
import copy
import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
import tooljson
from helper_streams import assert_grows
from helpers import assert_same_json, random_splits
from hypothesis import given, settings
from hypothesis import strategies as st
from provider_streams import PROVIDERS, as_sdk_objects, chat_chunks, stream
from tooljson.protocols import ai_sdk
from tooljson.providers.gemini.wire.replies import partial_args

RECORDS = json.dumps(
    {
        "path": "notes/é🚀.md",
        "records": [{"id": n, "name": f"n{n}", "tags": ["a", "b"], "ok": n % 2 == 0} for n in range(40)],
        "escaped": 'quote " backslash \\ tab \t \u00e9',
        "nothing": None,
        "big": 12345678901234567890,
        "ratio": -1.5e-3,
    }
)


def messages_events(
    calls: list[list[str]], *, stop: str = "tool_use", text: str = ""
) -> list[dict[str, Any]]:
    """A Messages response: optional text block, then one tool block per call's fragments."""
    events: list[dict[str, Any]] = [
        {"type": "message_start", "message": {"id": "msg_1", "content": [], "usage": {}}}
    ]
    index = 0
    if text:
        events.append(
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}
        )
        for piece in (text[: len(text) // 2], text[len(text) // 2 :]):
            events.append(
                {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": piece}}
            )
        events.append({"type": "content_block_stop", "index": 0})
        index = 1
    for number, fragments in enumerate(calls):
        block = {"type": "tool_use", "id": f"toolu_{number}", "name": f"tool_{number}", "input": {}}
        events.append({"type": "content_block_start", "index": index, "content_block": block})
        events += [
            {
                "type": "content_block_delta",
                "index": index,
                "delta": {"type": "input_json_delta", "partial_json": f},
            }
            for f in fragments
        ]
        events.append({"type": "content_block_stop", "index": index})
        index += 1
    events.append({"type": "message_delta", "delta": {"stop_reason": stop}, "usage": {}})
    events.append({"type": "message_stop"})
    return events


def collect(events: Any, **options: Any) -> list[dict[str, Any]]:
    """Every part, each checked to be unchanged at the end against a copy taken when it came."""
    taken: list[tuple[dict[str, Any], dict[str, Any]]] = []
    for part in ai_sdk.parts(events, **options):
        taken.append((part, copy.deepcopy(part)))
    for part, when_yielded in taken:
        assert_same_json(part, when_yielded)
    return [part for part, _ in taken]


def types(parts: list[dict[str, Any]]) -> list[str]:
    return [part["type"] for part in parts]


def call_parts(parts: list[dict[str, Any]], call_id: str) -> list[dict[str, Any]]:
    return [
        p
        for p in parts
        if p.get("toolCallId") == call_id or (p["type"] == ai_sdk.PREVIEW_PART and p["id"] == call_id)
    ]


def check_call(parts: list[dict[str, Any]], call_id: str, text: str) -> dict[str, Any]:
    """The call's parts: start first, deltas joining to ``text``, previews growing, then exactly
    one final part and nothing after it; returns the final part."""
    own = call_parts(parts, call_id)
    assert own[0]["type"] == "tool-input-start"
    finals = [p for p in own if p["type"] in ("tool-input-available", "tool-input-error")]
    assert len(finals) == 1 and own[-1] is finals[0], types(own)
    assert "".join(p["inputTextDelta"] for p in own if p["type"] == "tool-input-delta") == text
    previews = [p["data"]["input"] for p in own if p["type"] == ai_sdk.PREVIEW_PART]
    for before, after in zip(previews, previews[1:]):
        assert_grows(before, after, whole_strings=False)
    final = finals[0]
    if final["type"] == "tool-input-available":
        assert_same_json(final["input"], json.loads(text) if text else {})
        for preview in previews:
            assert_grows(preview, final["input"], whole_strings=False)
    return final


def framing_is_valid(parts: list[dict[str, Any]]) -> None:
    """start, start-step ... finish-step (steps never nested), finish last, text parts balanced."""
    kinds = types(parts)
    assert kinds[0] == "start" and kinds[-1] == "finish"
    depth = 0
    open_texts: set[str] = set()
    for part in parts[1:-1]:
        kind = part["type"]
        if kind == "start-step":
            assert depth == 0
            depth = 1
        elif kind == "finish-step":
            assert depth == 1 and not open_texts
            depth = 0
        elif kind == "error":
            assert depth == 0
        else:
            assert depth == 1, kind
        if kind == "text-start":
            open_texts.add(part["id"])
        elif kind in ("text-delta", "text-end"):
            assert part["id"] in open_texts
            if kind == "text-end":
                open_texts.discard(part["id"])
    assert depth == 0


def test_messages_text_and_two_calls_in_order() -> None:
    first, second = RECORDS, '{"q": "x"}'
    events = messages_events([random_splits(first, random.Random(1), 30), [second]], text="Let me look.")
    parts = collect(events, message_id="m-1")
    framing_is_valid(parts)
    kinds = types(parts)
    assert parts[0] == {"type": "start", "messageId": "m-1"}
    assert kinds[1:5] == ["start-step", "text-start", "text-delta", "text-end"] or kinds[1:4] == [
        "start-step",
        "text-start",
        "text-delta",
    ]
    assert "".join(p["delta"] for p in parts if p["type"] == "text-delta") == "Let me look."
    assert kinds.index("text-end") < kinds.index("tool-input-start")
    assert check_call(parts, "toolu_0", first)["toolName"] == "tool_0"
    assert check_call(parts, "toolu_1", second)["type"] == "tool-input-available"
    assert parts[-2:] == [{"type": "finish-step"}, {"type": "finish", "finishReason": "tool-calls"}]


@pytest.mark.parametrize("interval", [0, 0.05, 1000])
@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("objects", [False, True])
def test_every_provider_gives_the_same_parts(provider: str, objects: bool, interval: float) -> None:
    texts = [RECORDS, '{"a": [1, 2, {"b": null}]}']
    events = stream(provider, [random_splits(t, random.Random(7), 20) for t in texts])
    if objects:
        events = as_sdk_objects(provider, events)
    parts = collect(events, preview_interval=interval)
    framing_is_valid(parts)
    ids = [p["toolCallId"] for p in parts if p["type"] == "tool-input-start"]
    assert len(ids) == 2
    for call_id, text in zip(ids, texts):
        assert check_call(parts, call_id, text)["type"] == "tool-input-available"
    assert parts[-1] == {"type": "finish", "finishReason": "tool-calls"}
    if interval == 0:
        # One delta part per fragment that streamed.
        assert sum(p["type"] == "tool-input-delta" for p in parts) >= 20


def test_interleaved_chat_calls_keep_their_own_text() -> None:
    texts = [RECORDS, '{"k": "' + "v" * 300 + '"}', "[]"]
    events = chat_chunks(
        [random_splits(t, random.Random(3), 25) for t in texts], "tool_calls", rng=random.Random(5)
    )
    parts = collect(events, preview_interval=0)
    for number, text in enumerate(texts):
        check_call(parts, f"call_0_{number}", text)


@settings(max_examples=150)
@given(
    value=st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
        max_leaves=25,
    ),
    seed=st.integers(0, 2**32 - 1),
    interval=st.sampled_from([0, 0.05]),
)
def test_deltas_join_to_the_text_and_input_is_json_loads(value: Any, seed: int, interval: float) -> None:
    text = json.dumps({"v": value}, ensure_ascii=seed % 2 == 0)
    rng = random.Random(seed)
    fragments = random_splits(text, rng, rng.randint(1, max(1, len(text))))
    parts = collect(messages_events([fragments]), preview_interval=interval)
    final = check_call(parts, "toolu_0", text)
    assert final["type"] == "tool-input-available"


def test_every_split_point_of_a_call() -> None:
    text = '{"a": "é\\u00e9🚀", "b": [1, 2.5e3, true, null], "c": {"d": ""}}'
    for cut in range(len(text) + 1):
        fragments = [piece for piece in (text[:cut], text[cut:]) if piece]
        for interval in (0, 0.05):
            parts = collect(messages_events([fragments]), preview_interval=interval)
            assert check_call(parts, "toolu_0", text)["type"] == "tool-input-available"


def test_cut_off_at_the_token_limit_says_so() -> None:
    text = RECORDS[: len(RECORDS) // 2]
    parts = collect(messages_events([random_splits(text, random.Random(2), 10)], stop="max_tokens"))
    final = check_call(parts, "toolu_0", text)
    assert final["type"] == "tool-input-error"
    assert final["input"] == text
    assert "token limit" in final["errorText"] and "max_tokens" in final["errorText"]
    assert parts[-1] == {"type": "finish", "finishReason": "length"}


@pytest.mark.parametrize("provider", PROVIDERS)
def test_cut_off_in_every_provider(provider: str) -> None:
    text = RECORDS[:300]
    parts = collect(stream(provider, [random_splits(text, random.Random(4), 9)], cut_off=True))
    (start,) = [p for p in parts if p["type"] == "tool-input-start"]
    final = check_call(parts, start["toolCallId"], text)
    assert final["type"] == "tool-input-error"
    assert "token limit" in final["errorText"]
    assert parts[-1]["finishReason"] == "length"


def test_malformed_names_the_position() -> None:
    text = '{"a": 1,, "b": 2}'
    with pytest.raises(tooljson.MalformedJSONError) as raised:
        tooljson.loads(text)
    parts = collect(messages_events([[text[:9], text[9:]]]))
    final = check_call(parts, "toolu_0", text)
    assert final["type"] == "tool-input-error"
    assert raised.value.pos == 8
    assert "malformed" in final["errorText"] and "(char 8)" in final["errorText"], final["errorText"]
    assert final["input"] == text


def test_a_stream_that_breaks_ends_with_an_error_part() -> None:
    events = messages_events([random_splits(RECORDS, random.Random(1), 40)])

    def broken() -> Iterator[Any]:
        yield from events[:20]
        raise ConnectionResetError("connection reset by peer")

    parts = collect(broken())
    framing_is_valid(parts)
    final = [p for p in parts if p["type"] == "tool-input-error"][0]
    assert "broke off" in final["errorText"]
    (error,) = [p for p in parts if p["type"] == "error"]
    assert "connection reset by peer" in error["errorText"]
    assert parts[-1] == {"type": "finish", "finishReason": "error"}


def test_a_stream_that_stops_early_says_so() -> None:
    events = messages_events([[RECORDS]])[:-3]
    parts = collect(events)
    assert [p for p in parts if p["type"] == "error"][0][
        "errorText"
    ] == "the stream ended before message_stop"


@pytest.mark.parametrize(
    "bad",
    [
        42,
        "data: {}",
        {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": 5}},
    ],
)
def test_an_event_of_the_wrong_shape_gives_an_error_part_naming_it(bad: Any) -> None:
    events = messages_events([['{"a": ', "1}"]])
    parts = collect([*events[:3], bad, *events[3:]])
    framing_is_valid(parts)
    (error,) = [p for p in parts if p["type"] == "error"]
    assert "event 4" in error["errorText"], error["errorText"]
    assert parts[-1]["finishReason"] == "error"


def test_not_a_stream_at_all() -> None:
    parts = collect(42)
    assert types(parts) == ["start", "start-step", "finish-step", "error", "finish"]


def test_sse_frames_every_part_and_ends_done() -> None:
    events = messages_events([['{"a": "\\ud83d', '"}']])
    frames = list(ai_sdk.sse(events, message_id="m"))
    assert frames[-1] == "data: [DONE]\n\n"
    decoded = [json.loads(frame[len("data: ") :]) for frame in frames[:-1]]
    assert all(frame.startswith("data: ") and frame.endswith("\n\n") for frame in frames)
    assert decoded[0] == {"type": "start", "messageId": "m"}
    assert [p for p in decoded if p["type"] == "tool-input-available"][0]["input"] == {"a": "\ud83d"}
    assert ai_sdk.HEADERS["x-vercel-ai-ui-message-stream"] == "v1"


def test_numbers_json_cannot_write_become_null_in_sse() -> None:
    frame = ai_sdk.encode(
        {"type": "tool-input-available", "input": {"a": [float("nan"), 1.0, float("-inf")]}}
    )
    assert json.loads(frame[len("data: ") :])["input"] == {"a": [None, 1.0, None]}


def test_previews_are_rate_limited_and_none_after_the_final_part() -> None:
    ticks = iter(range(10**6))
    events = messages_events([random_splits(RECORDS, random.Random(1), 200)])
    from tooljson.protocols.steps import CallPreview, StreamSteps

    # A clock that moves one second per reading, with an interval of 2.5 s: a preview at most
    # every third reading.
    machine = StreamSteps(interval=2.5, clock=lambda: float(next(ticks)))
    previews = [s for s in machine.steps(events) if isinstance(s, CallPreview)]
    assert 0 < len(previews) < 200
    parts = collect(events, preview_interval=0)
    own = call_parts(parts, "toolu_0")
    final_at = [i for i, p in enumerate(own) if p["type"] == "tool-input-available"][0]
    assert all(p["type"] != ai_sdk.PREVIEW_PART for p in own[final_at:])


def test_closing_the_parts_closes_the_upstream() -> None:
    closed = []

    class Upstream:
        def __init__(self) -> None:
            self.events = iter(messages_events([random_splits(RECORDS, random.Random(1), 50)]))

        def __iter__(self) -> Upstream:
            return self

        def __next__(self) -> Any:
            return next(self.events)

        def close(self) -> None:
            closed.append(True)

    frames = ai_sdk.sse(Upstream())
    next(frames), next(frames), next(frames)
    frames.close()
    assert closed
    # Closed right after the start part, before a single event was read.
    closed.clear()
    frames = ai_sdk.sse(Upstream())
    next(frames)
    frames.close()
    assert closed


def test_closing_the_async_parts_closes_the_upstream() -> None:
    closed = []
    events = messages_events([random_splits(RECORDS, random.Random(1), 50)])

    class Upstream:
        """An SDK's async stream: iterated, and closed with an awaited close()."""

        def __init__(self) -> None:
            self.events = iter(events)

        def __aiter__(self) -> Upstream:
            return self

        async def __anext__(self) -> Any:
            try:
                return next(self.events)
            except StopIteration:
                raise StopAsyncIteration from None

        async def close(self) -> None:
            closed.append(True)

    async def read(taken: int) -> None:
        frames = ai_sdk.asse(Upstream())
        for _ in range(taken):
            await frames.__anext__()
        await frames.aclose()

    for taken in (1, 4):
        closed.clear()
        asyncio.run(read(taken))
        assert closed, taken


def test_async_parts_equal_sync_parts() -> None:
    events = messages_events([random_splits(RECORDS, random.Random(9), 30)], text="hi")

    async def upstream() -> Any:
        for event in events:
            yield event

    async def read() -> list[dict[str, Any]]:
        return [part async for part in ai_sdk.aparts(upstream(), message_id="m", preview_interval=0)]

    got = asyncio.run(read())
    assert got == collect(events, message_id="m", preview_interval=0)


def test_gemini_streamed_arguments_come_out_as_json_text_deltas() -> None:
    arguments = {
        "path": "a/b.md",
        "items": [{"sku": "x-1", "qty": 2}, {"sku": "y", "qty": 1.5}],
        "note": "é" * 30,
    }
    pieces = partial_args(json.dumps(arguments), random.Random(3), (1, 6))

    def chunk(parts: list[dict[str, Any]], reason: str | None = None) -> dict[str, Any]:
        body: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
        if reason is not None:
            body["finishReason"] = reason
        return {"candidates": [body], "responseId": "r-1", "modelVersion": "gemini-3-pro-preview"}

    events = [chunk([{"functionCall": {"name": "write", "id": "fc-1", "willContinue": True}}])]
    events += [chunk([{"functionCall": {"partialArgs": [piece], "willContinue": True}}]) for piece in pieces]
    events += [chunk([{"functionCall": {}}]), chunk([], "STOP")]
    parts = collect(events, preview_interval=0)
    own = call_parts(parts, "fc-1")
    deltas = [p["inputTextDelta"] for p in own if p["type"] == "tool-input-delta"]
    assert len(deltas) > 5
    final = own[-1]
    assert final["type"] == "tool-input-available"
    assert_same_json(final["input"], arguments)
    assert_same_json(json.loads("".join(deltas)), arguments)


@settings(max_examples=60)
@given(
    texts=st.lists(
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.text(max_size=8),
            lambda inner: (
                st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
            ),
            max_leaves=12,
        ).map(lambda value: json.dumps({"v": value})),
        min_size=1,
        max_size=3,
    ),
    provider=st.sampled_from(PROVIDERS),
    objects=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
    interval=st.sampled_from([0, 0.05]),
)
def test_every_provider_every_split(
    texts: list[str], provider: str, objects: bool, seed: int, interval: float
) -> None:
    rng = random.Random(seed)
    events = stream(provider, [random_splits(t, rng, rng.randint(1, len(t))) for t in texts])
    if objects:
        events = as_sdk_objects(provider, events)
    parts = collect(events, preview_interval=interval)
    framing_is_valid(parts)
    ids = [p["toolCallId"] for p in parts if p["type"] == "tool-input-start"]
    assert len(ids) == len(texts)
    for call_id, text in zip(ids, texts):
        assert check_call(parts, call_id, text)["type"] == "tool-input-available"


def test_a_chat_chunk_of_the_wrong_shape_gives_an_error_part_naming_it() -> None:
    events = chat_chunks([['{"a": ', "1}"]], "tool_calls")
    events[2] = {
        **events[2],
        "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": 5}}]}}],
    }
    parts = collect(events)
    framing_is_valid(parts)
    (error,) = [p for p in parts if p["type"] == "error"]
    assert error["errorText"].startswith("event 3 of the stream (dict) cannot be read: ")
    assert parts[-1] == {"type": "finish", "finishReason": "error"}


def test_a_watcher_already_on_the_reader_is_still_told() -> None:
    from tooljson.watch import CALL_WATCHERS

    told: list[str] = []

    class Watcher:
        def began(self, block: Any) -> None:
            told.append("began")

        def ended(self, block: Any) -> None:
            told.append("ended")

        def stopped(self, blocks: Any, *, whole: bool) -> None:
            told.append("stopped")

        def dropped(self, blocks: Any) -> None:
            told.append("dropped")

        def interrupted(self) -> None:
            told.append("interrupted")

    CALL_WATCHERS.append(lambda reader: Watcher())
    try:
        collect(messages_events([["{}"]]))
    finally:
        CALL_WATCHERS.pop()
    assert told == ["dropped", "began", "ended", "stopped"]


@settings(max_examples=60)
@given(
    text=st.text(min_size=1, max_size=300),
    seed=st.integers(0, 2**32 - 1),
    interval=st.sampled_from([0, 0.05, 1000]),
)
def test_text_deltas_join_to_the_text_and_come_before_the_call(text: str, seed: int, interval: float) -> None:
    rng = random.Random(seed)
    events = messages_events([['{"a": 1}']])
    pieces = random_splits(text, rng, rng.randint(1, len(text)))
    block = [{"type": "content_block_start", "index": 5, "content_block": {"type": "text", "text": ""}}]
    block += [
        {"type": "content_block_delta", "index": 5, "delta": {"type": "text_delta", "text": p}}
        for p in pieces
    ]
    block.append({"type": "content_block_stop", "index": 5})
    # The text block comes first, the tool block after it.
    events = [events[0], *block, *events[1:]]
    parts = collect(events, preview_interval=interval)
    framing_is_valid(parts)
    kinds = types(parts)
    assert "".join(p["delta"] for p in parts if p["type"] == "text-delta") == text
    assert kinds.index("text-end") < kinds.index("tool-input-start")
    if interval == 1000:
        assert kinds.count("text-delta") <= 2


def test_two_responses_in_one_stream_are_two_steps() -> None:
    first = messages_events([['{"a": 1}']], text="One.")
    second = messages_events([["{", '"b": 2}']], text="Two.")
    second[1:] = [
        {**event, "content_block": {**event["content_block"], "id": "toolu_9"}}
        if event["type"] == "content_block_start" and event["content_block"]["type"] == "tool_use"
        else event
        for event in second[1:]
    ]
    parts = collect([*first, *second])
    framing_is_valid(parts)
    kinds = types(parts)
    assert kinds.count("start-step") == 2 and kinds.count("finish-step") == 2
    step = kinds.index("finish-step")
    assert "".join(p["delta"] for p in parts[:step] if p["type"] == "text-delta") == "One."
    assert "".join(p["delta"] for p in parts[step:] if p["type"] == "text-delta") == "Two."
    assert check_call(parts, "toolu_0", '{"a": 1}')["input"] == {"a": 1}
    assert check_call(parts, "toolu_9", '{"b": 2}')["input"] == {"b": 2}
