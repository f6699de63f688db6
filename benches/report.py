"""Runs every benchmark suite and writes ``benches/REPORT.md`` and ``benches/scaling.png``.

    python benches/report.py                       # run the suites, then write (the header says how long)
    python benches/report.py --from run.json       # write from a saved --benchmark-json file
    python benches/report.py -- -k preview         # pass arguments on to pytest

The suites of ``SUITES`` (``bench_strict``, ``bench_preview``, ``bench_loop``, ``bench_ui``,
``bench_memory``, ``bench_calls``, ``bench_peers``'s checks) run in one pytest process with benchmarks
enabled and a JSON output; the memory figures come
from ``bench_memory`` (fresh interpreters, after the timed runs), the paired figures of the targets
from ``targets.measure_paired``, those of the features around the parser (typed values, other
providers, ``accelerate``, the proxy, the drop-in functions, the frameworks, Gemini's stream,
OpenTelemetry, instructor in ``.venv-instructor``) from ``features.measure``, the comparison with
every peer from ``bench_peers.measure`` (in a process of its own). The work is split by job: this file
runs, ``targets.py``, ``features.py`` and ``bench_peers.py`` measure in pairs and judge, ``render.py``
draws the plot and writes the Markdown. The wall time of each phase goes into the report's header.

Ratios are what to quote: the absolute times depend on the machine and on its load.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench_memory  # noqa: E402
import bench_peers  # noqa: E402
import features  # noqa: E402
import render  # noqa: E402
import targets  # noqa: E402

DEFAULT_JSON = HERE.parent / ".benchmarks" / "report.json"


#: The suites whose benchmark blocks the report's tables read. The other bench files (the SDK
#: helpers, the runner, the proxy, the frameworks, Gemini, OpenTelemetry, instructor, the typed
#: values, the providers) are measured in pairs by ``features.measure`` for the report; their blocks
#: run under ``make bench``, and once each under ``make test``. Running them here as well took
#: the report past the 20 minutes it is meant to take on the project's 2-core machine.
SUITES = (
    "bench_strict.py",
    "bench_preview.py",
    "bench_loop.py",
    "bench_ui.py",
    "bench_memory.py",
    "bench_calls.py",
    "bench_peers.py",
)
#: Seconds each benchmark block that pytest-benchmark times by itself aims at (its default is 1 s;
#: blocks with a minimum of rounds take at least that many). The targets are judged on paired
#: rounds, not on the blocks.
BLOCK_SECONDS = 0.25


def run_suites(json_path: Path, pytest_args: list[str]) -> tuple[int, dict[str, Any]]:
    json_path.parent.mkdir(parents=True, exist_ok=True)
    command = [
        sys.executable,
        "-m",
        "pytest",
        *(str(HERE / suite) for suite in SUITES),
        "-q",
        "--benchmark-enable",
        f"--benchmark-max-time={BLOCK_SECONDS}",
        f"--benchmark-json={json_path}",
        "--benchmark-columns=median,rounds",
        "--benchmark-sort=name",
        *pytest_args,
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


def measure_peers(path: Path) -> dict[str, Any]:
    """``bench_peers.measure`` in a new interpreter, which holds only its own streams: in this one,
    every workload made by the phases before it would be walked by each full garbage collection."""
    subprocess.run([sys.executable, str(HERE / "bench_peers.py"), "--json", str(path)], check=True)
    found: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return found


class Phases:
    """The wall time of each phase of the run, in order, and the CPU time this process and the
    processes it waited for spent in it (on a loaded machine the wall time grows, the CPU time much less)."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self.cpu_seconds: dict[str, float] = {}
        self._last = time.monotonic()
        self._last_cpu = self._cpu()

    @staticmethod
    def _cpu() -> float:
        own = resource.getrusage(resource.RUSAGE_SELF)
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime

    def done(self, name: str) -> None:
        now, cpu = time.monotonic(), self._cpu()
        self.seconds[name] = now - self._last
        self.cpu_seconds[name] = cpu - self._last_cpu
        self._last, self._last_cpu = now, cpu


def measure_memory() -> dict[str, Any]:
    streaming = bench_memory.measure_streaming()
    streaming += bench_memory.measure_streaming(("pure", "tooljson", "tooljson-preview"), "char")
    return {"streaming": streaming, "idle": bench_memory.measure_idle()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--from", dest="from_json", type=Path, help="write from this --benchmark-json file, run nothing"
    )
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON, help="where the run's JSON goes")
    parser.add_argument("--no-memory", action="store_true", help="leave the memory section out")
    parser.add_argument("--no-paired", action="store_true", help="leave out the paired timing of the targets")
    parser.add_argument("--no-features", action="store_true", help="leave out the features around the parser")
    parser.add_argument("--no-peers", action="store_true", help="leave out the comparison with every peer")
    parser.add_argument("pytest_args", nargs="*", help="passed on to pytest (after --)")
    args = parser.parse_args(argv)
    code = 0
    conditions: dict[str, Any] = {}
    phases = Phases()
    if args.from_json:
        json_path = args.from_json
    else:
        json_path = args.json
        code, conditions = run_suites(json_path, args.pytest_args)
        phases.done("benchmark blocks")
        if not json_path.exists():
            print("pytest wrote no benchmark JSON", file=sys.stderr)
            return code or 1
    # The benchmark blocks' JSON (tens of MB as Python objects) is loaded only after the paired
    # measurements: in the process, it would make every full garbage collection of theirs walk it,
    # which falls on the side that allocates most (jiter re-parsing a growing buffer sets off 22
    # full collections per 100 KB stream). jiter ÷ from_json on the growing records read 59–60× in a
    # process holding the last run's JSON and 50–51× in one without it (two processes each).
    memory_path = json_path.with_name(json_path.stem + "-memory.json")
    memory = None
    if not args.no_memory:
        if args.from_json and memory_path.exists():
            memory = json.loads(memory_path.read_text(encoding="utf-8"))
        elif not args.from_json and platform.system() == "Linux":
            memory = measure_memory()
            memory_path.write_text(json.dumps(memory, indent=1), encoding="utf-8")
            phases.done("memory")
    paired_path = json_path.with_name(json_path.stem + "-paired.json")
    paired: dict[str, list[float]] = {}
    if not args.no_paired:
        if args.from_json:
            paired = json.loads(paired_path.read_text(encoding="utf-8")) if paired_path.exists() else {}
        else:
            paired = targets.measure_paired()
            paired_path.write_text(json.dumps(paired, indent=1), encoding="utf-8")
            phases.done("paired targets")
    features_path = json_path.with_name(json_path.stem + "-features.json")
    found: dict[str, Any] = {}
    if not args.no_features:
        if args.from_json:
            found = json.loads(features_path.read_text(encoding="utf-8")) if features_path.exists() else {}
        else:
            found = features.measure()
            features_path.write_text(json.dumps(found, indent=1), encoding="utf-8")
            phases.done("features")
    peers_path = json_path.with_name(json_path.stem + "-peers.json")
    peers: dict[str, Any] = {}
    if not args.no_peers:
        if args.from_json:
            peers = json.loads(peers_path.read_text(encoding="utf-8")) if peers_path.exists() else {}
        else:
            peers = measure_peers(peers_path)
            phases.done("peers")
    conditions_path = json_path.with_name(json_path.stem + "-conditions.json")
    if conditions:
        partial = args.no_memory or args.no_paired or args.no_features or args.no_peers or args.pytest_args
        if partial:
            conditions["arguments"] = list(argv if argv is not None else sys.argv[1:])
        conditions["phases"] = phases.seconds
        conditions["phases_cpu"] = phases.cpu_seconds
        conditions["load_end"] = os.getloadavg()[0]
        conditions_path.write_text(json.dumps(conditions), encoding="utf-8")
    elif conditions_path.exists():
        conditions = json.loads(conditions_path.read_text(encoding="utf-8"))
    else:
        conditions = {"arguments": list(argv if argv is not None else sys.argv[1:])}
    data = json.loads(json_path.read_text(encoding="utf-8"))
    plotted = render.plot(render.Run(data), render.PLOT)
    verdicts = targets.judge(data, paired)
    if found:
        verdicts += ["", "### The features around the parser", "", *features.judge(found)]
    sections = []
    tables = targets.paired_tables(paired)
    if tables:
        sections += [
            "## The paired figures",
            "",
            "The paired figures of the targets above in tables: the median over the rounds, and the "
            "quartiles in brackets. Every whole-text call is given a new `str`; a parser whose value is not "
            "`json.loads`' is not timed.",
            "",
            *tables,
            "",
        ]
    if peers:
        sections += bench_peers.markdown(peers)
    render.REPORT.write_text(
        render.render(data, memory, verdicts, plotted, conditions, sections), encoding="utf-8"
    )
    written = render.REPORT.relative_to(HERE.parent)
    print(f"wrote {written}" + (f" and {render.PLOT.relative_to(HERE.parent)}" if plotted else ""))
    if code:
        print(f"pytest exited with {code}: some benchmark failed its check", file=sys.stderr)
    return code


if __name__ == "__main__":
    raise SystemExit(main())
