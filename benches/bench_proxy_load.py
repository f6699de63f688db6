"""The proxy under load and over time: what it adds to concurrent streams, its memory, a long soak.

- **Concurrency**: ``N`` concurrent streamed responses (each ≈20 KB of tool input in fragments of 1 to
  32 characters, spread over ``SECONDS`` by a paced upstream in its own process), read in this
  process, directly and through ``python -m tooljson proxy`` (its own process, drawing the live view
  on a pseudo-terminal), in alternating rounds: the same client, the same upstream and the same
  streams each way, the side measured first drawn at random each round. Per stream: its wall time
  from request to last byte. Reported per level (1, 50, 200): the proxy's per-stream wall time over
  direct at the median and at p99 (the median of the rounds' ratios), the time it adds at the
  median, the CPU seconds of the proxy and its view per relayed megabyte and their share of the CPU
  the client, the upstream and the proxy used, and the peak resident memory of the proxy and its view.

  Each level is measured with two clients, each the same on both sides of a round (``CLIENTS``):
  the **lean client** (one connection per stream, the request written as prepared bytes, the
  response parsed by httptools and its body only counted, as the upstream writes prepared bytes)
  and **httpx** (what an application does). On a machine of 2 cores the client, the upstream and
  the proxy share them: at 200 streams httpx alone takes about one core (about 4 CPU seconds for the
  34.5 MB of a batch; directly, a stream paced over 3 s then takes 3.7 s), so with httpx the ratio
  measures the CPU the proxy takes from the client as much as the time it adds itself. The lean
  client takes about a quarter of that (directly, a stream takes 3.3 s), which leaves the ratio to
  the proxy.
- **Soak**: sequential short streamed requests through the proxy; resident memory and open file
  descriptors after the first 1,000 and at the end.

Run it as a script (``python benches/bench_proxy_load.py [ROUNDS [SOAK]] [--report]``; ``--report``
writes its lines into ``benches/REPORT.md``, the same lines ``make bench-report`` writes there). Under ``make bench`` the
soak is 100,000 requests and the concurrency levels are the full ones; plain pytest runs a short
version of each to check that the measurement works.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from bench_proxy import Proxy
from proxy_upstream import children, memory_kb, open_fds

SECONDS = 3.0
LEVELS = (1, 50, 200)
REQUEST = {"model": "m", "max_tokens": 10, "stream": True, "messages": [{"role": "user", "content": "go"}]}
UPSTREAM = Path(__file__).resolve().parent.parent / "tests" / "proxy_upstream.py"
# The clients each level is measured with (see :func:`_batch`), and how the report names them.
CLIENTS = {"raw": "lean client", "httpx": "httpx client"}


class Upstream:
    def __init__(self, seconds: float, size: int = 20_000, seeds: int = 0) -> None:
        # The streams of the seeds used are made before any is measured: made at a first request,
        # they would cost the side measured first seconds of the upstream's CPU.
        self.process = subprocess.Popen(
            [sys.executable, str(UPSTREAM), str(seconds), str(size), str(seeds)],
            stdout=subprocess.PIPE,
            text=True,
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


async def _raw_batch(base: str, streams: int) -> tuple[list[float], int]:
    """Each stream's wall time, and the body bytes received in all, read by the lean client: one
    connection per stream, the request written as prepared bytes, the response parsed by httptools
    (C) and its body only counted, so that the client takes little of the CPU the proxy shares."""
    import httptools

    host, port = base.removeprefix("http://").split(":")
    body = json.dumps(REQUEST).encode()
    received = 0

    async def one(seed: int) -> float:
        nonlocal received
        started = time.monotonic()
        done = asyncio.get_running_loop().create_future()

        class Response:
            def on_body(self, data: bytes) -> None:
                nonlocal received
                received += len(data)

            def on_message_complete(self) -> None:
                done.set_result(None)

        parser = httptools.HttpResponseParser(Response())
        reader, writer = await asyncio.open_connection(host, int(port))
        writer.write(
            b"POST /v1/messages?seed=%d HTTP/1.1\r\nhost: %s\r\ncontent-type: application/json\r\n"
            b"content-length: %d\r\n\r\n%s" % (seed, f"{host}:{port}".encode(), len(body), body)
        )
        while not done.done():
            data = await reader.read(65536)
            if not data:
                raise ConnectionError("the response ended before its last byte")
            parser.feed_data(data)
        writer.close()
        return time.monotonic() - started

    times = await asyncio.gather(*(one(seed) for seed in range(streams)))
    return list(times), received


async def _batch(base: str, streams: int, client: str = "httpx") -> tuple[list[float], int]:
    """Each stream's wall time, and the body bytes received in all, read by ``client``: ``"httpx"``
    (what an application does) or ``"raw"`` (the lean client, :func:`_raw_batch`)."""
    if client == "raw":
        return await _raw_batch(base, streams)
    limits = httpx.Limits(max_connections=streams, max_keepalive_connections=streams)
    received = 0
    async with httpx.AsyncClient(timeout=120, limits=limits) as http:

        async def one(seed: int) -> float:
            nonlocal received
            started = time.monotonic()
            async with http.stream("POST", f"{base}/v1/messages?seed={seed}", json=REQUEST) as response:
                async for data in response.aiter_raw():
                    received += len(data)
            return time.monotonic() - started

        times = await asyncio.gather(*(one(seed) for seed in range(streams)))
    return list(times), received


def _p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def measure_concurrency(
    levels: tuple[int, ...] = LEVELS, rounds: int = 3, seconds: float = SECONDS, client: str = "httpx"
) -> dict[int, dict[str, float]]:
    upstream = Upstream(seconds, seeds=max(levels))
    proxy = Proxy(upstream.url)
    found: dict[int, dict[str, float]] = {}
    try:
        # A first batch each way loads what relaying needs (the proxy's HTTP client, the readers).
        for base in (upstream.url, proxy.url):
            asyncio.run(_batch(base, min(levels), client))
        for streams in levels:
            ratios: dict[str, list[float]] = {
                "median": [],
                "p99": [],
                "added": [],
                "cpu_per_mb": [],
                "cpu_share": [],
            }
            for _ in range(rounds):
                times: dict[str, list[float]] = {}
                for side in random.sample(["direct", "proxy"], 2):
                    cpu = _cpu_seconds(proxy.process.pid)
                    others = time.process_time() + _cpu_seconds(upstream.process.pid)
                    times[side], received = asyncio.run(
                        _batch(upstream.url if side == "direct" else proxy.url, streams, client)
                    )
                    if side == "proxy":
                        used = _cpu_seconds(proxy.process.pid) - cpu
                        ratios["cpu_per_mb"].append(used / (received / 1e6))
                        # The proxy's share of the CPU that the client, the upstream and it used.
                        others = time.process_time() + _cpu_seconds(upstream.process.pid) - others
                        ratios["cpu_share"].append(used / (used + others))
                ratios["median"].append(
                    statistics.median(times["proxy"]) / statistics.median(times["direct"])
                )
                ratios["p99"].append(_p99(times["proxy"]) / _p99(times["direct"]))
                ratios["added"].append(
                    (statistics.median(times["proxy"]) - statistics.median(times["direct"])) * 1000
                )
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
                with client.stream(
                    "POST", f"{proxy.url}/v1/messages?seed={number % 50}", json=REQUEST
                ) as response:
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


def describe(
    concurrency: dict[int, dict[str, float]], soak: dict[str, float] | None = None, client: str = "raw"
) -> list[str]:
    lines = []
    for streams, figures in concurrency.items():
        lines.append(
            f"- reported: proxy with {streams} concurrent stream{'s' if streams > 1 else ''} (≈20 KB of tool input "
            f"each over {SECONDS:g} s, live view drawing, {CLIENTS[client]}): per-stream wall time {figures['median']:.3f}× direct at the "
            f"median, {figures['p99']:.3f}× at p99; added {figures['added']:.0f} ms at the median; CPU of the proxy and "
            f"its view {figures['cpu_per_mb']:.2f} s per relayed MB"
            + (
                f", {figures['cpu_share']:.0%} of what the client, the upstream and the proxy used"
                if "cpu_share" in figures
                else ""
            )
            + f"; peak memory of the proxy and its view {figures['peak_mb']:.0f} MB"
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
    for client in CLIENTS:
        figures = measure_concurrency(
            LEVELS if full else (10,),
            rounds=3 if full else 1,
            seconds=SECONDS if full else 1.0,
            client=client,
        )
        print("\n".join(describe(figures, client=client)))
        assert all(level["median"] > 0 and level["peak_mb"] > 0 for level in figures.values())


@pytest.mark.parametrize("requests", [100_000])
def test_the_soak(request: pytest.FixtureRequest, requests: int) -> None:
    soak = measure_soak(requests if _full(request) else 300)
    print("\n".join(describe({}, soak)))
    # Flat over the run: no per-request state left behind.
    assert soak["end_mb"] - soak["early_mb"] < 20
    # No descriptor left behind (one fewer is a kept-alive connection the other side closed).
    assert soak["end_fds"] <= soak["early_fds"]


def measure_clients(levels: tuple[int, ...] = LEVELS, rounds: int = 3) -> dict[str, dict[str, list[float]]]:
    """Every level with each client (:data:`CLIENTS`), as the report's figures: ``"200 streams, lean
    client"`` → ``{"median": [ratio], ...}``."""
    found = {}
    for client, name in CLIENTS.items():
        for streams, figures in measure_concurrency(levels, rounds=rounds, client=client).items():
            found[f"{streams} streams, {name}"] = {figure: [value] for figure, value in figures.items()}
    return found


def describe_found(found: dict[str, dict[str, list[float]]]) -> list[str]:
    """The lines of :func:`describe` for figures as :func:`measure_clients` gives them."""
    lines = []
    for client, name in CLIENTS.items():
        levels = {
            int(label.split()[0]): {figure: values[0] for figure, values in figures.items()}
            for label, figures in found.items()
            if label.endswith(name)
        }
        lines += describe(levels, client=client)
    return lines


def report_lines(
    found: dict[str, dict[str, list[float]]], soak: dict[str, float] | None, note: str
) -> list[str]:
    """This benchmark's lines of ``benches/REPORT.md``: the verdicts on the 200-stream targets (the
    report's own judging, :func:`features.judge`), the figures, and ``note`` (how they were measured)."""
    import features

    return [
        *features.judge({"proxy_load": found}, sections=("proxy_load",)),
        *describe({}, soak),
        f"- ({note})",
    ]


def _is_report_line(line: str) -> bool:
    return line.startswith(
        ("- reported: proxy with ", "- reported: proxy soak", "- (the proxy-under-load lines")
    ) or ("concurrent streams through the proxy" in line)


REPORT = Path(__file__).resolve().parent / "REPORT.md"


def write_report(lines: list[str], report: Path = REPORT) -> None:
    """Put ``lines`` in the report in place of this benchmark's lines there (where they were, or at the
    end), leaving every other line as it is: run alone, it rewrites only its own rows."""
    old = report.read_text(encoding="utf-8").splitlines()
    at = next((number for number, line in enumerate(old) if _is_report_line(line)), len(old))
    kept = [line for line in old[:at] if not _is_report_line(line)]
    report.write_text(
        "\n".join([*kept, *lines, *(line for line in old[at:] if not _is_report_line(line))]) + "\n",
        encoding="utf-8",
    )


def main() -> None:
    """``python benches/bench_proxy_load.py [ROUNDS [SOAK]] [--report]``: the concurrency levels over
    ROUNDS paired rounds and a soak of SOAK requests (none by default); ``--report`` also writes the
    lines into ``benches/REPORT.md``."""
    arguments = [argument for argument in sys.argv[1:] if argument != "--report"]
    rounds = int(arguments[0]) if arguments else 3
    soak = int(arguments[1]) if len(arguments) > 1 else 0
    load_before = os.getloadavg()[0]
    concurrency = measure_clients(rounds=rounds)
    soaked = measure_soak(soak) if soak else None
    note = (
        f"the proxy-under-load lines above: `python benches/bench_proxy_load.py {' '.join(sys.argv[1:])}`, "
        f"{rounds} paired round{'s' if rounds > 1 else ''} per level, on {time.strftime('%Y-%m-%d')}, load average "
        f"{load_before:.1f} before and {os.getloadavg()[0]:.1f} after on {os.cpu_count()} CPUs, shared by the client, "
        f"the upstream and the proxy (and by any other work on the machine), at niceness {os.nice(0)}"
    )
    lines = report_lines(concurrency, soaked, note)
    print("\n".join(lines), flush=True)
    if "--report" in sys.argv[1:]:
        write_report(lines)


if __name__ == "__main__":
    main()
