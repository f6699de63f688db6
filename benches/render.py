"""Writing the benchmark report: the tables, the plot of time against size, and the Markdown.

``report.py`` runs the suites and ``targets.py`` judges the targets; this module only turns a run
(pytest-benchmark's JSON) and the verdicts into ``benches/REPORT.md`` and ``benches/scaling.png``.
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

import bench_memory
from bench_preview import LARGEST, SERIES
from peers import LOADS
from summary import Report, format_size, format_time
from workloads import SIZE_SERIES_WORKLOADS, workload

HERE = Path(__file__).resolve().parent
REPORT = HERE / "REPORT.md"
PLOT = HERE / "scaling.png"

#: Baseline of the groups that carry no ``kind`` (the loop and the debug view), first found wins.
OTHER_BASELINES = ("sdk-helper-stream", "plain")
#: Libraries whose versions the report gives when the run's JSON did not record them.
ALSO_VERSIONED = ("partial-json-parser", "json-repair", "jsonriver", "matplotlib")
#: The preview's growth is shown from the first of these workloads to the second.
GROWTH_FROM, GROWTH_TO = "records", "records_1mb"

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
                if (info["workload"], info["fragmentation"], info["implementation"]) == (
                    name,
                    fragmentation,
                    implementation,
                ):
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


def ratio_table(
    benches: list[dict[str, Any]], baseline: str, order: Sequence[str], heading: str
) -> list[str]:
    """Implementation, median, rounds and time over the baseline's time."""
    benches = sorted(
        benches, key=lambda b: order.index(_implementation(b)) if _implementation(b) in order else len(order)
    )
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
    if "fragments" in info and info.get("kind") != "loads":
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
                    cells.setdefault(info["implementation"], {})[info["workload"]] = float(
                        bench["stats"]["median"]
                    )
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
            axis.plot(
                xs,
                ys,
                marker=marker,
                linestyle=line,
                color=color,
                label=SERIES_LABELS[approach],
                markersize=5,
            )
        # Guides of slope 1 (through the preview's smallest point) and 2 (through the SDK's): a curve
        # parallel to one grows as that power of the size.
        if "tooljson" in points:
            x0, y0 = min(points["tooljson"])
            ends = [x0, 2_000_000]
            axis.plot(
                ends,
                [y0 * x / x0 for x in ends],
                color="black",
                linestyle=":",
                linewidth=0.8,
                label="∝ size (guide)",
            )
        if "sdk" in points:
            x0, y0 = min(points["sdk"])
            ends = [x0, 2 * max(points["sdk"])[0]]
            axis.plot(
                ends,
                [y0 * (x / x0) ** 2 for x in ends],
                color="black",
                linestyle="-.",
                linewidth=0.8,
                label="∝ size² (guide)",
            )
        axis.set_xscale("log")
        axis.set_yscale("log")
        axis.set_xlabel("argument size (bytes of JSON text)")
        axis.set_title(
            "deltas of 1 to 32 characters" if fragmentation == "random" else "one-character deltas"
        )
        axis.grid(True, which="major", linewidth=0.4, alpha=0.6)
    axes[0].set_ylabel("CPU time per streamed argument (s, median)")
    handles, labels = axes[0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="lower center", ncol=4, fontsize=8, frameon=False)
    figure.suptitle(
        "Streaming one argument (records): preview, events and re-parse show a value after every delta; "
        "strict and pure parse at the end"
    )
    figure.tight_layout(rect=(0, 0.12, 1, 0.96))
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return True


# ------------------------------------------------------------------------------------------------
# The Markdown


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
    target_lines: list[str],
    plotted: bool,
    conditions: dict[str, Any],
    sections: Sequence[str] = (),
) -> str:
    """The whole report, as Markdown; ``target_lines`` are the verdicts of ``targets.judge``,
    ``sections`` the lines that follow them (the paired tables, the peers)."""
    run = Run(data)
    header, strict_tables, _ = strict_sections(data)
    lines = ["# tooljson benchmarks", "", *header]
    recorded = data.get("machine_info", {}).get("libraries", {})
    missing = [name for name in ALSO_VERSIONED if name not in recorded]
    if missing:
        lines.append(
            "- Also (versions installed where the report was written): "
            + ", ".join(f"{name} {_version(name)}" for name in missing)
        )
    if "load_before" in conditions:
        lines.append(
            f"- Load average (1 min) before and after the timed runs: {conditions['load_before']:.1f} and "
            f"{conditions['load_after']:.1f} on {conditions['cpus']} CPUs; wall time of the pytest run "
            f"{conditions['seconds'] / 60:.1f} min (then the paired timing and the memory measurements)"
        )
    arguments = conditions.get("arguments")
    if arguments:
        lines.append(
            f"- **A partial run**: `python benches/report.py {' '.join(arguments)}`; the sections it left out are "
            "missing below (`make bench-report` runs everything)."
        )
    phases = conditions.get("phases")
    if phases:
        cpu = conditions.get("phases_cpu", {})
        lines.append(
            f"- Wall time of the whole run (`make bench-report`): {sum(phases.values()) / 60:.1f} min ("
            + ", ".join(
                f"{name} {seconds / 60:.1f}" + (f" [CPU {cpu[name] / 60:.1f}]" if name in cpu else "")
                for name, seconds in phases.items()
            )
            + f"; [CPU time of the run and its processes]); load average (1 min) at the end "
            f"{conditions.get('load_end', 0.0):.1f}"
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
        "shuffled order, ratio within each round, each turn starting with an empty young generation of the garbage "
        "collector, so that no side pays for the young objects the other's turn left), which a change of load or a garbage "
        "collection over unrelated cached data disturbs much less than separate benchmark blocks. The ratio "
        "of the benchmark blocks' medians (tables below) is given beside it.",
        "",
        *target_lines,
        *(["", *sections] if sections else []),
        "",
        "## Preview after every delta (~100 KB)",
        "",
        "The last value shown must equal `json.loads` of the joined text. `sdk`: append to a bytes buffer and "
        "`jiter.from_json(buffer, partial_mode=True)` after every delta, as the SDK's stream helper does; "
        '`jiter-trailing`: the same with `partial_mode="trailing-strings"`; `jsonriver`: its async `parse` '
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
    lines += [
        "",
        "## One-shot parse of the whole text",
        "",
        "`tooljson.loads` against `json.loads`, ssrjson (`ssrjson.loads`), orjson (`orjson.loads` of the `str`, "
        "and of UTF-8 `bytes` already at hand), msgspec (`msgspec.json.decode`) and jiter (`jiter.from_json` of "
        "the `str` encoded), each on the same ~100 KB text, every call on a new `str` made before it (a reused "
        "`str` keeps its UTF-8 form once asked for it, which flatters every parser that reads UTF-8).",
    ]
    loads_order = tuple(LOADS)
    for group, benches in run.kind("loads").items():
        lines += ["", *ratio_table(benches, "json.loads", loads_order, f"### {group}")]
    lines += [
        "",
        "## Keys other than int",
        "",
        "Accumulate + finish with the call keyed by the int block index of Anthropic streams (`tooljson`), "
        "by an item id string and by a `(choice, index)` tuple, as other providers key calls.",
    ]
    keys_order = ("pure", "tooljson", "tooljson-string-key", "tooljson-tuple-key")
    for group, benches in run.kind("keys").items():
        lines += ["", *ratio_table(benches, "pure", keys_order, f"### {group}")]
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
