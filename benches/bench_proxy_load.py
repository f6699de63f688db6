"""The proxy under load and over time: what it adds to concurrent streams, its memory, a long soak.

- **Concurrency**: ``N`` concurrent streamed responses (each ≈20 KB of tool input in fragments of 1 to
  32 characters, spread over ``SECONDS`` by a paced upstream in its own process), read by httpx in
  this process, directly and through ``python -m tooljson proxy`` (its own process, drawing the live
  view on a pseudo-terminal), in alternating rounds. Per stream: its wall time from request to last
  byte. Reported per level (1, 50, 200): the proxy's per-stream wall time over direct at the median
  and at p99 (the median of the rounds' ratios), the time it adds at the median, its CPU seconds per
  relayed megabyte, and the peak resident memory of all its processes (the proxy and its view).
- **Soak**: sequential short streamed requests through the proxy; resident memory and open file
  descriptors after the first 1,000 and at the end.

Run it as a script (``python benches/bench_proxy_load.py [ROUNDS] [SOAK]``). Under ``make bench`` the
soak is 100,000 requests and the concurrency levels are the full ones; plain pytest runs a short
version of each to check that the measurement works.
"""

from __future__ import annotations

import asyncio
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from bench_proxy import Proxy  # noqa: E402
from proxy_upstream import children, memory_kb, open_fds  # noqa: E402

SECONDS = 3.0
LEVELS = (1, 50, 200)
REQUEST = {"model": "m", "max_tokens": 10, "stream": True, "messages": [{"role": "user", "content": "go"}]}
UPSTREAM = Path(__file__).resolve().parent.parent / "tests" / "proxy_upstream.py"


class Upstream:
    def __init__(self, seconds: float, size: int = 20_000, seeds: int = 0) -> None:
        # The streams of the seeds used are made before any is measured: made at a first request,
        # they would cost the side measured first seconds of the upstream's CPU.
        self.process = subprocess.Popen(
            [sys.executable, str(UPSTREAM), str(seconds), str(size), str(seeds)], stdout=subprocess.PIPE, text=True
        )
        assert self.process.stdout is not None
        self.url = f"http://127.0.0.1:{self.process.stdout.readline().strip()}"

    def close(self) -> None:
        self.process.kill()
        self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()


def _cpu_seconds(pid: int) -> float:
    """The CPU time of a process and its children (the proxy and its view), in seconds."""
    total = 0
    for each in [pid, *children(pid)]:
        fields = Path(f"/proc/{each}/stat").read_text().rsplit(") ", 1)[1].split()
        total += int(fields[11]) + int(fields[12])  # utime + stime, in clock ticks of 1/100 s
    return total / 100.0


async def _batch(base: str, streams: int) -> tuple[list[float], int]:
    """Each stream's wall time, and the bytes received in all."""
    limits = httpx.Limits(max_connections=streams, max_keepalive_connections=streams)
    received = 0
    async with httpx.AsyncClient(timeout=120, limits=limits) as client:

        async def one(seed: int) -> float:
            nonlocal received
            started = time.monotonic()
            async with client.stream("POST", f"{base}/v1/messages?seed={seed}", json=REQUEST) as response:
                async for data in response.aiter_raw():
                    received += len(data)
            return time.monotonic() - started

        times = await asyncio.gather(*(one(seed) for seed in range(streams)))
    return list(times), received


def _p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def measure_concurrency(levels: tuple[int, ...] = LEVELS, rounds: int = 3, seconds: float = SECONDS) -> dict[int, dict[str, float]]:
    upstream = Upstream(seconds, seeds=max(levels))
    proxy = Proxy(upstream.url)
    found: dict[int, dict[str, float]] = {}
    try:
        # A first batch each way loads what relaying needs (the proxy's HTTP client, the readers).
        for base in (upstream.url, proxy.url):
            asyncio.run(_batch(base, min(levels)))
        for streams in levels:
            ratios: dict[str, list[float]] = {"median": [], "p99": [], "added": [], "cpu_per_mb": []}
            for _ in range(rounds):
                times: dict[str, list[float]] = {}
                for side in random.sample(["direct", "proxy"], 2):
                    cpu = _cpu_seconds(proxy.process.pid)
                    times[side], received = asyncio.run(_batch(upstream.url if side == "direct" else proxy.url, streams))
                    if side == "proxy":
                        ratios["cpu_per_mb"].append((_cpu_seconds(proxy.process.pid) - cpu) / (received / 1e6))
                ratios["median"].append(statistics.median(times["proxy"]) / statistics.median(times["direct"]))
                ratios["p99"].append(_p99(times["proxy"]) / _p99(times["direct"]))
                ratios["added"].append((statistics.median(times["proxy"]) - statistics.median(times["direct"])) * 1000)
            found[streams] = {name: statistics.median(values) for name, values in ratios.items()}
            found[streams]["peak_mb"] = memory_kb(proxy.process.pid)[1] / 1024
    finally:
        proxy.close()
        upstream.close()
    return found


def measure_soak(requests: int) -> dict[str, float]:
    upstream = Upstream(0.0, size=600, seeds=50)
    proxy = Proxy(upstream.url)
    readings: dict[str, float] = {}
    try:
        with httpx.Client(timeout=30) as client:
            started = time.monotonic()
            for number in range(1, requests + 1):
                with client.stream("POST", f"{proxy.url}/v1/messages?seed={number % 50}", json=REQUEST) as response:
                    for _ in response.iter_raw():
                        pass
                if number == min(1000, requests // 2):
                    readings["early_requests"] = number
                    readings["early_mb"] = memory_kb(proxy.process.pid)[0] / 1024
                    readings["early_fds"] = open_fds(proxy.process.pid)
            readings["seconds"] = time.monotonic() - started
        time.sleep(0.3)
        readings["requests"] = requests
        readings["end_mb"] = memory_kb(proxy.process.pid)[0] / 1024
        readings["end_fds"] = open_fds(proxy.process.pid)
    finally:
        proxy.close()
        upstream.close()
    return readings


def describe(concurrency: dict[int, dict[str, float]], soak: dict[str, float] | None = None) -> list[str]:
    lines = []
    for streams, figures in concurrency.items():
        lines.append(
            f"- reported: proxy with {streams} concurrent stream{'s' if streams > 1 else ''} (≈20 KB of tool input "
            f"each over {SECONDS:g} s, live view drawing): per-stream wall time {figures['median']:.3f}× direct at the "
            f"median, {figures['p99']:.3f}× at p99; added {figures['added']:.0f} ms at the median; proxy CPU "
            f"{figures['cpu_per_mb']:.2f} s per relayed MB; peak memory of the proxy and its view {figures['peak_mb']:.0f} MB"
        )
    if soak:
        lines.append(
            f"- reported: proxy soak, {soak['requests']:,.0f} sequential streamed requests: memory "
            f"{soak['early_mb']:.1f} MB after {soak['early_requests']:,.0f}, {soak['end_mb']:.1f} MB at the end; open "
            f"descriptors {soak['early_fds']:.0f} then {soak['end_fds']:.0f}"
        )
    return lines


def _full(request: pytest.FixtureRequest) -> bool:
    """Whether benchmarks are on (``make bench``): the full sizes then, a short check otherwise."""
    return bool(request.config.getoption("benchmark_enable", False))


def test_the_concurrency_measurement_runs(request: pytest.FixtureRequest) -> None:
    full = _full(request)
    figures = measure_concurrency(LEVELS if full else (1, 10), rounds=3 if full else 1, seconds=SECONDS if full else 1.0)
    print("\n".join(describe(figures)))
    assert all(level["median"] > 0 and level["peak_mb"] > 0 for level in figures.values())


@pytest.mark.parametrize("requests", [100_000])
def test_the_soak(request: pytest.FixtureRequest, requests: int) -> None:
    soak = measure_soak(requests if _full(request) else 300)
    print("\n".join(describe({}, soak)))
    # Flat over the run: no per-request state left behind.
    assert soak["end_mb"] - soak["early_mb"] < 20
    # No descriptor left behind (one fewer is a kept-alive connection the other side closed).
    assert soak["end_fds"] <= soak["early_fds"]


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    soak = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    print("\n".join(describe(measure_concurrency(rounds=rounds), measure_soak(soak) if soak else None)), flush=True)


if __name__ == "__main__":
    main()
