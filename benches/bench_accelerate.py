"""``tooljson.accelerate(client).messages.stream(...)`` against the SDK's helper, over loopback.

Two ~100 KB tool inputs, each served by the stand-in in its own process to the real ``anthropic``
client, in fragments of 1 to 32 characters: ``large_file_write`` (one long string) and ``records``
(the 100 KB records of ``workloads.py``: many small values). Every event of the stream is consumed,
then ``get_final_message()``; the timer is the client's CPU time (``time.process_time``; the server
is another process). In groups ``helper stream: <workload>``:

- ``sdk-helper-stream``: ``client.messages.stream(...)``, the SDK re-parsing the input on every delta;
- ``accelerated``: the same request on ``tooljson.accelerate(client)``;
- ``sdk-raw-events``: ``client.messages.create(..., stream=True)`` iterated, parsing nothing: the
  SDK's decoding and model construction per event, the floor under any helper stream.

``test_paired_client_cpu`` times the three in interleaved rounds (shuffled order, the ratio within
each round), steadier on a shared machine than separate blocks. ``python benches/bench_accelerate.py``
prints those ratios over more rounds, as the README quotes them. Every run checks the parsed input.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anthropic
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import command_line
import tooljson
from standin_workloads import (
    FRAGMENT_SIZES,
    served,
    skip_quadratic_unless_timed,
    workload_scenario,
    workload_text,
)
from workloads import paired_ratios

WORKLOADS = ("large_file_write", "records")
IMPLEMENTATIONS = ("sdk-helper-stream", "accelerated", "sdk-raw-events")


class Endpoint:
    """One workload's server, a client of it, its accelerated copy and the expected input."""

    def __init__(self, name: str, base_url: str) -> None:
        self.name = name
        self.client = anthropic.Anthropic(base_url=base_url, api_key="stand-in", max_retries=0)
        self.accelerated = tooljson.accelerate(self.client)
        self.request = workload_scenario(name).first_request()
        self.text = workload_text(name)

    def helper(self, client: Any) -> Any:
        """Consume every event of the helper stream, then return the tool input of the final message."""
        with client.messages.stream(**self.request) as stream:
            for _ in stream:
                pass
            message = stream.get_final_message()
        return next(block.input for block in message.content if block.type == "tool_use")

    def raw(self) -> int:
        count = 0
        for _ in self.client.messages.create(stream=True, **self.request):
            count += 1
        return count

    def run(self, implementation: str) -> Any:
        if implementation == "sdk-helper-stream":
            return self.helper(self.client)
        if implementation == "accelerated":
            return self.helper(self.accelerated)
        return self.raw()

    def check(self, implementation: str, result: Any) -> None:
        # The raw floor counts its events (or chunks); the helpers return the parsed value.
        if implementation.startswith("sdk-raw-"):
            assert result > len(self.text) // max(FRAGMENT_SIZES)
        else:
            assert result == json.loads(self.text)


@pytest.fixture(scope="module")
def endpoints() -> Iterator[dict[str, Endpoint]]:
    with served(WORKLOADS[0]) as first, served(WORKLOADS[1]) as second:
        found = {WORKLOADS[0]: Endpoint(WORKLOADS[0], first), WORKLOADS[1]: Endpoint(WORKLOADS[1], second)}
        try:
            yield found
        finally:
            for endpoint in found.values():
                endpoint.client.close()


@pytest.mark.benchmark(timer=time.process_time)
@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
@pytest.mark.parametrize("name", WORKLOADS)
def test_helper_stream(
    benchmark: Any, endpoints: dict[str, Endpoint], name: str, implementation: str
) -> None:
    skip_quadratic_unless_timed(benchmark, implementation, name, ("records",))
    endpoint = endpoints[name]
    benchmark.group = f"helper stream: {name}"
    benchmark.extra_info.update(
        workload=name,
        implementation=implementation,
        size_bytes=len(endpoint.text.encode()),
        fragment_sizes=list(FRAGMENT_SIZES),
    )
    endpoint.check(implementation, benchmark(endpoint.run, implementation))


def measure(
    endpoints: dict[str, Any], rounds: int, implementations: tuple[str, ...] = IMPLEMENTATIONS
) -> dict[str, dict[str, list[float]]]:
    """Per workload, each implementation's client CPU time over the SDK helper's, per round (sorted).
    An endpoint is anything with ``run(implementation)`` and ``check(implementation, result)``."""
    found = {}
    for name, endpoint in endpoints.items():
        cases = {label: (_runner(endpoint, label), ()) for label in implementations}
        found[name] = paired_ratios(cases, "sdk-helper-stream", rounds=rounds)
    return found


def _runner(endpoint: Any, implementation: str) -> Any:
    def run(_: Any) -> None:
        endpoint.check(implementation, endpoint.run(implementation))

    return run


def describe(
    found: dict[str, dict[str, list[float]]],
    *,
    baseline: str = "SDK helper",
    floor: str = "sdk-raw-events",
    targets: dict[str, float] | None = None,
) -> list[str]:
    """A Markdown table, one row per workload: the accelerated side and the floor (the SDK's raw
    stream, ``floor``) as ratios of the ``baseline`` (median and range), and the accelerated side over
    the floor; the target beside the first, where one is given."""
    floor_name = floor.removeprefix("sdk-").replace("-", " ")
    target_head = " (target)" if targets else ""
    lines = [
        f"| workload | accelerated ÷ {baseline}{target_head} | {floor_name} ÷ {baseline} | accelerated ÷ {floor_name} |",
        "|---|---:|---:|---:|",
    ]
    for name, ratios in found.items():
        ours, raw = ratios["accelerated"], ratios[floor]
        over_raw = sorted(a / r for a, r in zip(ours, raw))
        target = f" (≤ {targets[name]}×)" if targets else ""
        lines.append(
            f"| {name} | {median_range(ours)}{target} | {median_range(raw)} | {median_range(over_raw)} |"
        )
    return lines


def median_range(values: list[float]) -> str:
    """A sorted list of ratios as its median and range."""
    return f"{statistics.median(values):.3f}× ({values[0]:.3f}–{values[-1]:.3f})"


def paired_client_cpu(
    request: pytest.FixtureRequest,
    capsys: pytest.CaptureFixture[str],
    measured: Callable[[int], dict[str, dict[str, list[float]]]],
    table: Callable[[dict[str, dict[str, list[float]]]], list[str]],
    baseline: str,
) -> None:
    """The body of each client benchmark's ``test_paired_client_cpu``: under ``make bench`` only, five
    paired rounds of ``measured(rounds)``, the accelerated side faster than the baseline on every
    workload, and the ``table`` printed."""
    if request.config.getoption("benchmark_disable") and not request.config.getoption("benchmark_enable"):
        # A measurement, not a check: the benchmark's own test already runs and checks each path once.
        pytest.skip("timed only with the benchmarks on (make bench)")
    rounds = 5
    found = measured(rounds)
    for ratios in found.values():
        assert statistics.median(ratios["accelerated"]) < 1.0
    with capsys.disabled():
        print(f"\nclient CPU, paired rounds ({rounds}), time ÷ {baseline}:")
        print("\n".join(table(found)))


def print_paired(
    found: dict[str, dict[str, list[float]]], rounds: int, table: list[str], note: str = ""
) -> None:
    """What each client benchmark prints when run as a script."""
    print(f"Client CPU time over loopback, median of {rounds} paired rounds (range{note}):\n")
    print("\n".join(table))


def test_paired_client_cpu(
    endpoints: dict[str, Endpoint], request: pytest.FixtureRequest, capsys: pytest.CaptureFixture[str]
) -> None:
    paired_client_cpu(
        request, capsys, lambda rounds: measure(endpoints, rounds), describe, "the SDK helper's"
    )


def main() -> None:
    rounds = command_line.rounds(7, __doc__).rounds
    with served(WORKLOADS[0]) as first, served(WORKLOADS[1]) as second:
        endpoints = {
            WORKLOADS[0]: Endpoint(WORKLOADS[0], first),
            WORKLOADS[1]: Endpoint(WORKLOADS[1], second),
        }
        found = measure(endpoints, rounds)
    print_paired(found, rounds, describe(found))


if __name__ == "__main__":
    main()
