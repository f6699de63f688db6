"""Gemini streamed arguments: what reading every chunk costs next to google-genai's own stream.

The workloads are the ~100 KB file writes (``file_write``, ``code_write``), streamed as Vertex AI
streams a call's arguments with ``stream_function_call_arguments``: a chunk opening the call, one
chunk per ``partialArgs`` piece (the long string cut into the 1–32-character pieces of the
workload's random fragmentation, the short one whole), an empty ``functionCall`` ending it and a
last chunk with ``finishReason`` and the usage. The chunks are written as the server-sent events
of ``:streamGenerateContent?alt=sse`` and read back by google-genai's own stream: a Vertex AI
``genai.Client`` whose HTTP request returns those bytes (``_api_client._request`` replaced, nothing
else), so every chunk goes through the SDK's SSE line decoder, its JSON decoding, its response
converter and its pydantic model, as in ``client.models.generate_content_stream(...)``. The request
switches automatic function calling off (see :meth:`ReplayedClient.stream`).

- ``sdk``: iterating that stream alone, the floor anything that reads it pays.
- ``sdk+tooljson``: the same stream with ``TurnReader.feed(chunk)`` of every chunk.
- ``feed``: ``TurnReader.feed`` alone over the SDK's objects built beforehand (and over the same
  chunks as wire dicts), for what reading costs per chunk.

Every case checks the call's input against the value streamed, so a plain ``pytest`` run (benchmarks
disabled) tests each once. Run as a script, it prints the paired ratio ``sdk+tooljson`` over ``sdk``
(both timed in interleaved rounds, CPU time), then how ``TurnReader.feed`` scales: the CPU time of a
1 MB streamed string over a 100 KB one (20-character pieces, paired rounds):
``python benches/bench_gemini.py [--rounds N]``. ``measure_paired`` gives the same figures to
``benches/features.py``, which judges them against :data:`LIMITS` (without google-genai, it says so
and measures nothing).
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
    import httpx
    from google import genai
    from google.genai import _api_client, types
except ModuleNotFoundError:
    # The targets below stay importable for the report, which says the figures are missing.
    genai = None  # type: ignore[assignment]

pytestmark = pytest.mark.skipif(genai is None, reason="google-genai is not installed")

WORKLOADS = ("file_write", "code_write")
#: The streamed string sizes of the scaling figure, and the label of each.
SCALING_SIZES = {"100 KB": 100_000, "1 MB": 1_000_000}
SCALING_SHAPES = ("wire dicts", "SDK objects")

#: The report's paired rounds per workload: on a loaded machine one round's ratio wanders by a third
#: (0.81–1.47× over 9 rounds of the file write), their median over 41 settles.
REPORT_ROUNDS = 41

#: The targets, in ``features.py``'s shape: (section, label, comparison, bound, kind).
LIMITS = [
    ("gemini", "file_write", "sdk+tooljson", 1.15, "at_most"),
    ("gemini", "code_write", "sdk+tooljson", 1.15, "at_most"),
    *(("gemini", f"scaling, {shape}", "1 MB", 12.0, "at_most") for shape in SCALING_SHAPES),
]
DESCRIPTIONS = {
    (
        "gemini",
        "sdk+tooljson",
    ): "google-genai's stream of a ~100 KB streamed argument (Vertex partialArgs) with "
    "TurnReader.feed of every chunk: CPU time at most this multiple of iterating the stream alone",
    ("gemini", "1 MB"): "TurnReader.feed of a streamed string (Vertex partialArgs, 20-character pieces), "
    "100 KB to 1 MB (size 10×): time grows ≤ 12×",
}

MODEL = "gemini-3-pro-preview"
# The bytes a server hands the client at a time.
READ_SIZE = 16384


def pieces_of(name: str) -> list[dict[str, Any]]:
    """The ``partialArgs`` of workload ``name``: every string cut into the lengths of the workload's
    random fragments, other values whole."""
    value = workload(name).expected()
    lengths = [len(fragment) for fragment in workload(name).fragments["random"]]
    pieces: list[dict[str, Any]] = []
    for key, item in value.items():
        assert isinstance(item, str), "the file writes' arguments are strings"
        at = 0
        cuts = iter(lengths)
        while True:
            size = next(cuts, 32)
            piece = item[at : at + size]
            at += size
            pieces.append({"jsonPath": f"$.{key}", "stringValue": piece, "willContinue": at < len(item)})
            if at >= len(item):
                break
    return pieces


def wire_chunks(name: str) -> list[dict[str, Any]]:
    """The chunks of one response streaming workload ``name``'s arguments, as the wire has them."""

    def chunk(parts: list[dict[str, Any]], **candidate: Any) -> dict[str, Any]:
        return {
            "candidates": [{"content": {"role": "model", "parts": parts}, **candidate}],
            "createTime": "2026-12-04T08:00:00.123456Z",
            "responseId": "VhBRaYiEOomJ2PgP2Yq4qAo",
            "modelVersion": MODEL,
        }

    chunks = [
        chunk([{"functionCall": {"name": "write_file", "willContinue": True}, "thoughtSignature": "AAEC"}])
    ]
    chunks += [
        chunk([{"functionCall": {"partialArgs": [piece], "willContinue": True}}]) for piece in pieces_of(name)
    ]
    chunks.append(chunk([{"functionCall": {}}]))
    last = chunk([{"text": ""}], finishReason="STOP")
    last["usageMetadata"] = {
        "promptTokenCount": 120,
        "candidatesTokenCount": 30000,
        "totalTokenCount": 30120,
        "trafficType": "ON_DEMAND",
    }
    chunks.append(last)
    return chunks


def sse_body(chunks: Sequence[dict[str, Any]]) -> bytes:
    """The chunks as the server-sent events of ``:streamGenerateContent?alt=sse``."""
    return b"".join(
        b"data: " + json.dumps(chunk, ensure_ascii=False).encode() + b"\r\n\r\n" for chunk in chunks
    )


NO_AFC = (
    types.GenerateContentConfig(automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True))
    if genai
    else None
)


class ReplayedClient:
    """A Vertex AI client whose streaming requests are answered by ``body`` (the SDK's HTTP request
    replaced, nothing else): its stream is google-genai's own, from the bytes on."""

    def __init__(self, body: bytes) -> None:
        self.body = body
        self.client = genai.Client(
            vertexai=True,
            api_key="x",
            http_options=types.HttpOptions(base_url="http://127.0.0.1:9", api_version="v1beta1"),
        )
        self.client._api_client._request = self._request  # type: ignore[method-assign]

    def _request(self, http_request: Any, http_options: Any = None, stream: bool = False) -> Any:
        reads = (self.body[at : at + READ_SIZE] for at in range(0, len(self.body), READ_SIZE))
        response = httpx.Response(200, headers={"content-type": "text/event-stream"}, content=_bytes(reads))
        return _api_client.HttpResponse(response.headers, response)

    def stream(self) -> Iterator[Any]:
        # With automatic function calling on (the SDK's default, even with no callable tools),
        # google-genai 1.51.0 re-converts the whole history of the stream at every chunk
        # (``append_chunk_contents``): 40 s of CPU for the 5,116 chunks of the file write, against
        # 0.9 s with it off and 0.6 s under google-genai 3.6.1 either way. Off, the floor is the
        # stream itself on every version.
        return self.client.models.generate_content_stream(
            model=MODEL, contents="Write the file.", config=NO_AFC
        )


def _bytes(reads: Iterator[bytes]) -> Iterator[bytes]:
    yield from reads


_CLIENTS: dict[str, ReplayedClient] = {}
_OBJECTS: dict[str, list[Any]] = {}


def client_of(name: str) -> ReplayedClient:
    if name not in _CLIENTS:
        _CLIENTS[name] = ReplayedClient(sse_body(wire_chunks(name)))
    return _CLIENTS[name]


def objects_of(name: str) -> list[Any]:
    """The SDK's chunk objects for workload ``name``, read once from its stream."""
    if name not in _OBJECTS:
        _OBJECTS[name] = list(client_of(name).stream())
    return _OBJECTS[name]


# ------------------------------------------------------------------------------------------------
# What is measured


def sdk_alone(client: ReplayedClient) -> int:
    """Iterate the SDK's stream; the number of chunks."""
    count = 0
    for _ in client.stream():
        count += 1
    return count


def sdk_and_reader(client: ReplayedClient) -> Any:
    """Iterate the SDK's stream, every chunk fed to a reader; the call's input."""
    reader = tooljson.TurnReader()
    feed = reader.feed
    for chunk in client.stream():
        feed(chunk)
    return reader.calls[0].input


def reader_alone(chunks: Sequence[Any]) -> Any:
    """``TurnReader.feed`` of chunks already read; the call's input."""
    reader = tooljson.TurnReader()
    feed = reader.feed
    for chunk in chunks:
        feed(chunk)
    return reader.calls[0].input


# ------------------------------------------------------------------------------------------------
# pytest-benchmark cases


@pytest.mark.parametrize("name", WORKLOADS)
@pytest.mark.parametrize("implementation", ["sdk", "sdk+tooljson"])
def test_sdk_stream(benchmark: Any, name: str, implementation: str) -> None:
    describe(benchmark, "gemini-stream", f"gemini stream: {name}", name, "random", implementation)
    client = client_of(name)
    if implementation == "sdk":
        count = benchmark.pedantic(sdk_alone, args=(client,), rounds=3, iterations=1)
        assert count == len(wire_chunks(name))
    else:
        value = benchmark.pedantic(sdk_and_reader, args=(client,), rounds=3, iterations=1)
        assert value == workload(name).expected()


@pytest.mark.parametrize("name", WORKLOADS)
@pytest.mark.parametrize("shape", ["sdk-objects", "dicts"])
def test_feed(benchmark: Any, name: str, shape: str) -> None:
    describe(benchmark, "gemini-feed", f"gemini feed: {name}", name, "random", shape)
    chunks = objects_of(name) if shape == "sdk-objects" else wire_chunks(name)
    value = benchmark(reader_alone, chunks)
    assert value == workload(name).expected()


# ------------------------------------------------------------------------------------------------
# Paired ratios


def _quartiles(values: list[float]) -> str:
    return f"{statistics.median(values):.3f}× [{values[len(values) // 4]:.3f}–{values[3 * len(values) // 4]:.3f}]"


def scaling_events(size: int, shape: str) -> list[Any]:
    """One call streaming a string of ``size`` characters in 20-character ``partialArgs`` pieces, as
    wire dicts or as the SDK's objects."""
    text = ('abcd\u00e9"\\\n xyz' * (size // 12 + 1))[:size]
    pieces = [
        {"jsonPath": "$.content", "stringValue": text[at : at + 20], "willContinue": at + 20 < size}
        for at in range(0, size, 20)
    ]
    chunks = [
        {
            "candidates": [{"content": {"role": "model", "parts": [{"functionCall": function_call}]}}],
            "responseId": "r",
        }
        for function_call in [
            {"name": "write_file", "willContinue": True},
            *({"partialArgs": [piece], "willContinue": True} for piece in pieces),
            {},
        ]
    ]
    events: list[Any] = (
        chunks if shape == "wire dicts" else [types.GenerateContentResponse.model_validate(c) for c in chunks]
    )
    assert reader_alone(events) == {"content": text}
    return events


def measure_stream(name: str, rounds: int) -> dict[str, list[float]]:
    """``sdk+tooljson`` over ``sdk`` on workload ``name``, per paired round (sorted)."""
    client = client_of(name)
    assert sdk_and_reader(client) == workload(name).expected()
    cases = {"sdk": (lambda _: sdk_alone(client), ()), "sdk+tooljson": (lambda _: sdk_and_reader(client), ())}
    return paired_ratios(cases, "sdk", rounds=rounds)


def measure_scaling(shape: str, rounds: int) -> dict[str, list[float]]:
    """The CPU time of reading a 1 MB streamed string over that of a 100 KB one (linear: 10×), per
    paired round (sorted)."""
    cases = {label: (reader_alone, scaling_events(size, shape)) for label, size in SCALING_SIZES.items()}
    return paired_ratios(cases, "100 KB", rounds=rounds)


def measure_paired(rounds: int = REPORT_ROUNDS) -> dict[str, Any]:
    """The report's figures (``features.measure``), keyed as :data:`LIMITS` keys them; without
    google-genai, only why they are missing."""
    if genai is None:
        return {NOT_MEASURED: "google-genai is not installed"}
    found: dict[str, Any] = {name: measure_stream(name, rounds) for name in WORKLOADS}
    for shape in SCALING_SHAPES:
        found[f"scaling, {shape}"] = measure_scaling(shape, max(3, rounds // 3))
    return found


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15, help="paired rounds per workload")
    arguments = parser.parse_args(argv)
    print(
        "CPU time of google-genai's stream with TurnReader.feed of every chunk, over the stream alone: "
        "median [quartiles] of paired rounds"
    )
    for name in WORKLOADS:
        client = client_of(name)
        ratios = measure_stream(name, arguments.rounds)
        chunks = len(wire_chunks(name))
        print(
            f"  {name} ({workload(name).size:,} bytes, {chunks:,} chunks): {_quartiles(ratios['sdk+tooljson'])}"
        )
        feed = {
            "objects": (reader_alone, objects_of(name)),
            "dicts": (reader_alone, wire_chunks(name)),
            "sdk": (lambda _: sdk_alone(client), ()),
        }
        shares = paired_ratios(feed, "sdk", rounds=max(3, arguments.rounds // 3))  # type: ignore[arg-type]
        print(
            f"    feed alone over the stream alone: SDK objects {_quartiles(shares['objects'])}, "
            f"wire dicts {_quartiles(shares['dicts'])}"
        )
    print(
        "TurnReader.feed of a streamed string, CPU time of 1 MB over 100 KB: median [quartiles] of paired rounds"
    )
    for shape in SCALING_SHAPES:
        print(f"  {shape}: {_quartiles(measure_scaling(shape, max(3, arguments.rounds // 3))['1 MB'])}")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    main()
