"""The strict path: the cost of accumulating every delta and parsing the argument text at the end.

The groups of benchmarks, each checking its result against ``json.loads`` of the joined text so
that a plain ``pytest`` run (benchmarks disabled) still tests every case once:

- ``accumulate+finish``: start, every ``add_delta``, finish; for the joined parsers, join then parse;
- ``accumulate+finish by key type``: the same on the records with the call keyed by an int, an item
  id string or a ``(choice, index)`` tuple, against the pure accumulator;
- ``held out``: accumulate + finish, and ``finish`` alone, on the texts no change was tuned on
  (``texts.HELD_OUT``), cut into about 16-character deltas and into 1 to 32, each round given new
  ``str`` deltas as a stream's decoder makes them;
- ``loads``: the whole text parsed once by ``tooljson.loads``, ``json.loads``, ssrjson, orjson (of
  the ``str`` and of the UTF-8 ``bytes``), msgspec and jiter, each call on a new ``str``;
- ``finish only``: every delta fed beforehand (in the setup, not timed), then ``finish`` alone,
  against ``json.loads`` and ``orjson`` on the already joined text;
- ``scaling``: the records workload at 100 KB, 200 KB, 1 MB and 2 MB, for both accumulators, with
  the garbage collector on (as in use) and off (the parser's own cost).

``make bench`` runs them; ``python benches/summary.py <json>`` turns a ``--benchmark-json`` file
into ratio tables.

The timer of the accumulate and scaling groups is the process's CPU time: on a shared machine the
wall clock also counts the time other programs hold the CPU, which spread identical runs by 3× in
trials here. Calls to that clock cost about 0.3 µs, so ``finish only``, whose rounds are single
calls of a microsecond or less, keeps the default wall clock and relies on many rounds instead.
"""

from __future__ import annotations

import json
import time
from typing import Any

import orjson
import pytest
import tooljson
import tooljson.pure
from peers import LOADS, fresh_text
from texts import fresh
from workloads import (
    FRAGMENTATIONS,
    HELD_OUT_FRAGMENTATIONS,
    HELD_OUT_WORKLOADS,
    IMPLEMENTATIONS,
    JOINED_IMPLEMENTATIONS,
    LOADS_WORKLOADS,
    SCALING_WORKLOADS,
    STRICT_WORKLOADS,
    describe,
    fed_accumulator,
    workload,
)

ACCUMULATE_IMPLEMENTATIONS = ("tooljson", "pure", *JOINED_IMPLEMENTATIONS)
CPU_TIME = pytest.mark.benchmark(timer=time.process_time, min_rounds=10)


@CPU_TIME
@pytest.mark.parametrize("implementation", ACCUMULATE_IMPLEMENTATIONS)
@pytest.mark.parametrize("fragmentation", FRAGMENTATIONS)
@pytest.mark.parametrize("name", STRICT_WORKLOADS)
def test_accumulate_and_finish(benchmark: Any, name: str, fragmentation: str, implementation: str) -> None:
    data = workload(name)
    group = f"accumulate+finish: {name} ({fragmentation})"
    describe(benchmark, "accumulate", group, name, fragmentation, implementation)
    result = benchmark(IMPLEMENTATIONS[implementation], data.fragments[fragmentation])
    assert result == data.expected_from(implementation)


#: Rounds of a held-out benchmark: each needs its own new deltas, made in the setup (not timed).
HELD_OUT_ROUNDS = 40


@pytest.mark.parametrize("implementation", ACCUMULATE_IMPLEMENTATIONS)
@pytest.mark.parametrize("fragmentation", HELD_OUT_FRAGMENTATIONS)
@pytest.mark.parametrize("name", HELD_OUT_WORKLOADS)
def test_held_out_accumulate(benchmark: Any, name: str, fragmentation: str, implementation: str) -> None:
    data = workload(name)
    fragments = data.fragments[fragmentation]
    group = f"held out, accumulate+finish: {name} ({fragmentation}, new str deltas)"
    describe(benchmark, "held out", group, name, fragmentation, implementation)

    def setup() -> tuple[tuple[Any, ...], dict[str, Any]]:
        return (fresh(fragments),), {}

    result = benchmark.pedantic(
        IMPLEMENTATIONS[implementation], setup=setup, rounds=HELD_OUT_ROUNDS, warmup_rounds=1, iterations=1
    )
    assert result == data.expected_from(implementation)


@pytest.mark.parametrize("implementation", ("tooljson", "pure", "json.loads"))
@pytest.mark.parametrize("fragmentation", HELD_OUT_FRAGMENTATIONS)
@pytest.mark.parametrize("name", HELD_OUT_WORKLOADS)
def test_held_out_finish(benchmark: Any, name: str, fragmentation: str, implementation: str) -> None:
    """``finish`` alone, the latency a user waits for once the last delta is in; ``json.loads`` of
    the joined text (a new ``str``) beside it."""
    data = workload(name)
    fragments = data.fragments[fragmentation]
    describe(
        benchmark,
        "held out finish",
        f"held out, finish only: {name} ({fragmentation})",
        name,
        fragmentation,
        implementation,
    )

    target: Any
    setup: Any
    if implementation == "json.loads":

        def setup() -> tuple[tuple[Any, ...], dict[str, Any]]:
            return ("".join(fresh(fragments)),), {}

        target = json.loads
    else:
        accumulator_type = (
            tooljson.ToolCallAccumulator
            if implementation == "tooljson"
            else tooljson.pure.ToolCallAccumulator
        )

        def setup() -> tuple[tuple[Any, ...], dict[str, Any]]:
            return (fed_accumulator(accumulator_type, fresh(fragments)),), {}

        target = _finish_input
    result = benchmark.pedantic(
        target, setup=setup, rounds=HELD_OUT_ROUNDS * 5, warmup_rounds=1, iterations=1
    )
    assert result == data.expected()


#: The implementations of the key comparison: the int key of Anthropic streams, the item id string
#: and (choice, index) tuple of other providers.
KEY_IMPLEMENTATIONS = ("tooljson", "tooljson-string-key", "tooljson-tuple-key", "pure")


@CPU_TIME
@pytest.mark.parametrize("implementation", KEY_IMPLEMENTATIONS)
@pytest.mark.parametrize("fragmentation", FRAGMENTATIONS)
def test_accumulate_keys(benchmark: Any, fragmentation: str, implementation: str) -> None:
    data = workload("records")
    group = f"accumulate+finish by key type: records ({fragmentation})"
    describe(benchmark, "keys", group, "records", fragmentation, implementation)
    result = benchmark(IMPLEMENTATIONS[implementation], data.fragments[fragmentation])
    assert result == json.loads(data.text)


#: One-shot parsers of the whole text (``peers.LOADS``: what each is and which call is timed).
LOADS_IMPLEMENTATIONS = tuple(LOADS)
#: Rounds of each: one call per round, each on a new ``str`` made in the setup.
LOADS_BLOCK_ROUNDS = 200


@CPU_TIME
@pytest.mark.parametrize("implementation", LOADS_IMPLEMENTATIONS)
@pytest.mark.parametrize("name", LOADS_WORKLOADS)
def test_loads(benchmark: Any, name: str, implementation: str) -> None:
    """Each call on a new ``str`` (or new ``bytes``): a reused one keeps its UTF-8 form after the
    first call that asks for it, which flatters every parser that reads UTF-8."""
    data = workload(name)
    describe(benchmark, "loads", f"loads: {name}", name, "random", implementation)
    text = data.text
    _package, _api, parse, takes_bytes = LOADS[implementation]

    def setup() -> tuple[tuple[Any, ...], dict[str, Any]]:
        return ((text.encode("utf-8") if takes_bytes else fresh_text(text)),), {}

    rounds = 1 if benchmark.disabled else LOADS_BLOCK_ROUNDS
    result = benchmark.pedantic(parse, setup=setup, rounds=rounds, warmup_rounds=1, iterations=1)
    # ssrjson, like orjson, reads an integer beyond 64 bits (the escaped records') as a float.
    reads_like = "orjson" if implementation.startswith(("orjson", "ssrjson")) else implementation
    assert result == data.expected_from(reads_like)


def _finish_input(accumulator: Any) -> Any:
    return accumulator.finish(0)["input"]


FINISH_IMPLEMENTATIONS = ("tooljson", "pure", "json.loads", "orjson")


@pytest.mark.parametrize("implementation", FINISH_IMPLEMENTATIONS)
@pytest.mark.parametrize("name", STRICT_WORKLOADS)
def test_finish_only(benchmark: Any, name: str, implementation: str) -> None:
    data = workload(name)
    fragments = data.fragments["random"]
    describe(benchmark, "finish", f"finish only: {name}", name, "random", implementation)

    target: Any
    setup: Any
    if implementation in ("tooljson", "pure"):
        accumulator_type = (
            tooljson.ToolCallAccumulator
            if implementation == "tooljson"
            else tooljson.pure.ToolCallAccumulator
        )

        def setup() -> tuple[tuple[Any, ...], dict[str, Any]]:
            return (fed_accumulator(accumulator_type, fragments),), {}

        target = _finish_input
    else:
        text = data.text

        def setup() -> tuple[tuple[Any, ...], dict[str, Any]]:
            return (text,), {}

        target = json.loads if implementation == "json.loads" else orjson.loads

    # Each round needs a freshly fed accumulator, so the rounds are counted, not timed: enough to
    # steady the median of a microsecond-long finish, few enough that feeding 1 MB stays bearable.
    rounds = max(30, min(2000, 2_000_000 // data.size))
    result = benchmark.pedantic(target, setup=setup, rounds=rounds, warmup_rounds=1, iterations=1)
    assert result == data.expected_from(implementation)


def _scaling(benchmark: Any, name: str, implementation: str, fragmentation: str, gc_label: str) -> None:
    data = workload(name)
    group = f"scaling{gc_label}: {implementation} ({fragmentation})"
    describe(benchmark, "scaling", group, name, fragmentation, implementation)
    result = benchmark(IMPLEMENTATIONS[implementation], data.fragments[fragmentation])
    assert result == json.loads(data.text)


@CPU_TIME
@pytest.mark.parametrize("fragmentation", FRAGMENTATIONS)
@pytest.mark.parametrize("implementation", ("tooljson", "pure"))
@pytest.mark.parametrize("name", SCALING_WORKLOADS)
def test_scaling(benchmark: Any, name: str, implementation: str, fragmentation: str) -> None:
    _scaling(benchmark, name, implementation, fragmentation, "")


# The same without the cyclic garbage collector: its full passes start at thresholds of the live
# heap, which puts steps into the curve (in trials, 100 KB to 200 KB cost 3× with it, 2× without)
# that come from CPython and fall on any code building that many containers.
@pytest.mark.benchmark(timer=time.process_time, min_rounds=10, disable_gc=True)
@pytest.mark.parametrize("fragmentation", FRAGMENTATIONS)
@pytest.mark.parametrize("implementation", ("tooljson", "pure"))
@pytest.mark.parametrize("name", SCALING_WORKLOADS)
def test_scaling_without_gc(benchmark: Any, name: str, implementation: str, fragmentation: str) -> None:
    _scaling(benchmark, name, implementation, fragmentation, ", gc off")
