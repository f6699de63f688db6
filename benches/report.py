"""Runs every benchmark suite and writes ``benches/REPORT.md`` and ``benches/scaling.png``.

    python benches/report.py                       # run the suites (about 10 minutes), then write
    python benches/report.py --from run.json       # write from a saved --benchmark-json file
    python benches/report.py -- -k preview         # pass arguments on to pytest

The suites (``bench_strict``, ``bench_preview``, ``bench_loop``, ``bench_ui``, ``bench_memory``'s
tests) run in one pytest process with benchmarks enabled and a JSON output; the memory figures come
from ``bench_memory`` (fresh interpreters, after the timed runs). The report gives each group's
medians and ratios, checks the targets against the same figures, and draws the time of every
approach against the input size, on log–log axes, where a cost in proportion to the size is a line
of slope 1 and a quadratic one a line of slope 2.

Ratios are what to quote: the absolute times depend on the machine and on its load.
"""

from __future__ import annotations

import argparse
import json
from importlib import metadata
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench_memory  # noqa: E402
from bench_preview import LARGEST, SERIES, tooljson_events, tooljson_events_at_end, tooljson_preview  # noqa: E402
from summary import Report, format_size, format_time  # noqa: E402
from workloads import (  # noqa: E402
    SCALING_WORKLOADS,
    SIZE_SERIES_WORKLOADS,
    STRICT_WORKLOADS,
    paired_ratios,
    pure_accumulate,
    sdk_partial,
    tooljson_accumulate,
    workload,
)
from summary import ACCUMULATE_2X_WORKLOADS, LINEAR_TOLERANCE  # noqa: E402

REPORT = HERE / "REPORT.md"
PLOT = HERE / "scaling.png"
DEFAULT_JSON = HERE.parent / ".benchmarks" / "report.json"

#: Targets: the SDK's time over tooljson's preview, at least.
PREVIEW_SPEEDUP_TARGETS = {"records": 100.0, "file_write": 20.0}
#: Targets: events over strict accumulate+finish, at most.
EVENTS_OVER_STRICT = 2.0
#: Verdicts of summary.py that report.py gives on paired rounds instead.
PAIRED_STRICT_TARGETS = ("accumulate+finish", "scaling: tooljson (random)", "scaling: tooljson (char)")
#: The ways of consuming the events the target is judged on, and how each is described.
CONSUMERS = {"events": "pulled after every delta", "events-at-end": "pulled in one batch after finish"}
#: Target: time growth of the preview from the 100 KB records to the 1 MB records, at most.
PREVIEW_GROWTH = 12.0
GROWTH_FROM, GROWTH_TO = "records", "records_1mb"
#: Baseline of the groups that carry no ``kind`` (the loop and the debug view), first found wins.
OTHER_BASELINES = ("sdk-helper-stream", "plain")

#: Libraries whose versions the report gives when the run's JSON did not record them.
ALSO_VERSIONED = ("partial-json-parser", "json-repair", "jsonriver", "matplotlib")

SERIES_ORDER = tuple(SERIES)
SERIES_LABELS = {
    "tooljson": "tooljson preview",
    "tooljson-events": "tooljson events",
    "tooljson-strict": "tooljson strict",
    "pure": "pure (join + json.loads)",
    "sdk": "SDK re-parse (jiter partial)",
    "jiter-trailing": "jiter trailing-strings re-parse",
    "partial-json-parser": "partial-json-parser re-parse",
    "json-repair": "json_repair re-parse",
    "jsonriver": "jsonriver (incremental)",
}
SERIES_STYLES = {
    "tooljson": ("tab:blue", "o", "-"),
    "tooljson-events": ("tab:cyan", "v", "-"),
    "tooljson-strict": ("tab:green", "s", "-"),
    "pure": ("tab:olive", "D", "--"),
    "sdk": ("tab:red", "^", "-"),
    "jiter-trailing": ("tab:orange", "<", "--"),
    "partial-json-parser": ("tab:purple", ">", "-"),
    "json-repair": ("tab:brown", "x", "-"),
    "jsonriver": ("tab:gray", "*", "-"),
}


# ------------------------------------------------------------------------------------------------
# Reading a run


class Run:
    """The benchmarks of one ``--benchmark-json`` file, by group."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data
        self.groups: dict[str, list[dict[str, Any]]] = {}
        for bench in data.get("benchmarks", []):
            self.groups.setdefault(bench["group"] or bench["name"], []).append(bench)

    def kind(self, kind: str) -> dict[str, list[dict[str, Any]]]:
        return {
            group: benches
            for group, benches in self.groups.items()
            if benches[0].get("extra_info", {}).get("kind") == kind
        }

    def median(self, kind: str, name: str, fragmentation: str, implementation: str) -> float | None:
        for benches in self.kind(kind).values():
            for bench in benches:
                info = bench["extra_info"]
                if (info["workload"], info["fragmentation"], info["implementation"]) == (name, fragmentation, implementation):
                    return float(bench["stats"]["median"])
        return None


def _version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"


def _implementation(bench: dict[str, Any]) -> str:
    return str(bench.get("extra_info", {}).get("implementation", bench["name"]))


def _timer(bench: dict[str, Any]) -> str:
    timer = str(bench.get("options", {}).get("timer", "?"))
    return "CPU time" if "process_time" in timer else "wall clock" if "perf_counter" in timer else timer


def _rounds(bench: dict[str, Any]) -> str:
    stats = bench["stats"]
    iterations = int(stats.get("iterations", 1))
    return f"{stats['rounds']}" + (f"×{iterations}" if iterations > 1 else "")


# ------------------------------------------------------------------------------------------------
# Tables


def ratio_table(benches: list[dict[str, Any]], baseline: str, order: Sequence[str], heading: str) -> list[str]:
    """Implementation, median, rounds and time over the baseline's time."""
    benches = sorted(benches, key=lambda b: (order.index(_implementation(b)) if _implementation(b) in order else len(order)))
    base = next((b for b in benches if _implementation(b) == baseline), None)
    lines = [
        f"| implementation | median | rounds | time ÷ {baseline}'s |",
        "|---|---:|---:|---:|",
    ]
    for bench in benches:
        median = float(bench["stats"]["median"])
        share = f"{median / float(base['stats']['median']):.2f}×" if base else "n/a"
        lines.append(f"| {_implementation(bench)} | {format_time(median)} | {_rounds(bench)} | {share} |")
    first = benches[0]
    info = first.get("extra_info", {})
    detail = []
    if "size_bytes" in info:
        detail.append(format_size(int(info["size_bytes"])))
    if "fragments" in info:
        detail.append(f"{info['fragments']} deltas")
    detail.append(f"timer: {_timer(first)}")
    return [heading, "", "; ".join(detail), "", *lines]


def size_series_tables(run: Run) -> list[str]:
    """Per fragmentation: sizes down, approaches across, medians in the cells."""
    lines: list[str] = []
    series = run.kind("size-series")
    for fragmentation in ("random", "char"):
        cells: dict[str, dict[str, float]] = {}
        for benches in series.values():
            for bench in benches:
                info = bench["extra_info"]
                if info["fragmentation"] == fragmentation:
                    cells.setdefault(info["implementation"], {})[info["workload"]] = float(bench["stats"]["median"])
        if not cells:
            continue
        approaches = [name for name in SERIES_ORDER if name in cells]
        lines += [
            f"### Time against size, {fragmentation} deltas (median CPU time; blank: not run at that size)",
            "",
            "| size | " + " | ".join(approaches) + " |",
            "|---:|" + "---:|" * len(approaches),
        ]
        for name in SIZE_SERIES_WORKLOADS:
            row = [format_time(cells[a][name]) if name in cells[a] else "" for a in approaches]
            if any(row):
                lines.append(f"| {format_size(workload(name).size)} | " + " | ".join(row) + " |")
        growth = []
        for approach in approaches:
            low, high = cells[approach].get(GROWTH_FROM), cells[approach].get(GROWTH_TO)
            growth.append(f"{high / low:.1f}×" if low and high else "")
        size_ratio = workload(GROWTH_TO).size / workload(GROWTH_FROM).size
        lines.append(f"| growth 100 KB → 1 MB (size {size_ratio:.1f}×) | " + " | ".join(growth) + " |")
        lines.append("")
    limits = ", ".join(
        f"{name} up to {format_size(workload(by['random']).size)} ({format_size(workload(by['char']).size)} with "
        "one-character deltas)"
        for name, by in LARGEST.items()
    )
    lines.append(
        f"Size limits (runs beyond them would take minutes each; nothing beyond them is run or estimated): {limits}."
    )
    return lines


def plot(run: Run, path: Path) -> bool:
    """Time against size per approach, log–log, one panel per fragmentation."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    series = run.kind("size-series")
    if not series:
        return False
    figure, axes = plt.subplots(1, 2, figsize=(13, 5.5), sharey=True)
    for axis, fragmentation in zip(axes, ("random", "char")):
        points: dict[str, list[tuple[int, float]]] = {}
        for benches in series.values():
            for bench in benches:
                info = bench["extra_info"]
                if info["fragmentation"] == fragmentation:
                    points.setdefault(info["implementation"], []).append(
                        (int(info["size_bytes"]), float(bench["stats"]["median"]))
                    )
        for approach in SERIES_ORDER:
            if approach not in points:
                continue
            xs, ys = zip(*sorted(points[approach]))
            color, marker, line = SERIES_STYLES[approach]
            axis.plot(xs, ys, marker=marker, linestyle=line, color=color, label=SERIES_LABELS[approach], markersize=5)
        # Guides of slope 1 (through the preview's smallest point) and 2 (through the SDK's): a curve
        # parallel to one grows as that power of the size.
        if "tooljson" in points:
            x0, y0 = min(points["tooljson"])
            ends = [x0, 2_000_000]
            axis.plot(ends, [y0 * x / x0 for x in ends], color="black", linestyle=":", linewidth=0.8, label="∝ size (guide)")
        if "sdk" in points:
            x0, y0 = min(points["sdk"])
            ends = [x0, 2 * max(points["sdk"])[0]]
            axis.plot(ends, [y0 * (x / x0) ** 2 for x in ends], color="black", linestyle="-.", linewidth=0.8,
                      label="∝ size² (guide)")
        axis.set_xscale("log")
        axis.set_yscale("log")
        axis.set_xlabel("argument size (bytes of JSON text)")
        axis.set_title("deltas of 1 to 32 characters" if fragmentation == "random" else "one-character deltas")
        axis.grid(True, which="major", linewidth=0.4, alpha=0.6)
    axes[0].set_ylabel("CPU time per streamed argument (s, median)")
    handles, labels = axes[0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="lower center", ncol=4, fontsize=8, frameon=False)
    figure.suptitle("Streaming one argument (records): preview, events and re-parse show a value after every delta; "
                    "strict and pure parse at the end")
    figure.tight_layout(rect=(0, 0.12, 1, 0.96))
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return True


# ------------------------------------------------------------------------------------------------
# Paired measurements of the targets
#
# pytest-benchmark times each case in a block of its own, minutes apart from the case it is compared
# with: the load of the machine, and what the process holds in memory when a full garbage collection
# comes (the workloads cached by then), differ between the blocks. For the targets, the two sides are
# also timed in interleaved rounds (``workloads.paired_ratios``: each round runs both, in a shuffled
# order, and the ratio is taken within the round), in a process holding only the workloads compared.


def measure_paired() -> dict[str, list[float]]:
    """Ratios per round, keyed ``"<target>|<workload>|<fragmentation>"``."""
    found: dict[str, list[float]] = {}
    for name in PREVIEW_SPEEDUP_TARGETS:
        deltas = workload(name).fragments["random"]
        cases = {"tooljson": (tooljson_preview, deltas), "sdk": (sdk_partial, deltas)}
        found[f"preview|{name}|random"] = paired_ratios(cases, "tooljson", rounds=5)["sdk"]
    for name in ("records", "file_write"):
        for fragmentation in ("random", "char"):
            deltas = workload(name).fragments[fragmentation]
            cases = {
                "strict": (tooljson_accumulate, deltas),
                "events": (tooljson_events, deltas),
                "events-at-end": (tooljson_events_at_end, deltas),
            }
            ratios = paired_ratios(cases, "strict", rounds=15)
            for consumer in CONSUMERS:
                found[f"{consumer}|{name}|{fragmentation}"] = ratios[consumer]
    for name in STRICT_WORKLOADS:
        for fragmentation in ("random", "char"):
            deltas = workload(name).fragments[fragmentation]
            cases = {"pure": (pure_accumulate, deltas), "tooljson": (tooljson_accumulate, deltas)}
            found[f"accumulate|{name}|{fragmentation}"] = paired_ratios(cases, "pure", rounds=9)["tooljson"]
    for fragmentation in ("random", "char"):
        cases = {name: (tooljson_accumulate, workload(name).fragments[fragmentation]) for name in SCALING_WORKLOADS}
        ratios = paired_ratios(cases, SCALING_WORKLOADS[0], rounds=7)
        for name in SCALING_WORKLOADS[1:]:
            found[f"scaling|{name}|{fragmentation}"] = ratios[name]
    for fragmentation in ("random", "char"):
        cases = {name: (tooljson_preview, workload(name).fragments[fragmentation]) for name in (GROWTH_FROM, GROWTH_TO)}
        found[f"growth|records|{fragmentation}"] = paired_ratios(cases, GROWTH_FROM, rounds=9)[GROWTH_TO]
    return found


def _paired(values: list[float] | None) -> str:
    if not values:
        return "not measured in pairs"
    values = sorted(values)
    middle = values[len(values) // 2] if len(values) % 2 else (values[len(values) // 2 - 1] + values[len(values) // 2]) / 2
    return f"{middle:.2f}× paired (median of {len(values)} rounds, range {values[0]:.2f}–{values[-1]:.2f})"


def _paired_median(values: list[float] | None) -> float | None:
    if not values:
        return None
    values = sorted(values)
    return values[len(values) // 2] if len(values) % 2 else (values[len(values) // 2 - 1] + values[len(values) // 2]) / 2


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
            _ratio(run.median("preview", name, "random", "sdk"), run.median("preview", name, "random", "tooljson")),
            paired.get(f"preview|{name}|random"),
            _at_least(goal),
            f"preview after every delta on {name} (random): ≥ {goal:.0f}× faster than the SDK's re-parse",
            "SDK ÷ tooljson =",
            ".0f",
        )
    for consumer, how in CONSUMERS.items():
        for name in ("records", "file_write"):
            for fragmentation in ("random", "char"):
                lines += _paired_target(
                    _ratio(run.median("events", name, fragmentation, consumer),
                           run.median("events", name, fragmentation, "strict")),
                    paired.get(f"{consumer}|{name}|{fragmentation}"),
                    _at_most(EVENTS_OVER_STRICT),
                    f"consuming every event, {how}, on {name} ({fragmentation}): ≤ {EVENTS_OVER_STRICT:.0f}× the strict "
                    "accumulate+finish",
                    f"{consumer} ÷ strict =",
                )
    sizes = workload(GROWTH_TO).size / workload(GROWTH_FROM).size
    for fragmentation in ("random", "char"):
        lines += _paired_target(
            _ratio(run.median("size-series", GROWTH_TO, fragmentation, "tooljson"),
                   run.median("size-series", GROWTH_FROM, fragmentation, "tooljson")),
            paired.get(f"growth|records|{fragmentation}"),
            _at_most(PREVIEW_GROWTH),
            f"preview time from 100 KB to 1 MB ({fragmentation}, size {sizes:.1f}×): grows ≤ {PREVIEW_GROWTH:.0f}×",
            "it grows",
            ".1f",
        )
    return lines


def accumulate_targets(run: Run, paired: dict[str, list[float]]) -> list[str]:
    """Accumulate + finish against the pure accumulator, judged on the paired figure."""
    lines: list[str] = []
    for name in STRICT_WORKLOADS:
        for fragmentation in ("random", "char"):
            limit, goal = (0.5, "≥ 2× faster than pure") if name in ACCUMULATE_2X_WORKLOADS else (1.0, "no slower than pure")
            lines += _paired_target(
                _ratio(run.median("accumulate", name, fragmentation, "tooljson"),
                       run.median("accumulate", name, fragmentation, "pure")),
                paired.get(f"accumulate|{name}|{fragmentation}"),
                _at_most(limit),
                f"accumulate+finish {name} ({fragmentation}): {goal}",
                "tooljson ÷ pure =",
            )
    return lines


def _block_spread(run: Run, group: str) -> float | None:
    """Per-byte cost spread across sizes from the benchmark blocks' medians of a scaling group."""
    per_byte = [
        float(bench["stats"]["median"]) / int(bench["extra_info"]["size_bytes"]) for bench in run.groups.get(group, [])
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
        cells = ", ".join(f"{format_size(workload(name).size)} {value:.2f}" for name, value in per_byte.items())
        lines.append(_target(spread <= LINEAR_TOLERANCE,
                             f"scaling: tooljson ({fragmentation}): cost in proportion to size (per-byte cost within "
                             f"{LINEAR_TOLERANCE:.2f}× across sizes) — per-byte spread {spread:.2f}× paired (medians of 7 "
                             f"rounds; per-byte cost relative to 100 KB: {cells}); {block_text} in the benchmark blocks"))
    return lines


def strict_sections(data: dict[str, Any]) -> tuple[list[str], list[str], list[str]]:
    """The header, the strict path's tables and its targets, as ``summary.py`` writes them."""
    report = Report([data], {"accumulate": "pure", "finish": "json.loads"})
    tables: list[str] = []
    titles = {
        "accumulate": "### accumulate+finish (start, every delta, finish); baseline: the pure accumulator",
        "finish": "### finish only (deltas fed beforehand); baseline: json.loads",
        "scaling": "### scaling (records at doubling sizes)",
    }
    current = None
    for group in report.sorted_groups():
        kind = next(iter(report.groups[group].values())).kind
        if kind != current:
            tables += ["", titles[kind]]
            current = kind
        table = report.group_table(group)
        table[0] = "#" + table[0]
        tables += ["", *table]
    target_lines = report.targets()[2:] if report.groups else []
    return report.header()[2:], tables, target_lines


def other_sections(run: Run) -> list[str]:
    """Groups without a ``kind``: the end-to-end loop and the debug view."""
    lines: list[str] = []
    for group, benches in run.groups.items():
        if "kind" in benches[0].get("extra_info", {}):
            continue
        names = [_implementation(b) for b in benches]
        baseline = next((name for name in OTHER_BASELINES if name in names), names[0])
        lines += ["", *ratio_table(benches, baseline, names, f"### {group}")]
    return lines


def render(
    data: dict[str, Any],
    memory: dict[str, Any] | None,
    paired: dict[str, list[float]],
    plotted: bool,
    conditions: dict[str, Any],
) -> str:
    run = Run(data)
    header, strict_tables, strict_targets = strict_sections(data)
    lines = ["# tooljson benchmarks", "", *header]
    recorded = data.get("machine_info", {}).get("libraries", {})
    missing = [name for name in ALSO_VERSIONED if name not in recorded]
    if missing:
        lines.append("- Also (versions installed where the report was written): " + ", ".join(
            f"{name} {_version(name)}" for name in missing))
    if conditions:
        lines.append(
            f"- Load average (1 min) before and after the timed runs: {conditions['load_before']:.1f} and "
            f"{conditions['load_after']:.1f} on {conditions['cpus']} CPUs; wall time of the pytest run "
            f"{conditions['seconds'] / 60:.1f} min (then the paired timing and the memory measurements)"
        )
    lines += [
        "- Timers: CPU time of the process (`time.process_time`) for the strict, preview, events and size-series "
        "groups, so that the turns other programs take on this shared machine are not counted; wall clock for the "
        "loop over loopback (it waits on a server) and the debug view.",
        "- Reproduce: `make bench-report` (runs everything and rewrites this file and `scaling.png`).",
        "",
        "## Targets",
        "",
        "Judged on the paired figure where there is one: both sides timed in interleaved rounds (CPU time, "
        "shuffled order, ratio within each round) in a process holding only the workloads compared, which a "
        "change of load or a garbage collection over unrelated cached data disturbs much less than separate "
        "benchmark blocks. The ratio of the benchmark blocks' medians (tables below) is given beside it.",
        "",
        *targets(run, paired),
        *accumulate_targets(run, paired),
        *scaling_targets(run, paired),
        # The paired targets above replace the block-only verdicts of the same name.
        *(line for line in strict_targets if not any(replaced in line for replaced in PAIRED_STRICT_TARGETS)),
        "",
        "## Preview after every delta (~100 KB)",
        "",
        "The last value shown must equal `json.loads` of the joined text. `sdk`: append to a bytes buffer and "
        "`jiter.from_json(buffer, partial_mode=True)` after every delta, as the SDK's stream helper does; "
        "`jiter-trailing`: the same with `partial_mode=\"trailing-strings\"`; `jsonriver`: its async `parse` "
        "over the deltas (a pure-Python incremental parser; it yields integers as floats, equal under `==`). "
        "partial-json-parser and json_repair re-parse the joined text in Python and take minutes per run at "
        "this size: they appear in the size series only, up to their limit.",
    ]
    order = ("tooljson", "sdk", "jiter-trailing", "jsonriver")
    for group, benches in run.kind("preview").items():
        lines += ["", *ratio_table(benches, "tooljson", order, f"### {group}")]
    lines += [
        "",
        "## Events against the strict path",
        "",
        "`strict`: every `add_delta`, then `finish`. `events`: the same accumulator with `events=True`, "
        "`events(index)` pulled after every delta and each event's `kind`, `path` and `value` read, then "
        "`finish`. `events-at-end`: all events pulled in one batch after `finish`, fields read. "
        "`events-callback`: `on_event`, a Python function called with each event, fields read. "
        "`events-unpulled`: `events=True` but nothing pulled before `finish` (the cost of making the "
        "events). `preview`: `preview(index)` after every delta (no `finish`).",
    ]
    events_order = ("strict", "events", "events-at-end", "events-callback", "events-unpulled", "preview")
    for group, benches in run.kind("events").items():
        lines += ["", *ratio_table(benches, "strict", events_order, f"### {group}")]
    lines += ["", "## Time against size", ""]
    if plotted:
        lines += [f"![time against size, log–log]({PLOT.name})", ""]
    lines += size_series_tables(run)
    lines += ["", "## Strict path", *strict_tables]
    others = other_sections(run)
    if others:
        lines += ["", "## End to end and the debug view", *others]
    if memory:
        lines += [
            "",
            "## Memory",
            "",
            f"Streaming the {format_size(workload(bench_memory.MEMORY_WORKLOAD).size)} records, each approach in a fresh "
            "interpreter; deltas are cut from the text as they are fed. Peak extra resident: `VmHWM` (reset just "
            "before) minus the resident size before, which sees the Rust heap too; tracemalloc sees only Python's "
            "allocators. The parsed value alone is the `json.loads` row.",
            "",
            *bench_memory.markdown(memory["streaming"], memory["idle"]),
        ]
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------------------------


def run_suites(json_path: Path, pytest_args: list[str]) -> tuple[int, dict[str, Any]]:
    json_path.parent.mkdir(parents=True, exist_ok=True)
    command = [
        sys.executable, "-m", "pytest", str(HERE), "-q", "--benchmark-enable",
        f"--benchmark-json={json_path}", "--benchmark-columns=median,rounds", "--benchmark-sort=name", *pytest_args,
    ]
    before = os.getloadavg()[0]
    started = time.monotonic()
    code = subprocess.call(command, cwd=HERE.parent)
    conditions = {
        "load_before": before,
        "load_after": os.getloadavg()[0],
        "cpus": os.cpu_count(),
        "seconds": time.monotonic() - started,
    }
    return code, conditions


def measure_memory() -> dict[str, Any]:
    streaming = bench_memory.measure_streaming()
    streaming += bench_memory.measure_streaming(("pure", "tooljson", "tooljson-preview"), "char")
    return {"streaming": streaming, "idle": bench_memory.measure_idle()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--from", dest="from_json", type=Path, help="write from this --benchmark-json file, run nothing")
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON, help="where the run's JSON goes")
    parser.add_argument("--no-memory", action="store_true", help="leave the memory section out")
    parser.add_argument("--no-paired", action="store_true", help="leave out the paired timing of the targets")
    parser.add_argument("pytest_args", nargs="*", help="passed on to pytest (after --)")
    args = parser.parse_args(argv)
    code = 0
    conditions: dict[str, Any] = {}
    if args.from_json:
        json_path = args.from_json
    else:
        json_path = args.json
        code, conditions = run_suites(json_path, args.pytest_args)
        if not json_path.exists():
            print("pytest wrote no benchmark JSON", file=sys.stderr)
            return code or 1
    data = json.loads(json_path.read_text(encoding="utf-8"))
    memory_path = json_path.with_name(json_path.stem + "-memory.json")
    memory = None
    if not args.no_memory:
        if args.from_json and memory_path.exists():
            memory = json.loads(memory_path.read_text(encoding="utf-8"))
        elif not args.from_json and platform.system() == "Linux":
            memory = measure_memory()
            memory_path.write_text(json.dumps(memory, indent=1), encoding="utf-8")
    paired_path = json_path.with_name(json_path.stem + "-paired.json")
    paired: dict[str, list[float]] = {}
    if not args.no_paired:
        if args.from_json:
            paired = json.loads(paired_path.read_text(encoding="utf-8")) if paired_path.exists() else {}
        else:
            paired = measure_paired()
            paired_path.write_text(json.dumps(paired, indent=1), encoding="utf-8")
    if conditions:
        json_path.with_name(json_path.stem + "-conditions.json").write_text(json.dumps(conditions), encoding="utf-8")
    else:
        saved = json_path.with_name(json_path.stem + "-conditions.json")
        conditions = json.loads(saved.read_text(encoding="utf-8")) if saved.exists() else {}
    plotted = plot(Run(data), PLOT)
    REPORT.write_text(render(data, memory, paired, plotted, conditions), encoding="utf-8")
    print(f"wrote {REPORT.relative_to(HERE.parent)}" + (f" and {PLOT.relative_to(HERE.parent)}" if plotted else ""))
    if code:
        print(f"pytest exited with {code}: some benchmark failed its check", file=sys.stderr)
    return code


if __name__ == "__main__":
    raise SystemExit(main())
