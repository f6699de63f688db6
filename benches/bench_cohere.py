"""Cohere v2 chat streams: what reading every event costs next to the cohere client's own stream.

The workloads are the ~100 KB file writes (``file_write``, ``code_write``): their argument text,
cut into the workload's random fragments, streamed as one call of a Cohere v2 response
(``message-start``, ``tool-call-start``, a ``tool-call-delta`` per fragment, ``tool-call-end``,
``message-end``). The events are written as the server-sent events of ``POST /v2/chat`` and read
back by cohere's own stream: a ``ClientV2`` whose httpx client answers with those bytes
(``httpx.MockTransport``, nothing else replaced), so every event goes through the SDK's SSE decoder,
its JSON decoding and its pydantic model, as in ``client.chat_stream(...)``.

- ``sdk``: iterating that stream alone, the floor anything that reads it pays.
- ``sdk+tooljson``: the same stream with ``TurnReader.feed(event)`` of every event.
- ``feed``: ``TurnReader.feed`` alone over the SDK's objects read beforehand (and over the same
  events as wire dicts), for what reading costs per event.

Every case checks the call's input against the value streamed, so a plain ``pytest`` run (benchmarks
disabled) tests each once. Run as a script, it prints the paired ratio ``sdk+tooljson`` over ``sdk``
(both timed in interleaved rounds, CPU time): ``python benches/bench_cohere.py [--rounds N]``.
``measure_paired`` gives the same figures to ``benches/features.py``, which judges them against
:data:`LIMITS` (without cohere, it says so and measures nothing).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
import tooljson
from workloads import NOT_MEASURED, describe, paired_ratios, workload

try:
    import cohere
    import httpx
except ModuleNotFoundError:
    # The targets below stay importable for the report, which says the figures are missing.
    cohere = None  # type: ignore[assignment]

pytestmark = pytest.mark.skipif(cohere is None, reason="cohere is not installed")

WORKLOADS = ("file_write", "code_write")
#: The report's paired rounds per workload.
REPORT_ROUNDS = 41

#: The targets, in ``features.py``'s shape: (section, label, comparison, bound, kind).
LIMITS = [
    ("cohere", "file_write", "sdk+tooljson", 1.15, "at_most"),
    ("cohere", "code_write", "sdk+tooljson", 1.15, "at_most"),
]
DESCRIPTIONS = {
    ("cohere", "sdk+tooljson"): "cohere's ClientV2.chat_stream of a ~100 KB streamed argument with "
    "TurnReader.feed of every event: CPU time at most this multiple of iterating the stream alone",
}

MODEL = "command-a-03-2025"
# The bytes a server hands the client at a time.
READ_SIZE = 16384


def wire_events(name: str) -> list[dict[str, Any]]:
    """The events of one response streaming workload ``name``'s arguments, as the wire has them."""
    call = {
        "id": "write_file_0x4k7vq2",
        "type": "function",
        "function": {"name": "write_file", "arguments": ""},
    }
    events: list[dict[str, Any]] = [
        {
            "id": "5d1f0c3e-3b77-4a59-9c1b-0e0d4f6a7b21",
            "type": "message-start",
            "delta": {
                "message": {
                    "role": "assistant",
                    "content": [],
                    "tool_plan": "",
                    "tool_calls": [],
                    "citations": [],
                }
            },
        },
        {"type": "tool-plan-delta", "delta": {"message": {"tool_plan": "I will write the file."}}},
        {"type": "tool-call-start", "index": 0, "delta": {"message": {"tool_calls": call}}},
    ]
    events += [
        {
            "type": "tool-call-delta",
            "index": 0,
            "delta": {"message": {"tool_calls": {"function": {"arguments": piece}}}},
        }
        for piece in workload(name).fragments["random"]
    ]
    events.append({"type": "tool-call-end", "index": 0})
    tokens = {"input_tokens": 120, "output_tokens": 30000}
    events.append(
        {
            "type": "message-end",
            "delta": {"finish_reason": "TOOL_CALL", "usage": {"billed_units": tokens, "tokens": tokens}},
        }
    )
    return events


def sse_body(events: Sequence[dict[str, Any]]) -> bytes:
    """The events as the server-sent events of ``POST /v2/chat``."""
    return b"".join(
        f"event: {event['type']}\ndata: {json.dumps(event, ensure_ascii=False)}\n\n".encode()
        for event in events
    )


class ReplayedClient:
    """A ``ClientV2`` whose requests are answered by ``body`` through httpx's mock transport: its
    stream is cohere's own, from the bytes on."""

    def __init__(self, body: bytes) -> None:
        self.body = body
        transport = httpx.MockTransport(self._answer)
        self.client = cohere.ClientV2(
            api_key="x", base_url="http://127.0.0.1:9", httpx_client=httpx.Client(transport=transport)
        )

    def _answer(self, request: httpx.Request) -> httpx.Response:
        reads = (self.body[at : at + READ_SIZE] for at in range(0, len(self.body), READ_SIZE))
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=_bytes(reads))

    def stream(self) -> Iterator[Any]:
        return self.client.chat_stream(model=MODEL, messages=[{"role": "user", "content": "Write the file."}])


def _bytes(reads: Iterator[bytes]) -> Iterator[bytes]:
    yield from reads


_CLIENTS: dict[str, ReplayedClient] = {}
_OBJECTS: dict[str, list[Any]] = {}


def client_of(name: str) -> ReplayedClient:
    if name not in _CLIENTS:
        _CLIENTS[name] = ReplayedClient(sse_body(wire_events(name)))
    return _CLIENTS[name]


def objects_of(name: str) -> list[Any]:
    """The SDK's event objects for workload ``name``, read once from its stream."""
    if name not in _OBJECTS:
        _OBJECTS[name] = list(client_of(name).stream())
    return _OBJECTS[name]


# ------------------------------------------------------------------------------------------------
# What is measured


def sdk_alone(client: ReplayedClient) -> int:
    """Iterate the SDK's stream; the number of events."""
    count = 0
    for _ in client.stream():
        count += 1
    return count


def sdk_and_reader(client: ReplayedClient) -> Any:
    """Iterate the SDK's stream, every event fed to a reader; the call's input."""
    reader = tooljson.TurnReader()
    feed = reader.feed
    for event in client.stream():
        feed(event)
    return reader.calls[0].input


def reader_alone(events: Sequence[Any]) -> Any:
    """``TurnReader.feed`` of events already read; the call's input."""
    reader = tooljson.TurnReader()
    feed = reader.feed
    for event in events:
        feed(event)
    return reader.calls[0].input


# ------------------------------------------------------------------------------------------------
# pytest-benchmark cases


@pytest.mark.parametrize("name", WORKLOADS)
@pytest.mark.parametrize("implementation", ["sdk", "sdk+tooljson"])
def test_sdk_stream(benchmark: Any, name: str, implementation: str) -> None:
    describe(benchmark, "cohere-stream", f"cohere stream: {name}", name, "random", implementation)
    client = client_of(name)
    if implementation == "sdk":
        count = benchmark.pedantic(sdk_alone, args=(client,), rounds=3, iterations=1)
        assert count == len(wire_events(name))
    else:
        value = benchmark.pedantic(sdk_and_reader, args=(client,), rounds=3, iterations=1)
        assert value == workload(name).expected()


@pytest.mark.parametrize("name", WORKLOADS)
@pytest.mark.parametrize("shape", ["sdk-objects", "dicts"])
def test_feed(benchmark: Any, name: str, shape: str) -> None:
    describe(benchmark, "cohere-feed", f"cohere feed: {name}", name, "random", shape)
    events = objects_of(name) if shape == "sdk-objects" else wire_events(name)
    value = benchmark(reader_alone, events)
    assert value == workload(name).expected()


# ------------------------------------------------------------------------------------------------
# Paired ratios


def _quartiles(values: list[float]) -> str:
    return f"{statistics.median(values):.3f}× [{values[len(values) // 4]:.3f}–{values[3 * len(values) // 4]:.3f}]"


def measure_stream(name: str, rounds: int) -> dict[str, list[float]]:
    """``sdk+tooljson`` over ``sdk`` on workload ``name``, per paired round (sorted)."""
    client = client_of(name)
    assert sdk_and_reader(client) == workload(name).expected()
    cases = {"sdk": (lambda _: sdk_alone(client), ()), "sdk+tooljson": (lambda _: sdk_and_reader(client), ())}
    return paired_ratios(cases, "sdk", rounds=rounds)


def measure_paired(rounds: int = REPORT_ROUNDS) -> dict[str, Any]:
    """The report's figures (``features.measure``), keyed as :data:`LIMITS` keys them; without
    cohere, only why they are missing."""
    if cohere is None:
        return {NOT_MEASURED: "cohere is not installed"}
    return {name: measure_stream(name, rounds) for name in WORKLOADS}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15, help="paired rounds per workload")
    arguments = parser.parse_args(argv)
    print(
        "CPU time of cohere's chat_stream with TurnReader.feed of every event, over the stream alone: "
        "median [quartiles] of paired rounds"
    )
    for name in WORKLOADS:
        client = client_of(name)
        ratios = measure_stream(name, arguments.rounds)
        events = len(wire_events(name))
        print(
            f"  {name} ({workload(name).size:,} bytes, {events:,} events): {_quartiles(ratios['sdk+tooljson'])}"
        )
        feed = {
            "objects": (reader_alone, objects_of(name)),
            "dicts": (reader_alone, wire_events(name)),
            "sdk": (lambda _, client=client: sdk_alone(client), ()),
        }
        shares = paired_ratios(feed, "sdk", rounds=max(3, arguments.rounds // 3))  # type: ignore[arg-type]
        print(
            f"    feed alone over the stream alone: SDK objects {_quartiles(shares['objects'])}, "
            f"wire dicts {_quartiles(shares['dicts'])}"
        )


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    main()
