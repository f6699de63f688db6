"""ToolCallAccumulator.feed on stream events: dicts, SDK objects, and the verdicts it reaches."""

from __future__ import annotations

import json
import random
from typing import Any

import anyio
import pytest
import tooljson
from anthropic.types import RawMessageStreamEvent
from pydantic import TypeAdapter
from tooljson.turn import TurnReader

EVENT = TypeAdapter(RawMessageStreamEvent)


def _pieces(text: str, rng: random.Random) -> list[str]:
    pieces, start = [], 0
    while start < len(text):
        size = rng.randint(1, 7)
        pieces.append(text[start : start + size])
        start += size
    return pieces


def make_events(blocks: list[dict[str, Any]], stop_reason: str, *, seed: int = 0) -> list[dict[str, Any]]:
    """A whole response as raw event dicts; a tool block's ``text`` is streamed in random pieces."""
    rng = random.Random(seed)
    events: list[dict[str, Any]] = [
        {
            "type": "message_start",
            "message": {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "model": "m",
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {"input_tokens": 5, "output_tokens": 1},
            },
        }
    ]
    for index, block in enumerate(blocks):
        kind = block["type"]
        if kind == "text":
            events.append(
                {"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}}
            )
            for piece in _pieces(block["text"], rng):
                events.append(
                    {
                        "type": "content_block_delta",
                        "index": index,
                        "delta": {"type": "text_delta", "text": piece},
                    }
                )
        else:
            start = {"type": kind, "id": block["id"], "name": block["name"], "input": {}}
            events.append({"type": "content_block_start", "index": index, "content_block": start})
            events.append({"type": "ping"})
            for piece in _pieces(block["text"], rng):
                events.append(
                    {
                        "type": "content_block_delta",
                        "index": index,
                        "delta": {"type": "input_json_delta", "partial_json": piece},
                    }
                )
        events.append({"type": "content_block_stop", "index": index})
    events.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop_reason, "stop_sequence": None},
            "usage": {"output_tokens": 50},
        }
    )
    events.append({"type": "message_stop"})
    return events


def tool(
    text: str, name: str = "get_weather", tool_id: str = "toolu_1", kind: str = "tool_use"
) -> dict[str, Any]:
    return {"type": kind, "id": tool_id, "name": name, "text": text}


def as_sdk(events: list[dict[str, Any]]) -> list[Any]:
    return [e if e["type"] == "ping" else EVENT.validate_python(e) for e in events]


PARALLEL = [
    {"type": "text", "text": "Checking both cities."},
    tool('{"city": "Paris", "unit": "celsius", "note": "caf\\u00e9 \\ud83d\\ude80"}', tool_id="toolu_a"),
    tool('{"city": "Oslo"}', tool_id="toolu_b"),
    tool("", name="get_time", tool_id="toolu_c"),
    tool('{"query": "weather"}', name="web_search", tool_id="srvtoolu_d", kind="server_tool_use"),
]


def test_feed_returns_each_call_at_its_block_stop() -> None:
    acc = tooljson.ToolCallAccumulator()
    finished_at: list[tuple[int, str]] = []
    for position, event in enumerate(make_events(PARALLEL, "tool_use")):
        for call in acc.feed(event):
            finished_at.append((position, call.id))
            assert event["type"] == "content_block_stop" and event["index"] == call.index
    assert [tool_id for _, tool_id in finished_at] == ["toolu_a", "toolu_b", "toolu_c", "srvtoolu_d"]
    assert acc.stop_reason == "tool_use"
    by_id = {call.id: call for call in acc.calls}
    assert by_id["toolu_a"].input == json.loads(PARALLEL[1]["text"])
    assert by_id["toolu_a"].raw_json == PARALLEL[1]["text"]
    assert by_id["toolu_b"].input == {"city": "Oslo"}
    assert by_id["toolu_c"].input == {} and by_id["toolu_c"].raw_json == ""
    assert by_id["srvtoolu_d"].block_type == "server_tool_use"
    assert all(call.ok and call.error is None for call in acc.calls)
    assert len(acc) == 0, "finished calls are forgotten by the native accumulator"


def test_dicts_and_sdk_objects_give_the_same_calls() -> None:
    events = make_events(PARALLEL, "tool_use", seed=3)
    from_dicts = tooljson.collect_tool_calls(events).calls
    from_objects = tooljson.collect_tool_calls(as_sdk(events)).calls
    assert from_dicts == from_objects
    assert len(from_dicts) == 4


def test_cut_off_call_at_max_tokens_is_truncated_not_invalid() -> None:
    text = '{"path": "a.txt", "content": "hello wor'
    acc = tooljson.ToolCallAccumulator()
    events = make_events([tool(text)], "max_tokens")
    stop_position = next(i for i, e in enumerate(events) if e["type"] == "content_block_stop")
    verdicts = []
    for position, event in enumerate(events):
        for call in acc.feed(event):
            # At block stop the stop reason is not known yet: no verdict can be reached.
            verdicts.append((acc.is_truncated(call), acc.is_invalid(call)))
        if position == stop_position:
            assert acc.stop_reason is None
    [call] = acc.calls
    assert verdicts == [(False, True)]
    assert call.status == "incomplete"
    assert call.input is None
    assert isinstance(call.error, tooljson.IncompleteJSONError)
    assert call.raw_json == text
    assert acc.is_truncated(call) and not acc.is_invalid(call)


@pytest.mark.parametrize(
    ("text", "status"),
    [
        ('{"a": 1}{"b": 2}', "malformed"),
        ('{"a": 1} x', "malformed"),
        ('{"path": "\\x"}', "malformed"),
        ('{"content": "never closed', "incomplete"),
    ],
)
def test_unparsable_call_with_tool_use_stop_is_invalid(text: str, status: str) -> None:
    acc = tooljson.collect_tool_calls(make_events([tool(text)], "tool_use"))
    [call] = acc.calls
    assert call.status == status
    assert not acc.is_truncated(call)
    assert acc.is_invalid(call)
    assert isinstance(call.error, tooljson.JSONDecodeError)
    result = tooljson.invalid_json_result(call)
    assert result == {
        "type": "tool_result",
        "tool_use_id": "toolu_1",
        "is_error": True,
        "content": json.dumps({"INVALID_JSON": text}),
    }


def test_malformed_call_at_max_tokens_is_still_invalid() -> None:
    acc = tooljson.collect_tool_calls(make_events([tool('{"a": tru}')], "max_tokens"))
    [call] = acc.calls
    assert call.status == "malformed"
    assert acc.is_invalid(call) and not acc.is_truncated(call)


def test_block_left_open_gets_its_verdict_at_message_delta() -> None:
    events = [
        e for e in make_events([tool('{"a": [1, 2')], "max_tokens") if e["type"] != "content_block_stop"
    ]
    acc = tooljson.ToolCallAccumulator()
    returned = [call for event in events for call in acc.feed(event)]
    assert [call.status for call in returned] == ["incomplete"]
    assert acc.is_truncated(returned[0])


def test_message_start_resets_the_state() -> None:
    acc = tooljson.ToolCallAccumulator()
    for event in make_events([tool('{"a": 1}')], "tool_use"):
        acc.feed(event)
    second = make_events([tool('{"b": ', tool_id="toolu_2")], "end_turn")
    for event in second[:4]:
        acc.feed(event)
    assert acc.stop_reason is None and acc.calls == []
    for event in make_events([tool('{"c": 3}', tool_id="toolu_3")], "tool_use"):
        acc.feed(event)
    assert [(c.id, c.input) for c in acc.calls] == [("toolu_3", {"c": 3})]


def test_drop_in_methods_keep_their_behaviour() -> None:
    acc = tooljson.ToolCallAccumulator()
    acc.start(2, "write", "toolu_w")
    acc.add_delta(2, '{"x": ')
    assert acc.text(2) == '{"x": '
    assert acc.status(2).state == "incomplete"
    acc.add_delta(2, "[1]}")
    assert acc.finish(2) == {"name": "write", "id": "toolu_w", "input": {"x": [1]}}
    with pytest.raises(KeyError):
        acc.finish(2)
    assert isinstance(acc, tooljson._native.ToolCallAccumulator)


def test_async_collect() -> None:
    events = make_events(PARALLEL, "tool_use", seed=5)

    async def stream() -> Any:
        for event in as_sdk(events):
            yield event

    async def main() -> tooljson.ToolCallAccumulator:
        return await tooljson.acollect_tool_calls(stream())

    acc = anyio.run(main)
    assert acc.calls == tooljson.collect_tool_calls(events).calls


def test_turn_reader_rebuilds_text_and_tool_blocks() -> None:
    events = make_events(PARALLEL, "tool_use", seed=1)
    reader = TurnReader()
    for event in as_sdk(events):
        reader.feed(event)
    content = reader.content
    assert content[0] == {"type": "text", "text": "Checking both cities."}
    assert [b["type"] for b in content] == ["text", "tool_use", "tool_use", "tool_use", "server_tool_use"]
    assert content[1]["input"] == json.loads(PARALLEL[1]["text"])
    assert content[3] == {"type": "tool_use", "id": "toolu_c", "name": "get_time", "input": {}}
    assert reader.stop_reason == "tool_use" and reader.stopped


# --- Over loopback, with the real client and the stand-in server ------------------------------------

E2E_SCENARIOS = [
    "parallel_calls",
    "empty_input",
    "max_tokens",
    "invalid_json",
    "schema_mismatch",
    "unknown_tool",
    "pause_turn",
    "thinking",
    "large_file_write",
]


def _expected_texts(scenario: str) -> list[str]:
    from tooljson.standin.scenarios import answers

    return {
        "parallel_calls": [answers.PARIS_INPUT, answers.SAO_PAULO_INPUT],
        "empty_input": ["", ""],
        "invalid_json": [answers.BROKEN_ESCAPE_INPUT, answers.TRAILING_OBJECT_INPUT],
        "schema_mismatch": [answers.REPAIRABLE_INPUT, answers.REJECTED_INPUT],
        "unknown_tool": ['{"symbol": "ACME"}'],
        "pause_turn": [answers.SEARCH_INPUT],
        "thinking": ['{"expression": "1234 * 5678"}'],
        "large_file_write": [answers.LARGE_FILE_INPUT],
    }[scenario]


def _calls_four_ways(scenario: str, seed: int) -> dict[str, list[tooljson.ToolCall]]:
    import anthropic
    from tooljson.standin import StandInServer, get_scenario

    request = get_scenario(scenario).first_request()
    out: dict[str, list[tooljson.ToolCall]] = {}
    with StandInServer(scenario=scenario, fragment_sizes=(1, 32), seed=seed) as server:
        client = anthropic.Anthropic(base_url=server.base_url, api_key="stand-in", max_retries=0)
        with client:
            raw = list(client.messages.create(stream=True, **request))
            out["raw"] = tooljson.collect_tool_calls(raw).calls
            out["dicts"] = tooljson.collect_tool_calls([e.to_dict() for e in raw]).calls
            with client.messages.create(stream=True, **request) as stream:
                decoded = list(tooljson.iter_events(stream))
            # The loop's own decoding gives the very events the SDK gives, pings left out.
            assert decoded == [e.to_dict() for e in raw]
            out["iter_events"] = tooljson.collect_tool_calls(decoded).calls
            if scenario not in ("invalid_json", "large_file_write"):
                # The helper stream gives up on text that is not JSON (see the test below), and
                # benches/bench_loop.py already checks it on the ~100 KB input, which costs seconds.
                with client.messages.stream(**request) as helper:
                    out["helper"] = tooljson.collect_tool_calls(helper).calls

        async def main() -> list[tooljson.ToolCall]:
            aclient = anthropic.AsyncAnthropic(base_url=server.base_url, api_key="stand-in", max_retries=0)
            async with aclient:
                stream = await aclient.messages.create(stream=True, **request)
                calls = (await tooljson.acollect_tool_calls(stream)).calls
                async with await aclient.messages.create(stream=True, **request) as again:
                    out["aiter_events"] = (
                        await tooljson.acollect_tool_calls(tooljson.aiter_events(again))
                    ).calls
                return calls

        out["async"] = anyio.run(main)
    return out


# Two cuttings of every scenario; the ~100 KB one once, as it costs seconds through the helper stream.
FOUR_WAYS_CASES = [
    (s, seed) for s in E2E_SCENARIOS for seed in (0, 1) if (s, seed) != ("large_file_write", 1)
]


@pytest.mark.parametrize(("scenario", "seed"), FOUR_WAYS_CASES)
def test_raw_helper_dict_and_async_streams_give_the_same_calls(scenario: str, seed: int) -> None:
    ways = _calls_four_ways(scenario, seed)
    reference = ways["raw"]
    for way, calls in ways.items():
        assert calls == reference, way
    if scenario == "max_tokens":
        from tooljson.standin.scenarios import answers

        [call] = reference
        assert call.status == "incomplete" and answers.NOTE_INPUT.startswith(call.raw_json)
        return
    assert [c.raw_json for c in reference] == _expected_texts(scenario)
    for call in reference:
        if call.ok:
            assert call.input == (json.loads(call.raw_json) if call.raw_json else {})
        else:
            assert scenario == "invalid_json" and call.status == "malformed"
    assert len({c.id for c in reference}) == len(reference)


def test_helper_stream_cannot_deliver_invalid_json_but_feed_on_raw_events_can() -> None:
    import anthropic
    from tooljson.standin import StandInServer, get_scenario

    request = get_scenario("invalid_json").first_request()
    with StandInServer(scenario="invalid_json", fragment_sizes=(1, 32), seed=0) as server:
        client = anthropic.Anthropic(base_url=server.base_url, api_key="stand-in", max_retries=0)
        with client:
            with pytest.raises(ValueError, match="Unable to parse tool parameter JSON"):
                with client.messages.stream(**request) as helper:
                    for _ in helper:
                        pass
            acc = tooljson.collect_tool_calls(client.messages.create(stream=True, **request))
    assert [acc.is_invalid(c) for c in acc.calls] == [True, True]


SSE_TEXT = (
    b'event: message_start\r\ndata: {"type": "message_start"}\r\n\r\n'
    b": a comment line\n"
    b'event: content_block_delta\ndata: {"type": "content_block_delta",\n'
    b'data: "text": "line\xe2\x80\xa8separator \xc3\xa9"}\n\n'
    b'event: ping\ndata: {"type": "ping"}\n\n'
    b'event: message_stop\rdata: {"type": "message_stop"}\r\r'
    b'event: message_delta\ndata: {"type": "cut off'
)


class _FakeResponse:
    def __init__(self, chunks: list[bytes]) -> None:
        self._chunks = chunks

    def iter_bytes(self) -> Any:
        return iter(self._chunks)


class _FakeStream:
    def __init__(self, chunks: list[bytes]) -> None:
        self.response = _FakeResponse(chunks)


@pytest.mark.parametrize("seed", range(20))
def test_iter_events_splits_sse_however_the_bytes_are_chunked(seed: int) -> None:
    rng = random.Random(seed)
    chunks, start = [], 0
    while start < len(SSE_TEXT):
        size = rng.randint(1, 9)
        chunks.append(SSE_TEXT[start : start + size])
        start += size
    events = list(tooljson.iter_events(_FakeStream(chunks)))
    assert events == [
        {"type": "message_start"},
        # Two data lines make one value; U+2028 inside a string is not a line break.
        {"type": "content_block_delta", "text": "line\u2028separator é"},
        {"type": "message_stop"},
    ]


def test_iter_events_raises_on_an_error_event() -> None:
    import anthropic
    import httpx2

    body = b'event: error\ndata: {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}\n\n'

    class Stream:
        response = httpx2.Response(
            200,
            content=b"event: ping\ndata: {}\n\n" + body,
            request=httpx2.Request("POST", "http://127.0.0.1/v1/messages"),
        )

    with pytest.raises(anthropic.APIStatusError) as caught:
        list(tooljson.iter_events(Stream()))
    assert caught.value.body == {
        "type": "error",
        "error": {"type": "overloaded_error", "message": "Overloaded"},
    }


def test_assembler_keeps_whole_blocks_thinking_and_citations() -> None:
    citation = {
        "type": "web_search_result_location",
        "url": "https://example.org/a",
        "title": "A",
        "encrypted_index": "ZW5j",
        "cited_text": "fragments once",
    }
    search_result = {
        "type": "web_search_tool_result",
        "tool_use_id": "srvtoolu_1",
        "content": [
            {
                "type": "web_search_result",
                "url": "https://example.org/a",
                "title": "A",
                "encrypted_content": "ZW5j",
                "page_age": None,
            }
        ],
    }
    events: list[dict[str, Any]] = [
        {
            "type": "message_start",
            "message": {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "model": "m",
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {"input_tokens": 3, "output_tokens": 1},
            },
        },
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "redacted_thinking", "data": "c2VjcmV0"},
        },
        {"type": "content_block_stop", "index": 0},
        {
            "type": "content_block_start",
            "index": 1,
            "content_block": {"type": "thinking", "thinking": "", "signature": ""},
        },
        {
            "type": "content_block_delta",
            "index": 1,
            "delta": {"type": "thinking_delta", "thinking": "Let me "},
        },
        {
            "type": "content_block_delta",
            "index": 1,
            "delta": {"type": "thinking_delta", "thinking": "check."},
        },
        {
            "type": "content_block_delta",
            "index": 1,
            "delta": {"type": "signature_delta", "signature": "c2ln"},
        },
        {"type": "content_block_stop", "index": 1},
        {"type": "content_block_start", "index": 2, "content_block": search_result},
        {"type": "content_block_stop", "index": 2},
        {
            "type": "content_block_start",
            "index": 3,
            "content_block": {"type": "text", "text": "", "citations": None},
        },
        {
            "type": "content_block_delta",
            "index": 3,
            "delta": {"type": "citations_delta", "citation": citation},
        },
        {"type": "content_block_delta", "index": 3, "delta": {"type": "text_delta", "text": "Parse each "}},
        {
            "type": "content_block_delta",
            "index": 3,
            "delta": {"type": "text_delta", "text": "fragment once."},
        },
        {"type": "content_block_stop", "index": 3},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn", "stop_sequence": None},
            "usage": {"output_tokens": 40},
        },
        {"type": "message_stop"},
    ]
    for source in (events, as_sdk(events)):
        reader = TurnReader()
        for event in source:
            reader.feed(event)
        assert reader.content == [
            {"type": "redacted_thinking", "data": "c2VjcmV0"},
            {"type": "thinking", "thinking": "Let me check.", "signature": "c2ln"},
            search_result,
            {"type": "text", "text": "Parse each fragment once.", "citations": [citation]},
        ]
        assert reader.assembler.usage["output_tokens"] == 40 and reader.assembler.usage["input_tokens"] == 3
        assert reader.stopped and reader.stop_reason == "end_turn"
