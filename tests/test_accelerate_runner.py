"""The SDK's own tool runner through accelerate(client), against the stand-in over loopback.

``client.beta.messages.tool_runner(..., stream=True)`` (sync, async, with and without
``run_tools_eagerly``) is run on the stand-in's scenarios with the real client: on a well-formed run
the accelerated runner yields the plain runner's events and final messages, sends the same requests
and runs the same tools; a malformed call is never run and is answered with ``INVALID_JSON`` in the
turn's one user message; a call cut off at ``max_tokens`` is never run, gets no ``INVALID_JSON`` and
its verdict is ``truncated``, then the run stops, retries or raises as told.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import anthropic
import anyio
import pytest
import tooljson
from anthropic.lib.streaming import BetaAsyncMessageStream, BetaMessageStream
from helper_streams import assert_same_events
from runner_runs import RunnerRun, adrive, drive, runnable_tools_for, tool_results
from tooljson.acceleration import AcceleratedStream
from tooljson.acceleration.runner import runner_problem
from tooljson.acceleration.threads import AcceleratedMessageThread
from tooljson.standin import Reply, Scenario, StandInServer, Text, ToolUse, get_scenario
from tooljson.standin.scenario import WEATHER_TOOL, closing
from tooljson.standin.scenarios.answers import (
    BROKEN_ESCAPE_INPUT,
    CORRECTED_INPUTS,
    MAX_TOKENS_NEEDED,
    TRAILING_OBJECT_INPUT,
)

# Scenarios whose every turn is well-formed and that the runner can play to the end.
WELL_FORMED = [
    "parallel_calls",
    "empty_input",
    "schema_mismatch",
    "pause_turn",
    "thinking",
    "large_file_write",
    "whole_arguments",
    "unknown_tool",
]
# Its replies expect tooljson's input validation, which the SDK's runner leaves to the tool.
VALIDATION_EXPECTED = {"schema_mismatch"}
NOT_FOUND = pytest.mark.filterwarnings("ignore:Tool '.*' not found in tool runner:UserWarning")


def _client(server: StandInServer) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=server.base_url, api_key="test", max_retries=0)


def _async_client(server: StandInServer) -> anthropic.AsyncAnthropic:
    return anthropic.AsyncAnthropic(base_url=server.base_url, api_key="test", max_retries=0)


def _plain_and_accelerated(
    scenario: str, **options: Any
) -> tuple[RunnerRun, RunnerRun, list[Any], list[Any]]:
    """The plain runner and the accelerated one on two stand-ins of the scenario (same seed), with
    the request bodies each stand-in received."""
    runs, bodies = [], []
    for accelerated in (False, True):
        with StandInServer(scenario) as server, _client(server) as client:
            runs.append(drive(tooljson.accelerate(client) if accelerated else client, scenario, **options))
            bodies.append([request.body for request in server.requests])
            assert not server.failures
    return runs[0], runs[1], bodies[0], bodies[1]


@NOT_FOUND
@pytest.mark.parametrize("eager", [False, True], ids=["after", "eager"])
@pytest.mark.parametrize("scenario", WELL_FORMED)
def test_a_well_formed_run_is_the_plain_runners(scenario: str, eager: bool) -> None:
    plain, ours, plain_bodies, our_bodies = _plain_and_accelerated(scenario, eager=eager)
    assert plain.error is None and ours.error is None, (plain.error, ours.error)
    assert len(ours.streams) == len(plain.streams) >= 1
    for theirs, mine in zip(plain.streams, ours.streams):
        assert isinstance(mine.stream, AcceleratedStream) and isinstance(mine.stream, BetaMessageStream)
        assert not isinstance(theirs.stream, AcceleratedStream)
        assert_same_events(theirs, mine)
        assert mine.stream.turn.stopped
    assert [(r.name, r.input) for r in ours.ran] == [(r.name, r.input) for r in plain.ran]
    assert our_bodies == plain_bodies
    final = ours.runner.until_done()
    assert final.stop_reason == "end_turn"
    assert scenario in VALIDATION_EXPECTED or "UNEXPECTED" not in final.content[-1].text


def test_the_runner_keeps_the_conversation_on_the_server() -> None:
    with StandInServer("parallel_calls") as server, _client(server) as client:
        run = drive(tooljson.accelerate(client), "parallel_calls")
        first, second = (request.body for request in server.requests)
    assert run.error is None
    assert first["thread"] == {"type": "create"}
    assert second["thread"] == {"type": "continue", "previous_message_id": run.streams[0].final.id}
    # Only the new message: the results of both calls, in one user message.
    assert [message["role"] for message in second["messages"]] == ["user"]
    assert [block["is_error"] if "is_error" in block else False for block in tool_results(second)] == [
        False,
        False,
    ]


def _check_malformed_run(run: RunnerRun, bodies: list[Any]) -> None:
    """The invalid_json scenario: both calls malformed, answered with INVALID_JSON, the model resends them."""
    assert run.error is None, run.error
    first = run.streams[0].stream
    assert [call.status for call in first.tool_calls] == ["malformed", "malformed"]
    assert [first.turn.state(call) for call in first.tool_calls] == ["rejected", "rejected"]
    results = tool_results(bodies[1])
    assert [result["is_error"] for result in results] == [True, True]
    assert [json.loads(result["content"]) for result in results] == [
        {"INVALID_JSON": BROKEN_ESCAPE_INPUT},
        {"INVALID_JSON": TRAILING_OBJECT_INPUT},
    ]
    # Only the corrected calls ran, once each; the run went on to the model's closing answer.
    assert [(r.name, r.input) for r in run.ran] == [
        ("save_record", json.loads(text)) for text in CORRECTED_INPUTS
    ]
    assert len(run.streams) == 3
    assert run.streams[-1].final.content[0].text.startswith("Results received")


@pytest.mark.parametrize("eager", [False, True], ids=["after", "eager"])
def test_malformed_calls_are_answered_with_invalid_json_and_never_run(eager: bool) -> None:
    with StandInServer("invalid_json") as server, _client(server) as client:
        plain = drive(client, "invalid_json", eager=eager)
        run = drive(tooljson.accelerate(client), "invalid_json", eager=eager)
        bodies = [request.body for request in server.requests][1:]
    # The SDK's runner dies in the middle of the first stream, the model never told.
    assert isinstance(plain.error, ValueError) and "Unable to parse tool parameter JSON" in str(plain.error)
    assert plain.ran == []
    _check_malformed_run(run, bodies)


def test_each_malformed_call_is_one_warning_saying_what_the_runner_did(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with StandInServer("invalid_json") as server, _client(server) as client:
        with caplog.at_level(logging.WARNING, logger="tooljson"):
            run = drive(tooljson.accelerate(client), "invalid_json")
    assert run.error is None, run.error
    warnings = [record.getMessage() for record in caplog.records if record.name == "tooljson"]
    # Two malformed calls in the first reply: one line each, with the verdict and what followed.
    assert len(warnings) == 2, warnings
    for call, warning in zip(run.streams[0].stream.tool_calls, warnings):
        assert warning.startswith(
            f"tool input of tool_use {call.name!r} (id {call.id}, block {call.index}) is malformed at position"
        )
        assert warning.endswith("else it is answered with INVALID_JSON")


@pytest.mark.parametrize("eager", [False, True], ids=["after", "eager"])
def test_malformed_calls_async(eager: bool) -> None:
    async def main() -> tuple[RunnerRun, list[Any]]:
        with StandInServer("invalid_json") as server:
            async with _async_client(server) as client:
                run = await adrive(tooljson.accelerate(client), "invalid_json", eager=eager)
            return run, [request.body for request in server.requests]

    run, bodies = anyio.run(main)
    assert all(isinstance(taken.stream, BetaAsyncMessageStream) for taken in run.streams)
    assert all(isinstance(taken.stream, AcceleratedStream) for taken in run.streams)
    _check_malformed_run(run, bodies)


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
def test_eager_runs_a_call_before_the_response_ends(asynchronous: bool) -> None:
    async def main() -> RunnerRun:
        with StandInServer("parallel_calls") as server:
            async with _async_client(server) as client:
                return await adrive(tooljson.accelerate(client), "parallel_calls", eager=True)

    if asynchronous:
        run = anyio.run(main)
    else:
        with StandInServer("parallel_calls") as server, _client(server) as client:
            run = drive(tooljson.accelerate(client), "parallel_calls", eager=True)
    assert run.error is None
    events = run.streams[0].events
    last = max(i for i, event in enumerate(events) if event.type == "message_stop")
    assert len(run.ran) == 2
    # The first call ran once the second block started, long before the response's last event.
    assert run.ran[0].events_seen < last
    assert run.streams[0].stream.turn.state(run.streams[0].stream.tool_calls[0]) == "complete"


def _cut_off_request() -> dict[str, Any]:
    return {"max_tokens": MAX_TOKENS_NEEDED // 3}


def test_a_cut_off_call_is_not_run_and_ends_the_run() -> None:
    with StandInServer("max_tokens") as server, _client(server) as client:
        run = drive(tooljson.accelerate(client), "max_tokens", **_cut_off_request())
        requests = server.requests
    assert run.error is None
    assert len(requests) == 1 and len(run.streams) == 1 and run.ran == []
    stream = run.streams[0].stream
    (call,) = stream.tool_calls
    assert call.status == "incomplete" and stream.turn.state(call) == "truncated"
    assert "INVALID_JSON" not in json.dumps([request.body for request in requests])
    assert run.runner.until_done().stop_reason == "max_tokens"


def test_a_cut_off_call_raises_when_told() -> None:
    with StandInServer("max_tokens") as server, _client(server) as client:
        run = drive(tooljson.accelerate(client, truncation="raise"), "max_tokens", **_cut_off_request())
        assert len(server.requests) == 1
    assert isinstance(run.error, tooljson.TruncatedToolInput)
    assert run.error.max_tokens == MAX_TOKENS_NEEDED // 3 and run.ran == []


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
def test_a_cut_off_turn_is_sent_again_with_more_max_tokens(asynchronous: bool) -> None:
    budget = MAX_TOKENS_NEEDED // 3

    async def main() -> tuple[RunnerRun, list[Any]]:
        with StandInServer("max_tokens") as server:
            async with _async_client(server) as client:
                run = await adrive(
                    tooljson.accelerate(client, truncation="retry"), "max_tokens", max_tokens=budget
                )
            return run, [request.body for request in server.requests]

    if asynchronous:
        run, bodies = anyio.run(main)
    else:
        with StandInServer("max_tokens") as server, _client(server) as client:
            run = drive(tooljson.accelerate(client, truncation="retry"), "max_tokens", max_tokens=budget)
            bodies = [request.body for request in server.requests]
    assert run.error is None, run.error
    limits = [body["max_tokens"] for body in bodies]
    assert limits[:3] == [budget, budget * 2, budget * 4]
    # Every resend is the first request again, without the cut-off reply: a new thread.
    for body in bodies[1:3]:
        assert body["thread"] == {"type": "create"} and body["messages"] == bodies[0]["messages"]
    assert [r.name for r in run.ran] == ["write_note"]
    assert [taken.stream.turn.state(taken.stream.tool_calls[0]) for taken in run.streams[:3]] == [
        "truncated",
        "truncated",
        "complete",
    ]
    assert run.streams[-1].final.stop_reason == "end_turn"


def test_retry_stops_at_the_cap() -> None:
    budget = MAX_TOKENS_NEEDED // 8
    with StandInServer("max_tokens") as server, _client(server) as client:
        accelerated = tooljson.accelerate(client, truncation="retry", max_tokens_cap=budget * 2)
        run = drive(accelerated, "max_tokens", max_tokens=budget)
        assert [request.body["max_tokens"] for request in server.requests] == [budget, budget * 2]
    assert isinstance(run.error, tooljson.TruncatedToolInput) and run.error.max_tokens == budget * 2


def test_a_thread_streams_through_tooljson() -> None:
    with StandInServer("parallel_calls") as server, _client(server) as client:
        accelerated = tooljson.accelerate(client)
        scenario = get_scenario("parallel_calls")
        thread = accelerated.beta.messages.thread(
            model="claude-sonnet-4-6", max_tokens=1024, tools=scenario.tools
        )
        with thread.stream({"role": "user", "content": scenario.prompt}) as stream:
            assert isinstance(stream, AcceleratedStream) and isinstance(stream, BetaMessageStream)
            message = stream.get_final_message()
        assert [call.input for call in stream.tool_calls] == [block.input for block in message.content[1:]]
        results = [
            {"type": "tool_result", "tool_use_id": block.id, "content": "sunny"}
            for block in message.content[1:]
        ]
        with thread.stream({"role": "user", "content": results}) as second:
            assert isinstance(second, AcceleratedStream)
            closing = second.get_final_message()
        assert closing.content[0].text.startswith("Results received")
        assert server.requests[1].body["thread"] == {"type": "continue", "previous_message_id": message.id}
        assert isinstance(thread, AcceleratedMessageThread) and isinstance(
            thread.fork(), AcceleratedMessageThread
        )


def test_options_are_checked() -> None:
    client = anthropic.Anthropic(api_key="test")
    with pytest.raises(ValueError, match="truncation must be"):
        tooljson.accelerate(client, truncation="again")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_tokens_cap must be"):
        tooljson.accelerate(client, max_tokens_cap=0)
    client.close()


def test_an_sdk_whose_runner_changed_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    from anthropic.lib.tools._beta_runner import BetaStreamingToolRunner

    def _run_tool(self: Any, tool: Any, tool_use: Any, extra: Any) -> Any:
        raise AssertionError("never called")

    monkeypatch.setattr(BetaStreamingToolRunner, "_run_tool", _run_tool)
    # The check is made once per process: forget its answer before and after this SDK.
    runner_problem.cache_clear()
    try:
        with StandInServer("parallel_calls") as server, _client(server) as client:
            run = drive(tooljson.accelerate(client), "parallel_calls")
            assert server.requests == []
    finally:
        runner_problem.cache_clear()
    assert isinstance(run.error, RuntimeError)
    assert "does not know the tool runner of anthropic" in str(run.error)


def _respond_lisbon(body: dict[str, Any], turn: int) -> Reply:
    if turn == 0:
        call = ToolUse("get_weather", LISBON_INPUT)
        return Reply(blocks=(Text("Checking."), call), stop_reason="tool_use")
    return closing("done")


LISBON_INPUT = '{"city": "Lis"bon"}'
LISBON = Scenario(
    name="lisbon",
    description="A malformed input whose prefix parses.",
    prompt="Weather in Lisbon?",
    tools=[WEATHER_TOOL],
    respond=_respond_lisbon,
)


def test_a_malformed_input_that_the_sdk_reads_as_a_prefix_is_not_run() -> None:
    runs, results = [], []
    for accelerated in (False, True):
        with StandInServer(LISBON) as server, _client(server) as client:
            run = RunnerRun()
            request = {**LISBON.first_request(), "tools": runnable_tools_for(LISBON, run)}
            run.runner = (tooljson.accelerate(client) if accelerated else client).beta.messages.tool_runner(
                **request, stream=True
            )
            run.runner.until_done()
            runs.append(run)
            results.append(tool_results(server.requests[1].body))
    plain, ours = runs
    # The SDK's partial parse stops at the first complete string and the tool runs on it.
    assert [r.input for r in plain.ran] == [{"city": "Lis"}] and results[0][0].get("is_error") is None
    assert ours.ran == []
    assert results[1][0]["is_error"] is True and json.loads(results[1][0]["content"]) == {
        "INVALID_JSON": LISBON_INPUT
    }


@pytest.mark.parametrize("platform", ["bedrock", "vertex"])
def test_bedrock_and_vertex_run_the_accelerated_runner_without_threads(platform: str) -> None:
    with StandInServer("invalid_json") as server:
        client: Any
        if platform == "bedrock":
            client = anthropic.AnthropicBedrock(
                base_url=server.base_url,
                aws_region="us-east-1",
                aws_access_key="a",
                aws_secret_key="s",
                max_retries=0,
            )
        else:
            client = anthropic.AnthropicVertex(
                base_url=server.base_url, region="us-east5", project_id="p", access_token="t", max_retries=0
            )
        with client:
            run = drive(tooljson.accelerate(client), "invalid_json")
        bodies = [request.body for request in server.requests]
    # The SDK sends these platforms the whole history, no thread.
    assert all("thread" not in body for body in bodies)
    _check_malformed_run(run, bodies)
