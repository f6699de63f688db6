"""Turns pytest-benchmark JSON files into Markdown tables of medians and ratios.

    python benches/summary.py /tmp/bench.json [more runs.json ...]

One table per benchmark group, each with the ratio of every median to the group's baseline: the
pure accumulator for ``accumulate+finish``, ``json.loads`` for ``finish only``, and the smallest
size for ``scaling``. Then the product's targets, each marked met or not met from the same figures.

Given several files (runs of the same benchmarks), each ratio is computed within each run and the
tables show the median of those ratios with their range, which says how much to trust a figure on
a shared machine. Ratios are what to quote: absolute times depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: How far from proportional the per-byte cost may drift across sizes and still count as linear.
LINEAR_TOLERANCE = 1.25
#: Accumulate+finish over the pure accumulator, at most, by workload and fragmentation; every other
#: case must be no slower (1.0). The ~100 KB workloads must be clearly faster.
ACCUMULATE_LIMITS = {
    ("tiny", "random"): 0.9,
    ("nested", "random"): 0.9,
    ("records", "random"): 0.6,
    ("records", "char"): 0.55,
    ("records_escaped", "random"): 0.6,
    ("file_write", "random"): 0.6,
    ("file_write", "char"): 0.55,
    ("code_write", "random"): 0.6,
    ("prose_write", "random"): 0.6,
    ("latin_write", "random"): 0.6,
}
#: Workloads on which finish alone, after the last delta, must cost at most FINISH_LIMIT of json.loads
#: on the joined text: the value is ready when the last delta is in.
FINISH_TARGET_WORKLOADS = ("file_write", "code_write", "records", "records_escaped")
FINISH_LIMIT = 0.3
KIND_ORDER = ("accumulate", "finish", "scaling")
FRAGMENTATION_ORDER = ("random", "char")
IMPLEMENTATION_ORDER = ("tooljson", "pure", "json.loads", "orjson", "jiter", "sdk")
TIMER_NAMES = {
    "process_time": "CPU time",
    "time.process_time": "CPU time",
    "perf_counter": "wall clock",
    "time.perf_counter": "wall clock",
}


def format_time(seconds: float) -> str:
    """A duration with a unit that keeps three significant digits readable."""
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


def format_size(size: int) -> str:
    """A size in bytes, rounded as the workloads are named."""
    if size >= 1_000_000:
        return f"{size / 1_000_000:.2g} MB"
    if size >= 1_000:
        return f"{size / 1_000:.3g} KB"
    return f"{size} B"


def _order(sequence: Sequence[str], value: str) -> tuple[int, str]:
    return (sequence.index(value) if value in sequence else len(sequence), value)


@dataclass
class Case:
    """One benchmark (group, workload, implementation) with its median in each run."""

    group: str
    info: dict[str, Any]
    timer: str
    medians: dict[int, float] = field(default_factory=dict)

    @property
    def kind(self) -> str:
        return str(self.info["kind"])

    @property
    def implementation(self) -> str:
        return str(self.info["implementation"])

    @property
    def workload(self) -> str:
        return str(self.info["workload"])

    @property
    def size(self) -> int:
        return int(self.info["size_bytes"])


@dataclass
class Ratio:
    """A ratio computed within each run: its median over the runs and its range."""

    values: list[float]

    @property
    def median(self) -> float:
        return statistics.median(self.values)

    def __str__(self) -> str:
        text = f"{self.median:.2f}×"
        if len(self.values) > 1:
            text += f" ({min(self.values):.2f}–{max(self.values):.2f})"
        return text


def ratio(case: Case, baseline: Case) -> Ratio | None:
    """``case`` over ``baseline`` in every run that has both, or None when no run has."""
    runs = sorted(set(case.medians) & set(baseline.medians))
    if not runs:
        return None
    return Ratio([case.medians[run] / baseline.medians[run] for run in runs])


class Report:
    """The tooljson benchmarks of one or more runs, grouped as the benchmark files grouped them."""

    def __init__(self, runs: list[dict[str, Any]], baselines: dict[str, str]) -> None:
        self.runs = runs
        self.baselines = baselines
        self.groups: dict[str, dict[tuple[str, str], Case]] = {}
        self.workload_order: list[str] = []
        for run, data in enumerate(runs):
            for bench in data.get("benchmarks", []):
                info = bench.get("extra_info", {})
                # Other benchmark files (previews, events, the loop) have tables of their own in report.py.
                if info.get("kind") not in KIND_ORDER:
                    continue
                timer = str(bench.get("options", {}).get("timer", "?"))
                cases = self.groups.setdefault(bench["group"], {})
                key = (info["workload"], info["implementation"])
                case = cases.setdefault(key, Case(bench["group"], info, TIMER_NAMES.get(timer, timer)))
                case.medians[run] = float(bench["stats"]["median"])
                if info["workload"] not in self.workload_order:
                    self.workload_order.append(info["workload"])

    # --------------------------------------------------------------------------------------------
    # Lookups

    def find(self, kind: str, workload: str, fragmentation: str, implementation: str) -> Case | None:
        """The case with these attributes in a group without a variant (such as "gc off")."""
        for cases in self.groups.values():
            for case in cases.values():
                info = case.info
                if (info["kind"], info["workload"], info["fragmentation"], info["implementation"]) == (
                    kind,
                    workload,
                    fragmentation,
                    implementation,
                ):
                    return case
        return None

    def sorted_groups(self) -> list[str]:
        def key(group: str) -> tuple[Any, ...]:
            first = next(iter(self.groups[group].values()))
            scaling = first.kind == "scaling"
            return (
                _order(KIND_ORDER, first.kind),
                0 if scaling else self.workload_order.index(first.workload),
                group.split(":")[0] if scaling else "",
                _order(IMPLEMENTATION_ORDER, first.implementation) if scaling else (0, ""),
                _order(FRAGMENTATION_ORDER, str(first.info["fragmentation"])),
            )

        return sorted(self.groups, key=key)

    # --------------------------------------------------------------------------------------------
    # Output

    def header(self) -> list[str]:
        data = self.runs[0]
        machine = data.get("machine_info", {})
        cpu = machine.get("cpu", {})
        libraries = machine.get("libraries", {})
        processor = cpu.get("brand_raw", machine.get("processor", "?"))
        lines = [
            "# tooljson benchmarks",
            "",
            f"- Machine: {processor}, {cpu.get('count', '?')} logical CPUs, "
            f"{machine.get('system', '?')} {machine.get('release', '')}".rstrip(),
            f"- Python: {machine.get('python_implementation', '?')} {machine.get('python_version', '?')}",
        ]
        if libraries:
            versions = ", ".join(f"{name} {version}" for name, version in libraries.items() if version)
            lines.append(f"- Libraries: {versions}")
        dates = ", ".join(str(run.get("datetime", "?")) for run in self.runs)
        lines.append(f"- Runs: {len(self.runs)} ({dates}), pytest-benchmark {data.get('version', '?')}")
        lines.append(
            "- Ratios below 1 are faster than the baseline; with several runs, the median ratio and "
            "(its range over the runs)."
        )
        return lines

    def group_table(self, group: str) -> list[str]:
        cases = sorted(
            self.groups[group].values(), key=lambda case: _order(IMPLEMENTATION_ORDER, case.implementation)
        )
        first = cases[0]
        if first.kind == "scaling":
            return self._scaling_table(group, cases)
        baseline_name = self.baselines[first.kind]
        baseline = next((case for case in cases if case.implementation == baseline_name), None)
        deltas = f", {first.info['fragments']} deltas" if first.kind == "accumulate" else ""
        lines = [
            f"### {group}",
            "",
            f"{format_size(first.size)}{deltas}; baseline: {baseline_name}; timer: {first.timer}",
            "",
            f"| implementation | median | ratio to {baseline_name} |",
            "|---|---:|---:|",
        ]
        for case in cases:
            median = statistics.median(case.medians.values())
            case_ratio = ratio(case, baseline) if baseline else None
            lines.append(f"| {case.implementation} | {format_time(median)} | {case_ratio or 'n/a'} |")
        return lines

    def _scaling_table(self, group: str, cases: list[Case]) -> list[str]:
        cases = sorted(cases, key=lambda case: case.size)
        smallest = cases[0]
        lines = [
            f"### {group}",
            "",
            f"baseline: {smallest.workload} ({format_size(smallest.size)}); timer: {smallest.timer}; "
            "time ratio ÷ size ratio is 1.00 for a cost in proportion to the size",
            "",
            "| workload | size | median | time ratio | size ratio | time ratio ÷ size ratio |",
            "|---|---:|---:|---:|---:|---:|",
        ]
        for case in cases:
            size_ratio = case.size / smallest.size
            time_ratio = ratio(case, smallest)
            per_size = f"{time_ratio.median / size_ratio:.2f}" if time_ratio else "n/a"
            lines.append(
                f"| {case.workload} | {format_size(case.size)} | {format_time(statistics.median(case.medians.values()))} "
                f"| {time_ratio or 'n/a'} | {size_ratio:.2f}× | {per_size} |"
            )
        return lines

    def targets(self) -> list[str]:
        lines = ["## Targets", ""]
        accumulate = sorted(
            {
                (case.workload, str(case.info["fragmentation"]))
                for cases in self.groups.values()
                for case in cases.values()
                if case.kind == "accumulate"
            },
            key=lambda pair: (self.workload_order.index(pair[0]), _order(FRAGMENTATION_ORDER, pair[1])),
        )
        for workload, fragmentation in accumulate:
            ours = self.find("accumulate", workload, fragmentation, "tooljson")
            pure = self.find("accumulate", workload, fragmentation, "pure")
            found = ratio(ours, pure) if ours and pure else None
            if found is None:
                continue
            limit = ACCUMULATE_LIMITS.get((workload, fragmentation), 1.0)
            goal = f"≤ {limit:.2f}× pure" if limit < 1.0 else "no slower than pure"
            lines.append(
                _verdict(
                    found, limit, f"accumulate+finish {workload} ({fragmentation}): {goal}", "tooljson/pure"
                )
            )
        for workload in FINISH_TARGET_WORKLOADS:
            ours = self.find("finish", workload, "random", "tooljson")
            loads = self.find("finish", workload, "random", "json.loads")
            found = ratio(ours, loads) if ours and loads else None
            if found is None:
                continue
            lines.append(
                _verdict(
                    found,
                    FINISH_LIMIT,
                    f"finish only {workload}: ≤ {FINISH_LIMIT}× json.loads",
                    "tooljson/json.loads",
                )
            )
        for group in self.sorted_groups():
            cases = sorted(self.groups[group].values(), key=lambda case: case.size)
            if cases[0].kind != "scaling":
                continue
            per_byte = []
            for case in cases:
                found = ratio(case, cases[0])
                if found is not None:
                    per_byte.append(found.median * cases[0].size / case.size)
            spread = max(per_byte) / min(per_byte)
            steps = ", ".join(
                f"{format_size(a.size)}→{format_size(b.size)}: {ratio(b, a)}"
                for a, b in zip(cases, cases[1:])
            )
            met = "met" if spread <= LINEAR_TOLERANCE else "**not met**"
            lines.append(
                f"- {met}: {group}: cost in proportion to size (per-byte cost within {LINEAR_TOLERANCE:.2f}× "
                f"across sizes) — per-byte spread {spread:.2f}×; {steps}"
            )
        return lines

    def render(self) -> str:
        lines = self.header()
        titles = {
            "accumulate": "## accumulate+finish (start, every delta, finish)",
            "finish": "## finish only (deltas fed beforehand)",
            "scaling": "## scaling (records at doubling sizes)",
        }
        current_kind = None
        for group in self.sorted_groups():
            kind = next(iter(self.groups[group].values())).kind
            if kind != current_kind:
                lines += ["", titles.get(kind, f"## {kind}")]
                current_kind = kind
            lines += ["", *self.group_table(group)]
        lines += ["", *self.targets()]
        return "\n".join(lines) + "\n"


def _verdict(found: Ratio, limit: float, target: str, label: str) -> str:
    if found.median <= limit:
        met = "met" if max(found.values) <= limit else "met in the median run"
    else:
        met = "**not met**"
    return f"- {met}: {target} — {label} = {found}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("json_files", type=Path, nargs="+", help="files written by pytest --benchmark-json")
    parser.add_argument(
        "--accumulate-baseline", default="pure", help="implementation the accumulate ratios divide by"
    )
    parser.add_argument(
        "--finish-baseline", default="json.loads", help="implementation the finish ratios divide by"
    )
    args = parser.parse_args(argv)
    runs = [json.loads(path.read_text(encoding="utf-8")) for path in args.json_files]
    report = Report(runs, {"accumulate": args.accumulate_baseline, "finish": args.finish_baseline})
    if not report.groups:
        print("no tooljson benchmarks in these files", file=sys.stderr)
        return 1
    sys.stdout.write(report.render())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
