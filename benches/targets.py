"""Judging the benchmark targets: the paired measurements, and a verdict line per target.

Each target is judged on its paired figure where there is one (``measure_paired``), else on the
ratio of the benchmark blocks' medians; both are given in the line. ``report.py`` runs this after
the suites; ``render.py`` writes the lines into the report.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import bench_builds
import jiter
import msgspec
import orjson
import ssrjson
import tooljson
from bench_peers import Case, paired_fresh
from bench_preview import tooljson_events, tooljson_events_at_end, tooljson_events_callback, tooljson_preview
from peers import fresh_text
from render import GROWTH_FROM, GROWTH_TO, Run
from summary import ACCUMULATE_LIMITS, LINEAR_TOLERANCE, Report, format_size
from workloads import (
    IMPLEMENTATIONS,
    LOADS_WORKLOADS,
    SCALING_WORKLOADS,
    STRICT_WORKLOADS,
    paired_ratios,
    pure_accumulate,
    sdk_partial,
    tooljson_accumulate,
    workload,
)

#: Targets: the SDK's time over tooljson's preview, at least.
PREVIEW_SPEEDUP_TARGETS = {"records": 100.0, "file_write": 20.0}
#: Target: events pulled in one batch over strict accumulate+finish, at most.
EVENTS_OVER_STRICT = 2.0
#: Target: ``tooljson.loads`` over ``json.loads`` on these workloads, at most.
LOADS_LIMITS = {"records": 0.6, "file_write": 1.0, "code_write": 1.0}
#: Target, side by side on these workloads: ``tooljson.loads`` ahead of jiter, and within
#: ``ORJSON_WITHIN`` of orjson's time where orjson's value is ``json.loads``' (on the escaped records
#: it reads 20-digit integers as floats, less work for another value: reported only).
LOADS_AHEAD = ("records", "records_escaped")
ORJSON_WITHIN = 1.05
#: Rounds of the one-shot parsers side by side. Each round takes a few milliseconds; with 21 rounds
#: the medians of the two sides against ``json.loads`` moved by ±0.05 from run to run, more than
#: the difference to be judged.
LOADS_ROUNDS = 201
#: Fresh interpreters in which ``tooljson.loads`` is timed against each peer. Within one process the
#: median of the per-round ratio is steady, but from one process to the next it moved by up to
#: 0.06 (0.91× and 0.96× of orjson's time on the records, 0.99× and 1.06× on the escaped records,
#: the same build): "ahead" is met only when the median is below 1 in every one of them.
AHEAD_PROCESSES = 3
#: Rounds of accumulate + finish against the pure accumulator, and of the ways of consuming the
#: events against the strict path. With 15 rounds the medians moved by about ±0.05 from run to run
#: (accumulate + finish on the records: 0.55× in one run, 0.61× in the next, the build unchanged),
#: more than the distance to the limits being judged.
ACCUMULATE_ROUNDS = 101
EVENTS_ROUNDS = 41
#: Verdicts of summary.py that are given on paired rounds here instead.
PAIRED_STRICT_TARGETS = ("accumulate+finish", "scaling: tooljson (random)", "scaling: tooljson (char)")
#: The ways of consuming the events that are measured beside the strict path, and how each is described.
CONSUMERS = {
    "events": "pulled after every delta",
    "events-at-end": "pulled in one batch after finish",
    "events-callback": "handed to on_event",
}
#: Target: time growth of the preview from the 100 KB records to the 1 MB records, at most.
PREVIEW_GROWTH = 12.0
#: The one-shot parsers compared with ``json.loads``.
LOADS: dict[str, Callable[[str], Any]] = {
    "tooljson.loads": tooljson.loads,
    "ssrjson": ssrjson.loads,
    "orjson": orjson.loads,
    "msgspec": msgspec.json.decode,
    "jiter": lambda text: jiter.from_json(text.encode("utf-8")),
}
#: Where ``tooljson.loads`` (the value built bottom-up, ``src/python/whole.rs``) is compared with the
#: same text fed whole to a ``tooljson.Parser`` and finished (the value built in place as it streams):
#: texts of about 100 KB, beside which the Parser's construction and two calls do not count (on the
#: tiny document they are most of the time).
WHOLE_TEXT_WORKLOADS = LOADS_WORKLOADS
#: The key types compared with the int key.
KEY_VARIANTS = ("tooljson-string-key", "tooljson-tuple-key")


# ------------------------------------------------------------------------------------------------
# Paired measurements
#
# pytest-benchmark times each case in a block of its own, minutes apart from the case it is compared
# with: the load of the machine, and what the process holds in memory when a full garbage collection
# comes (the workloads cached by then), differ between the blocks. For the targets, the two sides are
# also timed in interleaved rounds (``workloads.paired_ratios``: each round runs both, in a shuffled
# order, and the ratio is taken within the round). The scaling, whose sizes a full collection over
# everything this process has cached would tell apart, is measured in a process of its own.


#: Labelled cases of ``paired_ratios``: a callable and the deltas it is given.
Cases = dict[str, tuple[Callable[[Sequence[str]], Any], Sequence[str]]]


def _whole_text(parse: Callable[[str], Any], text: str) -> Callable[[Sequence[str]], Any]:
    return lambda _fragments: parse(text)


def _one_shot_cases(parsers: dict[str, Callable[[str], Any]], text: str) -> dict[str, Case]:
    """Each parser given the whole ``text``, a new ``str`` per call made before it, as a case of
    ``bench_peers.paired_fresh``: a reused ``str`` keeps its UTF-8 form once a parser has asked for
    it, which flatters every parser that reads UTF-8 from the second call on."""
    return {label: (parse, lambda: fresh_text(text)) for label, parse in parsers.items()}


def _parsed_in_place(text: str) -> Any:
    parser = tooljson.Parser()
    parser.feed(text)
    return parser.finish()


def measure_loads() -> dict[str, list[float]]:
    """The one-shot parsers side by side: each against ``json.loads`` and, where ``tooljson.loads``
    is to be ahead, ``tooljson.loads`` against each peer in the same round."""
    found: dict[str, list[float]] = {}
    for name in LOADS_WORKLOADS:
        text = workload(name).text
        expected = json.loads(text)
        # A parser whose value is not json.loads' is not timed (loads_targets says so).
        exact = {label: parse for label, parse in LOADS.items() if parse(text) == expected}
        cases = _one_shot_cases({"json.loads": json.loads} | exact, text)
        ratios = paired_fresh(cases, "json.loads", rounds=LOADS_ROUNDS)
        for label in exact:
            found[f"loads|{name}|{label}"] = ratios[label]
    return found | _ahead_in_own_processes()


def measure_ahead(seed: int) -> dict[str, list[float]]:
    """``tooljson.loads`` over each peer, each round's own ratio (rather than two medians each
    taken against ``json.loads``), keyed ``"loads-ahead|<workload>|<peer>"``."""
    found: dict[str, list[float]] = {}
    for name in LOADS_AHEAD:
        cases = _one_shot_cases(LOADS, workload(name).text)
        against = paired_fresh(cases, "tooljson.loads", rounds=LOADS_ROUNDS, seed=seed)
        for peer in ("orjson", "jiter"):
            found[f"loads-ahead|{name}|{peer}"] = sorted(1 / ratio for ratio in against[peer])
    return found


def _ahead_in_own_processes() -> dict[str, list[float]]:
    """:func:`measure_ahead` in :data:`AHEAD_PROCESSES` new interpreters: the rounds of all of them
    under ``"loads-ahead|…"``, each one's median under ``"loads-ahead-medians|…"``."""
    found: dict[str, list[float]] = {}
    for seed in range(AHEAD_PROCESSES):
        completed = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), "--ahead", str(seed)],
            check=True,
            capture_output=True,
            text=True,
        )
        measured: dict[str, list[float]] = json.loads(completed.stdout)
        for key, values in measured.items():
            found.setdefault(key, []).extend(values)
            found.setdefault(key.replace("loads-ahead|", "loads-ahead-medians|"), []).append(
                _paired_median(values) or float("nan")
            )
    return found


def measure_paired() -> dict[str, list[float]]:
    """Ratios per round, keyed ``"<target>|<workload>|<fragmentation or implementation>"``."""
    found: dict[str, list[float]] = {}
    for name in PREVIEW_SPEEDUP_TARGETS:
        deltas = workload(name).fragments["random"]
        cases: Cases = {"tooljson": (tooljson_preview, deltas), "sdk": (sdk_partial, deltas)}
        found[f"preview|{name}|random"] = paired_ratios(cases, "tooljson", rounds=5)["sdk"]
    events = {
        "events": tooljson_events,
        "events-at-end": tooljson_events_at_end,
        "events-callback": tooljson_events_callback,
    }
    for name in ("records", "file_write"):
        for fragmentation in ("random", "char"):
            deltas = workload(name).fragments[fragmentation]
            cases = {"strict": (tooljson_accumulate, deltas)} | {
                label: (run, deltas) for label, run in events.items()
            }
            ratios = paired_ratios(cases, "strict", rounds=EVENTS_ROUNDS)
            for consumer in CONSUMERS:
                found[f"{consumer}|{name}|{fragmentation}"] = ratios[consumer]
    for name in STRICT_WORKLOADS:
        for fragmentation in ("random", "char"):
            deltas = workload(name).fragments[fragmentation]
            cases = {"pure": (pure_accumulate, deltas), "tooljson": (tooljson_accumulate, deltas)}
            found[f"accumulate|{name}|{fragmentation}"] = paired_ratios(
                cases, "pure", rounds=ACCUMULATE_ROUNDS
            )["tooljson"]
    found |= measure_loads()
    for fragmentation in ("random", "char"):
        deltas = workload("records").fragments[fragmentation]
        cases = {label: (IMPLEMENTATIONS[label], deltas) for label in ("pure", "tooljson", *KEY_VARIANTS)}
        ratios = paired_ratios(cases, "tooljson", rounds=9)
        for label in ("pure", *KEY_VARIANTS):
            found[f"keys|records|{fragmentation}|{label}"] = ratios[label]
    found |= _scaling_in_own_process()
    for fragmentation in ("random", "char"):
        growth: Cases = {
            name: (tooljson_preview, workload(name).fragments[fragmentation])
            for name in (GROWTH_FROM, GROWTH_TO)
        }
        found[f"growth|records|{fragmentation}"] = paired_ratios(growth, GROWTH_FROM, rounds=9)[GROWTH_TO]
    for name in WHOLE_TEXT_WORKLOADS:
        text = workload(name).text
        no_deltas = ()
        whole: Cases = {
            "in place": (_whole_text(_parsed_in_place, text), no_deltas),
            "whole": (_whole_text(tooljson.loads, text), no_deltas),
        }
        found[f"whole|{name}|loads"] = paired_ratios(whole, "in place", rounds=41)["whole"]
    # The installed build against the abi3 build, the build without the full-API techniques.
    found |= bench_builds.measure_flat(15)
    return found


def measure_scaling() -> dict[str, list[float]]:
    """Accumulate + finish at doubling sizes, paired: the per-round ratios of each size to the smallest."""
    found: dict[str, list[float]] = {}
    for fragmentation in ("random", "char"):
        cases = {
            name: (tooljson_accumulate, workload(name).fragments[fragmentation]) for name in SCALING_WORKLOADS
        }
        ratios = paired_ratios(cases, SCALING_WORKLOADS[0], rounds=7)
        for name in SCALING_WORKLOADS[1:]:
            found[f"scaling|{name}|{fragmentation}"] = ratios[name]
    return found


def _scaling_in_own_process() -> dict[str, list[float]]:
    """:func:`measure_scaling` in a new interpreter, which holds only the scaling workloads.

    In this process, after the other paired measurements, every workload made so far is still
    held, and a full garbage collection that falls into a turn walks all of it: the larger sizes
    set off more of them, so their per-byte cost rose with what the process held rather than with
    the size (1.40× at 2 MB in one report, 1.05–1.09× measured alone).
    """
    completed = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--scaling"],
        check=True,
        capture_output=True,
        text=True,
    )
    found: dict[str, list[float]] = json.loads(completed.stdout)
    return found


# ------------------------------------------------------------------------------------------------
# Verdicts


def _paired(values: list[float] | None) -> str:
    if not values:
        return "not measured in pairs"
    middle = _paired_median(values)
    spread = f"quartiles {_quartile(values, 1):.2f}–{_quartile(values, 3):.2f}, " if len(values) >= 4 else ""
    return f"{middle:.2f}× paired (median of {len(values)} rounds, {spread}range {min(values):.2f}–{max(values):.2f})"


def _paired_median(values: list[float] | None) -> float | None:
    if not values:
        return None
    values = sorted(values)
    return (
        values[len(values) // 2]
        if len(values) % 2
        else (values[len(values) // 2 - 1] + values[len(values) // 2]) / 2
    )


def _target(met: bool, text: str) -> str:
    return f"- {'met' if met else '**not met**'}: {text}"


def _judge(paired: float | None, block: float | None, test: Any) -> bool:
    """A target is judged on the paired figure when there is one, else on the block runs'."""
    figure = paired if paired is not None else block
    return figure is not None and bool(test(figure))


def _at_most(limit: float) -> Callable[[float], bool]:
    return lambda figure: figure <= limit


def _at_least(goal: float) -> Callable[[float], bool]:
    return lambda figure: figure >= goal


def _ratio(numerator: float | None, denominator: float | None) -> float | None:
    return numerator / denominator if numerator and denominator else None


def _paired_target(
    block: float | None,
    values: list[float] | None,
    passes: Callable[[float], bool],
    claim: str,
    figure: str,
    block_format: str = ".2f",
) -> list[str]:
    """The line of one target: judged on the paired figure when there is one, else on the blocks'."""
    if block is None and not values:
        return []
    met = _judge(_paired_median(values), block, passes)
    block_text = f"{block:{block_format}}×" if block else "n/a"
    return [_target(met, f"{claim} — {figure} {_paired(values)}; {block_text} in the benchmark blocks")]


def targets(run: Run, paired: dict[str, list[float]]) -> list[str]:
    lines: list[str] = []
    for name, goal in PREVIEW_SPEEDUP_TARGETS.items():
        lines += _paired_target(
            _ratio(
                run.median("preview", name, "random", "sdk"),
                run.median("preview", name, "random", "tooljson"),
            ),
            paired.get(f"preview|{name}|random"),
            _at_least(goal),
            f"preview after every delta on {name} (random): ≥ {goal:.0f}× faster than the SDK's re-parse",
            "SDK ÷ tooljson =",
            ".0f",
        )
    for name in ("records", "file_write"):
        for fragmentation in ("random", "char"):
            lines += _paired_target(
                _ratio(
                    run.median("events", name, fragmentation, "events-at-end"),
                    run.median("events", name, fragmentation, "strict"),
                ),
                paired.get(f"events-at-end|{name}|{fragmentation}"),
                _at_most(EVENTS_OVER_STRICT),
                f"consuming every event, pulled in one batch after finish, on {name} ({fragmentation}): "
                f"≤ {EVENTS_OVER_STRICT:.0f}× the strict accumulate+finish",
                "events-at-end ÷ strict =",
            )
    sizes = workload(GROWTH_TO).size / workload(GROWTH_FROM).size
    for fragmentation in ("random", "char"):
        lines += _paired_target(
            _ratio(
                run.median("size-series", GROWTH_TO, fragmentation, "tooljson"),
                run.median("size-series", GROWTH_FROM, fragmentation, "tooljson"),
            ),
            paired.get(f"growth|records|{fragmentation}"),
            _at_most(PREVIEW_GROWTH),
            f"preview time from 100 KB to 1 MB ({fragmentation}, size {sizes:.1f}×): grows ≤ {PREVIEW_GROWTH:.0f}×",
            "it grows",
            ".1f",
        )
    return lines


def _reported(text: str) -> str:
    return f"- reported: {text}"


def events_reported(run: Run, paired: dict[str, list[float]]) -> list[str]:
    """The other ways of consuming the events, measured beside the strict path (not targets)."""
    lines: list[str] = []
    for consumer in ("events", "events-callback"):
        for name in ("records", "file_write"):
            for fragmentation in ("random", "char"):
                block = _ratio(
                    run.median("events", name, fragmentation, consumer),
                    run.median("events", name, fragmentation, "strict"),
                )
                values = paired.get(f"{consumer}|{name}|{fragmentation}")
                if block is None and not values:
                    continue
                block_text = f"{block:.2f}×" if block else "n/a"
                lines.append(
                    _reported(
                        f"consuming every event, {CONSUMERS[consumer]}, on {name} ({fragmentation}) — "
                        f"{consumer} ÷ strict = {_paired(values)}; {block_text} in the benchmark blocks"
                    )
                )
    return lines


def accumulate_targets(run: Run, paired: dict[str, list[float]]) -> list[str]:
    """Accumulate + finish against the pure accumulator, judged on the paired figure."""
    lines: list[str] = []
    for name in STRICT_WORKLOADS:
        for fragmentation in ("random", "char"):
            limit = ACCUMULATE_LIMITS.get((name, fragmentation), 1.0)
            goal = (
                f"≤ {limit:.2f}× the pure accumulator"
                if limit < 1.0
                else "no slower than the pure accumulator"
            )
            lines += _paired_target(
                _ratio(
                    run.median("accumulate", name, fragmentation, "tooljson"),
                    run.median("accumulate", name, fragmentation, "pure"),
                ),
                paired.get(f"accumulate|{name}|{fragmentation}"),
                _at_most(limit),
                f"accumulate+finish {name} ({fragmentation}): {goal}",
                "tooljson ÷ pure =",
            )
    return lines


def loads_targets(run: Run, paired: dict[str, list[float]]) -> list[str]:
    """``tooljson.loads`` against ``json.loads`` (judged where there is a limit), orjson and jiter beside."""
    lines: list[str] = []
    for name in LOADS_WORKLOADS:
        base = run.median("loads", name, "random", "json.loads")
        medians = {
            label: _paired_median(paired.get(f"loads|{name}|{label}"))
            for label in ("ssrjson", "orjson", "msgspec", "jiter")
        }
        beside = ", ".join(
            f"{label} {median:.2f}×" if median else f"{label} {_not_timed(label, name)}"
            for label, median in medians.items()
        )
        claim = f"tooljson.loads on {name}"
        if name in LOADS_AHEAD:
            lines.append(_ahead_target(name, claim, paired))
        limit = LOADS_LIMITS.get(name)
        values = paired.get(f"loads|{name}|tooljson.loads")
        block = _ratio(run.median("loads", name, "random", "tooljson.loads"), base)
        if limit is None:
            block_text = f"{block:.2f}×" if block else "n/a"
            lines.append(
                _reported(
                    f"{claim} — tooljson.loads ÷ json.loads = {_paired(values)}; {block_text} in the "
                    f"benchmark blocks (paired beside it: {beside})"
                )
            )
            continue
        lines += _paired_target(
            block,
            values,
            _at_most(limit),
            f"{claim}: ≤ {limit:.1f}× json.loads (paired beside it: {beside})",
            "tooljson.loads ÷ json.loads =",
        )
    return lines


def _not_timed(label: str, name: str) -> str:
    text = workload(name).text
    return "n/a" if LOADS[label](text) == json.loads(text) else "wrong value, not timed"


def _ahead_target(name: str, claim: str, paired: dict[str, list[float]]) -> str:
    """Whether ``tooljson.loads`` is ahead of jiter and within ``ORJSON_WITHIN`` of orjson (where
    orjson's value is ``json.loads``'): the median of the per-round ratio in every process that
    measured it."""
    text = workload(name).text
    expected = json.loads(text)
    inexact = {peer for peer, parse in LOADS.items() if peer != "tooljson.loads" and parse(text) != expected}
    cells = []
    met = True
    rounds = 0
    for peer in ("orjson", "jiter"):
        values = paired.get(f"loads-ahead|{name}|{peer}")
        median = _paired_median(values)
        per_process = paired.get(f"loads-ahead-medians|{name}|{peer}") or []
        if values is None or median is None or not per_process:
            return _target(
                False,
                f"{claim}: ahead of jiter, within {ORJSON_WITHIN:.2f}× of orjson — not measured in pairs",
            )
        bound = ORJSON_WITHIN if peer == "orjson" else 1.0
        if peer not in inexact:
            met = met and all(value < bound for value in per_process)
        rounds = len(values)
        cells.append(
            f"÷ {peer} {median:.2f}× (quartiles {_quartile(values, 1):.2f}–{_quartile(values, 3):.2f}; "
            f"in each process {', '.join(f'{value:.2f}×' for value in per_process)})"
        )
    caveat = (
        f"; {' and '.join(sorted(inexact))}'s value differs from json.loads' on this text, so it is not judged"
        if inexact
        else ""
    )
    return _target(
        met,
        f"{claim}: ahead of jiter and within {ORJSON_WITHIN:.2f}× of orjson, side by side — tooljson.loads "
        f"{', '.join(cells)} (each round's own ratio, {rounds} rounds in {AHEAD_PROCESSES} processes; met "
        f"when below the bound in each{caveat})",
    )


def _quartile(values: list[float], which: int) -> float:
    return sorted(values)[len(values) * which // 4]


def whole_text_reported(paired: dict[str, list[float]]) -> list[str]:
    """``tooljson.loads``, whose value is built bottom-up, against the in-place builder on the same text."""
    cells = []
    for name in WHOLE_TEXT_WORKLOADS:
        values = paired.get(f"whole|{name}|loads")
        if values:
            cells.append(f"{name} {_paired(values)}")
    if not cells:
        return []
    return [
        _reported(
            "tooljson.loads (each container made when it closes) ÷ the same text fed whole to a "
            f"tooljson.Parser and finished (the value built in place, as for a stream): {'; '.join(cells)}"
        )
    ]


def keys_reported(paired: dict[str, list[float]]) -> list[str]:
    """Accumulate + finish with string and tuple keys against the int key (the small-int path)."""
    lines: list[str] = []
    for fragmentation in ("random", "char"):
        cells = []
        for label in KEY_VARIANTS:
            median = _paired_median(paired.get(f"keys|records|{fragmentation}|{label}"))
            if median is not None:
                cells.append(f"{label.removeprefix('tooljson-')} {median:.2f}×")
        pure = _paired_median(paired.get(f"keys|records|{fragmentation}|pure"))
        if cells and pure:
            lines.append(
                _reported(
                    f"accumulate+finish records ({fragmentation}) keyed by other than an int, time ÷ the "
                    f"int key's: {', '.join(cells)} (the pure accumulator: {pure:.2f}×; paired, 9 rounds)"
                )
            )
    return lines


def _block_spread(run: Run, group: str) -> float | None:
    """Per-byte cost spread across sizes from the benchmark blocks' medians of a scaling group."""
    per_byte = [
        float(bench["stats"]["median"]) / int(bench["extra_info"]["size_bytes"])
        for bench in run.groups.get(group, [])
    ]
    return max(per_byte) / min(per_byte) if per_byte else None


def scaling_targets(run: Run, paired: dict[str, list[float]]) -> list[str]:
    """Accumulate + finish at doubling sizes, judged on paired rounds: per-byte cost within tolerance."""
    lines: list[str] = []
    smallest = workload(SCALING_WORKLOADS[0]).size
    for fragmentation in ("random", "char"):
        per_byte = {SCALING_WORKLOADS[0]: 1.0}
        for name in SCALING_WORKLOADS[1:]:
            median = _paired_median(paired.get(f"scaling|{name}|{fragmentation}"))
            if median is not None:
                per_byte[name] = median * smallest / workload(name).size
        if len(per_byte) < len(SCALING_WORKLOADS):
            continue
        spread = max(per_byte.values()) / min(per_byte.values())
        block = _block_spread(run, f"scaling: tooljson ({fragmentation})")
        block_text = f"{block:.2f}×" if block else "n/a"
        cells = ", ".join(
            f"{format_size(workload(name).size)} {value:.2f}" for name, value in per_byte.items()
        )
        lines.append(
            _target(
                spread <= LINEAR_TOLERANCE,
                f"scaling: tooljson ({fragmentation}): cost in proportion to size (per-byte cost within "
                f"{LINEAR_TOLERANCE:.2f}× across sizes) — per-byte spread {spread:.2f}× paired (medians of 7 "
                f"rounds; per-byte cost relative to 100 KB: {cells}); {block_text} in the benchmark blocks",
            )
        )
    return lines


def _median_cell(values: list[float] | None) -> str:
    if not values:
        return ""
    return f"{_paired_median(values):.2f}× ({_quartile(values, 1):.2f}–{_quartile(values, 3):.2f})"


def paired_tables(paired: dict[str, list[float]]) -> list[str]:
    """The paired figures of accumulate + finish and of the whole-text parsers as two tables (median
    and quartiles), between the markers by which ``docs/performance.md`` includes them."""
    if not paired:
        return []
    accumulate = [
        "| accumulate + finish, ÷ the pure accumulator | 1–32-character deltas | one-character deltas |",
        "|---|---:|---:|",
    ]
    for name in STRICT_WORKLOADS:
        cells = [_median_cell(paired.get(f"accumulate|{name}|{how}")) for how in ("random", "char")]
        if any(cells):
            accumulate.append(f"| {name} ({format_size(workload(name).size)}) | " + " | ".join(cells) + " |")
    parsers = ["tooljson.loads", *(label for label in LOADS if label != "tooljson.loads")]
    loads = [
        "| whole text, ÷ `json.loads` | " + " | ".join(parsers) + " |",
        "|---|" + "---:|" * len(parsers),
    ]
    for name in LOADS_WORKLOADS:
        cells = [
            _median_cell(paired.get(f"loads|{name}|{label}")) or _not_timed(label, name) for label in parsers
        ]
        loads.append(f"| {name} ({format_size(workload(name).size)}) | " + " | ".join(cells) + " |")
    return [
        "<!-- --8<-- [start:accumulate] -->",
        *accumulate,
        "<!-- --8<-- [end:accumulate] -->",
        "",
        "<!-- --8<-- [start:loads] -->",
        *loads,
        "<!-- --8<-- [end:loads] -->",
    ]


def judge(data: dict[str, Any], paired: dict[str, list[float]]) -> list[str]:
    """Every verdict line, in the report's order."""
    run = Run(data)
    report = Report([data], {"accumulate": "pure", "finish": "json.loads"})
    strict = report.targets()[2:] if report.groups else []
    return [
        *targets(run, paired),
        *accumulate_targets(run, paired),
        *loads_targets(run, paired),
        *scaling_targets(run, paired),
        # The paired targets above replace the block-only verdicts of the same name.
        *(line for line in strict if not any(replaced in line for replaced in PAIRED_STRICT_TARGETS)),
        *events_reported(run, paired),
        *keys_reported(paired),
        *whole_text_reported(paired),
        *bench_builds.reported(paired),
    ]


if __name__ == "__main__":
    # ``_scaling_in_own_process`` and ``_ahead_in_own_processes`` run this file to measure alone.
    if sys.argv[1:] == ["--scaling"]:
        print(json.dumps(measure_scaling()))
    elif sys.argv[1:2] == ["--ahead"] and sys.argv[2:3] and sys.argv[2].isdigit():
        print(json.dumps(measure_ahead(int(sys.argv[2]))))
    else:
        sys.exit("usage: targets.py --scaling | --ahead SEED (report.py runs the rest)")
