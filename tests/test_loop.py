"""run_tool_loop and arun_tool_loop end to end: the real anthropic client over loopback against the
stand-in server, checking the calls the loop saw and the requests it sent for every scenario."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import anthropic
import anyio
import httpx2
import pytest
import tooljson
from pydantic import BaseModel
from tooljson.loop import LoopEvent
from tooljson.standin import StandInServer, get_scenario
from tooljson.standin.scenarios import answers

MODES = ["sync", "async"]
# The same with the SDK's typed events instead of the loop's own event decoding.
ALL_MODES = [*MODES, "sync-sdk", "async-sdk"]


@dataclass
class Run:
    """What one loop run left behind."""

    result: tooljson.ToolLoopResult | None = None
    error: BaseException | None = None
    requests: list[dict[str, Any]] = field(default_factory=list)
    handled: list[tuple[str, Any]] = field(default_factory=list)
    events: list[LoopEvent] = field(default_factory=list)

    @property
    def calls(self) -> list[tooljson.ToolCall]:
        return [e.call for e in self.events if e.kind == "tool_call" and e.call is not None]

    def results(self, request: int) -> list[dict[str, Any]]:
        """The tool_result blocks of the last user message of request ``request``."""
        last = self.requests[request]["messages"][-1]
        assert last["role"] == "user"
        return list(last["content"])


def echo_handlers(scenario: str, run: Run, mode: str) -> dict[str, Any]:
    """A handler per offered tool that records its input and answers with it."""

    def make(name: str) -> Callable[[Any], Any]:
        def handler(value: Any) -> str:
            run.handled.append((name, value))
            return f"{name} done: {json.dumps(value, sort_keys=True, ensure_ascii=False)[:80]}"

        async def ahandler(value: Any) -> str:
            await anyio.sleep(0)
            return handler(value)

        return ahandler if mode == "async" else handler

    return {t["name"]: make(t["name"]) for t in get_scenario(scenario).tools if "input_schema" in t}


@contextmanager
def serving(scenario: str, seed: int = 0) -> Iterator[StandInServer]:
    with StandInServer(scenario=scenario, fragment_sizes=(1, 32), seed=seed) as server:
        yield server


def run_loop(
    scenario: str,
    mode: str,
    *,
    handlers: dict[str, Any] | None = None,
    seed: int = 0,
    **overrides: Any,
) -> Run:
    run = Run()
    request = get_scenario(scenario).first_request()
    request.update(overrides)
    if mode.endswith("-sdk"):
        mode = mode.removesuffix("-sdk")
        request["decode"] = "sdk"
    chosen = echo_handlers(scenario, run, mode) if handlers is None else handlers
    with serving(scenario, seed) as server:
        try:
            if mode == "sync":
                client = anthropic.Anthropic(base_url=server.base_url, api_key="stand-in", max_retries=0)
                with client:
                    run.result = tooljson.run_tool_loop(
                        client, handlers=chosen, on_event=run.events.append, **request
                    )
            else:

                async def main() -> tooljson.ToolLoopResult:
                    aclient = anthropic.AsyncAnthropic(
                        base_url=server.base_url, api_key="stand-in", max_retries=0
                    )
                    async with aclient:
                        return await tooljson.arun_tool_loop(
                            aclient, handlers=chosen, on_event=run.events.append, **request
                        )

                run.result = anyio.run(main)
        except Exception as exc:  # noqa: BLE001 - the tests look at it
            run.error = exc
        run.requests = [r.body for r in server.requests]
    return run


def assert_finished_cleanly(run: Run) -> tooljson.ToolLoopResult:
    assert run.error is None, repr(run.error)
    assert run.result is not None
    assert run.result.stop_reason == "end_turn"
    assert not run.result.text.startswith("UNEXPECTED"), run.result.text
    return run.result


def assert_turn_shape(run: Run, request: int) -> None:
    """The request's history ends with the whole assistant turn and one user message answering it."""
    messages = run.requests[request]["messages"]
    assistant, user = messages[-2], messages[-1]
    assert assistant["role"] == "assistant" and user["role"] == "user"
    tool_ids = [b["id"] for b in assistant["content"] if b["type"] == "tool_use"]
    assert [r["tool_use_id"] for r in user["content"]] == tool_ids
    assert all(r["type"] == "tool_result" for r in user["content"])


@pytest.mark.parametrize("mode", ALL_MODES)
def test_parallel_calls(mode: str) -> None:
    run = run_loop("parallel_calls", mode)
    result = assert_finished_cleanly(run)
    assert result.turns == 2 and len(run.requests) == 2
    expected = [json.loads(answers.PARIS_INPUT), json.loads(answers.SAO_PAULO_INPUT)]
    assert [c.input for c in run.calls] == expected
    assert [c.raw_json for c in run.calls] == [answers.PARIS_INPUT, answers.SAO_PAULO_INPUT]
    assert run.handled == [("get_weather", value) for value in expected]
    assert_turn_shape(run, 1)
    assistant = run.requests[1]["messages"][-2]["content"]
    assert [b["type"] for b in assistant] == ["text", "tool_use", "tool_use"]
    assert assistant[0]["text"] == "I'll look up both cities at once."
    assert [b["input"] for b in assistant[1:]] == expected
    assert [b["id"] for b in assistant[1:]] == [c.id for c in run.calls]
    assert not any(r.get("is_error") for r in run.results(1))
    assert "São Paulo" in run.results(1)[1]["content"]
    # The history the result returns is the one sent, plus the final answer.
    assert result.messages[:-1] == run.requests[1]["messages"]
    assert result.messages[-1] == {"role": "assistant", "content": result.content}


@pytest.mark.parametrize("mode", MODES)
def test_empty_input(mode: str) -> None:
    run = run_loop("empty_input", mode)
    assert_finished_cleanly(run)
    assert [(c.name, c.input, c.raw_json) for c in run.calls] == [
        ("get_time", {}, ""),
        ("get_uptime", {}, ""),
    ]
    assert run.handled == [("get_time", {}), ("get_uptime", {})]
    assert_turn_shape(run, 1)


@pytest.mark.parametrize("mode", ALL_MODES)
def test_max_tokens_is_retried_with_a_doubled_limit(mode: str) -> None:
    run = run_loop("max_tokens", mode)
    result = assert_finished_cleanly(run)
    limits = [r["max_tokens"] for r in run.requests]
    assert limits[0] == 256
    assert all(b == 2 * a for a, b in zip(limits[:-2], limits[1:-1]))
    assert limits[-2] >= answers.MAX_TOKENS_NEEDED > limits[-3]
    # A cut-off turn is never added to the history: the retries resend the first request's messages.
    for body in run.requests[:-1]:
        assert body["messages"] == run.requests[0]["messages"]
    truncated = [c for c in run.calls if c.status == "incomplete"]
    assert len(truncated) == len(limits) - 2
    assert all(answers.NOTE_INPUT.startswith(c.raw_json) for c in truncated)
    assert run.handled == [("write_note", json.loads(answers.NOTE_INPUT))]
    assert [e.data for e in run.events if e.kind == "retry"] == limits[1:-1]
    [answer] = run.results(-1)
    assert "INVALID_JSON" not in answer["content"] and not answer.get("is_error")
    assert result.turns == len(limits)


@pytest.mark.parametrize("mode", MODES)
def test_max_tokens_raise_policy(mode: str) -> None:
    run = run_loop("max_tokens", mode, truncation="raise")
    assert isinstance(run.error, tooljson.TruncatedToolInput)
    assert run.error.max_tokens == 256
    assert answers.NOTE_INPUT.startswith(run.error.raw_json) and run.error.raw_json
    assert run.error.call.status == "incomplete"
    assert len(run.requests) == 1 and run.handled == []


def test_max_tokens_cap_stops_the_retries() -> None:
    run = run_loop("max_tokens", "sync", max_tokens_cap=300)
    assert isinstance(run.error, tooljson.TruncatedToolInput)
    assert [r["max_tokens"] for r in run.requests] == [256, 300]
    assert run.error.max_tokens == 300
    assert run.handled == []


@pytest.mark.parametrize("mode", MODES)
def test_invalid_json_is_answered_with_the_wrapper_and_not_run(mode: str) -> None:
    run = run_loop("invalid_json", mode)
    assert_finished_cleanly(run)
    assert len(run.requests) == 3
    first = run.results(1)
    assert [r["content"] for r in first] == [
        json.dumps({"INVALID_JSON": answers.BROKEN_ESCAPE_INPUT}),
        json.dumps({"INVALID_JSON": answers.TRAILING_OBJECT_INPUT}),
    ]
    assert all(r["is_error"] is True for r in first)
    assert_turn_shape(run, 1)
    assert [c.status for c in run.calls[:2]] == ["malformed", "malformed"]
    # Only the corrected calls reach the handler.
    assert run.handled == [("save_record", json.loads(text)) for text in answers.CORRECTED_INPUTS]
    # The assistant turn goes back with an object as input, as the API requires.
    assistant = run.requests[1]["messages"][-2]["content"]
    assert [b["input"] for b in assistant if b["type"] == "tool_use"] == [{}, {}]


@pytest.mark.parametrize("mode", MODES)
def test_schema_mismatch(mode: str, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG, logger="tooljson"):
        run = run_loop("schema_mismatch", mode)
    assert_finished_cleanly(run)
    assert run.handled == [
        ("create_ticket", {"title": "Login fails on Safari", "priority": "high", "component": "auth"})
    ]
    repaired, rejected = run.results(1)
    assert not repaired.get("is_error")
    assert rejected["is_error"] is True
    assert "/title" in rejected["content"] and "/estimate_hours" in rejected["content"]
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert '"High" -> "high"' in logged and '" auth " -> "auth"' in logged
    assert "rejected" in logged and "three" in logged


@pytest.mark.parametrize("mode", MODES)
def test_unknown_tool(mode: str) -> None:
    run = run_loop("unknown_tool", mode)
    assert_finished_cleanly(run)
    [answer] = run.results(1)
    assert answer["is_error"] is True
    assert answer["content"].startswith("No tool named 'get_stock_price'; available: get_weather")
    assert run.handled == []


@pytest.mark.parametrize("mode", ALL_MODES)
def test_pause_turn_resends_without_a_user_message(mode: str) -> None:
    run = run_loop("pause_turn", mode)
    result = assert_finished_cleanly(run)
    assert len(run.requests) == 2
    first, second = (r["messages"] for r in run.requests)
    assert second[:-1] == first
    assert second[-1]["role"] == "assistant"
    blocks = second[-1]["content"]
    assert [b["type"] for b in blocks] == ["text", "server_tool_use"]
    assert blocks[1]["input"] == json.loads(answers.SEARCH_INPUT)
    assert [c.block_type for c in run.calls] == ["server_tool_use"]
    assert [e.kind for e in run.events].count("pause") == 1
    assert [b["type"] for b in result.content] == ["web_search_tool_result", "text"]
    assert run.handled == []


@pytest.mark.parametrize("mode", ALL_MODES)
def test_thinking_block_goes_back_with_its_signature(mode: str) -> None:
    run = run_loop("thinking", mode)
    assert_finished_cleanly(run)
    thinking = run.requests[1]["messages"][-2]["content"][0]
    assert thinking == {
        "type": "thinking",
        "thinking": answers.THINKING_TEXT,
        "signature": answers.THINKING_SIGNATURE,
    }
    assert run.handled == [("calculator", {"expression": "1234 * 5678"})]


def test_large_file_write() -> None:
    run = run_loop("large_file_write", "sync")
    assert_finished_cleanly(run)
    [call] = run.calls
    assert call.raw_json == answers.LARGE_FILE_INPUT
    assert run.handled == [("write_file", json.loads(answers.LARGE_FILE_INPUT))]


@pytest.mark.parametrize("mode", ALL_MODES)
@pytest.mark.parametrize(
    ("scenario", "cause"),
    [("stream_error", anthropic.APIStatusError), ("connection_drop", httpx2.RemoteProtocolError)],
)
def test_broken_stream_raises_stream_interrupted(mode: str, scenario: str, cause: type) -> None:
    run = run_loop(scenario, mode)
    error = run.error
    assert isinstance(error, tooljson.StreamInterrupted)
    assert isinstance(error, tooljson.ToolLoopError)
    assert isinstance(error.cause, cause)
    assert error.content[0] == {"type": "text", "text": "Checking the weather."}
    # The tool block was open when the stream broke: its partial text is not a call.
    assert error.calls == [] and error.content[1]["type"] == "tool_use"
    assert error.messages == run.requests[0]["messages"]
    assert len(run.requests) == 1 and run.handled == []


@pytest.mark.parametrize("mode", MODES)
def test_handler_exception_becomes_an_error_result(mode: str) -> None:
    def failing(value: Any) -> str:
        raise ValueError(f"no station in {value['city']}")

    run = run_loop("parallel_calls", mode, handlers={"get_weather": failing})
    result = assert_finished_cleanly(run)
    answers = run.results(1)
    assert [a["is_error"] for a in answers] == [True, True]
    assert answers[0]["content"] == "The tool raised ValueError: no station in Paris"
    assert "error: The tool raised ValueError" in result.text


def test_handler_may_return_content_blocks() -> None:
    def blocks(value: Any) -> list[dict[str, Any]]:
        return [{"type": "text", "text": f"sunny in {value['city']}"}]

    run = run_loop("parallel_calls", "sync", handlers={"get_weather": blocks})
    assert_finished_cleanly(run)
    assert run.results(1)[0]["content"] == [{"type": "text", "text": "sunny in Paris"}]


def test_max_turns_exceeded() -> None:
    run = run_loop("parallel_calls", "sync", max_turns=1)
    assert isinstance(run.error, tooljson.MaxTurnsExceeded)
    assert len(run.requests) == 1
    assert run.error.messages[-1]["role"] == "user"


@pytest.mark.parametrize("mode", ["sync", "sync-sdk"])
def test_on_event_sees_every_step_in_order(mode: str) -> None:
    run = run_loop("parallel_calls", mode)
    kinds = [e.kind for e in run.events]
    assert kinds[0] == "request"
    first_result = kinds.index("tool_result")
    assert kinds[:first_result].count("tool_call") == 2
    assert kinds.count("tool_result") == 2 and kinds.count("request") == 2
    stream_events = [e.data for e in run.events if e.kind == "stream_event"]
    if mode == "sync":
        stream_types = [e["type"] for e in stream_events]
    else:
        stream_types = [e.type for e in stream_events]
        assert all(isinstance(e, anthropic.BaseModel) for e in stream_events)
    assert "ping" not in stream_types
    assert stream_types[0] == "message_start" and stream_types[-1] == "message_stop"
    assert [e.turn for e in run.events if e.kind == "request"] == [1, 2]


def test_caller_messages_are_not_modified() -> None:
    messages = [{"role": "user", "content": "What's the weather in Paris and in São Paulo right now?"}]
    before = json.dumps(messages)
    run = run_loop("parallel_calls", "sync", messages=messages)
    assert_finished_cleanly(run)
    assert json.dumps(messages) == before


class Weather(BaseModel):
    city: str
    unit: str


def test_pydantic_handler_gets_its_model() -> None:
    seen: list[Weather] = []

    def handler(query: Weather) -> str:
        seen.append(query)
        return query.city

    run = run_loop("parallel_calls", "sync", handlers={"get_weather": handler})
    assert_finished_cleanly(run)
    assert seen == [Weather(city="Paris", unit="celsius"), Weather(city="São Paulo", unit="celsius")]


class StrictCity(BaseModel):
    city: str
    unit: str
    country: str


def test_registered_model_rejects_and_the_handler_is_not_run() -> None:
    seen: list[Any] = []
    handler = tooljson.ToolHandler(seen.append, model=StrictCity)
    run = run_loop("parallel_calls", "sync", handlers={"get_weather": handler})
    assert_finished_cleanly(run)
    assert seen == []
    answers = run.results(1)
    assert all(a["is_error"] is True and "/country" in a["content"] for a in answers)


class _EndlessClient:
    """A client whose stream ends cleanly but without message_stop: the loop must not take it as whole."""

    def __init__(self, events: list[dict[str, Any]]) -> None:
        self.messages = self
        self._events = events

    def create(self, **request: Any) -> Any:
        events = self._events

        class Stream:
            def __enter__(self) -> Any:
                return self

            def __exit__(self, *exc: object) -> None:
                return None

            def __iter__(self) -> Iterator[dict[str, Any]]:
                return iter(events)

        return Stream()


def test_stream_ending_without_message_stop_is_interrupted() -> None:
    events: list[dict[str, Any]] = [
        {
            "type": "message_start",
            "message": {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "content": [],
                "usage": {"input_tokens": 1},
            },
        },
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": '{"city": "Oslo"}'},
        },
        {"type": "content_block_stop", "index": 0},
    ]
    ran: list[Any] = []
    with pytest.raises(tooljson.StreamInterrupted) as caught:
        tooljson.run_tool_loop(
            _EndlessClient(events),
            model="m",
            max_tokens=100,
            decode="sdk",
            messages=[{"role": "user", "content": "hi"}],
            tools=[],
            handlers={"get_weather": ran.append},
        )
    assert caught.value.cause is None
    assert [c.input for c in caught.value.calls] == [{"city": "Oslo"}]
    assert caught.value.content[0]["input"] == {"city": "Oslo"}
    assert ran == []


def test_refusal_ends_the_loop_without_running_tools() -> None:
    events: list[dict[str, Any]] = [
        {
            "type": "message_start",
            "message": {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "content": [],
                "usage": {"input_tokens": 1},
            },
        },
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": '{"city": "Oslo"}'},
        },
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "refusal", "stop_sequence": None},
            "usage": {"output_tokens": 9},
        },
        {"type": "message_stop"},
    ]
    ran: list[Any] = []
    result = tooljson.run_tool_loop(
        _EndlessClient(events),
        model="m",
        max_tokens=100,
        decode="sdk",
        messages=[{"role": "user", "content": "hi"}],
        tools=[],
        handlers={"get_weather": ran.append},
    )
    assert result.stop_reason == "refusal" and result.turns == 1
    assert result.content == [
        {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Oslo"}}
    ]
    assert ran == []


def test_demo_runs_without_a_key(capsys: pytest.CaptureFixture[str]) -> None:
    from tooljson.__main__ import main

    assert main(["demo", "--plain"]) == 0
    out = capsys.readouterr().out
    assert 'complete: {"city": "Paris", "unit": "celsius"}' in out
    assert "truncated at position 467 (max_tokens)" in out
    assert '{"INVALID_JSON": ' in out
    assert "the loop resends with max_tokens=512" in out
    assert "final (end_turn, 2 requests): Results received: Paris: 21 °C, clear" in out


def test_demo_live_without_a_key_says_so(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from tooljson.__main__ import main

    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    assert main(["demo", "--live", "--plain"]) == 2
    assert "ANTHROPIC_API_KEY" in capsys.readouterr().err


# --- lone surrogates: the handler gets the exact value, the next request is sent


@pytest.mark.parametrize("mode", ALL_MODES)
def test_lone_surrogates_reach_the_handler_exactly_and_the_next_request_is_sent(
    mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="tooljson"):
        run = run_loop("lone_surrogate", mode)
    result = assert_finished_cleanly(run)
    exact = json.loads(answers.LONE_SURROGATE_INPUT)
    assert exact["text"] == "a\ud800b"
    # The handler got what json.loads gives, lone surrogates included.
    assert run.handled == [("save_text", exact)]
    # The echoed history could not carry them: U+FFFD in their place, in the input and in the text.
    assistant = run.requests[1]["messages"][-2]["content"]
    assert assistant[0] == {"type": "text", "text": answers.LONE_SURROGATE_TEXT.replace("\ud800", "\ufffd")}
    assert assistant[1]["input"] == {"text": "a\ufffdb", "key \ufffd": "pair \U0001f680 kept"}
    assert "3 lone surrogate(s) in the assistant content replaced by U+FFFD" in caplog.text
    assert result.text.startswith('Echoed input: {"text": "a\ufffdb"')


def test_a_handler_answer_with_a_lone_surrogate_is_sent_too(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="tooljson"):
        run = run_loop("parallel_calls", "sync", handlers={"get_weather": lambda value: "cloudy \udc80"})
    assert_finished_cleanly(run)
    assert [r["content"] for r in run.results(1)] == ["cloudy \ufffd", "cloudy \ufffd"]
    assert "in the tool results replaced by U+FFFD" in caplog.text


# --- what became of each call, as the reader records it for the views


def _readers(run: Run) -> list[tooljson.TurnReader]:
    return [event.data for event in run.events if event.kind == "turn"]


def test_the_reader_says_repaired_rejected_and_failed() -> None:
    run = run_loop("schema_mismatch", "sync")
    assert_finished_cleanly(run)
    reader = _readers(run)[0]
    assert [reader.state(call) for call in reader.calls] == ["repaired", "rejected"]
    repairs = reader.repairs[reader.calls[0].id]
    assert [(r.path, r.before, r.after) for r in repairs] == [
        ("/priority", "High", "high"),
        ("/component", " auth ", "auth"),
    ]

    def failing(value: Any) -> str:
        raise ValueError("no station")

    run = run_loop("parallel_calls", "sync", handlers={"get_weather": failing})
    reader = _readers(run)[0]
    assert [reader.state(call) for call in reader.calls] == ["failed", "failed"]


def test_a_schema_without_jsonschema_fails_before_the_first_request(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    # As without the 'stream' extra: jsonschema cannot be imported.
    monkeypatch.setitem(sys.modules, "jsonschema", None)
    with serving("parallel_calls") as server:
        with anthropic.Anthropic(base_url=server.base_url, api_key="stand-in", max_retries=0) as client:
            with pytest.raises(tooljson.MissingExtra, match=r"pip install 'tooljson\[stream\]'"):
                tooljson.run_tool_loop(client, handlers={}, **get_scenario("parallel_calls").first_request())
        assert server.requests == []
