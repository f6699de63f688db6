"""The live view: the value as it stands after every delta, and the event stream, against the alternatives.

Three kinds of benchmark, each checking its result (the last value shown, or the events' root value)
against ``json.loads`` of the joined text, so that a plain ``pytest`` run (benchmarks disabled) still
tests every case it runs:

- ``preview``: a value shown after every delta of the ~100 KB records and file_write workloads:
  ``tooljson`` (``ToolCallAccumulator.preview(index)``), ``sdk`` (the SDK stream helper's way: append
  to a bytes buffer, ``jiter.from_json(buffer, partial_mode=True)``), ``jiter-trailing`` (the same with
  ``partial_mode="trailing-strings"``, which also shows open strings) and ``jsonriver`` (an incremental
  pure-Python parser that yields the value as it grows). partial-json-parser and json_repair, which
  re-parse the joined text in Python, take minutes per run at this size: they are in the size series
  only, on small inputs.
- ``events``: the strict path (every ``add_delta``, then ``finish``) against the same with
  ``events=True``, pulling ``events(index)`` after every delta and reading each event's kind, path
  and value, then ``finish``; beside them, ``events-at-end`` (all events pulled in one batch after
  ``finish``), ``events-callback`` (``on_event``), ``events-unpulled`` (``events=True``, nothing
  pulled: what making the events costs) and the preview path.
- ``size series``: every approach on the records from 1 KB to 2 MB, one group per approach and
  fragmentation, for the plot of time against size (``benches/report.py``). Approaches that re-parse
  the whole text after every delta grow with the square of the size, so each runs only up to the size
  listed in ``LARGEST``; with benchmarks disabled, only up to ``LARGEST_UNTIMED`` (a few seconds in all).

The timer is the process's CPU time (the machine these run on is shared; the wall clock would also
count other programs' turns). Rounds are counted from one untimed calibration call, so that a case
costs about ``ROUND_BUDGET`` seconds whatever its speed, with at least three rounds.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from typing import Any

import json_repair
import jsonriver
import partial_json_parser
import pytest
import tooljson
from workloads import (
    FRAGMENTATIONS,
    IMPLEMENTATIONS,
    SIZE_SERIES_WORKLOADS,
    describe,
    pure_accumulate,
    sdk_partial,
    tooljson_accumulate,
    workload,
)

# ------------------------------------------------------------------------------------------------
# What is measured: fragments in, the last value shown out


def tooljson_preview(fragments: Sequence[str]) -> Any:
    """``preview(index)`` after every delta: the value under construction, filled in place."""
    accumulator = tooljson.ToolCallAccumulator()
    accumulator.start(0, "write_file", "toolu_01")
    add_delta = accumulator.add_delta
    preview = accumulator.preview
    value = None
    for piece in fragments:
        add_delta(0, piece)
        value = preview(0)
    return value


def tooljson_events(fragments: Sequence[str]) -> tuple[Any, Any, int]:
    """``events(index)`` pulled after every delta, each event's fields read, then ``finish``.

    Returns the input, the value of the root's "complete" event and the number of events.
    """
    accumulator = tooljson.ToolCallAccumulator(events=True)
    accumulator.start(0, "write_file", "toolu_01")
    add_delta = accumulator.add_delta
    events = accumulator.events
    root: Any = None
    count = 0
    for piece in fragments:
        add_delta(0, piece)
        for event in events(0):
            kind, path, value = event.kind, event.path, event.value
            if kind == "complete" and not path:
                root = value
            count += 1
    return accumulator.finish(0)["input"], root, count


def tooljson_events_at_end(fragments: Sequence[str]) -> tuple[Any, Any, int]:
    """Every ``add_delta``, then ``finish``, then all the events pulled at once and read.

    The other end from :func:`tooljson_events`: one batch instead of one per delta (a consumer that
    pulls at its own pace, a frame rate say, lies between). Returns what ``tooljson_events`` returns.
    """
    accumulator = tooljson.ToolCallAccumulator(events=True)
    accumulator.start(0, "write_file", "toolu_01")
    add_delta = accumulator.add_delta
    for piece in fragments:
        add_delta(0, piece)
    value = accumulator.finish(0)["input"]
    root: Any = None
    count = 0
    for event in accumulator.events(0):
        kind, path, value_ = event.kind, event.path, event.value
        if kind == "complete" and not path:
            root = value_
        count += 1
    return value, root, count


def tooljson_events_callback(fragments: Sequence[str]) -> tuple[Any, Any, int]:
    """``on_event``: each event handed to a Python function the moment it is made, fields read."""
    root: Any = None
    count = 0

    def on_event(_index: int, event: tooljson.Event) -> None:
        nonlocal root, count
        kind, path, value = event.kind, event.path, event.value
        if kind == "complete" and not path:
            root = value
        count += 1

    accumulator = tooljson.ToolCallAccumulator(on_event=on_event)
    accumulator.start(0, "write_file", "toolu_01")
    add_delta = accumulator.add_delta
    for piece in fragments:
        add_delta(0, piece)
    return accumulator.finish(0)["input"], root, count


def tooljson_events_unpulled(fragments: Sequence[str]) -> Any:
    """``events=True`` but nothing pulled before ``finish``: the cost of making the events alone."""
    accumulator = tooljson.ToolCallAccumulator(events=True)
    accumulator.start(0, "write_file", "toolu_01")
    add_delta = accumulator.add_delta
    for piece in fragments:
        add_delta(0, piece)
    return accumulator.finish(0)["input"]


def jiter_trailing_strings(fragments: Sequence[str]) -> Any:
    """The SDK's way with open strings shown: ``partial_mode="trailing-strings"`` on the whole buffer."""
    return sdk_partial(fragments, partial_mode="trailing-strings")


def _reparse_joined(fragments: Sequence[str], parse: Callable[[str], Any]) -> Any:
    """``parse`` on the joined text after every delta; the last value shown."""
    text = ""
    value: Any = None
    for piece in fragments:
        text += piece
        value = parse(text)
    return value


def partial_json_parser_loads(fragments: Sequence[str]) -> Any:
    """partial-json-parser's ``loads`` on the joined text after every delta."""
    return _reparse_joined(fragments, partial_json_parser.loads)


def json_repair_objects(fragments: Sequence[str]) -> Any:
    """json_repair's ``repair_json(..., return_objects=True)`` on the joined text after every delta."""
    return _reparse_joined(fragments, lambda text: json_repair.repair_json(text, return_objects=True))


def jsonriver_parse(fragments: Sequence[str]) -> Any:
    """jsonriver's ``parse``: an async iterator of ever more complete values over an async iterator
    of fragments, which takes the next fragment only when it has shown all it can of the previous ones.

    Nothing in it waits on anything, so the coroutine is run to its end by a single ``send`` rather
    than by an event loop, whose own cost would be counted against it.
    """

    async def deltas() -> Any:
        for piece in fragments:
            yield piece

    async def last_value() -> Any:
        value: Any = None
        async for value in jsonriver.parse(deltas()):  # noqa: B007 - the last one is returned
            pass
        return value

    coroutine = last_value()
    try:
        coroutine.send(None)
    except StopIteration as stop:
        return stop.value
    coroutine.close()
    raise RuntimeError("jsonriver waited on something")


def tooljson_events_input(fragments: Sequence[str]) -> Any:
    """:func:`tooljson_events` for the size series, where only the input is compared."""
    value, root, _ = tooljson_events(fragments)
    assert root == value
    return value


#: Every approach of the size series, by label; "tooljson" there is the preview path.
SERIES: dict[str, Callable[[Sequence[str]], Any]] = {
    "tooljson": tooljson_preview,
    "tooljson-events": tooljson_events_input,
    "tooljson-strict": tooljson_accumulate,
    "pure": pure_accumulate,
    "sdk": sdk_partial,
    "jiter-trailing": jiter_trailing_strings,
    "partial-json-parser": partial_json_parser_loads,
    "json-repair": json_repair_objects,
    "jsonriver": jsonriver_parse,
}
assert IMPLEMENTATIONS["sdk"] is sdk_partial

#: The approaches that re-parse everything received after every delta.
REPARSING = ("sdk", "jiter-trailing", "partial-json-parser", "json-repair")

#: The largest workload each approach is timed on, by fragmentation (absent: all sizes). Chosen from
#: trial runs so that each case stays within seconds per round; nothing beyond is run or estimated.
LARGEST: dict[str, dict[str, str]] = {
    "sdk": {"random": "records", "char": "records_30kb"},
    "jiter-trailing": {"random": "records", "char": "records_30kb"},
    "partial-json-parser": {"random": "records_10kb", "char": "records_3kb"},
    "json-repair": {"random": "records_10kb", "char": "records_3kb"},
    "jsonriver": {"random": "records_1mb", "char": "records_200kb"},
}
#: The same when benchmarks are disabled: plain ``pytest`` runs each case once and must stay quick
#: (the strict path on larger inputs is tested by ``bench_strict.py`` already).
LARGEST_UNTIMED: dict[str, dict[str, str]] = {
    "tooljson": {"random": "records_1mb", "char": "records_1mb"},
    "tooljson-events": {"random": "records_1mb", "char": "records_200kb"},
    "tooljson-strict": {"random": "records", "char": "records"},
    "pure": {"random": "records", "char": "records"},
    "sdk": {"random": "records_10kb", "char": "records_3kb"},
    "jiter-trailing": {"random": "records_10kb", "char": "records_3kb"},
    "partial-json-parser": {"random": "records_3kb", "char": "records_1kb"},
    "json-repair": {"random": "records_3kb", "char": "records_1kb"},
    "jsonriver": {"random": "records_30kb", "char": "records_10kb"},
}

#: The head-to-head preview workloads and their approaches.
PREVIEW_WORKLOADS = ("records", "file_write")
PREVIEW: dict[str, Callable[[Sequence[str]], Any]] = {
    "tooljson": tooljson_preview,
    "sdk": sdk_partial,
    "jiter-trailing": jiter_trailing_strings,
    "jsonriver": jsonriver_parse,
}
#: Fragmentations of the head-to-head groups: re-parsing 100 KB after each of 100,000 one-character
#: deltas takes minutes, so the re-parsing approaches meet one-character deltas in the size series only.
PREVIEW_FRAGMENTATIONS = {"random": tuple(PREVIEW), "char": ("tooljson", "jsonriver")}

CPU_TIME = pytest.mark.benchmark(timer=time.process_time)
#: Seconds of CPU time each timed case aims at.
ROUND_BUDGET = 1.0

# ------------------------------------------------------------------------------------------------
# Running


def _measure(benchmark: Any, function: Callable[[Sequence[str]], Any], fragments: Sequence[str]) -> Any:
    """Times ``function(fragments)`` in about ``ROUND_BUDGET`` seconds, or runs it once when disabled."""
    if benchmark.disabled:
        return benchmark(function, fragments)
    started = time.process_time()
    function(fragments)
    cost = max(time.process_time() - started, 1e-6)
    # Rounds of at least a millisecond, so that the clock's own cost (about 0.3 µs) stays out of sight.
    iterations = max(1, int(1e-3 / cost))
    rounds = max(3, min(100, int(ROUND_BUDGET / (cost * iterations))))
    return benchmark.pedantic(function, args=(fragments,), rounds=rounds, iterations=iterations)


def _too_large(benchmark: Any, implementation: str, name: str, fragmentation: str) -> bool:
    limits = (LARGEST_UNTIMED if benchmark.disabled else LARGEST).get(implementation)
    if limits is None:
        return False
    return workload(name).size > workload(limits[fragmentation]).size


@CPU_TIME
@pytest.mark.parametrize(
    ("fragmentation", "implementation"),
    [(how, label) for how, labels in PREVIEW_FRAGMENTATIONS.items() for label in labels],
)
@pytest.mark.parametrize("name", PREVIEW_WORKLOADS)
def test_preview(benchmark: Any, name: str, fragmentation: str, implementation: str) -> None:
    if benchmark.disabled and implementation != "tooljson":
        pytest.skip("100 KB is slow for this approach; the size series tests it on small inputs")
    data = workload(name)
    describe(benchmark, "preview", f"preview: {name} ({fragmentation})", name, fragmentation, implementation)
    value = _measure(benchmark, PREVIEW[implementation], data.fragments[fragmentation])
    assert value == data.expected()


def _value_count(value: Any) -> int:
    """How many values a document holds, itself included: each gets one "complete" event."""
    if isinstance(value, dict):
        return 1 + sum(_value_count(item) for item in value.values())
    if isinstance(value, list):
        return 1 + sum(_value_count(item) for item in value)
    return 1


EVENTS: dict[str, Callable[[Sequence[str]], Any]] = {
    "strict": tooljson_accumulate,
    "events": tooljson_events,
    "events-at-end": tooljson_events_at_end,
    "events-callback": tooljson_events_callback,
    "events-unpulled": tooljson_events_unpulled,
    "preview": tooljson_preview,
}


@CPU_TIME
@pytest.mark.parametrize("implementation", tuple(EVENTS))
@pytest.mark.parametrize("fragmentation", FRAGMENTATIONS)
@pytest.mark.parametrize("name", PREVIEW_WORKLOADS)
def test_events(benchmark: Any, name: str, fragmentation: str, implementation: str) -> None:
    data = workload(name)
    describe(benchmark, "events", f"events: {name} ({fragmentation})", name, fragmentation, implementation)
    result = _measure(benchmark, EVENTS[implementation], data.fragments[fragmentation])
    expected = data.expected()
    if implementation in ("events", "events-at-end", "events-callback"):
        value, root, count = result
        assert value == expected
        assert root == expected
        # Each value is completed once; pulled after every delta, open strings add events per pull.
        assert count >= _value_count(expected)
        if implementation == "events":
            assert count >= len(data.fragments[fragmentation]) // 32
    else:
        assert result == expected


@CPU_TIME
@pytest.mark.parametrize("fragmentation", FRAGMENTATIONS)
@pytest.mark.parametrize("implementation", tuple(SERIES))
@pytest.mark.parametrize("name", SIZE_SERIES_WORKLOADS)
def test_size_series(benchmark: Any, name: str, implementation: str, fragmentation: str) -> None:
    if _too_large(benchmark, implementation, name, fragmentation):
        pytest.skip(f"{implementation} is not run beyond its size limit")
    data = workload(name)
    group = f"size series: {implementation} ({fragmentation})"
    describe(benchmark, "size-series", group, name, fragmentation, implementation)
    value = _measure(benchmark, SERIES[implementation], data.fragments[fragmentation])
    assert value == json.loads(data.text)
