"""The proxy's cost to the application behind it: a ~100 KB tool-input stream relayed, with the live
view drawing, against the same stream read directly.

A paced upstream (its own process) sends the ``large_file_write`` answer (~6,600 events) one event
every ``INTERVAL`` seconds and notes when it wrote each; the real ``anthropic`` client (this process)
notes when each event reached it, once directly and once through ``python -m tooljson proxy`` (its own
process, drawing the live view on a pseudo-terminal), in alternating rounds. Reported: the client's
time to the last event through the proxy over directly, and the delay the proxy adds to each event
(its arrival through the proxy minus its arrival directly, event by event), at the median and p99.
The clocks are the machine's monotonic clock, shared by the processes.

Run it as a script (``python benches/bench_proxy.py [ROUNDS] [live|plain]``); under pytest, one short round checks
that the measurement works.
"""

from __future__ import annotations

import json
import os
import pty
import random
import re
import select
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anthropic
import command_line

INTERVAL = 0.001

_UPSTREAM = r"""
import json, random, socket, sys, time
from tooljson.standin import get_scenario
from tooljson.standin.render import render_stream
scenario = get_scenario("large_file_write")
request = scenario.first_request()
reply = scenario.respond({**request, "stream": True}, 0)
events = [e for e in render_stream(reply, rng=random.Random(0), model=request["model"], input_tokens=10,
                                   fragment_sizes=(1, 32)).events if e["type"] != "ping"][: int(sys.argv[3])]
chunks = []
for event in events:
    payload = f"event: {event['type']}\ndata: {json.dumps(event, separators=(',', ':'))}\n\n".encode()
    chunks.append(b"%x\r\n%s\r\n" % (len(payload), payload))
interval = float(sys.argv[2])
listener = socket.socket()
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(("127.0.0.1", 0))
listener.listen()
print(listener.getsockname()[1], flush=True)
while True:
    connection, _ = listener.accept()
    data = b""
    while b"\r\n\r\n" not in data:
        data += connection.recv(65536)
    head, _, body = data.partition(b"\r\n\r\n")
    length = int(re.search(rb"(?i)content-length: *(\d+)", head).group(1)) if re.search(rb"(?i)content-length", head) else 0
    while len(body) < length:
        body += connection.recv(65536)
    connection.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n")
    sent = []
    start = time.monotonic()
    for number, chunk in enumerate(chunks):
        delay = start + number * interval - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        connection.sendall(chunk)
        sent.append(time.monotonic())
    connection.sendall(b"0\r\n\r\n")
    connection.close()
    with open(sys.argv[1] + ".part", "w") as out:
        json.dump(sent, out)
    os.replace(sys.argv[1] + ".part", sys.argv[1])
""".replace("import json, random", "import json, os, random, re")


class Upstream:
    def __init__(self, events: int) -> None:
        self.times = Path(tempfile.mkdtemp()) / "sent.json"
        self.process = subprocess.Popen(
            [sys.executable, "-c", _UPSTREAM, str(self.times), str(INTERVAL), str(events)],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        self.url = f"http://127.0.0.1:{self.process.stdout.readline().strip()}"

    def sent(self) -> list[float]:
        for _ in range(400):
            if self.times.exists():
                text = self.times.read_text()
                self.times.unlink()
                return list(json.loads(text))
            time.sleep(0.05)
        raise RuntimeError("the upstream wrote no times")

    def close(self) -> None:
        self.process.kill()
        self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()
        self.times.unlink(missing_ok=True)
        self.times.parent.rmdir()


_TERMINAL = """
import os
drawn = 0
while True:
    try:
        data = os.read(0, 65536)
    except OSError:
        break
    if not data:
        break
    drawn += len(data)
print(drawn)
"""


class Proxy:
    """``python -m tooljson proxy`` with its live view drawing on a pseudo-terminal."""

    def __init__(self, upstream: str, view: str = "live") -> None:
        self.master, slave = pty.openpty()
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tooljson",
                "proxy",
                "--upstream",
                upstream,
                *(["--plain"] if view == "plain" else []),
            ],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env={**os.environ, "TERM": "xterm-256color", "COLUMNS": "120", "LINES": "50"},
        )
        os.close(slave)
        output = b""
        while not re.search(rb"http://127\.0\.0\.1:\d+", output):
            ready, _, _ = select.select([self.master], [], [], 10)
            if not ready:
                raise RuntimeError("the proxy did not start")
            output += os.read(self.master, 65536)
        self.url = re.search(rb"http://127\.0\.0\.1:\d+", output).group(0).decode()  # type: ignore[union-attr]
        # The terminal's other end, read as a terminal would, by a process of its own: a thread of
        # this process waking at every frame drawn would take turns from the client it measures.
        self._terminal = subprocess.Popen(
            [sys.executable, "-c", _TERMINAL], stdin=self.master, stdout=subprocess.PIPE, text=True
        )
        self.drawn = 0

    def close(self) -> None:
        self.process.terminate()
        self.process.wait(30)
        os.close(self.master)
        out, _ = self._terminal.communicate(timeout=30)
        self.drawn = int(out or 0)


def receive(base_url: str) -> list[float]:
    request = {
        "model": "claude-sonnet-4-6",
        "max_tokens": 64000,
        "messages": [{"role": "user", "content": "write"}],
    }
    arrived = []
    with anthropic.Anthropic(base_url=base_url, api_key="stand-in", max_retries=0) as client:
        for _ in client.messages.create(stream=True, **request):
            arrived.append(time.monotonic())
    return arrived


def measure(rounds: int, events: int = 100_000, view: str = "live") -> dict[str, Any]:
    upstream = Upstream(events)
    proxy = Proxy(upstream.url, view)
    try:
        totals: dict[str, list[float]] = {"direct": [], "proxy": []}
        added: list[float] = []
        order = ["direct", "proxy"]
        for _ in range(rounds):
            random.shuffle(order)
            arrivals: dict[str, list[float]] = {}
            for side in order:
                arrived = receive(upstream.url if side == "direct" else proxy.url)
                sent = upstream.sent()
                assert len(arrived) == len(sent)
                totals[side].append(arrived[-1] - sent[0])
                arrivals[side] = [a - s for a, s in zip(arrived, sent)]
            added += [p - d for p, d in zip(arrivals["proxy"], arrivals["direct"])]
        added.sort()
        figures: dict[str, Any] = {
            "events": len(arrivals["direct"]),
            "ratio": statistics.median(p / d for p, d in zip(totals["proxy"], totals["direct"])),
            "added_median_ms": statistics.median(added) * 1000,
            "added_p99_ms": added[int(len(added) * 0.99)] * 1000,
        }
    finally:
        proxy.close()
        upstream.close()
    figures["drawn_bytes"] = proxy.drawn
    return figures


def test_the_measurement_runs() -> None:
    figures = measure(1, events=300)
    assert figures["events"] == 300 and figures["ratio"] > 0


def main() -> None:
    arguments = command_line.rounds(5, __doc__, extra="view")
    rounds, view = arguments.rounds, arguments.view or "live"
    figures = measure(rounds, view=view)
    print(
        f"proxy ({view} view), {figures['events']} events paced {INTERVAL * 1e3:g} ms apart, {rounds} rounds: time to the last event "
        f"{figures['ratio']:.3f}x direct; added delay per event median {figures['added_median_ms']:.2f} ms, "
        f"p99 {figures['added_p99_ms']:.2f} ms (live view drew {figures['drawn_bytes']:,} bytes)"
    )


if __name__ == "__main__":
    main()
