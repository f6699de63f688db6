"""The per-interpreter build against the stable-ABI (abi3) build, side by side in one process.

The extension is built either against CPython's full API, one wheel per interpreter (what is
installed), or against the stable ABI (the ``abi3`` cargo feature), one wheel for every CPython from
3.10. The full API lets the builder make objects without function calls where the stable ABI has
only functions (reference counts, list and tuple items, strings written in place): everything
``#[cfg(not(Py_LIMITED_API))]`` in ``src/python/`` is what the abi3 build goes without.

The abi3 build is compiled here with cargo into ``target/variants/abi3`` (once; cargo rebuilds only
what changed) and loaded beside the installed module under another package name. Both are timed in
interleaved rounds (``workloads.paired_ratios``): ``tooljson.loads`` on the whole text, and
accumulate + finish (a subclass of each build's ``ToolCallAccumulator``, so that both take the
same path) with 1–32-character deltas.

Two builds in one process were checked for a bias of the method itself: the same build loaded twice
under two names gave 1.00× for ``loads`` on the records and the tiny document (201 rounds, either
build loaded first), and two different builds gave the same ratio for accumulate + finish whichever
was loaded first (within 1%). The structural events are not timed here: on them, the build loaded
second was 4–9% slower even when both were the same build.

``python benches/bench_builds.py [ROUNDS]`` prints the installed build's time over the abi3 build's,
per workload (below 1: the installed build is faster). It measures nothing when the installed build
is the abi3 one itself.
"""

from __future__ import annotations

import importlib.util
import os
import statistics
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import tooljson._native
from workloads import LOADS_WORKLOADS, paired_ratios, workload

ROOT = Path(__file__).resolve().parents[1]
#: The workloads of the comparison: the one-shot texts and the small and medium documents.
WORKLOADS = (*LOADS_WORKLOADS, "tiny", "nested")


def installed_is_abi3() -> bool:
    """Whether the installed extension is the abi3 build (then there is nothing to compare)."""
    return ".abi3." in Path(tooljson._native.__file__ or "").name


def build_abi3() -> Path:
    """The abi3 build's shared library, compiled with the interpreter running this."""
    target = ROOT / "target" / "variants" / "abi3"
    env = {**os.environ, "CARGO_TARGET_DIR": str(target), "PYO3_PYTHON": sys.executable}
    subprocess.run(
        ["cargo", "build", "--release", "--quiet", "--features", "abi3"], cwd=ROOT, env=env, check=True
    )
    return target / "release" / "libtooljson.so"


def load(path: Path, package: str) -> ModuleType:
    """The extension at ``path``, imported as ``<package>._native`` (its init function's name)."""
    spec = importlib.util.spec_from_file_location(f"{package}._native", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def accumulate(native: ModuleType) -> Any:
    """Accumulate + finish through a subclass of ``native``'s accumulator (the fast ``add_delta``
    is made per subclass, as for ``tooljson.ToolCallAccumulator``)."""
    accumulator_type = type("ToolCallAccumulator", (native.ToolCallAccumulator,), {})

    def run(fragments: Sequence[str]) -> Any:
        accumulator = accumulator_type()
        accumulator.start(0, "write_file", "toolu_01")
        add_delta = accumulator.add_delta
        for piece in fragments:
            add_delta(0, piece)
        return accumulator.finish(0)["input"]

    return run


def measure_paired(rounds: int = 15) -> dict[str, dict[str, list[float]]]:
    """Per workload, the installed build's time over the abi3 build's in each round, for
    ``loads`` and ``accumulate`` (empty when the installed build is the abi3 one)."""
    if installed_is_abi3():
        return {}
    abi3 = load(build_abi3(), "tooljson_abi3")
    found: dict[str, dict[str, list[float]]] = {}
    for name in WORKLOADS:
        data = workload(name)
        text = data.text
        figures: dict[str, list[float]] = {}
        for what, make in (
            ("loads", lambda native: lambda _fragments: native.loads(text)),
            ("accumulate", accumulate),
        ):
            cases = {
                "abi3": (make(abi3), data.fragments["random"]),
                "full": (make(tooljson._native), data.fragments["random"]),
            }
            if make(abi3)(data.fragments["random"]) != make(tooljson._native)(data.fragments["random"]):
                raise AssertionError(f"the two builds disagree on {name}")
            figures[what] = paired_ratios(cases, "abi3", rounds=rounds)["full"]
        found[name] = figures
    return found


def measure_flat(rounds: int = 15) -> dict[str, list[float]]:
    """:func:`measure_paired` keyed as ``targets.measure_paired`` keys its figures:
    ``"builds|<workload>|<loads or accumulate>"``."""
    return {
        f"builds|{name}|{what}": values
        for name, figures in measure_paired(rounds).items()
        for what, values in figures.items()
    }


def reported(paired: dict[str, list[float]]) -> list[str]:
    """The report's lines: the installed build's time over the abi3 build's, per workload."""
    lines = []
    for name in WORKLOADS:
        cells = []
        for what, label in (("loads", "tooljson.loads"), ("accumulate", "accumulate+finish (random)")):
            values = paired.get(f"builds|{name}|{what}")
            if values:
                cells.append(
                    f"{label} {statistics.median(values):.2f}× (range {min(values):.2f}–{max(values):.2f}, "
                    f"{len(values)} rounds)"
                )
        if cells:
            lines.append(
                f"- reported: the per-interpreter build (full API) ÷ the abi3 build (the build without the "
                f"full-API techniques), {name}: {', '.join(cells)}; paired, both builds in one process"
            )
    return lines


def main(argv: list[str]) -> int:
    rounds = int(argv[0]) if argv else 15
    if installed_is_abi3():
        print("the installed extension is the abi3 build: nothing to compare", file=sys.stderr)
        return 1
    found = measure_paired(rounds)
    print(f"installed (full API) ÷ abi3 build, CPU time, paired, {rounds} rounds: median [range]")
    for name, figures in found.items():
        cells = [
            f"{what} {statistics.median(values):.2f}× [{values[0]:.2f}–{values[-1]:.2f}]"
            for what, values in figures.items()
        ]
        print(f"  {name}: " + ", ".join(cells))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
