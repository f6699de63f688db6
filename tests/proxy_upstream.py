"""An upstream on loopback for the proxy's load and fault tests: raw HTTP/1.1 written by hand, so a
response can be anything (paced, stalled, reset, malformed), and the proxy process around it.

:class:`RawUpstream` serves in an event loop of its own thread. Each request goes to ``respond``
(a coroutine taking the path, the request body and the connection's reader and writer, returning
whether the connection may be kept alive); it notes the connections it accepted and those the other side
closed.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import socket
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

# The benchmarks' way of cutting a text into deltas (pieces of 1 to 32 characters).
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benches"))
from workloads import fragment  # type: ignore[import-not-found]

Respond = Callable[[str, bytes, asyncio.StreamReader, asyncio.StreamWriter], Awaitable[bool]]

SSE_HEAD = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"


def chunk(data: bytes) -> bytes:
    """One piece of a chunked body."""
    return b"%x\r\n%s\r\n" % (len(data), data)


def tool_stream(seed: int, size: int = 20_000) -> list[bytes]:
    """The server-sent events of one Messages response whose tool input is about ``size`` characters
    of JSON text (escapes, non-ASCII, long and short strings), cut into fragments of 1 to 32 characters."""
    rng = random.Random(seed)
    words = ["alpha", "naïve", "日本語", "line\nbreak", 'quote"d', "tab\there", "🚀", "x" * 40, "ok"]
    records: list[dict[str, Any]] = []
    # The length of json.dumps(records), kept as records are added ("[" and "]", ", " between two).
    length = 2
    while length < size:
        records.append(
            {
                "id": len(records),
                "name": rng.choice(words),
                "tags": [rng.choice(words) for _ in range(3)],
                "score": rng.random(),
                "ok": rng.random() < 0.5,
            }
        )
        length += len(json.dumps(records[-1])) + (2 if len(records) > 1 else 0)
    pieces = fragment(json.dumps({"records": records}, ensure_ascii=False), "random", seed)
    message: dict[str, Any] = {
        "id": f"msg_{seed}",
        "type": "message",
        "role": "assistant",
        "model": "m",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }
    events: list[dict[str, Any]] = [
        {"type": "message_start", "message": message},
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "tool_use", "id": f"toolu_{seed}", "name": "save", "input": {}},
        },
        *(
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "input_json_delta", "partial_json": p},
            }
            for p in pieces
        ),
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use", "stop_sequence": None},
            "usage": {"output_tokens": 9},
        },
        {"type": "message_stop"},
    ]
    return [f"event: {e['type']}\ndata: {json.dumps(e, ensure_ascii=False)}\n\n".encode() for e in events]


async def send_paced(
    writer: asyncio.StreamWriter, events: list[bytes], seconds: float, *, batches: int = 100
) -> None:
    """A chunked event stream spread over about ``seconds``, in ``batches`` writes."""
    writer.write(SSE_HEAD)
    per = max(1, len(events) // batches)
    for start in range(0, len(events), per):
        writer.write(chunk(b"".join(events[start : start + per])))
        await writer.drain()
        await asyncio.sleep(seconds / batches)
    writer.write(b"0\r\n\r\n")
    await writer.drain()


def reset(writer: asyncio.StreamWriter) -> None:
    """Close the connection with a TCP reset, as a crashed upstream does."""
    sock = writer.get_extra_info("socket")
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()


class RawUpstream:
    def __init__(self, respond: Respond) -> None:
        self.respond = respond
        self.accepted = 0
        self.closed_by_peer = 0
        self.requests = 0
        self.peer_closed = threading.Event()
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name="raw-upstream", daemon=True)
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> RawUpstream:
        self._thread.start()
        assert self._ready.wait(10)
        return self

    def __exit__(self, *exc: object) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        server = self._loop.run_until_complete(asyncio.start_server(self._serve, "127.0.0.1", 0, backlog=512))
        self.port = server.sockets[0].getsockname()[1]
        self._ready.set()
        self._loop.run_forever()
        server.close()
        tasks = asyncio.all_tasks(self._loop)
        for task in tasks:
            task.cancel()
        self._loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
        self._loop.run_until_complete(server.wait_closed())
        self._loop.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.accepted += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                found = re.search(rb"(?i)\r\ncontent-length: *(\d+)", head)
                body = await reader.readexactly(int(found.group(1))) if found else b""
                self.requests += 1
                path = head.split(b" ")[1].decode()
                if not await self.respond(path, body, reader, writer):
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            self.closed_by_peer += 1
            self.peer_closed.set()
        except asyncio.CancelledError:
            # Cancelled by stop(): ending quietly keeps CPython 3.11's stream callback from logging the
            # cancellation as an error, which the tests would take for the proxy's.
            pass
        finally:
            if not writer.transport.is_closing():
                writer.close()


async def stall(reader: asyncio.StreamReader, closed: threading.Event) -> bool:
    """Send nothing more until the other side closes the connection; set ``closed`` then."""
    while await reader.read(65536):
        pass
    closed.set()
    return False


def memory_kb(pid: int) -> tuple[int, int]:
    """Resident memory now and at its peak (kB) of a process and its children, summed."""
    now = peak = 0
    for each in [pid, *children(pid)]:
        try:
            status = Path(f"/proc/{each}/status").read_text()
        except OSError:
            continue
        now += int(re.search(r"VmRSS:\s+(\d+)", status).group(1))  # type: ignore[union-attr]
        peak += int(re.search(r"VmHWM:\s+(\d+)", status).group(1))  # type: ignore[union-attr]
    return now, peak


def children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            found += [int(p) for p in (task / "children").read_text().split()]
        except OSError:
            pass
    return found


def open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


@contextmanager
def proxy_process(
    upstream: str, *arguments: str, terminal: bool = False
) -> Iterator[tuple[subprocess.Popen[bytes], str, list[bytes]]]:
    """``python -m tooljson proxy`` in its own process, its output read on the side (``output``); with
    ``terminal``, on a pseudo-terminal (the live view draws); otherwise on pipes. Killed if still alive."""
    import pty

    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "120", "LINES": "50"}
    command = [sys.executable, "-m", "tooljson", "proxy", "--upstream", upstream, *arguments]
    if terminal:
        master, slave = pty.openpty()
        process = subprocess.Popen(command, stdin=slave, stdout=slave, stderr=slave, env=env)
        os.close(slave)
        source = master
    else:
        process = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env
        )
        assert process.stdout is not None
        source = process.stdout.fileno()
    output: list[bytes] = []

    def drain() -> None:
        while True:
            try:
                data = os.read(source, 65536)
            except OSError:
                return
            if not data:
                return
            output.append(data)

    thread = threading.Thread(target=drain, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not (found := re.search(rb"http://127\.0\.0\.1:(\d+)", b"".join(output))):
        assert time.monotonic() < deadline and process.poll() is None, b"".join(output)
        time.sleep(0.05)
    try:
        yield process, found.group(0).decode(), output
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        thread.join(5)
        if terminal:
            os.close(source)
        elif process.stdout is not None:
            process.stdout.close()


def main() -> None:
    """``python tests/proxy_upstream.py SECONDS [SIZE [SEEDS]]``: serve paced tool-input streams
    (``?seed=N`` picks the stream) until killed, printing the port first; the benchmarks' upstream.
    The streams of seeds 0 to SEEDS - 1 are made before the port is printed, so that no measured
    request waits for its stream to be made (others are made at their first request)."""
    seconds = float(sys.argv[1])
    size = int(sys.argv[2]) if len(sys.argv) > 2 else 20_000
    cache: dict[int, list[bytes]] = {
        seed: tool_stream(seed, size) for seed in range(int(sys.argv[3]) if len(sys.argv) > 3 else 0)
    }

    async def respond(
        path: str, body: bytes, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> bool:
        seed = int(path.rsplit("=", 1)[1]) if "seed=" in path else 0
        if seed not in cache:
            cache[seed] = tool_stream(seed, size)
        if seconds:
            await send_paced(writer, cache[seed], seconds)
        else:
            writer.write(SSE_HEAD + chunk(b"".join(cache[seed])) + b"0\r\n\r\n")
            await writer.drain()
        return True

    with RawUpstream(respond) as upstream:
        print(upstream.port, flush=True)
        threading.Event().wait()


if __name__ == "__main__":
    main()
