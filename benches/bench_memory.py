"""Memory: the peak extra memory of streaming a 1 MB argument, and what an idle accumulator holds.

    python benches/bench_memory.py            # prints the tables (Markdown)

Each figure comes from a fresh interpreter (``python benches/bench_memory.py --child ...``), so that
one approach's freed memory, kept by the allocator for reuse, does not lower the next one's figure.
In the child the deltas are cut from the text as they are fed, as they would arrive from the
network: an approach that keeps the fragments pays for them, one that copies them does not.

Two measures of each run:

- resident memory (Linux): the peak resident set size (``VmHWM``, reset through
  ``/proc/self/clear_refs`` just before streaming) minus the resident size just before. It sees
  everything, the Rust heap included, at the granularity of pages;
- ``tracemalloc``: the peak of the memory allocated through Python's allocators during the run, and
  what is still allocated at its end (the parsed value, mostly). It does not see the Rust heap.

Approaches: ``pure`` (keep the deltas, join, ``json.loads``), ``tooljson`` (accumulate, finish),
``tooljson-preview`` (a preview after every delta, then finish), ``tooljson-events`` (events pulled
after every delta, then finish), and ``json.loads`` of the already joined text (the parsed value's own
cost, the floor of all the others).

The tests run each measurement once and check the parsed value and the orders of magnitude, so a
plain ``pytest`` run tests them; ``benches/report.py`` puts the tables in the report.
"""

from __future__ import annotations

import argparse
import gc
import itertools
import json
import re
import subprocess
import sys
import tempfile
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import tooljson
import tooljson.pure
from workloads import fragment, workload

STREAMED = ("pure", "tooljson", "tooljson-preview", "tooljson-events", "json.loads")
IDLE = ("pure", "tooljson", "tooljson-events")
MEMORY_WORKLOAD = "records_1mb"
#: Accumulators created at once for the idle footprint: enough for a resident-size difference far
#: above the granularity of pages.
IDLE_COUNT = 20_000

# ------------------------------------------------------------------------------------------------
# In the child process


def _status_kib(field: str) -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        found = re.search(rf"^{field}:\s+(\d+) kB", status.read(), re.MULTILINE)
    if found is None:
        raise RuntimeError(f"no {field} in /proc/self/status")
    return int(found.group(1))


def _reset_peak() -> None:
    with open("/proc/self/clear_refs", "w", encoding="ascii") as clear_refs:
        clear_refs.write("5")


def _deltas(text: str, cuts: list[int]) -> Iterator[str]:
    """Slices cut when they are fed: fresh strings, as a decoded network event would give."""
    for start, end in itertools.pairwise(cuts):
        yield text[start:end]


def _stream(implementation: str, text: str, cuts: list[int]) -> Any:
    if implementation == "json.loads":
        return json.loads(text)
    accumulator: Any
    if implementation == "pure":
        accumulator = tooljson.pure.ToolCallAccumulator()
    else:
        accumulator = tooljson.ToolCallAccumulator(events=implementation == "tooljson-events")
    accumulator.start(0, "write_file", "toolu_01")
    add_delta = accumulator.add_delta
    if implementation == "tooljson-preview":
        preview = accumulator.preview
        for piece in _deltas(text, cuts):
            add_delta(0, piece)
            preview(0)
    elif implementation == "tooljson-events":
        events = accumulator.events
        for piece in _deltas(text, cuts):
            add_delta(0, piece)
            for event in events(0):
                event.kind, event.path, event.value  # noqa: B018 - read as a consumer would
    else:
        for piece in _deltas(text, cuts):
            add_delta(0, piece)
    return accumulator.finish(0)["input"]


def measure_streaming_here(implementation: str, text: str, fragmentation: str) -> dict[str, Any]:
    """Streams ``text`` once for resident memory, once under tracemalloc; checks the value."""
    pieces = fragment(text, fragmentation, seed=len(text))
    cuts = [0]
    for piece in pieces:
        cuts.append(cuts[-1] + len(piece))
    del pieces
    expected = json.loads(text)

    gc.collect()
    before = _status_kib("VmRSS")
    _reset_peak()
    value = _stream(implementation, text, cuts)
    peak = _status_kib("VmHWM")
    correct = value == expected
    del value
    gc.collect()

    tracemalloc.start()
    start_traced = tracemalloc.get_traced_memory()[0]
    tracemalloc.reset_peak()
    value = _stream(implementation, text, cuts)
    end_traced, peak_traced = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    correct = correct and value == expected
    return {
        "implementation": implementation,
        "fragmentation": fragmentation,
        "size_bytes": len(text.encode("utf-8")),
        "deltas": len(cuts) - 1,
        "rss_peak_extra": (peak - before) * 1024,
        "traced_peak": peak_traced - start_traced,
        "traced_retained": end_traced - start_traced,
        "correct": correct,
    }


def _idle(implementation: str, started: bool) -> Any:
    if implementation == "pure":
        accumulator: Any = tooljson.pure.ToolCallAccumulator()
    else:
        accumulator = tooljson.ToolCallAccumulator(events=implementation == "tooljson-events")
    if started:
        accumulator.start(0, "write_file", "toolu_01")
    return accumulator


def measure_idle_here(implementation: str, started: bool, count: int = IDLE_COUNT) -> dict[str, Any]:
    """Bytes per accumulator, from ``count`` of them alive at once (resident and traced)."""
    _idle(implementation, started)  # first-use allocations (type objects, caches) out of the count
    gc.collect()
    before = _status_kib("VmRSS")
    kept = [_idle(implementation, started) for _ in range(count)]
    after = _status_kib("VmRSS")
    del kept
    gc.collect()
    tracemalloc.start()
    start_traced = tracemalloc.get_traced_memory()[0]
    kept = [_idle(implementation, started) for _ in range(count)]
    end_traced = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    # The list holding them costs 8 bytes a pointer in both measures: not the accumulator's.
    return {
        "implementation": implementation,
        "started": started,
        "count": len(kept),
        "rss_per_accumulator": (after - before) * 1024 / count - 8,
        "traced_per_accumulator": (end_traced - start_traced) / count - 8,
    }


# ------------------------------------------------------------------------------------------------
# From the parent


def _child(*arguments: str) -> dict[str, Any]:
    command = [sys.executable, str(Path(__file__).resolve()), "--child", *arguments]
    completed = subprocess.run(command, capture_output=True, text=True, check=False, timeout=600)
    if completed.returncode != 0:
        raise RuntimeError(f"{' '.join(arguments)} failed:\n{completed.stderr}")
    result: dict[str, Any] = json.loads(completed.stdout)
    return result


def measure_streaming(
    implementations: tuple[str, ...] = STREAMED, fragmentation: str = "random", name: str = MEMORY_WORKLOAD
) -> list[dict[str, Any]]:
    """One fresh interpreter per approach, each streaming the named workload (the 1 MB records)."""
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "text.json"
        path.write_text(workload(name).text, encoding="utf-8")
        return [
            _child("stream", implementation, str(path), fragmentation) for implementation in implementations
        ]


def measure_idle(
    implementations: tuple[str, ...] = IDLE, states: tuple[str, ...] = ("new", "started")
) -> list[dict[str, Any]]:
    """One fresh interpreter per approach and state ("new"; "started": one call started, no text yet)."""
    return [_child("idle", implementation, state) for implementation in implementations for state in states]


def _mib(value: float) -> str:
    return f"{value / 2**20:.1f} MiB"


def markdown(streaming: list[dict[str, Any]], idle: list[dict[str, Any]]) -> list[str]:
    """The two tables, with the resident peak also as a ratio to pure's."""
    lines: list[str] = []
    by_fragmentation: dict[str, list[dict[str, Any]]] = {}
    for row in streaming:
        by_fragmentation.setdefault(row["fragmentation"], []).append(row)
    for fragmentation, rows in by_fragmentation.items():
        pure = next((row for row in rows if row["implementation"] == "pure"), None)
        first = rows[0]
        lines += [
            f"### Streaming {first['size_bytes'] / 1e6:.2g} MB of records ({fragmentation}, {first['deltas']} deltas)",
            "",
            "| approach | peak extra resident | ratio to pure | tracemalloc peak | tracemalloc retained (the value) |",
            "|---|---:|---:|---:|---:|",
        ]
        for row in rows:
            ratio = (
                f"{row['rss_peak_extra'] / pure['rss_peak_extra']:.2f}×"
                if pure and pure["rss_peak_extra"]
                else "n/a"
            )
            lines.append(
                f"| {row['implementation']} | {_mib(row['rss_peak_extra'])} | {ratio} | {_mib(row['traced_peak'])} "
                f"| {_mib(row['traced_retained'])} |"
            )
        lines.append("")
    lines += [
        f"### Idle accumulators ({idle[0]['count'] if idle else IDLE_COUNT:,} alive at once)",
        "",
        "| accumulator | state | resident bytes each | tracemalloc bytes each |",
        "|---|---|---:|---:|",
    ]
    for row in idle:
        state = "one call started, no text" if row["started"] else "new"
        lines.append(
            f"| {row['implementation']} | {state} | {row['rss_per_accumulator']:.0f} | {row['traced_per_accumulator']:.0f} |"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        mode, implementation, *rest = args.child
        if mode == "stream":
            path, fragmentation = rest
            text = Path(path).read_text(encoding="utf-8")
            print(json.dumps(measure_streaming_here(implementation, text, fragmentation)))
        else:
            print(json.dumps(measure_idle_here(implementation, rest[0] == "started")))
        return 0
    streaming = measure_streaming() + measure_streaming(("pure", "tooljson", "tooljson-preview"), "char")
    print("\n".join(markdown(streaming, measure_idle())))
    return 0


# ------------------------------------------------------------------------------------------------
# Tests: each measurement once, its value checked, its figures within sane bounds

linux_only = pytest.mark.skipif(not Path("/proc/self/clear_refs").exists(), reason="needs Linux /proc")


@linux_only
def test_streaming_memory() -> None:
    # The 100 KB records keep this quick in a plain run; the report measures the 1 MB ones.
    size = workload("records").size
    rows = {row["implementation"]: row for row in measure_streaming(("pure", "tooljson"), name="records")}
    assert all(row["correct"] for row in rows.values())
    # Both build the same value, whose Python objects tracemalloc sees in full, and keep it; tooljson
    # hands out one str for repeated short strings (its key cache), so its value may be smaller.
    retained = rows["pure"]["traced_retained"]
    assert retained > size
    assert 0.5 < rows["tooljson"]["traced_retained"] / retained < 1.1
    for row in rows.values():
        assert row["traced_retained"] <= row["traced_peak"] < 20 * size
        assert 0 < row["rss_peak_extra"] < 20 * size


@linux_only
def test_idle_footprint() -> None:
    rows = measure_idle(("tooljson",), ("started",))
    assert len(rows) == 1
    for row in rows:
        assert row["count"] == IDLE_COUNT
        # Bytes, not the kilobytes of a text buffer sized for the input to come.
        assert row["rss_per_accumulator"] < 4096
        assert 0 < row["traced_per_accumulator"] < 4096


if __name__ == "__main__":
    raise SystemExit(main())
