"""The other providers' streams: the preview after every chunk, and what ``feed()`` costs per event.

- ``providers preview``: a Chat Completions stream of the ~100 KB records and file_write arguments
  (1–32-character fragments, one chunk each, as the openai client yields them: the chunk objects are
  built beforehand, outside the timing, with the client's own ``construct_type``), the value shown
  after every chunk. ``tooljson``: ``feed(chunk)`` then ``preview(index)``. ``sdk-approach``: what the
  openai SDK's chat helper does for a strict tool (``lib/streaming/chat/_completions.py``): append
  the chunk's ``arguments`` to the call's string and re-parse all of it with
  ``jiter.from_json(..., partial_mode=True)``. ``sdk-helper``: the helper itself,
  ``ChatCompletionStreamState(input_tools=[strict tool]).handle_chunk(chunk)`` (it also rebuilds the
  completion snapshot on every chunk); it takes tens of seconds on 100 KB, so it runs on the 10 KB
  records only.
- ``providers feed``: ``feed()`` alone over the same fragments, for each provider's events as its
  client yields them (and as dicts): what reading each provider's shape costs next to the Messages
  API's.

Every case checks its last value against ``json.loads`` of the joined text, so a plain ``pytest``
run (benchmarks disabled) tests each once. Run as a script, it prints paired ratios (both sides
timed in interleaved rounds, CPU time): ``python benches/bench_providers.py`` for the preview
targets, ``--against REV`` to time the Messages API's ``feed()`` against the accumulator module of
git revision ``REV`` in the same process.
"""

from __future__ import annotations

import argparse
import importlib
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import jiter
import pytest
import tooljson
from anthropic._models import construct_type as anthropic_construct
from anthropic.types import RawMessageStreamEvent
from openai._models import construct_type
from openai.lib.streaming.chat import ChatCompletionStreamState
from openai.types.chat import ChatCompletionChunk
from openai.types.responses import ResponseStreamEvent
from workloads import describe, paired_ratios, workload

STRICT_TOOL = {
    "type": "function",
    "function": {"name": "save", "parameters": {"type": "object"}, "strict": True},
}
PREVIEW_WORKLOADS = ("records", "file_write")

# ------------------------------------------------------------------------------------------------
# Each provider's events for one call streaming the fragments


def chat_chunks(fragments: Sequence[str]) -> list[dict[str, Any]]:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {
            "id": "chatcmpl-1",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }

    first = {"index": 0, "id": "call_1", "type": "function", "function": {"name": "save", "arguments": ""}}
    return (
        [chunk({"role": "assistant", "tool_calls": [first]})]
        + [chunk({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}) for piece in fragments]
        + [chunk({}, "tool_calls")]
    )


def responses_events(fragments: Sequence[str]) -> list[dict[str, Any]]:
    item = {
        "type": "function_call",
        "id": "fc_1",
        "call_id": "call_1",
        "name": "save",
        "arguments": "",
        "status": "in_progress",
    }
    events = [{"type": "response.output_item.added", "sequence_number": 0, "output_index": 0, "item": item}]
    events += [
        {
            "type": "response.function_call_arguments.delta",
            "sequence_number": n,
            "output_index": 0,
            "item_id": "fc_1",
            "delta": piece,
        }
        for n, piece in enumerate(fragments, start=1)
    ]
    events.append(
        {
            "type": "response.function_call_arguments.done",
            "sequence_number": len(events),
            "output_index": 0,
            "item_id": "fc_1",
            "arguments": "".join(fragments),
        }
    )
    return events


def bedrock_events(fragments: Sequence[str]) -> list[dict[str, Any]]:
    start = {"contentBlockIndex": 0, "start": {"toolUse": {"toolUseId": "tooluse_1", "name": "save"}}}
    return (
        [{"contentBlockStart": start}]
        + [
            {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"toolUse": {"input": piece}}}}
            for piece in fragments
        ]
        + [{"contentBlockStop": {"contentBlockIndex": 0}}]
    )


def messages_events(fragments: Sequence[str]) -> list[dict[str, Any]]:
    start = {
        "type": "content_block_start",
        "index": 0,
        "content_block": {"type": "tool_use", "id": "toolu_1", "name": "save", "input": {}},
    }
    return (
        [start]
        + [
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "input_json_delta", "partial_json": piece},
            }
            for piece in fragments
        ]
        + [{"type": "content_block_stop", "index": 0}]
    )


STREAMS: dict[
    str, tuple[Callable[[Sequence[str]], list[dict[str, Any]]], Callable[[dict[str, Any]], Any] | None]
] = {
    "messages-sdk": (
        messages_events,
        lambda event: anthropic_construct(type_=RawMessageStreamEvent, value=event),
    ),
    "messages-dict": (messages_events, None),
    "chat-sdk": (chat_chunks, lambda event: construct_type(type_=ChatCompletionChunk, value=event)),
    "chat-dict": (chat_chunks, None),
    "responses-sdk": (responses_events, lambda event: construct_type(type_=ResponseStreamEvent, value=event)),
    "bedrock-dict": (bedrock_events, None),
}

_CACHE: dict[tuple[str, str], list[Any]] = {}


def events_of(stream: str, name: str) -> list[Any]:
    """The events of ``stream`` for the workload ``name`` (1–32-character fragments), built once."""
    key = (stream, name)
    if key not in _CACHE:
        build, convert = STREAMS[stream]
        dicts = build(workload(name).fragments["random"])
        _CACHE[key] = dicts if convert is None else [convert(event) for event in dicts]
    return _CACHE[key]


# ------------------------------------------------------------------------------------------------
# What is measured: events in, the last value shown (or the parsed input) out


def tooljson_feed_preview(chunks: Sequence[Any]) -> Any:
    """``feed(chunk)`` then ``preview(index)`` after every chunk (but the last, which ends the call)."""
    accumulator = tooljson.ToolCallAccumulator()
    feed = accumulator.feed
    preview = accumulator.preview
    feed(chunks[0])
    index = accumulator.blocks[0].index
    value = None
    for chunk in chunks[1:-1]:
        feed(chunk)
        value = preview(index)
    return value


def sdk_approach(chunks: Sequence[Any]) -> Any:
    """The openai chat helper's way for a strict tool: append the arguments, re-parse them whole."""
    arguments = ""
    value = None
    for chunk in chunks[1:-1]:
        arguments += chunk.choices[0].delta.tool_calls[0].function.arguments or ""
        value = jiter.from_json(bytes(arguments, "utf-8"), partial_mode=True)
    return value


def sdk_helper(chunks: Sequence[Any]) -> Any:
    """The openai chat helper itself (``ChatCompletionStreamState``), reading its parsed arguments."""
    state = ChatCompletionStreamState(input_tools=[STRICT_TOOL])  # type: ignore[list-item]
    state.handle_chunk(chunks[0])
    value = None
    for chunk in chunks[1:-1]:
        state.handle_chunk(chunk)
        value = state.current_completion_snapshot.choices[0].message.tool_calls[0].function.parsed_arguments  # type: ignore[index]
    return value


def tooljson_feed(events: Sequence[Any]) -> Any:
    """``feed()`` of every event; the call it ends."""
    accumulator = tooljson.ToolCallAccumulator()
    feed = accumulator.feed
    for event in events:
        feed(event)
    return accumulator.calls[0].input


# ------------------------------------------------------------------------------------------------
# pytest-benchmark cases


@pytest.mark.parametrize("name", PREVIEW_WORKLOADS)
@pytest.mark.parametrize("implementation", ["tooljson", "sdk-approach"])
def test_preview_after_every_chunk(benchmark: Any, name: str, implementation: str) -> None:
    describe(benchmark, "providers-preview", f"providers preview: {name}", name, "random", implementation)
    chunks = events_of("chat-sdk", name)
    function = tooljson_feed_preview if implementation == "tooljson" else sdk_approach
    value = benchmark.pedantic(
        function, args=(chunks,), rounds=1 if implementation != "tooljson" else 5, iterations=1
    )
    assert value == workload(name).expected()


def test_sdk_helper_on_ten_kilobytes(benchmark: Any) -> None:
    describe(
        benchmark,
        "providers-preview",
        "providers preview: records_10kb",
        "records_10kb",
        "random",
        "sdk-helper",
    )
    chunks = events_of("chat-sdk", "records_10kb")
    value = benchmark.pedantic(sdk_helper, args=(chunks,), rounds=1, iterations=1)
    assert value == workload("records_10kb").expected() == tooljson_feed_preview(chunks)


@pytest.mark.parametrize("stream", list(STREAMS))
def test_feed(benchmark: Any, stream: str) -> None:
    describe(benchmark, "providers-feed", "providers feed: records", "records", "random", stream)
    value = benchmark(tooljson_feed, events_of(stream, "records"))
    assert value == workload("records").expected()


# ------------------------------------------------------------------------------------------------
# Paired ratios


def _quartiles(values: list[float]) -> str:
    return f"{statistics.median(values):,.2f}× [{values[len(values) // 4]:,.2f}–{values[3 * len(values) // 4]:,.2f}]"


def _package_at(revision: str) -> Any:
    """The ``tooljson`` Python package as it was at git ``revision``, imported as ``tooljson_then``
    beside today's (its modules rewritten to import each other under that name; the extension
    module is today's: the comparison is of the Python layers)."""
    root = Path(__file__).resolve().parent.parent
    target = Path(tempfile.mkdtemp())
    archive = subprocess.run(
        ["git", "archive", revision, "python/tooljson"], cwd=root, check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
    package = target / "tooljson_then"
    (target / "python" / "tooljson").rename(package)
    for path in package.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        path.write_text(re.sub(r"\btooljson(?=[. ])", "tooljson_then", text), encoding="utf-8")
    native = next(Path(tooljson.__file__).parent.glob("_native*.so"))
    shutil.copy(native, package / native.name)
    sys.path.insert(0, str(target))
    return importlib.import_module("tooljson_then")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="paired rounds of the preview comparison")
    parser.add_argument(
        "--against", metavar="REV", help="time the Messages feed() against the accumulator at REV"
    )
    parser.add_argument("--against-only", action="store_true", help="only the comparison with --against")
    arguments = parser.parse_args(argv)
    if not arguments.against_only:
        _preview_and_feed(arguments.rounds)
    if arguments.against:
        _against(arguments.against)


def _preview_and_feed(rounds: int) -> None:
    print(
        "preview after every Chat Completions chunk, CPU time of the SDK approach over tooljson's: "
        "median [quartiles] of paired rounds"
    )
    for name in PREVIEW_WORKLOADS:
        chunks = events_of("chat-sdk", name)
        cases = {"tooljson": (tooljson_feed_preview, chunks), "sdk-approach": (sdk_approach, chunks)}
        ratios = paired_ratios(cases, "tooljson", rounds=rounds)
        print(
            f"  {name} ({workload(name).size:,} bytes, {len(chunks):,} chunks): {_quartiles(ratios['sdk-approach'])}"
        )
    chunks = events_of("chat-sdk", "records_10kb")
    cases = {
        "tooljson": (tooljson_feed_preview, chunks),
        "sdk-helper": (sdk_helper, chunks),
        "sdk-approach": (sdk_approach, chunks),
    }
    ratios = paired_ratios(cases, "tooljson", rounds=rounds)
    print(
        f"  records_10kb: sdk-helper {_quartiles(ratios['sdk-helper'])}, sdk-approach {_quartiles(ratios['sdk-approach'])}"
    )
    print("feed() of every event of the 100 KB records, CPU time over the Messages API's dict events'")
    cases = {stream: (tooljson_feed, events_of(stream, "records")) for stream in STREAMS}
    ratios = paired_ratios(cases, "messages-dict", rounds=15)
    print("  " + ", ".join(f"{stream} {_quartiles(ratios[stream])}" for stream in STREAMS))


def _against(revision: str) -> None:
    """The Messages API's feed() and TurnReader.feed now against the package at ``revision``."""
    then = _package_at(revision)

    def feed_then(events: Sequence[Any]) -> Any:
        accumulator = then.ToolCallAccumulator()
        for event in events:
            accumulator.feed(event)
        return accumulator.calls[0].input

    def read_now(events: Sequence[Any]) -> Any:
        reader = tooljson.TurnReader()
        for event in events:
            reader.feed(event)
        return reader.calls[0].input

    def read_then(events: Sequence[Any]) -> Any:
        reader = then.TurnReader()
        for event in events:
            reader.feed(event)
        return reader.calls[0].input

    print(f"Messages API events of the 100 KB records, CPU time now over at {revision} (1.00: unchanged)")
    for stream in ("messages-dict", "messages-sdk"):
        events = events_of(stream, "records")
        cases = {
            "feed": (tooljson_feed, events),
            "feed then": (feed_then, events),
            "reader": (read_now, events),
            "reader then": (read_then, events),
        }
        feed = paired_ratios({key: cases[key] for key in ("feed", "feed then")}, "feed then", rounds=41)[
            "feed"
        ]
        read = paired_ratios(
            {key: cases[key] for key in ("reader", "reader then")}, "reader then", rounds=41
        )["reader"]
        print(f"  {stream}: ToolCallAccumulator.feed {_quartiles(feed)}, TurnReader.feed {_quartiles(read)}")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    main()
