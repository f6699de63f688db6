"""Benchmark workloads and the implementations they are run through.

Every workload is a tool-call argument text, generated from a fixed seed so that each run measures
the same bytes, together with its fragmentations: the way the API cuts ``partial_json`` (random
pieces of 1 to 32 characters), the worst case (one character per delta) and, for the held-out
texts, deltas of about 16 characters (12 to 20) as a model's tokens arrive.

The implementations are plain callables ``fragments -> parsed input`` so that every benchmark file
can put them side by side:

- ``tooljson``: :class:`tooljson.ToolCallAccumulator`, scanning each delta as it arrives;
- ``pure``: :class:`tooljson.pure.ToolCallAccumulator`, keeping the deltas and parsing at the end;
- ``tooljson-string-key``, ``tooljson-tuple-key``: the same with the call keyed by an item id
  string or a ``(choice, index)`` tuple, as other providers key calls;
- ``json.loads``, ``tooljson.loads``, ``orjson``, ``jiter``: join the deltas, then parse the text
  once;
- ``sdk``: what the official SDK's stream helper does, appending each delta to a bytes buffer and
  re-parsing the whole buffer with ``jiter.from_json(..., partial_mode=True)`` after every delta.

Run as a script (``python benches/workloads.py``) it prints paired ratios, timed in interleaved
rounds: steadier than separate benchmark blocks on a machine that is running other work.
"""

from __future__ import annotations

import functools
import gc
import json
import random
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import jiter
import orjson
import tooljson
import tooljson.pure
from texts import argument_text, cut, fresh

__all__ = [
    "CALL_WORKLOAD",
    "FRAGMENTATIONS",
    "HELD_OUT_FRAGMENTATIONS",
    "HELD_OUT_WORKLOADS",
    "IMPLEMENTATIONS",
    "JOINED_IMPLEMENTATIONS",
    "LOADS_WORKLOADS",
    "NOT_MEASURED",
    "SCALING_WORKLOADS",
    "SIZE_SERIES_WORKLOADS",
    "STRICT_WORKLOADS",
    "Workload",
    "describe",
    "fed_accumulator",
    "fragment",
    "workload",
]

# ------------------------------------------------------------------------------------------------
# Workloads


@dataclass(frozen=True)
class Workload:
    """One argument text and the ways it is cut into deltas."""

    name: str
    text: str
    fragments: dict[str, tuple[str, ...]] = field(repr=False)

    @property
    def size(self) -> int:
        """Size of the text in UTF-8 bytes, as it travels."""
        return len(self.text.encode("utf-8"))

    def expected(self) -> Any:
        """What ``json.loads`` makes of the joined text: every implementation must agree.

        Computed on each call rather than kept: megabytes of live dicts would make every garbage
        collection during the timed runs slower, and the slowdown would land on whatever ran.
        """
        return json.loads(self.text)

    def expected_from(self, implementation: str) -> Any:
        """What ``implementation`` must make of the text: :meth:`expected`, except that orjson
        reads an integer beyond 64 bits (the escaped records' 20-digit ones) as a float."""
        if implementation != "orjson":
            return self.expected()
        return json.loads(self.text, parse_int=_orjson_int)


def _orjson_int(digits: str) -> int | float:
    value = int(digits)
    return value if -(2**63) <= value < 2**64 else float(digits)


def fragment(text: str, how: str, seed: int = 0) -> tuple[str, ...]:
    """Cuts ``text`` into deltas: ``"random"`` pieces of 1 to 32 characters, ``"delta16"`` pieces of
    12 to 20, ``"chunk4"`` pieces of 1 to 4, or ``"char"``."""
    if how == "char":
        return tuple(text)
    if how == "random":
        return cut(text, 1, 32, seed)
    if how == "delta16":
        return cut(text, 12, 20, seed)
    if how == "chunk4":
        return cut(text, 1, 4, seed)
    raise ValueError(f"unknown fragmentation {how!r}")


FRAGMENTATIONS = ("random", "char")
#: The cuts of the held-out texts: about 16 characters a delta, and 1 to 32.
HELD_OUT_FRAGMENTATIONS = ("delta16", "random")


@functools.cache
def workload(name: str) -> Workload:
    """The named workload, generated once per process."""
    text = argument_text(name)
    fragments = {how: fragment(text, how, seed=len(text)) for how in (*FRAGMENTATIONS, "delta16", "chunk4")}
    return Workload(name=name, text=text, fragments=fragments)


#: The workloads of the strict-path comparison: this project's own, the escaped records and the
#: code file write written as other serializers and models write them, the prose write (text in
#: several scripts, where most deltas are not ASCII) and the Latin-script file write (a
#: one-byte-a-character text beyond ASCII).
STRICT_WORKLOADS = (
    "tiny",
    "nested",
    "file_write",
    "code_write",
    "prose_write",
    "latin_write",
    "records",
    "records_escaped",
    "records_1mb",
)
#: Texts no change was tuned on (from ``texts.HELD_OUT``): a file write with astral characters and dense
#: escapes, and ASCII records. Their benchmarks give each round new ``str`` deltas (``texts.fresh``).
HELD_OUT_WORKLOADS = ("astral_write", "ascii_records")
#: The document the cost of calling in is measured on, cut into 1 to 4 characters (``"chunk4"``).
CALL_WORKLOAD = "ascii_records_16kb"
#: The ~100 KB texts that the one-shot parsers are compared on.
LOADS_WORKLOADS = ("records", "records_escaped", "file_write", "code_write", "prose_write", "latin_write")
#: The same records at doubling sizes: time should grow in proportion.
SCALING_WORKLOADS = ("records", "records_200kb", "records_1mb", "records_2mb")
#: The records from 1 KB to 2 MB, for curves of time against size that tell linear from quadratic.
SIZE_SERIES_WORKLOADS = ("records_1kb", "records_3kb", "records_10kb", "records_30kb", *SCALING_WORKLOADS)

# ------------------------------------------------------------------------------------------------
# Implementations: fragments in, parsed input out


def fed_accumulator(accumulator_type: Any, fragments: Sequence[str], key: Any = 0) -> Any:
    """An accumulator of ``accumulator_type`` with one started call, under ``key``, that has taken
    every delta."""
    accumulator = accumulator_type()
    accumulator.start(key, "write_file", "toolu_01")
    add_delta = accumulator.add_delta
    for piece in fragments:
        add_delta(key, piece)
    return accumulator


def tooljson_accumulate(fragments: Sequence[str]) -> Any:
    """The streaming accumulator: every delta is scanned on arrival, finish checks the end."""
    return fed_accumulator(tooljson.ToolCallAccumulator, fragments).finish(0)["input"]


#: Keys other providers use for a call: an item id (OpenAI Responses), a (choice, index) pair (Chat
#: Completions with n > 1). Built at run time, as a stream's parsed events build them.
STRING_KEY = "".join(["fc_", "68a1b2c3d4"])
TUPLE_KEY = (int("0"), int("1"))


def tooljson_accumulate_string_key(fragments: Sequence[str]) -> Any:
    """:func:`tooljson_accumulate` with the call keyed by an item id string."""
    return fed_accumulator(tooljson.ToolCallAccumulator, fragments, STRING_KEY).finish(STRING_KEY)["input"]


def tooljson_accumulate_tuple_key(fragments: Sequence[str]) -> Any:
    """:func:`tooljson_accumulate` with the call keyed by a ``(choice, index)`` tuple."""
    return fed_accumulator(tooljson.ToolCallAccumulator, fragments, TUPLE_KEY).finish(TUPLE_KEY)["input"]


def pure_accumulate(fragments: Sequence[str]) -> Any:
    """The pure-Python reference: keep the deltas, join and ``json.loads`` at finish."""
    return fed_accumulator(tooljson.pure.ToolCallAccumulator, fragments).finish(0)["input"]


def join_json_loads(fragments: Sequence[str]) -> Any:
    """Join, then the standard library's parser."""
    return json.loads("".join(fragments))


def join_orjson(fragments: Sequence[str]) -> Any:
    """Join, then orjson."""
    return orjson.loads("".join(fragments))


def join_jiter(fragments: Sequence[str]) -> Any:
    """Join, encode (jiter reads bytes), then jiter."""
    return jiter.from_json("".join(fragments).encode("utf-8"))


def sdk_partial(fragments: Sequence[str], partial_mode: Literal[True, "trailing-strings"] = True) -> Any:
    """The SDK stream helper's way: re-parse the whole growing buffer after every delta.

    Quadratic in the text's length: only for small workloads.
    """
    buffer = b""
    value: Any = None
    for piece in fragments:
        buffer += piece.encode("utf-8")
        value = jiter.from_json(buffer, partial_mode=partial_mode)
    return value


def join_tooljson_loads(fragments: Sequence[str]) -> Any:
    """Join, then tooljson's one-shot parser."""
    return tooljson.loads("".join(fragments))


#: Every implementation by name.
IMPLEMENTATIONS: dict[str, Callable[[Sequence[str]], Any]] = {
    "tooljson": tooljson_accumulate,
    "tooljson-string-key": tooljson_accumulate_string_key,
    "tooljson-tuple-key": tooljson_accumulate_tuple_key,
    "tooljson.loads": join_tooljson_loads,
    "pure": pure_accumulate,
    "json.loads": join_json_loads,
    "orjson": join_orjson,
    "jiter": join_jiter,
    "sdk": sdk_partial,
}

#: The implementations that parse the joined text once, strictly.
JOINED_IMPLEMENTATIONS = ("json.loads", "orjson", "jiter")

# ------------------------------------------------------------------------------------------------
# Paired timing, for a machine shared with other work
#
# pytest-benchmark times each case in its own block of rounds, seconds apart from the next; when the
# load of the machine changes in between, the ratio of two blocks moves with it (by up to 1.5× from
# run to run in trials on a 2-CPU machine at load 5). Here every round runs each implementation once,
# back to back in a shuffled order, and the ratio is taken within the round: a change of load falls
# on both sides of it. The collector is kept from carrying one side's cost into the other's turn
# (see paired_ratios).


def describe(
    benchmark: Any, kind: str, group: str, name: str, fragmentation: str, implementation: str
) -> None:
    """Labels a benchmark with what ``benches/report.py`` reads back: its kind, workload and approach."""
    data = workload(name)
    benchmark.group = group
    benchmark.extra_info.update(
        kind=kind,
        workload=name,
        fragmentation=fragmentation,
        implementation=implementation,
        size_bytes=data.size,
        fragments=len(data.fragments[fragmentation]),
    )


#: The key under which a benchmark's paired figures say why it measured nothing (a library or an
#: environment it needs is missing): ``{NOT_MEASURED: "google-genai is not installed"}``.
NOT_MEASURED = "not measured"


def paired_ratios(
    cases: Mapping[str, tuple[Callable[[Sequence[str]], Any], Sequence[str]]],
    baseline: str,
    rounds: int,
    seed: int = 0,
    new_deltas: bool = False,
) -> dict[str, list[float]]:
    """For each case, its CPU time over the baseline's in each round, sorted.

    ``cases`` maps a label to a callable and the fragments it is given. A case that takes less than
    a millisecond is repeated within its turn, so that the clock's cost (about 0.3 µs a reading)
    does not count. With ``new_deltas``, every call of a turn is given its own new ``str`` deltas
    (``texts.fresh``, made before the turn's clock starts), as a stream gives them.

    Every turn starts with an empty young generation (``gc.collect(0)``, untimed): the collections
    a turn's own allocations set off are counted in it, a debt of young objects left by the turn
    before it (the other side's) is not. A full collection can still fall into either side's turn;
    the median over the rounds takes it as the outlier it is.

    Two other ways were tried and rejected, as each makes the turns unlike a user's calls:

    - a full ``gc.collect()`` before each turn: it also empties CPython's free lists and walks the
      whole heap out of the CPU's caches. Accumulate + finish ÷ pure went from 0.56–0.57× to
      0.68–0.71× on the 100 KB records and from 0.58–0.63× to 0.74–0.75× on the file write (15
      rounds, two runs);
    - ``gc.freeze()`` of everything alive before the rounds: the full collections a side's own
      allocations set off then walk almost nothing, as in no application. jiter re-parsing the
      growing 100 KB records sets off 22 full collections per stream (2,638 young ones), tooljson
      none (2 young ones); frozen, those 22 cost jiter almost nothing, and jiter ÷ ``from_json``
      went to 45–50×, from 54–61× with the young collection alone and 55–65× with nothing (three
      runs of 5 rounds each).
    """
    rng = random.Random(seed)
    repeats = {}
    for label, (function, fragments) in cases.items():
        start = time.process_time()
        function(fragments)
        elapsed = time.process_time() - start
        repeats[label] = max(1, min(1000, int(1e-3 / elapsed))) if elapsed > 0 else 1000
    ratios: dict[str, list[float]] = {label: [] for label in cases}
    for _ in range(rounds):
        order = list(cases)
        rng.shuffle(order)
        times = {}
        for label in order:
            function, fragments = cases[label]
            given = [fresh(fragments) if new_deltas else fragments for _ in range(repeats[label])]
            gc.collect(0)
            start = time.process_time()
            for deltas in given:
                function(deltas)
            times[label] = (time.process_time() - start) / repeats[label]
            del given
        for label in cases:
            ratios[label].append(times[label] / times[baseline])
    return {label: sorted(values) for label, values in ratios.items()}


def _held_out(name: str) -> None:
    """Prints a held-out text's paired ratios, new ``str`` deltas for every call: accumulate +
    finish over the pure accumulator's, and ``finish`` alone over ``json.loads`` of the joined text
    (a new ``str``)."""
    data = workload(name)
    for how in HELD_OUT_FRAGMENTATIONS:
        cases = {
            label: (IMPLEMENTATIONS[label], data.fragments[how])
            for label in ("tooljson", "pure", "json.loads")
        }
        ratios = paired_ratios(cases, "pure", rounds=41, new_deltas=True)
        print(
            f"  {name} ({how}, new str deltas): "
            + ", ".join(f"{label} {_quartiles(ratios[label])}" for label in cases)
        )
        finish = _finish_ratios(data.fragments[how], rounds=41)
        print(f"  {name} ({how}): finish alone over json.loads of the joined text {_quartiles(finish)}")


def _finish_ratios(fragments: Sequence[str], rounds: int, seed: int = 0) -> list[float]:
    """Per round, ``finish`` of an accumulator fed new deltas (untimed) over ``json.loads`` of a
    new joined text; each side timed over several calls, one accumulator alive at a time."""
    rng = random.Random(seed)
    ratios = []
    calls = 5
    for _ in range(rounds):
        times = {}
        for side in rng.sample(["finish", "json.loads"], 2):
            total = 0.0
            for _ in range(calls):
                if side == "finish":
                    accumulator = fed_accumulator(tooljson.ToolCallAccumulator, fresh(fragments))
                    gc.collect(0)
                    start = time.process_time()
                    accumulator.finish(0)
                else:
                    text = "".join(fresh(fragments))
                    gc.collect(0)
                    start = time.process_time()
                    json.loads(text)
                total += time.process_time() - start
            times[side] = total
        ratios.append(times["finish"] / times["json.loads"])
    return sorted(ratios)


def _quartiles(values: list[float]) -> str:
    return f"{statistics.median(values):.2f}× [{values[len(values) // 4]:.2f}–{values[3 * len(values) // 4]:.2f}]"


def main(argv: Sequence[str] = ()) -> None:
    """Prints paired ratios: accumulate+finish against the pure accumulator, and the scaling.

    ``python benches/workloads.py [WORKLOAD ...]`` limits the first part to the workloads named
    (the scaling is then left out)."""
    names = tuple(argv) or STRICT_WORKLOADS
    print("accumulate+finish, CPU time over the pure accumulator's: median [quartiles] of paired rounds")
    for name in names:
        data = workload(name)
        if name in HELD_OUT_WORKLOADS:
            _held_out(name)
            continue
        for how in FRAGMENTATIONS:
            cases = {
                label: (IMPLEMENTATIONS[label], data.fragments[how])
                for label in ("tooljson", "pure", "json.loads", "orjson")
            }
            ratios = paired_ratios(cases, "pure", rounds=40 if data.size < 200_000 else 12)
            print(
                f"  {name} ({how}): " + ", ".join(f"{label} {_quartiles(ratios[label])}" for label in cases)
            )
    if argv:
        return
    print("scaling, CPU time over the 100 KB records' divided by the size ratio (1.00: in proportion)")
    smallest = workload(SCALING_WORKLOADS[0])
    for implementation in ("tooljson", "pure"):
        for how in FRAGMENTATIONS:
            cases = {
                name: (IMPLEMENTATIONS[implementation], workload(name).fragments[how])
                for name in SCALING_WORKLOADS
            }
            ratios = paired_ratios(cases, SCALING_WORKLOADS[0], rounds=7)
            cells = [
                f"{name} {statistics.median(ratios[name]) * smallest.size / workload(name).size:.2f}"
                for name in SCALING_WORKLOADS
            ]
            print(f"  {implementation} ({how}): " + ", ".join(cells))


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
