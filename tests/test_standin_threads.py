"""The stand-in's server-held threads, and the SDK's own tool runner played against it end to end.

A request with ``thread: {"type": "create"}`` is held under its response's id; a ``continue`` is
answered as if the whole history (and the thread's ``tools`` / ``system``) had been sent; an unknown
id gets the API's 404 with ``error_code`` ``thread_not_found``, from which the SDK recovers by
replaying the history under a new thread; a malformed ``thread`` gets a 400.
"""

from __future__ import annotations

from typing import Any

import anthropic
import pytest
from runner_runs import drive, tool_results
from tooljson.standin import StandInServer, get_scenario
from tooljson.standin.threads import ThreadStore

MODEL = "claude-sonnet-4-6"


def _client(server: StandInServer) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=server.base_url, api_key="test", max_retries=0)


def _results_for(message: Any) -> dict[str, Any]:
    blocks = [block for block in message.content if block.type == "tool_use"]
    return {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": b.id, "content": "21 °C"} for b in blocks],
    }


def test_a_continued_thread_is_answered_as_the_whole_history() -> None:
    scenario = get_scenario("parallel_calls")
    with StandInServer(scenario.name) as server, _client(server) as client:
        first = client.beta.messages.create(**scenario.first_request(), thread={"type": "create"})
        assert first.stop_reason == "tool_use" and len(server.threads) == 1
        # Neither the history nor the tools again: the stand-in takes them from the thread.
        second = client.beta.messages.create(
            model=MODEL,
            max_tokens=1024,
            messages=[_results_for(first)],
            thread={"type": "continue", "previous_message_id": first.id},
        )
        assert second.content[0].text == "Results received: 21 °C | 21 °C"
        whole = client.beta.messages.create(**scenario.first_request())
        assert whole.id == first.id and len(server.threads) == 2


def test_an_unknown_thread_is_the_apis_404() -> None:
    with StandInServer("parallel_calls") as server, _client(server) as client:
        with pytest.raises(anthropic.NotFoundError) as caught:
            client.beta.messages.create(
                model=MODEL,
                max_tokens=64,
                messages=[{"role": "user", "content": "hi"}],
                thread={"type": "continue", "previous_message_id": "msg_unknown"},
            )
    body = caught.value.body
    assert isinstance(body, dict)
    assert body["error"]["type"] == "not_found_error"
    assert body["error"]["details"] == {"error_code": "thread_not_found"}


@pytest.mark.parametrize(
    "thread",
    [{"type": "fork"}, "create", {"type": "continue"}, {"type": "continue", "previous_message_id": 7}],
)
def test_a_malformed_thread_is_a_400(thread: Any) -> None:
    with StandInServer("parallel_calls") as server, _client(server) as client:
        with pytest.raises(anthropic.BadRequestError, match="thread"):
            client.beta.messages.create(
                model=MODEL,
                max_tokens=64,
                messages=[{"role": "user", "content": "hi"}],
                extra_body={"thread": thread},
            )
        assert len(server.threads) == 0


def test_the_store_is_bounded() -> None:
    store = ThreadStore(max_held=2)
    for number in range(3):
        store.keep({"messages": []}, {"id": f"msg_{number}", "content": []})
    assert len(store) == 2
    with pytest.raises(Exception, match="msg_0"):
        store.expand({"thread": {"type": "continue", "previous_message_id": "msg_0"}, "messages": []})


@pytest.mark.parametrize(
    "scenario", ["parallel_calls", "empty_input", "pause_turn", "thinking", "large_file_write"]
)
def test_the_sdks_runner_plays_the_scenario_to_the_end(scenario: str) -> None:
    with StandInServer(scenario) as server, _client(server) as client:
        run = drive(client, scenario)
        bodies = [request.body for request in server.requests]
        assert not server.failures
    assert run.error is None, run.error
    final = run.streams[-1].final
    assert final.stop_reason == "end_turn" and "UNEXPECTED" not in final.content[-1].text
    assert bodies[0]["thread"] == {"type": "create"}
    assert all(body["thread"]["type"] == "continue" for body in bodies[1:])


def test_the_sdks_runner_on_a_cut_off_call_stops_with_a_plausible_partial_input() -> None:
    from tooljson.standin.scenarios.answers import MAX_TOKENS_NEEDED

    with StandInServer("max_tokens") as server, _client(server) as client:
        run = drive(client, "max_tokens", max_tokens=MAX_TOKENS_NEEDED // 3)
        assert len(server.requests) == 1
    assert run.error is None and run.ran == []
    block = run.streams[0].final.content[1]
    # Nothing in the SDK's message says the input was cut off.
    assert block.type == "tool_use" and block.input["title"] == "Streaming notes"


def test_a_lost_thread_is_replayed_by_the_sdk() -> None:
    with StandInServer("parallel_calls") as server, _client(server) as client:
        runner = client.beta.messages.tool_runner(**_weather_request(), stream=True)
        streams = iter(runner)
        next(streams).until_done()
        server.threads = ThreadStore()  # the server lost every thread
        for stream in streams:
            stream.until_done()
        bodies = [request.body for request in server.requests]
    # The continue got the 404, and the SDK sent the whole history under a new thread.
    assert [body["thread"]["type"] for body in bodies] == ["create", "continue", "create"]
    assert len(bodies[2]["messages"]) == 3 and len(tool_results(bodies[2])) == 2
    assert runner.until_done().content[0].text.startswith("Results received")


def _weather_request() -> dict[str, Any]:
    from anthropic import beta_tool

    scenario = get_scenario("parallel_calls")
    (spec,) = scenario.tools

    def get_weather(**arguments: Any) -> str:
        return "21 °C"

    tool = beta_tool(
        get_weather, name=spec["name"], description=spec["description"], input_schema=spec["input_schema"]
    )
    return {**scenario.first_request(), "tools": [tool]}
