"""Gemini streamed arguments: what reading every chunk costs next to google-genai's own stream.

The workloads are the ~100 KB file writes (``file_write``, ``code_write``), streamed as Vertex AI
streams a call's arguments with ``stream_function_call_arguments``: a chunk opening the call, one
chunk per ``partialArgs`` piece (the long string cut into the 1–32-character pieces of the
workload's random fragmentation, the short one whole), an empty ``functionCall`` ending it and a
last chunk with ``finishReason`` and the usage. The chunks are written as the server-sent events
of ``:streamGenerateContent?alt=sse`` and read back by google-genai's own stream: a Vertex AI
``genai.Client`` whose HTTP request returns those bytes (``_api_client._request`` replaced, nothing
else), so every chunk goes through the SDK's SSE line decoder, its JSON decoding, its response
converter and its pydantic model, as in ``client.models.generate_content_stream(...)``.

- ``sdk``: iterating that stream alone, the floor anything that reads it pays.
- ``sdk+tooljson``: the same stream with ``TurnReader.feed(chunk)`` of every chunk.
- ``feed``: ``TurnReader.feed`` alone over the SDK's objects built beforehand (and over the same
  chunks as wire dicts), for what reading costs per chunk.

Every case checks the call's input against the value streamed, so a plain ``pytest`` run (benchmarks
disabled) tests each once. Run as a script, it prints the paired ratio ``sdk+tooljson`` over ``sdk``
(both timed in interleaved rounds, CPU time), then how ``TurnReader.feed`` scales: the CPU time of a
1 MB streamed string over a 100 KB one (20-character pieces, the best of three runs each):
``python benches/bench_gemini.py [--rounds N]``.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

genai = pytest.importorskip("google.genai")
httpx = pytest.importorskip("httpx")
from google.genai import _api_client, types  # noqa: E402

import tooljson  # noqa: E402
from workloads import describe, paired_ratios, workload  # noqa: E402

WORKLOADS = ("file_write", "code_write")
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
        return {"candidates": [{"content": {"role": "model", "parts": parts}, **candidate}],
                "createTime": "2026-12-04T08:00:00.123456Z", "responseId": "VhBRaYiEOomJ2PgP2Yq4qAo", "modelVersion": MODEL}

    chunks = [chunk([{"functionCall": {"name": "write_file", "willContinue": True}, "thoughtSignature": "AAEC"}])]
    chunks += [chunk([{"functionCall": {"partialArgs": [piece], "willContinue": True}}]) for piece in pieces_of(name)]
    chunks.append(chunk([{"functionCall": {}}]))
    last = chunk([{"text": ""}], finishReason="STOP")
    last["usageMetadata"] = {"promptTokenCount": 120, "candidatesTokenCount": 30000, "totalTokenCount": 30120,
                             "trafficType": "ON_DEMAND"}
    chunks.append(last)
    return chunks


def sse_body(chunks: Sequence[dict[str, Any]]) -> bytes:
    """The chunks as the server-sent events of ``:streamGenerateContent?alt=sse``."""
    return b"".join(b"data: " + json.dumps(chunk, ensure_ascii=False).encode() + b"\r\n\r\n" for chunk in chunks)


class ReplayedClient:
    """A Vertex AI client whose streaming requests are answered by ``body`` (the SDK's HTTP request
    replaced, nothing else): its stream is google-genai's own, from the bytes on."""

    def __init__(self, body: bytes) -> None:
        self.body = body
        self.client = genai.Client(vertexai=True, api_key="x", http_options=types.HttpOptions(
            base_url="http://127.0.0.1:9", api_version="v1beta1"))
        self.client._api_client._request = self._request  # type: ignore[method-assign]

    def _request(self, http_request: Any, http_options: Any = None, stream: bool = False) -> Any:
        reads = (self.body[at : at + READ_SIZE] for at in range(0, len(self.body), READ_SIZE))
        response = httpx.Response(200, headers={"content-type": "text/event-stream"}, content=_bytes(reads))
        return _api_client.HttpResponse(response.headers, response)

    def stream(self) -> Iterator[Any]:
        return self.client.models.generate_content_stream(model=MODEL, contents="Write the file.")


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


def scaling() -> None:
    """The CPU time of reading a 1 MB streamed string over that of a 100 KB one (linear: 10×)."""
    print("TurnReader.feed of a streamed string, CPU time of 1 MB over 100 KB (best of three runs each)")
    for shape in ("wire dicts", "SDK objects"):
        best = {}
        for size in (100_000, 1_000_000):
            text = ("abcd\u00e9\"\\\n xyz" * (size // 12 + 1))[:size]
            pieces = [{"jsonPath": "$.content", "stringValue": text[at : at + 20], "willContinue": at + 20 < size}
                      for at in range(0, size, 20)]
            chunks = [{"candidates": [{"content": {"role": "model", "parts": [{"functionCall": function_call}]}}], "responseId": "r"}
                      for function_call in [{"name": "write_file", "willContinue": True},
                                            *({"partialArgs": [piece], "willContinue": True} for piece in pieces), {}]]
            events: list[Any] = chunks if shape == "wire dicts" else [types.GenerateContentResponse.model_validate(c) for c in chunks]
            times = []
            for _ in range(3):
                gc.collect()
                start = time.process_time()
                value = reader_alone(events)
                times.append(time.process_time() - start)
            assert value == {"content": text}
            best[size] = min(times)
        print(f"  {shape}: 100 KB {best[100_000] * 1e3:.0f} ms, 1 MB {best[1_000_000] * 1e3:.0f} ms: "
              f"{best[1_000_000] / best[100_000]:.2f}×")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15, help="paired rounds per workload")
    arguments = parser.parse_args(argv)
    print("CPU time of google-genai's stream with TurnReader.feed of every chunk, over the stream alone: "
          "median [quartiles] of paired rounds")
    for name in WORKLOADS:
        client = client_of(name)
        assert sdk_and_reader(client) == workload(name).expected()
        cases = {"sdk": (lambda _: sdk_alone(client), ()), "sdk+tooljson": (lambda _: sdk_and_reader(client), ())}
        ratios = paired_ratios(cases, "sdk", rounds=arguments.rounds)  # type: ignore[arg-type]
        chunks = len(wire_chunks(name))
        print(f"  {name} ({workload(name).size:,} bytes, {chunks:,} chunks): {_quartiles(ratios['sdk+tooljson'])}")
        feed = {"objects": (reader_alone, objects_of(name)), "dicts": (reader_alone, wire_chunks(name)),
                "sdk": (lambda _: sdk_alone(client), ())}
        shares = paired_ratios(feed, "sdk", rounds=max(3, arguments.rounds // 3))  # type: ignore[arg-type]
        print(f"    feed alone over the stream alone: SDK objects {_quartiles(shares['objects'])}, "
              f"wire dicts {_quartiles(shares['dicts'])}")
    scaling()


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    main()
