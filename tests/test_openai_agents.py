"""The OpenAI Agents SDK (openai-agents 0.24) against the stand-in over loopback, read and guarded.

Runs are made with the SDK's own Responses and Chat Completions models (``OpenAIResponsesModel``,
``OpenAIChatCompletionsModel``) on an ``AsyncOpenAI`` client pointed at the stand-in, through
``Runner.run_streamed`` (every event fed to a ``TurnReader``), ``Runner.run`` and ``Runner.run_sync``.
Each call's text is checked against the argument deltas joined straight from the raw events, and its
input against ``json.loads``; the verdicts follow each model's stop words. ``guard(agent)`` is
checked on the scenarios that need it: malformed arguments answered with ``INVALID_JSON`` (and the
stand-in then sends corrected calls), a call cut off at the token limit never run.
"""

from __future__ import annotations

import asyncio
import copy
import json
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import tooljson
from agents import Agent, FunctionTool, ModelSettings, Runner, function_tool, set_tracing_disabled
from agents.exceptions import ModelBehaviorError
from agents.models.openai_chatcompletions import OpenAIChatCompletionsModel
from agents.models.openai_responses import OpenAIResponsesModel
from helper_streams import assert_grows
from helpers import assert_same_json, expected_input
from hypothesis import given, settings
from hypothesis import strategies as st
from openai import AsyncOpenAI
from tooljson.frameworks.openai_agents import SOURCE, AgentsAdapter, check_arguments, guard
from tooljson.standin import StandInServer, get_scenario
from tooljson.standin.scenarios.answers import (
    BROKEN_ESCAPE_INPUT,
    CORRECTED_INPUTS,
    PARIS_INPUT,
    SAO_PAULO_INPUT,
    TRAILING_OBJECT_INPUT,
)

set_tracing_disabled(True)

MODELS = ("responses", "chat")

# What each tool was run with, in order, for the test that made the run.
RAN: list[tuple[str, dict[str, Any]]] = []


@function_tool
def get_weather(city: str, unit: str) -> str:
    """The weather in a city."""
    RAN.append(("get_weather", {"city": city, "unit": unit}))
    return f"sunny in {city}"


@function_tool
def save_record(name: str, note: str) -> str:
    """Save a named record."""
    RAN.append(("save_record", {"name": name, "note": note}))
    return "saved"


@function_tool
def write_note(title: str, body: str) -> str:
    """Save a note."""
    RAN.append(("write_note", {"title": title, "body": body}))
    return "noted"


@function_tool
def get_time() -> str:
    """The current time."""
    RAN.append(("get_time", {}))
    return "noon"


@function_tool
def get_uptime() -> str:
    """The server's uptime."""
    RAN.append(("get_uptime", {}))
    return "3 days"


TOOLS = [get_weather, save_record, write_note, get_time, get_uptime]


def _agent(kind: str, name: str, client: AsyncOpenAI, *, guarded: bool = True) -> Any:
    scenario = get_scenario(name)
    model_class = OpenAIResponsesModel if kind == "responses" else OpenAIChatCompletionsModel
    agent = Agent(
        name="assistant",
        instructions="Use the tools.",
        model=model_class("gpt-4.1", client),
        tools=list(TOOLS),
        model_settings=ModelSettings(max_tokens=scenario.first_max_tokens),
    )
    return guard(agent) if guarded else agent


@contextmanager
def _server(name: str, **server_options: Any) -> Iterator[StandInServer]:
    RAN.clear()
    with StandInServer(get_scenario(name), **server_options) as server:
        yield server
        assert server.failures == []


def _client(server: StandInServer) -> AsyncOpenAI:
    return AsyncOpenAI(base_url=server.base_url + "/v1", api_key="stand-in", max_retries=0)


def _streamed(
    kind: str, name: str, *, guarded: bool = True, **server_options: Any
) -> tuple[list[Any], Any, BaseException | None]:
    """Every event of a streamed run, its final output and what it raised."""

    async def run(server: StandInServer) -> tuple[list[Any], Any, BaseException | None]:
        async with _client(server) as client:
            result = Runner.run_streamed(_agent(kind, name, client, guarded=guarded), "go")
            events: list[Any] = []
            raised: BaseException | None = None
            try:
                async for event in result.stream_events():
                    events.append(event)
            except ModelBehaviorError as error:
                raised = error
            return events, result.final_output, raised

    with _server(name, **server_options) as server:
        return asyncio.run(run(server))


def _run(kind: str, name: str) -> Any:
    """``Runner.run``'s final output (it raises what the run raised)."""

    async def run(server: StandInServer) -> Any:
        async with _client(server) as client:
            return (await Runner.run(_agent(kind, name, client), "go")).final_output

    with _server(name) as server:
        output = asyncio.run(run(server))
        assert all(request.body.get("stream") in (None, False) for request in server.requests)
        return output


def _run_sync(kind: str, name: str) -> Any:
    """``Runner.run_sync``'s final output (it raises what the run raised)."""
    with _server(name) as server:
        client = _client(server)
        try:
            return Runner.run_sync(_agent(kind, name, client), "go").final_output
        finally:
            # run_sync leaves its event loop open and current, for the next call: close it here.
            loop = asyncio.get_event_loop_policy().get_event_loop()
            loop.run_until_complete(client.close())
            loop.close()
            asyncio.set_event_loop(None)


def _joined(events: list[Any]) -> dict[tuple[int, int], str]:
    """Each call's arguments joined straight from the raw events, by (response, output_index)."""
    pieces: dict[tuple[int, int], list[str]] = defaultdict(list)
    response = -1
    for event in events:
        if event.type != "raw_response_event":
            continue
        data = event.data
        if data.type == "response.created":
            response += 1
        elif data.type == "response.output_item.added" and data.item.type == "function_call":
            pieces[(response, data.output_index)]
        elif data.type == "response.function_call_arguments.delta":
            pieces[(response, data.output_index)].append(data.delta)
    return {key: "".join(parts) for key, parts in pieces.items()}


def _as_dicts(events: list[Any]) -> list[dict[str, Any]]:
    """The same events as plain dicts (what a recording of the run holds)."""
    return [
        {"type": event.type, "data": event.data.to_dict()}
        if event.type == "raw_response_event"
        else {"type": event.type}
        for event in events
    ]


def _read(events: list[Any]) -> tooljson.TurnReader:
    reader = tooljson.TurnReader()
    for event in events:
        reader.feed(event)
    return reader


def _followed(events: list[Any]) -> tuple[tooljson.TurnReader, dict[Any, list[Any]]]:
    """The run read event by event, with every open call's preview after each event."""
    reader = tooljson.TurnReader()
    previews: dict[Any, list[Any]] = {}
    for event in events:
        reader.feed(event)
        for block in reader.blocks:
            if block.call is None and block.chars:
                previews.setdefault(block.key, []).append(
                    copy.deepcopy(reader.accumulator.preview(block.index))
                )
    return reader, previews


def _check(events: list[Any]) -> tooljson.TurnReader:
    """Read the run as objects and as dicts: the same calls, each the joined text, each input json.loads',
    each open call's preview only growing, towards the input when it parses."""
    reader, previews = _followed(events)
    again = _read(_as_dicts(events))
    joined = _joined(events)
    assert reader.provider == again.provider == "openai-agents"
    assert reader.warnings == again.warnings == []
    calls = sorted(reader.calls, key=lambda call: call.key)
    assert [call.key for call in calls] == sorted(joined)
    assert [call.raw_json for call in calls] == [joined[call.key] for call in calls]
    for call, other in zip(calls, sorted(again.calls, key=lambda call: call.key)):
        assert (call.provider, call.id, call.name, call.raw_json, call.status) == (
            "openai-agents",
            other.id,
            other.name,
            other.raw_json,
            other.status,
        )
        assert reader.state(call) == again.state(other)
        expected = expected_input(call.raw_json)
        seen = previews.get(call.key, [])
        assert bool(seen) == bool(call.raw_json)  # a preview after every event that brought text
        for before, after in zip(seen, seen[1:]):
            assert_grows(before, after, whole_strings=False)
        if expected.accepted:
            assert_same_json(call.input, expected.value)
            for preview in seen:
                assert_grows(preview, expected.value, whole_strings=False)
        else:
            assert call.input is None and call.status in ("incomplete", "malformed")
    return reader


def _states(reader: tooljson.TurnReader) -> list[tuple[tuple[int, int], str, str]]:
    return [
        (call.key, call.raw_json, reader.state(call))
        for call in sorted(reader.calls, key=lambda call: call.key)
    ]


@pytest.mark.parametrize("kind", MODELS)
def test_parallel_calls_are_read_and_run(kind: str) -> None:
    events, output, raised = _streamed(kind, "parallel_calls")
    assert raised is None and output == "Results received: sunny in Paris | sunny in São Paulo"
    reader = _check(events)
    assert _states(reader) == [((0, 1), PARIS_INPUT, "complete"), ((0, 2), SAO_PAULO_INPUT, "complete")]
    assert {event.type for event in events} == {
        "raw_response_event",
        "run_item_stream_event",
        "agent_updated_stream_event",
    }
    assert reader.stopped and reader.stop_reason == "completed"
    # The content: the first response's text and calls, then the closing text, as Responses items.
    assert [item.get("call_id") or item["content"] for item in reader.content] == [
        "I'll look up both cities at once.",
        *(call.id for call in reader.calls),
        output,
    ]
    assert [name for name, _ in RAN] == ["get_weather", "get_weather"]


@pytest.mark.parametrize("kind", MODELS)
def test_argument_less_calls_and_whole_arguments(kind: str) -> None:
    events, output, raised = _streamed(kind, "empty_input")
    assert raised is None and "UNEXPECTED" not in output
    assert [(key, state) for key, _, state in _states(_check(events))] == [
        ((0, 0), "complete"),
        ((0, 1), "complete"),
    ]
    events, output, raised = _streamed(kind, "whole_arguments")
    assert raised is None and "UNEXPECTED" not in output
    assert [state for _, _, state in _states(_check(events))] == ["complete", "complete"]


@pytest.mark.parametrize("kind", MODELS)
def test_malformed_calls_are_answered_with_invalid_json_and_the_model_corrects_them(kind: str) -> None:
    events, output, raised = _streamed(kind, "invalid_json")
    assert raised is None
    reader = _check(events)
    # Two responses with calls, keyed apart (on the Chat model every item id is "__fake_id__").
    assert _states(reader) == [
        ((0, 1), BROKEN_ESCAPE_INPUT, "malformed"),
        ((0, 2), TRAILING_OBJECT_INPUT, "malformed"),
        ((1, 1), CORRECTED_INPUTS[0], "complete"),
        ((1, 2), CORRECTED_INPUTS[1], "complete"),
    ]
    if kind == "chat":
        assert {call.item_id for call in reader.calls} == {"__fake_id__"}
    # The malformed calls never ran; the stand-in took the INVALID_JSON answers and sent corrected ones.
    assert RAN == [("save_record", json.loads(text)) for text in CORRECTED_INPUTS]
    assert output == "Results received: saved | saved"
    answers = [
        event.item.output
        for event in events
        if event.type == "run_item_stream_event" and event.name == "tool_output"
    ]
    assert [json.loads(answer) for answer in answers[:2]] == [
        {"INVALID_JSON": BROKEN_ESCAPE_INPUT, "error": "invalid escape: line 1 column 37 (char 36)"},
        {"INVALID_JSON": TRAILING_OBJECT_INPUT, "error": "trailing characters: line 1 column 36 (char 35)"},
    ]


@pytest.mark.parametrize("kind", MODELS)
def test_without_the_guard_the_sdk_answers_a_malformed_call_with_its_generic_message(kind: str) -> None:
    events, output, raised = _streamed(kind, "invalid_json", guarded=False)
    assert raised is None and RAN == []
    # The model was told nothing it could correct: the stand-in saw two plain results and closed.
    assert output == "Results received: " + " | ".join(
        ["An error occurred while running the tool. Please try again."] * 2
    )
    assert [state for _, _, state in _states(_check(events))] == ["malformed", "malformed"]


def test_a_cut_off_call_on_the_chat_model_is_incomplete_and_never_run() -> None:
    events, output, raised = _streamed("chat", "max_tokens")
    reader = _check(events)
    ((key, text, state),) = _states(reader)
    # The SDK drops finish_reason "length" and synthesizes response.completed: incomplete, not malformed.
    assert state == "incomplete" and reader.stop_reason == "completed"
    assert reader.accumulator.is_invalid(reader.calls[0]) and not reader.accumulator.is_truncated(
        reader.calls[0]
    )
    assert isinstance(raised, ModelBehaviorError) and "end before they are whole" in str(raised)
    assert f"after {len(text)} characters" in str(raised) and "max_tokens" in str(raised)
    assert isinstance(raised.__cause__, tooljson.IncompleteJSONError)
    assert output is None and RAN == []


def test_without_the_guard_a_cut_off_call_on_the_chat_model_gets_the_generic_message_and_the_run_goes_on() -> (
    None
):
    events, output, raised = _streamed("chat", "max_tokens", guarded=False)
    assert raised is None and RAN == []
    assert output == "Results received: An error occurred while running the tool. Please try again."
    assert [state for _, _, state in _states(_check(events))] == ["incomplete"]


@pytest.mark.parametrize("guarded", [True, False])
def test_a_cut_off_call_on_the_responses_model_is_truncated_and_the_sdk_ends_the_run(guarded: bool) -> None:
    events, output, raised = _streamed("responses", "max_tokens", guarded=guarded)
    reader = _check(events)
    assert [state for _, _, state in _states(reader)] == ["truncated"]
    assert reader.stop_reason == "max_output_tokens" and reader.stopped
    assert isinstance(raised, ModelBehaviorError) and "response.incomplete" in str(raised)
    assert output is None and RAN == []


@pytest.mark.parametrize("kind", MODELS)
@pytest.mark.parametrize(("seed", "sizes"), [(1, (1, 1)), (2, (1, 5)), (3, (40, 200))])
def test_seeded_fragmentations(kind: str, seed: int, sizes: tuple[int, int]) -> None:
    expected = {
        "parallel_calls": ["complete"] * 2,
        "invalid_json": ["malformed"] * 2 + ["complete"] * 2,
        "max_tokens": ["truncated" if kind == "responses" else "incomplete"],
    }
    for name, states in expected.items():
        events, _, _ = _streamed(kind, name, seed=seed, fragment_sizes=sizes)
        assert [state for _, _, state in _states(_check(events))] == states


@pytest.mark.parametrize("kind", MODELS)
def test_runner_run_and_run_sync_are_guarded_too(kind: str) -> None:
    assert _run(kind, "invalid_json") == "Results received: saved | saved"
    assert RAN == [("save_record", json.loads(text)) for text in CORRECTED_INPUTS]
    assert _run_sync(kind, "invalid_json") == "Results received: saved | saved"
    assert RAN == [("save_record", json.loads(text)) for text in CORRECTED_INPUTS]


def test_runner_run_never_runs_a_cut_off_call() -> None:
    for runner in (_run, _run_sync):
        with pytest.raises(ModelBehaviorError, match="end before they are whole"):
            runner("chat", "max_tokens")
        assert RAN == []
        # The Responses model's incomplete response ends the run in the SDK itself.
        with pytest.raises(ModelBehaviorError):
            runner("responses", "max_tokens")
        assert RAN == []


def test_guard_copies_the_function_tools_once_and_leaves_the_rest() -> None:
    other = Agent(name="other")
    agent = Agent(name="a", tools=[get_weather, other.as_tool(tool_name="ask", tool_description="Ask.")])
    guarded = guard(agent)
    assert guarded is not agent and agent.tools[0] is get_weather and not get_weather.tool_input_guardrails
    assert all(isinstance(tool, FunctionTool) for tool in guarded.tools)
    assert [[g.get_name() for g in tool.tool_input_guardrails] for tool in guarded.tools] == [
        ["tooljson_arguments"]
    ] * 2
    again = guard(guarded)
    assert again.tools == guarded.tools
    assert (
        guarded.tools[0].name == "get_weather"
        and guarded.tools[0].params_json_schema == get_weather.params_json_schema
    )


OBJECT_TEXT = json.dumps(
    {"title": 'caf\u00e9 \ud83d\ude80 "quoted"', "n": [1, -2.5e3, True, None], "o": {"k": ""}}
)


@given(st.integers(min_value=1, max_value=len(OBJECT_TEXT) - 1))
@settings(max_examples=len(OBJECT_TEXT))
def test_every_prefix_of_arguments_is_cut_off_never_invalid_json(cut: int) -> None:
    with pytest.raises(ModelBehaviorError) as raised:
        check_arguments("write_note", "call_1", OBJECT_TEXT[:cut])
    assert isinstance(raised.value.__cause__, tooljson.IncompleteJSONError)


@given(st.text(alphabet='{}[]":,\\ abtrufnel0123456789.-+eE\u00e9', max_size=40))
def test_check_arguments_agrees_with_json_loads(text: str) -> None:
    """Runs exactly the texts json.loads takes; of the rest, stops the run on those the parser calls
    cut off (a valid prefix) and answers the others with INVALID_JSON and the parser's position."""
    expected = expected_input(text)
    try:
        answer = check_arguments("t", "c", text)
    except ModelBehaviorError as stop:
        assert not expected.accepted and isinstance(stop.__cause__, tooljson.IncompleteJSONError)
        return
    if expected.accepted:
        assert answer is None
        return
    assert answer is not None
    with pytest.raises(tooljson.MalformedJSONError) as error:
        tooljson.loads(text)
    assert json.loads(answer) == {"INVALID_JSON": text, "error": str(error.value)}
    assert str(error.value).endswith(f"(char {error.value.pos})")


def test_the_source_and_the_adapter() -> None:
    assert SOURCE.name == "openai-agents" and SOURCE.adapter is AgentsAdapter
    assert SOURCE.is_cut_off("max_output_tokens") and not SOURCE.is_cut_off("completed")
    assert SOURCE.recognise({"type": "run_item_stream_event"}) and not SOURCE.recognise(
        {"type": "response.created"}
    )
    reader = tooljson.TurnReader()
    reader.feed({"type": "agent_updated_stream_event"})
    reader.feed({"type": "run_item_stream_event"})
    assert reader.provider == "openai-agents" and reader.calls == [] and reader.warnings == []
    with pytest.raises(tooljson.MalformedEvent, match="without data"):
        reader.feed({"type": "raw_response_event"})
    with pytest.raises(ValueError, match="its framework sends the results"):
        tooljson.invalid_json_result(_read(_as_dicts(_streamed("chat", "invalid_json")[0])).calls[0])


def _raw(kind: str, **fields: Any) -> dict[str, Any]:
    return {"type": "raw_response_event", "data": {"type": kind, **fields}}


def _call_added(index: int, call_id: str, item_id: str = "__fake_id__") -> dict[str, Any]:
    item = {"type": "function_call", "id": item_id, "call_id": call_id, "name": "f", "arguments": ""}
    return _raw("response.output_item.added", output_index=index, item=item)


def test_a_shared_item_id_never_joins_two_calls() -> None:
    reader = tooljson.TurnReader()
    for event in (
        _raw("response.created", response={}),
        _call_added(0, "a"),
        _call_added(1, "b"),
        _raw(
            "response.function_call_arguments.delta", item_id="__fake_id__", output_index=0, delta='{"x": 1}'
        ),
        # Without its output_index, "__fake_id__" names neither call: the piece goes nowhere.
        _raw("response.function_call_arguments.delta", item_id="__fake_id__", delta="garbage"),
        _raw("response.function_call_arguments.delta", item_id="__fake_id__", output_index=1, delta="{}"),
        _raw("response.completed", response={"status": "completed"}),
    ):
        reader.feed(event)
    assert [(call.key, call.raw_json, reader.state(call)) for call in reader.calls] == [
        ((0, 0), '{"x": 1}', "complete"),
        ((0, 1), "{}", "complete"),
    ]


def test_a_response_left_open_ends_when_the_next_begins_and_each_keeps_its_stop() -> None:
    reader = tooljson.TurnReader()
    events = [
        _raw("response.created", response={}),
        _call_added(0, "a", "fc_a"),
        _raw("response.function_call_arguments.delta", item_id="fc_a", output_index=0, delta='{"x": '),
        {"type": "agent_updated_stream_event"},
        _raw("response.created", response={}),
        _call_added(0, "b", "fc_b"),
        _raw("response.function_call_arguments.delta", item_id="fc_b", output_index=0, delta='{"y": "cut'),
        _raw(
            "response.incomplete",
            response={"status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}},
        ),
        {"type": "run_item_stream_event"},
    ]
    ended = [[call.key for call in reader.feed(event)] for event in events]
    assert ended == [[], [], [], [], [(0, 0)], [], [], [(1, 0)], []]
    first, second = reader.calls
    # The first response never stopped: its call is incomplete; the second was cut off at the limit.
    assert (reader.state(first), reader.state(second)) == ("incomplete", "truncated")
    assert reader.accumulator.stop_reason_for(first) is None and reader.stop_reason == "max_output_tokens"
    assert reader.warnings == [] and not reader.begins_another(_raw("response.created", response={}))


def test_an_unknown_sdk_event_is_noted_and_passes() -> None:
    reader = tooljson.TurnReader()
    reader.feed({"type": "agent_updated_stream_event"})
    adapter = reader.accumulator.adapter("openai-agents")
    assert adapter.feed({"type": "tool_progress_event"}) == []
    assert reader.warnings == ["unknown Agents SDK stream event type 'tool_progress_event': ignored"]
    assert SOURCE.check is not None and "not an event of the Agents SDK" in str(
        SOURCE.check({"type": "tool_progress_event"})
    )


def test_a_recorded_run_is_checked_line_by_line() -> None:
    from tooljson.ui.recording import RecordingError, parse_recording

    events, _, _ = _streamed("chat", "parallel_calls")
    lines = [json.dumps(event) for event in _as_dicts(events)]
    recording = parse_recording(lines)
    assert _states(_read(recording.events)) == _states(_read(events))
    broken = {
        "type": "raw_response_event",
        "data": {"type": "response.output_item.added", "output_index": "0"},
    }
    for bad, says in (
        (broken, "output_index must be int, not str"),
        ({"type": "raw_response_event"}, "without its data"),
    ):
        with pytest.raises(RecordingError, match=says):
            parse_recording([*lines[:3], json.dumps(bad)])


def test_guard_without_the_sdk_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from tooljson.frameworks.openai_agents import arguments_guardrail

    monkeypatch.setitem(sys.modules, "agents", None)
    for make, what in ((lambda: guard(object()), "guard()"), (arguments_guardrail, "arguments_guardrail()")):
        with pytest.raises(tooljson.MissingExtra) as missing:
            make()
        assert (
            str(missing.value)
            == f"tooljson.frameworks.openai_agents.{what} needs openai-agents: pip install 'tooljson[agents]'"
        )
