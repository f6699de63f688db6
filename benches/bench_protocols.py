"""What the UI protocols cost: one 100 KB call's events as AI SDK parts, against reading them alone.

Each workload's argument text is streamed as Messages events (``bench_otel.events``: fragments of 1
to 32 characters) and, in groups ``protocols: <workload>``:

- ``reader``: fed to a new :class:`tooljson.TurnReader` (what every other view of the stream costs);
- ``ai-sdk-parts``: turned into the AI SDK UI message stream's parts by
  :func:`tooljson.protocols.ai_sdk.parts` with its default ``preview_interval`` (0.05 s), every part
  taken;
- ``ai-sdk-parts-every-delta``: the same with ``preview_interval=0`` (a delta part and a preview
  snapshot after every event), reported without a bound.

``test_paired_cpu`` (under ``make bench``) times them in interleaved rounds
(``workloads.paired_ratios``: CPU time, shuffled order, the ratio within each round) and asserts
that producing the parts of a 100 KB call costs at most 1.2× reading it.
``python benches/bench_protocols.py [ROUNDS]`` prints the ratios.
"""

from __future__ import annotations

import statistics
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import command_line
import tooljson
from bench_otel import events
from tooljson.protocols import ai_sdk
from workloads import paired_ratios, workload

WORKLOADS = ("records", "file_write")
IMPLEMENTATIONS = ("reader", "ai-sdk-parts", "ai-sdk-parts-every-delta")
MAX_RATIO = 1.2
ROUNDS = 51


def read(stream: Sequence[Any]) -> Any:
    reader = tooljson.TurnReader()
    feed = reader.feed
    for event in stream:
        feed(event)
    return reader.calls[0].input


def _parts(interval: float) -> Callable[[Sequence[Any]], Any]:
    def produce(stream: Sequence[Any]) -> Any:
        value = None
        for part in ai_sdk.parts(stream, preview_interval=interval, message_id="m"):
            if part["type"] == "tool-input-available":
                value = part["input"]
        return value

    return produce


CASES: dict[str, Callable[[Sequence[Any]], Any]] = {
    "reader": read,
    "ai-sdk-parts": _parts(0.05),
    "ai-sdk-parts-every-delta": _parts(0),
}


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
@pytest.mark.parametrize("name", WORKLOADS)
def test_one_call(benchmark: Any, name: str, implementation: str) -> None:
    stream = events(name)
    benchmark.group = f"protocols: {name}"
    benchmark.extra_info.update(workload=name, implementation=implementation, size_bytes=workload(name).size)
    assert benchmark(CASES[implementation], stream) == workload(name).expected()


def measure(rounds: int, names: Sequence[str] = WORKLOADS) -> dict[str, dict[str, list[float]]]:
    """Per workload, each implementation's CPU time over the reader's, per round (sorted)."""
    found = {}
    for name in names:
        stream = events(name)
        cases = {label: (CASES[label], stream) for label in IMPLEMENTATIONS}
        found[name] = paired_ratios(cases, "reader", rounds=rounds)
    return found


def _median_quartiles(values: list[float]) -> str:
    return f"{statistics.median(values):.3f}× [{values[len(values) // 4]:.3f}–{values[3 * len(values) // 4]:.3f}]"


def table(found: dict[str, dict[str, list[float]]]) -> list[str]:
    lines = [
        "| workload | parts ÷ reader | parts, preview_interval=0 ÷ reader |",
        "|---|---:|---:|",
    ]
    for name, ratios in found.items():
        cells = [_median_quartiles(ratios[label]) for label in IMPLEMENTATIONS[1:]]
        lines.append(f"| {name} ({workload(name).size // 1000} KB) | " + " | ".join(cells) + " |")
    return lines


def test_paired_cpu(request: pytest.FixtureRequest, capsys: pytest.CaptureFixture[str]) -> None:
    # make bench passes --benchmark-enable after the default options' --benchmark-disable: both are set.
    if request.config.getoption("benchmark_disable") and not request.config.getoption("benchmark_enable"):
        pytest.skip("timed only with the benchmarks on (make bench)")
    found = measure(ROUNDS)
    with capsys.disabled():
        print(f"\nCPU time per response, paired rounds ({ROUNDS}): median [quartiles]")
        print("\n".join(table(found)))
    for name in WORKLOADS:
        assert statistics.median(found[name]["ai-sdk-parts"]) <= MAX_RATIO


if __name__ == "__main__":
    rounds = command_line.rounds(ROUNDS, __doc__).rounds
    print(f"CPU time per response, paired rounds ({rounds}): median [quartiles]\n")
    print("\n".join(table(measure(rounds))))
