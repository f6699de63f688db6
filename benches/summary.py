"""Turns a pytest-benchmark JSON file into Markdown tables of medians and ratios.

    python benches/summary.py /tmp/bench.json

One table per benchmark group, each with the ratio of every median to the group's baseline: the
pure accumulator for ``accumulate+finish``, ``json.loads`` for ``finish only``, and the smallest
size for ``scaling``. Then the product's targets, each marked met or not met from the same figures.
Ratios are what to quote: absolute times depend on the machine and on what else it is running.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

#: How far from proportional a doubling may be and still count as linear.
LINEAR_TOLERANCE = 1.25
#: Workloads on which finish alone must cost at most half of json.loads.
FINISH_TARGET_WORKLOADS = ("file_write", "records")
#: Fragmentations reported in order.
FRAGMENTATION_ORDER = ("random", "char")
KIND_ORDER = ("accumulate", "finish", "scaling")
IMPLEMENTATION_ORDER = ("tooljson", "pure", "json.loads", "orjson", "jiter", "sdk")


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


def format_ratio(ratio: float) -> str:
    """A ratio, with two decimals."""
    return f"{ratio:.2f}×"


def _timer(bench: dict[str, Any]) -> str:
    timer = str(bench.get("options", {}).get("timer", "?"))
    return {"process_time": "CPU time", "time.process_time": "CPU time", "perf_counter": "wall clock", "time.perf_counter": "wall clock"}.get(timer, timer)


def _order(sequence: tuple[str, ...], value: str) -> tuple[int, str]:
    return (sequence.index(value) if value in sequence else len(sequence), value)


class Report:
    """The benchmarks of one JSON file, grouped as the benchmark file grouped them."""

    def __init__(self, data: dict[str, Any], accumulate_baseline: str, finish_baseline: str) -> None:
        self.data = data
        self.baselines = {"accumulate": accumulate_baseline, "finish": finish_baseline}
        self.groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
        self.workload_order: list[str] = []
        for bench in data.get("benchmarks", []):
            info = bench.get("extra_info", {})
            if "kind" not in info:
                continue
            self.groups[bench["group"]].append(bench)
            if info["workload"] not in self.workload_order:
                self.workload_order.append(info["workload"])

    # --------------------------------------------------------------------------------------------
    # Lookups

    def median(self, kind: str, workload: str, fragmentation: str, implementation: str) -> float | None:
        """The median of one case, or None when it was not run."""
        for benches in self.groups.values():
            for bench in benches:
                info = bench["extra_info"]
                if (info["kind"], info["workload"], info["fragmentation"], info["implementation"]) == (
                    kind,
                    workload,
                    fragmentation,
                    implementation,
                ):
                    return float(bench["stats"]["median"])
        return None

    def _group_key(self, group: str) -> tuple[Any, ...]:
        info = self.groups[group][0]["extra_info"]
        return (
            _order(KIND_ORDER, info["kind"]),
            self.workload_order.index(info["workload"]) if info["kind"] != "scaling" else 0,
            _order(IMPLEMENTATION_ORDER, info["implementation"]) if info["kind"] == "scaling" else (0, ""),
            _order(FRAGMENTATION_ORDER, info["fragmentation"]),
        )

    # --------------------------------------------------------------------------------------------
    # Output

    def header(self) -> list[str]:
        machine = self.data.get("machine_info", {})
        cpu = machine.get("cpu", {})
        libraries = machine.get("libraries", {})
        lines = [
            "# tooljson benchmarks",
            "",
            f"- Machine: {cpu.get('brand_raw', machine.get('processor', '?'))}, "
            f"{cpu.get('count', '?')} logical CPUs, {machine.get('system', '?')} {machine.get('release', '')}".rstrip(),
            f"- Python: {machine.get('python_implementation', '?')} {machine.get('python_version', '?')}",
        ]
        if libraries:
            versions = ", ".join(f"{name} {version}" for name, version in libraries.items() if version)
            lines.append(f"- Libraries: {versions}")
        lines.append(f"- Run: {self.data.get('datetime', '?')}, pytest-benchmark {self.data.get('version', '?')}")
        lines.append("- Ratios below 1 are faster than the baseline. Medians are of this run on this machine.")
        return lines

    def group_table(self, group: str) -> list[str]:
        benches = self.groups[group]
        info = benches[0]["extra_info"]
        kind = info["kind"]
        if kind == "scaling":
            return self._scaling_table(group, benches)
        baseline_name = self.baselines[kind]
        baseline = next(
            (b["stats"]["median"] for b in benches if b["extra_info"]["implementation"] == baseline_name),
            None,
        )
        deltas = f", {info['fragments']} deltas" if kind == "accumulate" else ""
        lines = [
            f"### {group}",
            "",
            f"{format_size(info['size_bytes'])}{deltas}; baseline: {baseline_name}; timer: {_timer(benches[0])}",
            "",
            f"| implementation | median | ratio to {baseline_name} |",
            "|---|---:|---:|",
        ]
        for bench in sorted(benches, key=lambda b: _order(IMPLEMENTATION_ORDER, b["extra_info"]["implementation"])):
            median = bench["stats"]["median"]
            ratio = format_ratio(median / baseline) if baseline else "n/a"
            lines.append(f"| {bench['extra_info']['implementation']} | {format_time(median)} | {ratio} |")
        return lines

    def _scaling_table(self, group: str, benches: list[dict[str, Any]]) -> list[str]:
        benches = sorted(benches, key=lambda b: b["extra_info"]["size_bytes"])
        smallest = benches[0]
        base_time = smallest["stats"]["median"]
        base_size = smallest["extra_info"]["size_bytes"]
        lines = [
            f"### {group}",
            "",
            f"baseline: {smallest['extra_info']['workload']} ({format_size(base_size)}); timer: {_timer(smallest)}; "
            "time ratio ÷ size ratio is 1.00 for a linear cost",
            "",
            "| workload | size | median | time ratio | size ratio | time ratio ÷ size ratio |",
            "|---|---:|---:|---:|---:|---:|",
        ]
        for bench in benches:
            info = bench["extra_info"]
            time_ratio = bench["stats"]["median"] / base_time
            size_ratio = info["size_bytes"] / base_size
            lines.append(
                f"| {info['workload']} | {format_size(info['size_bytes'])} | {format_time(bench['stats']['median'])} "
                f"| {format_ratio(time_ratio)} | {format_ratio(size_ratio)} | {time_ratio / size_ratio:.2f} |"
            )
        return lines

    def targets(self) -> list[str]:
        lines = ["## Targets", ""]
        accumulate = sorted(
            {(b["extra_info"]["workload"], b["extra_info"]["fragmentation"]) for bs in self.groups.values() for b in bs
             if b["extra_info"]["kind"] == "accumulate"},
            key=lambda wf: (self.workload_order.index(wf[0]), _order(FRAGMENTATION_ORDER, wf[1])),
        )
        for workload, fragmentation in accumulate:
            ours = self.median("accumulate", workload, fragmentation, "tooljson")
            pure = self.median("accumulate", workload, fragmentation, "pure")
            if ours is None or pure is None:
                continue
            ratio = ours / pure
            limit = 0.5 if workload == "records" else 1.0
            goal = "≥ 2× faster than pure" if limit == 0.5 else "no slower than pure"
            lines.append(self._verdict(ratio <= limit, f"accumulate+finish {workload} ({fragmentation}): {goal}",
                                       f"tooljson/pure = {format_ratio(ratio)}"))
        for workload in FINISH_TARGET_WORKLOADS:
            ours = self.median("finish", workload, "random", "tooljson")
            loads = self.median("finish", workload, "random", "json.loads")
            if ours is None or loads is None:
                continue
            ratio = ours / loads
            lines.append(self._verdict(ratio <= 0.5, f"finish only {workload}: ≤ 0.5× json.loads",
                                       f"tooljson/json.loads = {format_ratio(ratio)}"))
        for group in sorted(self.groups, key=self._group_key):
            benches = sorted(self.groups[group], key=lambda b: b["extra_info"]["size_bytes"])
            if benches[0]["extra_info"]["kind"] != "scaling":
                continue
            per_byte = [b["stats"]["median"] / b["extra_info"]["size_bytes"] for b in benches]
            worst = max(per_byte) / min(per_byte)
            steps = ", ".join(
                f"{format_size(a['extra_info']['size_bytes'])}→{format_size(b['extra_info']['size_bytes'])}: "
                f"{format_ratio(b['stats']['median'] / a['stats']['median'])}"
                for a, b in zip(benches, benches[1:])
            )
            lines.append(self._verdict(worst <= LINEAR_TOLERANCE,
                                       f"{group}: time proportional to size (per-byte cost within "
                                       f"{LINEAR_TOLERANCE:.2f}×)", f"per-byte spread {worst:.2f}×; {steps}"))
        return lines

    @staticmethod
    def _verdict(met: bool, target: str, figures: str) -> str:
        return f"- {'met' if met else '**not met**'}: {target} — {figures}"

    def render(self) -> str:
        lines = self.header()
        current_kind = None
        titles = {
            "accumulate": "## accumulate+finish (start, every delta, finish)",
            "finish": "## finish only (deltas fed beforehand)",
            "scaling": "## scaling (records at doubling sizes)",
        }
        for group in sorted(self.groups, key=self._group_key):
            kind = self.groups[group][0]["extra_info"]["kind"]
            if kind != current_kind:
                lines += ["", titles.get(kind, kind)]
                current_kind = kind
            lines += ["", *self.group_table(group)]
        lines += ["", *self.targets()]
        return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("json_file", type=Path, help="a file written by pytest --benchmark-json")
    parser.add_argument("--accumulate-baseline", default="pure", help="implementation the accumulate ratios divide by")
    parser.add_argument("--finish-baseline", default="json.loads", help="implementation the finish ratios divide by")
    args = parser.parse_args(argv)
    data = json.loads(args.json_file.read_text(encoding="utf-8"))
    report = Report(data, args.accumulate_baseline, args.finish_baseline)
    if not report.groups:
        print(f"{args.json_file}: no tooljson benchmarks in this file", file=sys.stderr)
        return 1
    sys.stdout.write(report.render())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
