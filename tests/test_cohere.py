"""What is Cohere v2's own: its events read as calls and content, its refusals and warnings, its
results, and the stand-in's ``POST /v2/chat`` driven by the real ``ClientV2`` and ``AsyncClientV2``.
What every source shares (inputs at every split, verdicts, previews, objects as dicts, the proxy,
record and replay) runs over the registry, Cohere included, in tests/test_sources_shared.py."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import urllib.request
import warnings
from collections import defaultdict
from contextlib import closing
from typing import Any

import cohere
import httpx
import pytest
import tooljson
from helpers import assert_same_json, expected_input
from tooljson.providers.cohere import streams
from tooljson.standin import StandInServer, get_scenario, scenarios_for
from tooljson.standin.clients import as_dict, first_request, open_client, stream_events

FAULTY = ("stream_error", "connection_drop")
TEXT = '{"city": "S\\u00e3o Paulo", "emoji": "\\ud83d\\ude80", "n": -12.5e-3, "list": [1, [2, {}]]}'


def _read(events: list[Any]) -> tooljson.TurnReader:
    reader = tooljson.TurnReader()
    for event in events:
        reader.feed(event)
    return reader


def _both(events: list[dict[str, Any]]) -> list[tooljson.TurnReader]:
    """One reader fed the dicts, one fed the SDK's objects for them."""
    return [_read(events), _read(streams.as_sdk_objects(events))]


# --- feed(): dicts and SDK objects


def test_the_events_are_read_as_cohere_calls_from_objects_and_dicts_alike() -> None:
    events = streams.events([[TEXT[:7], TEXT[7:30], TEXT[30:]], []], plan="Looking it up.", text="Done.")
    for reader in _both(events):
        assert reader.provider == "cohere" and reader.stopped and reader.stop_reason == "TOOL_CALL"
        assert [(call.id, call.name, call.key, call.provider) for call in reader.calls] == [
            ("call_0", "tool_0", 0, "cohere"),
            ("call_1", "tool_1", 1, "cohere"),
        ]
        assert_same_json(reader.calls[0].input, json.loads(TEXT))
        assert reader.calls[1].input == {}
        assert reader.content == [
            {
                "role": "assistant",
                "tool_plan": "Looking it up.",
                "tool_calls": [
                    {"id": "call_0", "type": "function", "function": {"name": "tool_0", "arguments": TEXT}},
                    {"id": "call_1", "type": "function", "function": {"name": "tool_1", "arguments": ""}},
                ],
                "content": [{"type": "text", "text": "Done."}],
            }
        ]
        assert reader.assembler.usage["tokens"] == {"input_tokens": 1, "output_tokens": 1}


def test_usage_the_sdks_serialiser_cannot_write_is_kept_as_it_came() -> None:
    # An SDK object with a number where an object belongs makes the SDK's own JSON dump raise; the
    # event is read all the same, and its usage kept.
    events = streams.as_sdk_objects(streams.events([[TEXT]]))
    end = events[-1]
    object.__setattr__(end.delta.usage, "billed_units", 7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reader = _read(events)
    assert reader.stopped and len(reader.calls) == 1
    assert reader.assembler.usage["billed_units"] == 7


def test_a_message_end_with_an_error_interrupts_the_reader() -> None:
    events = streams.events([['{"a": ']])
    events[-1] = {"type": "message-end", "delta": {"finish_reason": "ERROR", "error": "overloaded"}}
    for reader in _both(events):
        assert reader.interruption == "ERROR: overloaded"
        assert [reader.state(call) for call in reader.calls] == ["incomplete"]


def test_a_new_message_start_begins_a_new_response() -> None:
    first = streams.events([['{"a": 1}']])
    second = streams.events([['{"b": 2}']], message_id="msg_2")
    accumulator = tooljson.ToolCallAccumulator()
    for event in first + second:
        accumulator.feed(event)
    assert [call.input for call in accumulator.calls] == [{"b": 2}]
    assert accumulator.begins_response(second[0]) and not accumulator.begins_response(second[1])


@pytest.mark.parametrize(
    ("event", "says"),
    [
        (
            {
                "type": "tool-call-delta",
                "index": 3,
                "delta": {"message": {"tool_calls": {"function": {"arguments": "1"}}}},
            },
            "tool-call-delta for index 3, where no tool call is open",
        ),
        ({"type": "tool-call-delta", "index": 0, "delta": {"message": {}}}, "arguments is required"),
        (
            {
                "type": "tool-call-delta",
                "index": 0,
                "delta": {"message": {"tool_calls": {"function": {"arguments": 5}}}},
            },
            "arguments must be a string, not int",
        ),
        (
            {
                "type": "tool-call-delta",
                "index": "0",
                "delta": {"message": {"tool_calls": {"function": {"arguments": "1"}}}},
            },
            "tool-call-delta.index must be an integer, not str",
        ),
        ({"type": "tool-call-delta", "index": [0], "delta": 7}, "index must be an integer, not list"),
        ({"type": "tool-call-start", "index": 1, "delta": {"message": {}}}, "tool_calls is required"),
        (
            {
                "type": "tool-call-start",
                "index": 1,
                "delta": {"message": {"tool_calls": {"id": "c", "function": {"name": 2}}}},
            },
            "function.name must be a string, not int",
        ),
        ({"type": "tool-call-end"}, "tool-call-end.index is required"),
        ({"type": "message-end", "delta": {"finish_reason": 1}}, "finish_reason must be a string, not int"),
        ({"type": "message-end", "delta": "done"}, "message-end.delta must be an object, not str"),
    ],
)
def test_a_delta_of_no_open_call_or_an_event_of_the_wrong_shape_is_malformed(
    event: dict[str, Any], says: str
) -> None:
    reader = tooljson.TurnReader()
    for good in streams.events([['{"a": 1']])[:3]:
        reader.feed(good)
    with pytest.raises(tooljson.MalformedEvent, match=says):
        reader.feed(event)
    # What was read before stays.
    assert (
        reader.provider == "cohere" and reader.accumulator.received(reader.accumulator.blocks[0]) == '{"a": 1'
    )


def test_an_end_of_no_open_call_and_a_second_start_are_noted() -> None:
    accumulator = tooljson.ToolCallAccumulator()
    events = streams.events([['{"a": 1']])
    for event in events[:3]:
        accumulator.feed(event)
    assert [call.status for call in accumulator.feed(events[1])] == ["incomplete"]
    accumulator.feed({"type": "tool-call-end", "index": 0})
    assert accumulator.feed({"type": "tool-call-end", "index": 0}) == []
    assert accumulator.warnings == [
        "tool-call-start for index 0, where a tool call is open",
        "tool-call-end for index 0, where no tool call is open: ignored",
    ]


def test_results_are_cohere_tool_messages() -> None:
    raw = '{"note": "a\\qb"}'
    (reader, _) = _both(streams.events([[raw[:5], raw[5:]]]))
    (call,) = reader.calls
    assert tooljson.invalid_json_result(call) == {
        "role": "tool",
        "tool_call_id": "call_0",
        "content": json.dumps({"INVALID_JSON": raw}),
    }
    from tooljson.results import success_result

    assert success_result(call, {"ok": True}) == {
        "role": "tool",
        "tool_call_id": "call_0",
        "content": '{"ok": true}',
    }


def test_a_recording_is_checked_line_by_line() -> None:
    from tooljson.ui.recording import RecordingError, parse_events

    good = [json.dumps(event) for event in streams.events([['{"a": 1}']])]
    assert len(parse_events(good, source="cohere.jsonl")) == len(good)
    bad = '{"type": "tool-call-delta", "index": 0, "delta": {"message": {"tool_calls": {"function": {"arguments": 1}}}}}'
    with pytest.raises(RecordingError) as caught:
        parse_events([*good[:3], bad], source="cohere.jsonl")
    assert caught.value.line == 4 and "arguments must be a string, not int" in caught.value.problem


# --- the stand-in's POST /v2/chat, driven by cohere's own clients


def _scripted(name: str) -> tuple[list[str], str]:
    scenario = get_scenario(name)
    reply = scenario.respond(scenario.first_request(), 0)
    return [block.input_text for block in reply.blocks if hasattr(block, "input_text")], reply.stop_reason


def _joined(events: list[dict[str, Any]]) -> dict[int, str]:
    """Each call's arguments joined straight from the dicts (the oracle's input)."""
    pieces: dict[int, list[str]] = defaultdict(list)
    for event in events:
        if event["type"] == "tool-call-start":
            pieces[event["index"]].append(
                event["delta"]["message"]["tool_calls"]["function"].get("arguments") or ""
            )
        elif event["type"] == "tool-call-delta":
            pieces[event["index"]].append(event["delta"]["message"]["tool_calls"]["function"]["arguments"])
    return {index: "".join(parts) for index, parts in pieces.items()}


def _stream(name: str, **options: Any) -> tuple[list[Any], BaseException | None]:
    scenario = get_scenario(name)
    events: list[Any] = []
    with StandInServer(scenario, **options) as server:
        try:
            with closing(open_client("cohere", server.base_url)) as client:
                events += stream_events("cohere", client, first_request(scenario, "cohere"))
        except httpx.HTTPError as error:  # the dropped connection, as the client raises it
            return events, error
        assert server.failures == []
    return events, None


async def _stream_async(name: str) -> list[Any]:
    scenario = get_scenario(name)
    with StandInServer(scenario) as server:
        request = first_request(scenario, "cohere")
        async with cohere.AsyncClientV2(api_key="stand-in", base_url=server.base_url) as client:
            return [
                event async for event in client.chat_stream(**request, request_options={"max_retries": 0})
            ]


@pytest.mark.parametrize("name", scenarios_for("cohere"))
def test_every_scenario_through_the_client_reads_as_the_script(name: str) -> None:
    events, error = _stream(name)
    dicts = [as_dict(event, "cohere") for event in events]
    assert all(type(event).__module__.startswith("cohere.") for event in events)
    joined = _joined(dicts)
    scripted, stop = _scripted(name)
    for reader in (_read(events), _read(dicts)):
        assert reader.provider == "cohere"
        if name == "connection_drop":
            assert isinstance(error, Exception) and not reader.stopped and reader.calls == []
            reader.interrupt(str(error), error)
            assert [reader.state(block) for block in reader.blocks] == ["interrupted"]
            continue
        assert error is None and reader.stopped
        if name == "stream_error":
            assert (
                reader.stop_reason == "ERROR" and reader.interruption == "ERROR: overloaded_error: Overloaded"
            )
            assert [reader.state(call) for call in reader.calls] == ["incomplete"]
            continue
        assert reader.stop_reason == {"max_tokens": "MAX_TOKENS", "tool_use": "TOOL_CALL"}.get(
            stop, "COMPLETE"
        )
        assert (
            [call.raw_json for call in reader.calls]
            == [joined[call.key] for call in reader.calls]
            == scripted
        )
        for call in reader.calls:
            expected = expected_input(call.raw_json or "{}")
            if expected.accepted:
                assert reader.state(call) == "complete"
                assert_same_json(call.input, expected.value)
            elif stop == "max_tokens":
                assert reader.state(call) == "truncated"
            else:
                assert reader.state(call) == "malformed" and call.error is not None


def test_the_async_client_yields_the_same_events() -> None:
    for name in ("parallel_calls", "max_tokens"):
        events, _ = _stream(name)
        assert [as_dict(event, "cohere") for event in asyncio.run(_stream_async(name))] == [
            as_dict(event, "cohere") for event in events
        ]


def test_the_readers_content_and_tooljsons_results_are_taken_by_the_api() -> None:
    from tooljson.results import success_result

    def answered(name: str, answer: Any) -> str:
        scenario = get_scenario(name)
        request = first_request(scenario, "cohere")
        with StandInServer(scenario) as server, closing(open_client("cohere", server.base_url)) as client:
            reader = _read(list(stream_events("cohere", client, request)))
            following = {
                **request,
                "messages": [*request["messages"], *reader.content, *(answer(call) for call in reader.calls)],
            }
            text = _read(list(stream_events("cohere", client, following))).assembler.text
            assert server.failures == []
        return text

    weather = answered(
        "parallel_calls", lambda call: success_result(call, {"city": call.input["city"], "sky": "clear"})
    )
    assert (
        weather
        == 'Results received: {"city": "Paris", "sky": "clear"} | {"city": "S\\u00e3o Paulo", "sky": "clear"}'
    )
    # Cohere's results have no error flag: an INVALID_JSON text is the error a result can state.
    # The invalid calls answered with INVALID_JSON are taken as error results, and the model corrects itself.
    corrected = answered("invalid_json", tooljson.invalid_json_result)
    assert corrected == "My arguments were not valid JSON; here they are again."


def test_a_refused_request_is_the_clients_api_error() -> None:
    from cohere.core.api_error import ApiError
    from tooljson.turn import describe_break

    scenario = get_scenario("parallel_calls")
    with StandInServer(scenario) as server, closing(open_client("cohere", server.base_url)) as client:
        with pytest.raises(ApiError) as caught:
            list(stream_events("cohere", client, {"model": "m", "messages": []}))
        assert caught.value.status_code == 400
        assert describe_break(caught.value) == "400: messages: a non-empty array is required"
        # The stand-in streams only, as chat_stream asks.
        post = urllib.request.Request(
            server.base_url + "/v2/chat",
            data=json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]}).encode(),
            method="POST",
            headers={"Content-Type": "application/json"},
        )
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(post, timeout=30)
        assert json.loads(refused.value.read()) == {
            "message": "stream: this endpoint answers streamed requests only"
        }


def test_record_command_then_replay_command(tmp_path: Any) -> None:
    path = tmp_path / "cohere.jsonl"
    command = [sys.executable, "-m", "tooljson", "record", "--provider", "cohere", "--scenario", "max_tokens"]
    done = subprocess.run([*command, "-o", str(path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "recorded" in done.stdout and "truncated at position" in done.stdout
    assert all(json.loads(line)["type"].count("-") for line in path.read_text(encoding="utf-8").splitlines())
    done = subprocess.run(
        [sys.executable, "-m", "tooljson", "replay", str(path), "--plain"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "calls: write_note truncated at position" in done.stdout and "(MAX_TOKENS)" in done.stdout


def test_demo_with_cohere_shows_its_scenarios_and_their_verdicts(capsys: pytest.CaptureFixture[str]) -> None:
    from tooljson import cli
    from tooljson.demo.runs import demo_scenarios

    assert cli.main(["demo", "--provider", "cohere", "--plain"]) == 0
    out = capsys.readouterr().out
    titles = [line[3:] for line in out.splitlines() if line.startswith("== ")]
    assert titles == [f"{name} (cohere client, stand-in)" for name in demo_scenarios("cohere")]
    assert "write_note truncated at position" in out and "stop_reason MAX_TOKENS" in out
    assert "save_record malformed at position" in out
