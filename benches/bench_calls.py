"""The cost of calling in: ``add_delta`` per delta against the least a call into the module costs.

On a 16 KiB document of ASCII records cut into 1 to 4 characters (about 6,500 deltas), each round
with new ``str`` deltas, the groups time a loop over the deltas that calls:

- ``add_delta``: ``tooljson.ToolCallAccumulator.add_delta(0, delta)`` on a started call (``finish``
  is not timed; ``add_delta+finish`` adds it);
- ``CallFloor.take``: ``tooljson._native.CallFloor().take(delta)``, a PyO3 method that takes one
  ``str`` and does nothing: the floor;
- ``list.append``: the cheapest thing a loop can do with a delta, for scale.

Run as a script (``python benches/bench_calls.py [ROUNDS]``) it prints, per delta, each one's CPU
time over the floor's: the median and quartiles of paired rounds (both in one process, in a
shuffled order each round).
"""

from __future__ import annotations

import gc
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

import pytest
import tooljson
from texts import fresh
from tooljson._native import CallFloor
from workloads import CALL_WORKLOAD, describe, workload


def add_delta_loop(deltas: Sequence[str]) -> Any:
    """Every delta through ``add_delta`` of one started call; the accumulator is returned unfinished."""
    accumulator = tooljson.ToolCallAccumulator()
    accumulator.start(0, "write_file", "toolu_01")
    add_delta = accumulator.add_delta
    for delta in deltas:
        add_delta(0, delta)
    return accumulator


def add_delta_finish(deltas: Sequence[str]) -> Any:
    """:func:`add_delta_loop`, then ``finish``."""
    return add_delta_loop(deltas).finish(0)["input"]


def floor_loop(deltas: Sequence[str]) -> Any:
    """Every delta through the no-op ``CallFloor.take``."""
    take = CallFloor().take
    for delta in deltas:
        take(delta)
    return None


def append_loop(deltas: Sequence[str]) -> Any:
    """Every delta appended to a list."""
    kept: list[str] = []
    append = kept.append
    for delta in deltas:
        append(delta)
    return kept


LOOPS: dict[str, Callable[[Sequence[str]], Any]] = {
    "add_delta": add_delta_loop,
    "add_delta+finish": add_delta_finish,
    "CallFloor.take": floor_loop,
    "list.append": append_loop,
}


@pytest.mark.benchmark(timer=time.process_time)
@pytest.mark.parametrize("implementation", tuple(LOOPS))
def test_calling_in(benchmark: Any, implementation: str) -> None:
    data = workload(CALL_WORKLOAD)
    deltas = data.fragments["chunk4"]
    group = f"calling in: {CALL_WORKLOAD} (1-4 characters, {len(deltas)} deltas)"
    describe(benchmark, "calls", group, CALL_WORKLOAD, "chunk4", implementation)

    def setup() -> tuple[tuple[Any, ...], dict[str, Any]]:
        return (fresh(deltas),), {}

    result = benchmark.pedantic(LOOPS[implementation], setup=setup, rounds=100, warmup_rounds=2, iterations=1)
    if implementation == "add_delta":
        assert result.finish(0)["input"] == data.expected()
    elif implementation == "add_delta+finish":
        assert result == data.expected()
    elif implementation == "list.append":
        assert "".join(result) == data.text


def paired(rounds: int, seed: int = 0) -> dict[str, list[float]]:
    """Per round, each loop's CPU time over the floor's, on new deltas each turn; sorted."""
    deltas = workload(CALL_WORKLOAD).fragments["chunk4"]
    rng = random.Random(seed)
    repeats = 20
    ratios: dict[str, list[float]] = {label: [] for label in LOOPS}
    for _ in range(rounds):
        order = list(LOOPS)
        rng.shuffle(order)
        times = {}
        for label in order:
            copies = [fresh(deltas) for _ in range(repeats)]
            gc.collect(0)
            start = time.process_time()
            for copy in copies:
                LOOPS[label](copy)
            times[label] = time.process_time() - start
        for label in LOOPS:
            ratios[label].append(times[label] / times["CallFloor.take"])
    return {label: sorted(values) for label, values in ratios.items()}


def main(argv: Sequence[str] = ()) -> None:
    rounds = int(argv[0]) if argv else 41
    ratios = paired(rounds)
    print(f"per delta, CPU time over CallFloor.take's ({CALL_WORKLOAD}, 1-4 characters): median [quartiles]")
    for label, values in ratios.items():
        quartiles = f"{values[len(values) // 4]:.2f}–{values[3 * len(values) // 4]:.2f}"
        print(f"  {label}: {statistics.median(values):.2f}× [{quartiles}]")


if __name__ == "__main__":
    main(sys.argv[1:])
