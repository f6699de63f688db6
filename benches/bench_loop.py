"""A ~100 KB tool input streamed end to end over loopback: tooljson's loop against the SDK helper stream.

The stand-in server, in its own process, plays ``large_file_write`` (a ``write_file`` call whose input is about 100 KB of
JSON text, cut into fragments of 1 to 32 characters) to the real ``anthropic`` client. Compared, in
group ``loop: large_file_write``, the whole exchange (the tool turn, the handler, the closing turn):

- ``tooljson``: :func:`tooljson.run_tool_loop` (``messages.create(stream=True)``, events decoded by
  :func:`tooljson.iter_events`, ``feed``); ``tooljson-sdk-events`` the same with ``decode="sdk"``;
- ``sdk-helper-stream``: the same two requests with ``client.messages.stream(...)`` consumed the usual
  way (iterate the helper stream, ``get_final_message``), which re-parses the input on every delta.

Group ``one turn: large_file_write`` isolates the tool turn, with ``sdk-events-only`` (iterate the
SDK's raw stream, parse nothing) as the cost of the SDK's typed events alone.

``test_time_share_inside_tooljson`` times every ``feed`` call of the loop's accumulator to report the
share of the loop's time spent in tooljson; ``test_client_cpu_time`` compares the CPU time this
process spends per loop, a figure a busy machine disturbs less than wall time. Every benchmark checks the parsed input, so a plain
``pytest`` run (benchmarks disabled) still tests each path once.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import anthropic
import pytest
import tooljson
import tooljson.loop
from tooljson.standin import get_scenario
from tooljson.standin.scenarios.answers import LARGE_FILE_INPUT

SCENARIO = "large_file_write"
EXPECTED = json.loads(LARGE_FILE_INPUT)
FRAGMENT_SIZES = (1, 32)


@pytest.fixture(scope="module")
def client() -> Iterator[anthropic.Anthropic]:
    """A client of a stand-in server running in its own process.

    In this process the server's work (rendering ~6,600 events, ~1 MB of SSE) would share the GIL
    with the client and be timed with it; in its own process it stands for the remote API.
    """
    low, high = FRAGMENT_SIZES
    command = [
        sys.executable,
        "-m",
        "tooljson.standin",
        "--scenario",
        SCENARIO,
        "--fragment-sizes",
        f"{low},{high}",
        "--seed",
        "0",
    ]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        base_url = server.stdout.readline().strip()
        assert base_url.startswith("http://127.0.0.1:"), f"the stand-in did not start: {base_url!r}"
        with anthropic.Anthropic(base_url=base_url, api_key="stand-in", max_retries=0) as sdk:
            yield sdk
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        if server.stdout is not None:
            server.stdout.close()


def _request() -> dict[str, Any]:
    return get_scenario(SCENARIO).first_request()


def _describe(benchmark: Any, group: str, implementation: str) -> None:
    benchmark.group = group
    benchmark.extra_info.update(
        workload=SCENARIO,
        implementation=implementation,
        size_bytes=len(LARGE_FILE_INPUT.encode()),
        fragment_sizes=list(FRAGMENT_SIZES),
    )


class _Written:
    """The write_file handler: keeps what it was given, answers briefly."""

    def __init__(self) -> None:
        self.inputs: list[Any] = []

    def __call__(self, value: Any) -> str:
        self.inputs.append(value)
        return f"wrote {len(value['content'])} characters to {value['path']}"


def tooljson_loop(
    client: anthropic.Anthropic, decode: Any = "json"
) -> tuple[tooljson.ToolLoopResult, _Written]:
    written = _Written()
    result = tooljson.run_tool_loop(client, handlers={"write_file": written}, decode=decode, **_request())
    return result, written


def sdk_helper_loop(client: anthropic.Anthropic) -> tuple[anthropic.types.Message, _Written]:
    """The two requests written the usual way with the helper stream."""
    written = _Written()
    request = _request()
    messages = list(request.pop("messages"))
    while True:
        with client.messages.stream(messages=messages, **request) as stream:
            for _ in stream:
                pass
            message = stream.get_final_message()
        if message.stop_reason != "tool_use":
            return message, written
        messages.append({"role": "assistant", "content": [b.to_dict() for b in message.content]})
        results = [
            {"type": "tool_result", "tool_use_id": block.id, "content": written(block.input)}
            for block in message.content
            if block.type == "tool_use"
        ]
        messages.append({"role": "user", "content": results})


def _check_loop(written: _Written, final_text: str) -> None:
    assert written.inputs == [EXPECTED]
    assert final_text.startswith("Results received: wrote ")


@pytest.mark.parametrize("implementation", ["tooljson", "tooljson-sdk-events", "sdk-helper-stream"])
def test_loop(benchmark: Any, client: anthropic.Anthropic, implementation: str) -> None:
    _describe(benchmark, f"loop: {SCENARIO}", implementation)
    if implementation.startswith("tooljson"):
        decode = "sdk" if implementation == "tooljson-sdk-events" else "json"
        result, written = benchmark(tooljson_loop, client, decode)
        _check_loop(written, result.text)
        assert result.turns == 2
    else:
        message, written = benchmark(sdk_helper_loop, client)
        _check_loop(written, "".join(b.text for b in message.content if b.type == "text"))


def one_turn_tooljson(client: anthropic.Anthropic) -> Any:
    accumulator = tooljson.ToolCallAccumulator()
    feed = accumulator.feed
    with client.messages.create(stream=True, **_request()) as stream:
        for event in tooljson.iter_events(stream):
            feed(event)
    [call] = accumulator.calls
    return call.input


def one_turn_tooljson_sdk_events(client: anthropic.Anthropic) -> Any:
    accumulator = tooljson.ToolCallAccumulator()
    feed = accumulator.feed
    for event in client.messages.create(stream=True, **_request()):
        feed(event)
    [call] = accumulator.calls
    return call.input


def one_turn_helper(client: anthropic.Anthropic) -> Any:
    with client.messages.stream(**_request()) as stream:
        for _ in stream:
            pass
        message = stream.get_final_message()
    return next(block.input for block in message.content if block.type == "tool_use")


def one_turn_raw_only(client: anthropic.Anthropic) -> Any:
    count = 0
    for _ in client.messages.create(stream=True, **_request()):
        count += 1
    return count


ONE_TURN = {
    "tooljson": one_turn_tooljson,
    "tooljson-sdk-events": one_turn_tooljson_sdk_events,
    "sdk-helper-stream": one_turn_helper,
}


@pytest.mark.parametrize("implementation", [*ONE_TURN, "sdk-events-only"])
def test_one_turn(benchmark: Any, client: anthropic.Anthropic, implementation: str) -> None:
    _describe(benchmark, f"one turn: {SCENARIO}", implementation)
    if implementation == "sdk-events-only":
        assert benchmark(one_turn_raw_only, client) > len(LARGE_FILE_INPUT) // max(FRAGMENT_SIZES)
        return
    assert benchmark(ONE_TURN[implementation], client) == EXPECTED


class _TimedAccumulator(tooljson.ToolCallAccumulator):
    """Adds up the time spent in ``feed``; the loop builds one per turn."""

    seconds = 0.0
    fed = 0

    def feed(self, event: Any) -> list[tooljson.ToolCall]:
        started = time.perf_counter()
        try:
            return super().feed(event)
        finally:
            _TimedAccumulator.seconds += time.perf_counter() - started
            _TimedAccumulator.fed += 1


class _TimedTurn(tooljson.TurnReader):
    """Adds up the loop's whole per-event work: the turn reader's accumulator and content assembly."""

    seconds = 0.0

    def feed(self, event: Any) -> list[tooljson.ToolCall]:
        started = time.perf_counter()
        try:
            return super().feed(event)
        finally:
            _TimedTurn.seconds += time.perf_counter() - started


def _median(values: list[float]) -> float:
    return sorted(values)[len(values) // 2]


def test_time_share_inside_tooljson(
    client: anthropic.Anthropic, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(tooljson.turn, "ToolCallAccumulator", _TimedAccumulator)
    monkeypatch.setattr(tooljson.loop, "TurnReader", _TimedTurn)
    rounds = 5
    loop_seconds: list[float] = []
    cpu_seconds: list[float] = []
    feed_seconds: list[float] = []
    turn_seconds: list[float] = []
    for _ in range(rounds):
        _TimedAccumulator.seconds = _TimedTurn.seconds = 0.0
        _TimedAccumulator.fed = 0
        started, cpu_started = time.perf_counter(), time.process_time()
        result, written = tooljson_loop(client)
        loop_seconds.append(time.perf_counter() - started)
        cpu_seconds.append(time.process_time() - cpu_started)
        feed_seconds.append(_TimedAccumulator.seconds)
        turn_seconds.append(_TimedTurn.seconds)
        _check_loop(written, result.text)
    feed_share = _median([f / t for f, t in zip(feed_seconds, loop_seconds)])
    turn_share = _median([f / t for f, t in zip(turn_seconds, loop_seconds)])
    feed_cpu_share = _median([f / c for f, c in zip(feed_seconds, cpu_seconds)])
    assert 0.0 < feed_share <= turn_share < 1.0
    with capsys.disabled():
        print(
            f"\n[{SCENARIO}] run_tool_loop: median {_median(loop_seconds) * 1e3:.1f} ms wall, "
            f"{_median(cpu_seconds) * 1e3:.1f} ms client CPU over {rounds} runs ({_TimedAccumulator.fed} "
            f"events); ToolCallAccumulator.feed {_median(feed_seconds) * 1e3:.1f} ms = {feed_share:.1%} "
            f"of the wall time ({feed_cpu_share:.0%} of the client CPU); all per-event loop work "
            f"(feed + content assembly) {_median(turn_seconds) * 1e3:.1f} ms = {turn_share:.1%}"
        )


def test_client_cpu_time(client: anthropic.Anthropic, capsys: pytest.CaptureFixture[str]) -> None:
    """CPU time of this process per loop: unlike wall time, it does not count waiting for the server
    or for a busy machine's other work, so the ratio holds better on a loaded machine."""
    rounds = 3
    cpu: dict[str, list[float]] = {"tooljson": [], "sdk-helper-stream": []}
    for _ in range(rounds):
        started = time.process_time()
        result, written = tooljson_loop(client)
        cpu["tooljson"].append(time.process_time() - started)
        _check_loop(written, result.text)
        started = time.process_time()
        message, written = sdk_helper_loop(client)
        cpu["sdk-helper-stream"].append(time.process_time() - started)
        _check_loop(written, "".join(b.text for b in message.content if b.type == "text"))
    ours, theirs = min(cpu["tooljson"]), min(cpu["sdk-helper-stream"])
    assert ours < theirs
    with capsys.disabled():
        print(
            f"\n[{SCENARIO}] client CPU per loop, best of {rounds}: run_tool_loop {ours * 1e3:.0f} ms, "
            f"helper stream {theirs * 1e3:.0f} ms ({theirs / ours:.1f}x)"
        )
