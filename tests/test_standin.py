"""The stand-in Messages API, driven by the real ``anthropic`` client over loopback HTTP."""

from __future__ import annotations

import asyncio
import http.client
import json
import signal
import socket
import subprocess
import sys
import threading
from typing import Any

import anthropic
import httpx2
import pytest
from helpers import dropped_stream_error
from tooljson.standin import (
    SCENARIOS,
    Reply,
    Scenario,
    StandInServer,
    Text,
    Thinking,
    ToolUse,
    WebSearchResult,
    get_scenario,
    scenarios_for,
)
from tooljson.standin.scenarios.answers import (
    BROKEN_ESCAPE_INPUT,
    CORRECTED_INPUTS,
    LARGE_FILE_INPUT,
    MAX_TOKENS_NEEDED,
    NOTE_INPUT,
    THINKING_SIGNATURE,
    TRAILING_OBJECT_INPUT,
)

FAULTY = ("stream_error", "connection_drop")
# The scenarios of the Messages API (the others are played by the stand-ins of other APIs only).
COMPLETE = tuple(name for name in scenarios_for("anthropic") if name not in FAULTY)
# The SDK's helper stream re-parses the input with jiter on every delta; jiter refuses an invalid
# escape and a lone surrogate escape (which json.loads keeps), so the helper gives up on these.
HELPER_GIVES_UP = ("invalid_json", "lone_surrogate")
TOOL_BLOCKS = ("tool_use", "server_tool_use")


def _client(server: StandInServer) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=server.base_url, api_key="stand-in", max_retries=0)


def _async_client(server: StandInServer) -> anthropic.AsyncAnthropic:
    return anthropic.AsyncAnthropic(base_url=server.base_url, api_key="stand-in", max_retries=0)


def _script(name: str, **request: Any) -> Reply:
    """What the scenario scripts for its first request (ids still unassigned)."""
    scenario = get_scenario(name)
    return scenario.respond(scenario.first_request(**request), 0)


def _dicts(events: list[Any]) -> list[dict[str, Any]]:
    return [event.to_dict() if hasattr(event, "to_dict") else event for event in events]


def _joined_inputs(events: list[dict[str, Any]]) -> dict[int, str]:
    """The ``partial_json`` fragments of each tool block, joined, keyed by block index."""
    joined: dict[int, str] = {}
    for event in events:
        if event["type"] == "content_block_start" and event["content_block"]["type"] in TOOL_BLOCKS:
            joined[event["index"]] = ""
        elif event["type"] == "content_block_delta" and event["delta"]["type"] == "input_json_delta":
            joined[event["index"]] += event["delta"]["partial_json"]
    return joined


def _fragments(events: list[dict[str, Any]]) -> dict[int, list[str]]:
    pieces: dict[int, list[str]] = {}
    for event in events:
        if event["type"] == "content_block_delta":
            delta = event["delta"]
            piece = delta.get("partial_json", delta.get("text", delta.get("thinking")))
            if piece is not None:
                pieces.setdefault(event["index"], []).append(piece)
    return pieces


def _check_event_order(events: list[dict[str, Any]]) -> None:
    """message_start first, message_stop last, every delta between its block's start and stop."""
    kinds = [e["type"] for e in events if e["type"] != "ping"]
    assert kinds[0] == "message_start"
    assert kinds[-2:] == ["message_delta", "message_stop"]
    open_block: int | None = None
    next_index = 0
    for event in events:
        if event["type"] == "content_block_start":
            assert open_block is None and event["index"] == next_index
            open_block = event["index"]
        elif event["type"] == "content_block_delta":
            assert event["index"] == open_block
        elif event["type"] == "content_block_stop":
            assert event["index"] == open_block
            open_block, next_index = None, next_index + 1
    assert open_block is None


def _scripted_inputs(reply: Reply) -> dict[int, str]:
    return {i: b.input_text for i, b in enumerate(reply.blocks) if isinstance(b, ToolUse)}


def _expected_content(reply: Reply) -> list[tuple[str, Any]]:
    """(type, payload) per block of the reply, in the form the final message shows."""
    out: list[tuple[str, Any]] = []
    for block in reply.blocks:
        if isinstance(block, Text):
            out.append(("text", block.text))
        elif isinstance(block, Thinking):
            out.append(("thinking", (block.thinking, block.signature)))
        elif isinstance(block, ToolUse):
            kind = "server_tool_use" if block.server else "tool_use"
            out.append((kind, (block.name, json.loads(block.input_text) if block.input_text else {})))
        elif isinstance(block, WebSearchResult):
            out.append(("web_search_tool_result", block.tool_use_id))
    return out


def _content_of(message: anthropic.types.Message) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for block in message.content:
        if block.type == "text":
            out.append(("text", block.text))
        elif block.type == "thinking":
            out.append(("thinking", (block.thinking, block.signature)))
        elif block.type in ("tool_use", "server_tool_use"):
            out.append((block.type, (block.name, block.input)))
        elif block.type == "web_search_tool_result":
            out.append((block.type, block.tool_use_id))
    return out


# --- raw events and the helper stream, per scenario


@pytest.mark.parametrize("name", COMPLETE)
def test_raw_stream_joins_to_the_scripted_input(name: str) -> None:
    scenario = get_scenario(name)
    with StandInServer(name, fragment_sizes=(1, 32), seed=0) as server, _client(server) as client:
        with client.messages.create(**scenario.first_request(), stream=True) as stream:
            events = _dicts(list(stream))
        assert not server.failures
    _check_event_order(events)
    assert _joined_inputs(events) == _scripted_inputs(_script(name))
    starts = [e["content_block"] for e in events if e["type"] == "content_block_start"]
    tool_ids = [block["id"] for block in starts if block["type"] in TOOL_BLOCKS]
    assert tool_ids and all(i.startswith(("toolu_01", "srvtoolu_01")) for i in tool_ids)


@pytest.mark.parametrize("name", [n for n in COMPLETE if n not in HELPER_GIVES_UP])
def test_helper_stream_final_message_matches_the_script(name: str) -> None:
    scenario = get_scenario(name)
    # The helper re-parses its whole buffer on every delta: larger pieces keep the big input quick.
    sizes = (16, 64) if name == "large_file_write" else (1, 32)
    with StandInServer(name, fragment_sizes=sizes, seed=1) as server, _client(server) as client:
        with client.messages.stream(**scenario.first_request()) as stream:
            message = stream.get_final_message()
    reply = _script(name)
    assert message.stop_reason == reply.stop_reason
    if reply.stop_reason == "max_tokens":
        # The cut-off input is not JSON; the helper shows a parsed prefix of it.
        assert [kind for kind, _ in _content_of(message)] == ["text", "tool_use"]
        assert message.usage.output_tokens == scenario.first_max_tokens
    else:
        assert _content_of(message) == _expected_content(reply)


@pytest.mark.parametrize("name", HELPER_GIVES_UP)
def test_helper_stream_gives_up_on_a_broken_escape_and_a_lone_surrogate(name: str) -> None:
    # The SDK re-parses the buffer with jiter on every delta and raises at the first invalid escape
    # or lone surrogate, so these scenarios can only be followed with raw events.
    scenario = get_scenario(name)
    with StandInServer(name) as server, _client(server) as client:
        with client.messages.stream(**scenario.first_request()) as stream:
            with pytest.raises(ValueError, match="Unable to parse tool parameter JSON"):
                stream.get_final_message()


@pytest.mark.parametrize("name", COMPLETE)
def test_async_raw_and_helper_streams(name: str) -> None:
    scenario = get_scenario(name)

    async def run() -> tuple[list[dict[str, Any]], anthropic.types.Message | Exception, int]:
        # The helper re-parses its whole buffer on every delta: larger pieces keep the big input quick.
        sizes = (32, 96) if name == "large_file_write" else (2, 9)
        server = StandInServer(name, fragment_sizes=sizes, seed=3)
        async with server, _async_client(server) as client:
            async with await client.messages.create(**scenario.first_request(), stream=True) as stream:
                events = _dicts([event async for event in stream])
            try:
                async with client.messages.stream(**scenario.first_request()) as helper:
                    message: anthropic.types.Message | Exception = await helper.get_final_message()
            except ValueError as error:  # which scenarios make the helper give up is checked below
                message = error
            return events, message, len(server.requests)

    events, message, recorded = asyncio.run(run())
    _check_event_order(events)
    assert _joined_inputs(events) == _scripted_inputs(_script(name))
    if name in HELPER_GIVES_UP:
        assert isinstance(message, ValueError)
    else:
        assert isinstance(message, anthropic.types.Message)
        assert message.stop_reason == _script(name).stop_reason
    assert recorded == 2


def test_whole_message_equals_the_streamed_one() -> None:
    scenario = get_scenario("parallel_calls")
    with StandInServer("parallel_calls", seed=5) as server, _client(server) as client:
        whole = client.messages.create(**scenario.first_request())
        with client.messages.stream(**scenario.first_request()) as stream:
            streamed = stream.get_final_message()
    # Same request, same seed: same ids, same content, whichever way it was asked for.
    assert whole.id == streamed.id
    assert [b.to_dict() for b in whole.content] == [b.to_dict() for b in streamed.content]
    assert whole.stop_reason == streamed.stop_reason == "tool_use"


# --- fragments


@pytest.mark.parametrize(
    ("name", "sizes"), [("max_tokens", (3, 7)), ("large_file_write", (20, 64)), ("thinking", (1, 2))]
)
def test_fragment_sizes_are_respected(name: str, sizes: tuple[int, int]) -> None:
    scenario = get_scenario(name)
    request = scenario.first_request(max_tokens=64_000)
    server = StandInServer(name, fragment_sizes=sizes, seed=2)
    with server, _client(server) as client:
        with client.messages.create(**request, stream=True) as stream:
            events = _dicts(list(stream))
    low, high = sizes
    fragments = _fragments(events)
    assert fragments
    for pieces in fragments.values():
        assert all(low <= len(piece) <= high for piece in pieces[:-1])
        assert 1 <= len(pieces[-1]) <= high
    assert _joined_inputs(events) == _scripted_inputs(scenario.respond(request, 0))


def test_single_character_fragments_split_every_escape() -> None:
    with StandInServer("parallel_calls", fragment_sizes=(1, 1)) as server, _client(server) as client:
        with client.messages.create(**get_scenario("parallel_calls").first_request(), stream=True) as s:
            events = _dicts(list(s))
    assert _fragments(events)[2] == list('{"city": "S\\u00e3o Paulo", "unit": "celsius"}')


def test_cuts_fall_inside_escapes_numbers_and_surrogate_pairs() -> None:
    scenario = get_scenario("max_tokens")
    server = StandInServer("max_tokens", fragment_sizes=(1, 6), seed=0)
    with server, _client(server) as client:
        request = scenario.first_request(max_tokens=MAX_TOKENS_NEEDED)
        with client.messages.create(**request, stream=True) as stream:
            pieces = _fragments(_dicts(list(stream)))[1]
    assert "".join(pieces) == NOTE_INPUT
    cuts = {len("".join(pieces[:i])) for i in range(1, len(pieces))}

    def cut_inside(token: str) -> bool:
        starts = [i for i in range(len(NOTE_INPUT)) if NOTE_INPUT.startswith(token, i)]
        return any(start < cut < start + len(token) for start in starts for cut in cuts)

    assert cut_inside("\\ud83d\\ude80")
    assert cut_inside("\\u20ac")
    assert cut_inside('\\"')
    assert cut_inside("0.125") or cut_inside("true")


def test_empty_input_sends_no_delta_or_one_empty_delta() -> None:
    with StandInServer("empty_input") as server, _client(server) as client:
        with client.messages.create(**get_scenario("empty_input").first_request(), stream=True) as s:
            events = _dicts(list(s))
    fragments = _fragments(events)
    assert 0 not in fragments
    assert fragments[1] == [""]


def test_same_seed_same_stream_and_other_seed_other_ids() -> None:
    def events(seed: int) -> list[dict[str, Any]]:
        with StandInServer("parallel_calls", seed=seed) as server, _client(server) as client:
            with client.messages.create(**get_scenario("parallel_calls").first_request(), stream=True) as s:
                return _dicts(list(s))

    first, again, other = events(7), events(7), events(8)
    assert first == again
    assert first[0]["message"]["id"] != other[0]["message"]["id"]


def test_large_file_content_has_every_hard_character() -> None:
    content = json.loads(LARGE_FILE_INPUT)["content"]
    assert 100_000 <= len(content.encode("utf-8")) < 110_000
    for needle in ("\n", '"', "\\", "\t", "é", "日本語", "🚀", "👩\u200d💻"):
        assert needle in content
    # Escaped and raw forms both occur in the text the model streams.
    assert "\\ud83d\\ude80" in LARGE_FILE_INPUT and "👩" in LARGE_FILE_INPUT


# --- conversations: what the scenario answers to what the client sent


def _assistant_content(message: anthropic.types.Message) -> list[dict[str, Any]]:
    return [block.to_dict() for block in message.content]


def _assistant(message: anthropic.types.Message) -> dict[str, Any]:
    """The assistant message to send back: the whole content of the response."""
    return {"role": "assistant", "content": _assistant_content(message)}


def _tool_results(message: anthropic.types.Message, answers: list[tuple[str, bool]]) -> dict[str, Any]:
    calls = [b for b in message.content if b.type == "tool_use"]
    assert len(calls) == len(answers)
    return {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": call.id, "content": text, "is_error": is_error}
            for call, (text, is_error) in zip(calls, answers)
        ],
    }


def _next_request(first: dict[str, Any], *messages: dict[str, Any]) -> dict[str, Any]:
    return {**first, "messages": [*first["messages"], *messages]}


def test_parallel_calls_close_with_the_results() -> None:
    scenario = get_scenario("parallel_calls")
    first = scenario.first_request()
    with StandInServer("parallel_calls") as server, _client(server) as client:
        message = client.messages.create(**first)
        results = _tool_results(message, [("18 °C, clear", False), ("24 °C, rain", False)])
        reply = client.messages.create(**_next_request(first, _assistant(message), results))
    assert reply.stop_reason == "end_turn"
    assert reply.content[0].text == "Results received: 18 °C, clear | 24 °C, rain"


def test_a_missing_tool_result_is_refused_with_400() -> None:
    scenario = get_scenario("parallel_calls")
    first = scenario.first_request()
    with StandInServer("parallel_calls") as server, _client(server) as client:
        message = client.messages.create(**first)
        results = _tool_results(message, [("18 °C", False), ("24 °C", False)])
        results["content"] = results["content"][:1]
        with pytest.raises(anthropic.BadRequestError, match="no tool_result"):
            client.messages.create(**_next_request(first, _assistant(message), results))


def test_a_result_for_an_unknown_call_is_refused_with_400() -> None:
    scenario = get_scenario("unknown_tool")
    first = scenario.first_request()
    with StandInServer("unknown_tool") as server, _client(server) as client:
        message = client.messages.create(**first)
        results = _tool_results(message, [("no such tool", True)])
        results["content"].append({"type": "tool_result", "tool_use_id": "toolu_01nope", "content": "?"})
        with pytest.raises(anthropic.BadRequestError, match="unknown tool_use ids"):
            client.messages.create(**_next_request(first, _assistant(message), results))


def test_a_failing_scenario_answers_500_and_is_kept() -> None:
    def respond(body: dict[str, Any], turn: int) -> Reply:
        raise LookupError("scripted failure")

    broken = Scenario(name="broken", description="Always fails.", prompt="hi", tools=[], respond=respond)
    with StandInServer(broken) as server, _client(server) as client:
        with pytest.raises(anthropic.InternalServerError, match="scripted failure"):
            client.messages.create(**broken.first_request())
        assert len(server.failures) == 1 and "LookupError" in server.failures[0]


def _invalid_json_first_turn(client: anthropic.Anthropic, first: dict[str, Any]) -> dict[str, Any]:
    """The assistant message of the first turn, built from raw events (its inputs are not JSON)."""
    with client.messages.create(**first, stream=True) as stream:
        events = _dicts(list(stream))
    texts = _joined_inputs(events)
    assert texts == {1: BROKEN_ESCAPE_INPUT, 2: TRAILING_OBJECT_INPUT}
    assert events[-2]["delta"]["stop_reason"] == "tool_use"
    blocks = [e["content_block"] for e in events if e["type"] == "content_block_start"]
    blocks[0]["text"] = "Saving both records."
    for block in blocks[1:]:
        block["input"] = {}
    return {"role": "assistant", "content": blocks}


def test_invalid_json_is_corrected_after_invalid_json_results() -> None:
    scenario = get_scenario("invalid_json")
    first = scenario.first_request()
    with StandInServer("invalid_json") as server, _client(server) as client:
        assistant = _invalid_json_first_turn(client, first)
        ids = [b["id"] for b in assistant["content"][1:]]
        payloads = [{"INVALID_JSON": BROKEN_ESCAPE_INPUT}, {"INVALID_JSON": TRAILING_OBJECT_INPUT}]
        errors = {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": i, "is_error": True, "content": json.dumps(payload)}
                for i, payload in zip(ids, payloads)
            ],
        }
        second = _next_request(first, assistant, errors)
        with client.messages.stream(**second) as stream:
            corrected = stream.get_final_message()
        assert corrected.stop_reason == "tool_use"
        inputs = [b.input for b in corrected.content if b.type == "tool_use"]
        assert inputs == [json.loads(text) for text in CORRECTED_INPUTS]
        done = client.messages.create(
            **_next_request(
                second, _assistant(corrected), _tool_results(corrected, [("saved", False), ("saved", False)])
            )
        )
    assert done.stop_reason == "end_turn"
    assert done.content[0].text == "Results received: saved | saved"


def test_invalid_json_flags_results_that_hide_the_raw_text() -> None:
    scenario = get_scenario("invalid_json")
    first = scenario.first_request()
    with StandInServer("invalid_json") as server, _client(server) as client:
        assistant = _invalid_json_first_turn(client, first)
        vague = {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": b["id"], "is_error": True, "content": "failed"}
                for b in assistant["content"][1:]
            ],
        }
        reply = client.messages.create(**_next_request(first, assistant, vague))
    assert reply.stop_reason == "end_turn"
    assert reply.content[0].text.startswith("UNEXPECTED:")


def test_max_tokens_cuts_the_input_then_completes_with_a_larger_budget() -> None:
    scenario = get_scenario("max_tokens")
    with StandInServer("max_tokens", seed=4) as server, _client(server) as client:
        with client.messages.create(**scenario.first_request(), stream=True) as stream:
            events = _dicts(list(stream))
        cut = _joined_inputs(events)[1]
        assert events[-2]["delta"]["stop_reason"] == "max_tokens"
        assert events[-2]["usage"]["output_tokens"] == scenario.first_max_tokens
        assert NOTE_INPUT.startswith(cut) and len(cut) < len(NOTE_INPUT)
        with pytest.raises(json.JSONDecodeError):
            json.loads(cut)
        with client.messages.stream(**scenario.first_request(max_tokens=MAX_TOKENS_NEEDED)) as retried:
            message = retried.get_final_message()
    assert message.stop_reason == "tool_use"
    assert message.content[1].input == json.loads(NOTE_INPUT)


def test_schema_mismatch_expects_one_success_and_one_rejection() -> None:
    scenario = get_scenario("schema_mismatch")
    first = scenario.first_request()
    with StandInServer("schema_mismatch") as server, _client(server) as client:
        message = client.messages.create(**first)
        inputs = [b.input for b in message.content if b.type == "tool_use"]
        assert inputs[0]["priority"] == "High" and inputs[0]["component"] == " auth "
        assert "title" not in inputs[1] and inputs[1]["estimate_hours"] == "three"
        assistant = _assistant(message)
        good = _tool_results(message, [("ticket 1 filed", False), ("title: required field missing", True)])
        wrong = _tool_results(message, [("ticket 1 filed", False), ("ticket 2 filed", False)])
        closing = client.messages.create(**_next_request(first, assistant, good))
        flagged = client.messages.create(**_next_request(first, assistant, wrong))
    assert closing.stop_reason == "end_turn" and not closing.content[0].text.startswith("UNEXPECTED")
    assert flagged.content[0].text.startswith("UNEXPECTED:")


def test_unknown_tool_calls_a_tool_that_was_not_offered() -> None:
    scenario = get_scenario("unknown_tool")
    first = scenario.first_request()
    with StandInServer("unknown_tool") as server, _client(server) as client:
        message = client.messages.create(**first)
        call = message.content[0]
        assert call.type == "tool_use" and call.name not in {t["name"] for t in first["tools"]}
        assistant = _assistant(message)
        refusal = _tool_results(message, [("unknown tool", True)])
        refused = client.messages.create(**_next_request(first, assistant, refusal))
        success = _tool_results(message, [("42", False)])
        ran = client.messages.create(**_next_request(first, assistant, success))
    assert refused.stop_reason == "end_turn" and not refused.content[0].text.startswith("UNEXPECTED")
    assert ran.content[0].text.startswith("UNEXPECTED:")


def test_pause_turn_continues_when_the_assistant_content_is_resent() -> None:
    scenario = get_scenario("pause_turn")
    first = scenario.first_request()
    with StandInServer("pause_turn") as server, _client(server) as client:
        with client.messages.stream(**first) as stream:
            paused = stream.get_final_message()
        assert paused.stop_reason == "pause_turn"
        search = paused.content[1]
        assert search.type == "server_tool_use" and search.id.startswith("srvtoolu_01")
        assistant = _assistant(paused)
        with client.messages.stream(**_next_request(first, assistant)) as stream:
            resumed = stream.get_final_message()
        nudge = {"role": "user", "content": "go on"}
        wrong = client.messages.create(**_next_request(first, assistant, nudge))
    assert resumed.stop_reason == "end_turn"
    assert resumed.content[0].type == "web_search_tool_result" and resumed.content[0].tool_use_id == search.id
    assert resumed.content[1].type == "text"
    assert wrong.content[0].text.startswith("UNEXPECTED:")


def test_whole_messages_cannot_carry_invalid_text_but_show_a_cut_prefix() -> None:
    with StandInServer("invalid_json") as server, _client(server) as client:
        with pytest.raises(anthropic.InternalServerError, match="not JSON"):
            client.messages.create(**get_scenario("invalid_json").first_request())
    with StandInServer("max_tokens") as server, _client(server) as client:
        message = client.messages.create(**get_scenario("max_tokens").first_request())
    assert message.stop_reason == "max_tokens"
    cut = message.content[1].input
    assert cut["title"] == "Streaming notes" and "priority" not in cut


def test_thinking_must_be_sent_back_with_its_signature() -> None:
    scenario = get_scenario("thinking")
    first = scenario.first_request()
    with StandInServer("thinking") as server, _client(server) as client:
        with client.messages.stream(**first) as stream:
            message = stream.get_final_message()
        assert message.content[0].type == "thinking" and message.content[0].signature == THINKING_SIGNATURE
        results = _tool_results(message, [("7006652", False)])
        full = _assistant(message)
        closing = client.messages.create(**_next_request(first, full, results))
        stripped = {"role": "assistant", "content": _assistant_content(message)[1:]}
        with pytest.raises(anthropic.BadRequestError, match="thinking block"):
            client.messages.create(**_next_request(first, stripped, results))
    assert closing.content[0].text == "1234 × 5678 = 7006652"


# --- broken streams


def test_stream_error_raises_api_status_error() -> None:
    scenario = get_scenario("stream_error")
    with StandInServer("stream_error") as server, _client(server) as client:
        seen: list[str] = []
        with pytest.raises(anthropic.APIStatusError) as raised:
            with client.messages.create(**scenario.first_request(), stream=True) as stream:
                for event in stream:
                    if event.type == "content_block_delta" and event.delta.type == "input_json_delta":
                        seen.append(event.delta.partial_json)
        with pytest.raises(anthropic.APIStatusError, match="overloaded_error"):
            with client.messages.stream(**scenario.first_request()) as helper:
                helper.get_final_message()
        with pytest.raises(anthropic.OverloadedError):
            client.messages.create(**scenario.first_request())
        assert not server.failures
    assert type(raised.value) is anthropic.APIStatusError
    error = {"type": "overloaded_error", "message": "Overloaded"}
    assert raised.value.body == {"type": "error", "error": error}
    text = "".join(seen)
    assert text and text.endswith("\\u0")


def test_connection_drop_raises_as_the_sdk_reports_a_cut_off_body() -> None:
    scenario = get_scenario("connection_drop")
    with StandInServer("connection_drop") as server, _client(server) as client:
        with pytest.raises(dropped_stream_error()) as raised:
            with client.messages.stream(**scenario.first_request()) as stream:
                stream.get_final_message()
        # Wrapped or not, what broke is the HTTP layer's read of the cut-off chunked body.
        cause = (
            raised.value.__cause__ if isinstance(raised.value, anthropic.APIConnectionError) else raised.value
        )
        assert isinstance(cause, httpx2.RemoteProtocolError)
        with pytest.raises(anthropic.APIConnectionError):
            client.messages.create(**scenario.first_request())


def test_broken_streams_raise_the_same_way_in_async() -> None:
    async def run(name: str) -> BaseException:
        async with StandInServer(name) as server, _async_client(server) as client:
            stream = await client.messages.create(**get_scenario(name).first_request(), stream=True)
            try:
                async with stream:
                    async for _ in stream:
                        pass
            except Exception as error:  # noqa: BLE001 - the type is what this test checks
                return error
        raise AssertionError(f"{name} streamed to the end")

    assert type(asyncio.run(run("stream_error"))) is anthropic.APIStatusError
    assert isinstance(asyncio.run(run("connection_drop")), dropped_stream_error())


# --- requests, errors and life cycle


def test_requests_are_recorded_with_headers_and_body() -> None:
    scenario = get_scenario("unknown_tool")
    with StandInServer("unknown_tool") as server, _client(server) as client:
        client.messages.create(**scenario.first_request(), stream=True).close()
        client.messages.create(**scenario.first_request())
        recorded = server.requests
    assert [r.path for r in recorded] == ["/v1/messages", "/v1/messages"]
    assert recorded[0].method == "POST"
    # This SDK version sends the key as a bearer token; older ones used x-api-key.
    credentials = {recorded[0].headers.get("x-api-key"), recorded[0].headers.get("authorization")}
    assert credentials & {"stand-in", "Bearer stand-in"}
    assert "anthropic-version" in recorded[0].headers
    assert recorded[0].body == {**scenario.first_request(), "stream": True}
    assert recorded[1].body == scenario.first_request()


def test_unknown_paths_get_a_404_in_the_api_error_shape() -> None:
    with StandInServer() as server, _client(server) as client:
        port = int(server.base_url.rsplit(":", 1)[1])
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        connection.request("GET", "/v1/models")
        response = connection.getresponse()
        body = json.loads(response.read())
        connection.close()
        with pytest.raises(anthropic.NotFoundError):
            client.models.list()
        assert [r.path.split("?")[0] for r in server.requests] == ["/v1/models", "/v1/models"]
    assert response.status == 404
    assert body["type"] == "error" and body["error"]["type"] == "not_found_error"


def test_a_malformed_request_gets_a_400() -> None:
    with StandInServer() as server, _client(server) as client:
        with pytest.raises(anthropic.BadRequestError, match="max_tokens"):
            client.messages.create(model="m", max_tokens=0, messages=[{"role": "user", "content": "hi"}])


def test_the_server_stops_cleanly_even_with_a_connection_open() -> None:
    server = StandInServer("parallel_calls")
    with server:
        port = int(server.base_url.rsplit(":", 1)[1])
        idle = socket.create_connection(("127.0.0.1", port), timeout=5)
        with _client(server) as client:
            client.messages.create(**get_scenario("parallel_calls").first_request())
    assert not server.running
    assert not [t for t in threading.enumerate() if t.name == "standin-server"]
    # The idle connection was closed by the server, and nothing listens on the port any more.
    assert idle.recv(1) == b""
    idle.close()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=1).close()


def test_the_server_binds_loopback_only() -> None:
    with StandInServer() as server:
        assert server.base_url.startswith("http://127.0.0.1:")


# --- the recorded demo and the command line


def test_demo_stream_file_is_what_the_server_sends() -> None:
    from record_demo import DEFAULT_OUTPUT, demo_events  # scripts/, put on the path by conftest.py

    recorded = [json.loads(line) for line in DEFAULT_OUTPUT.read_text(encoding="utf-8").splitlines()]
    assert recorded == demo_events()
    # The SDK drops pings before a client sees them; on the wire one follows message_start.
    assert recorded[1] == {"type": "ping"}
    starts = [e["content_block"] for e in recorded if e["type"] == "content_block_start"]
    assert [b["type"] for b in starts] == ["text", "tool_use", "tool_use", "tool_use", "tool_use"]
    inputs = _joined_inputs(recorded)
    assert json.loads(inputs[1]) == {"city": "Paris", "unit": "celsius"}
    assert json.loads(inputs[2]) == {"city": "São Paulo", "unit": "celsius"}
    assert inputs[3] == ""
    with pytest.raises(json.JSONDecodeError):
        json.loads(inputs[4])
    assert recorded[-2]["delta"]["stop_reason"] == "max_tokens"


def test_command_line_lists_every_scenario() -> None:
    listed = subprocess.run(
        [sys.executable, "-m", "tooljson.standin", "--list"],
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    )
    assert [line.split()[0] for line in listed.stdout.splitlines()] == list(SCENARIOS)


def _as_from_a_terminal() -> None:
    # A command a shell script starts in the background inherits SIGINT ignored, and Python keeps
    # it ignored (so does the server, on purpose); from a terminal SIGINT has its default action.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_command_line_serves_until_stopped(stop: signal.Signals) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "tooljson.standin", "--scenario", "empty_input", "--fragment-sizes", "2,4"],
        stdout=subprocess.PIPE,
        text=True,
        preexec_fn=_as_from_a_terminal,  # only a signal is reset, before the exec
    )
    try:
        assert process.stdout is not None
        base_url = process.stdout.readline().strip()
        assert base_url.startswith("http://127.0.0.1:")
        with anthropic.Anthropic(base_url=base_url, api_key="stand-in", max_retries=0) as client:
            message = client.messages.create(**get_scenario("empty_input").first_request())
        assert [b.name for b in message.content] == ["get_time", "get_uptime"]
    finally:
        process.send_signal(stop)
        try:
            process.wait(timeout=10)
        finally:
            # Never leave the server behind, even when it did not stop by itself.
            if process.poll() is None:
                process.kill()
                process.wait()
            if process.stdout is not None:
                process.stdout.close()
    assert process.returncode == 0
