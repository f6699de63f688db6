"""The proxy under load: many concurrent streams relayed byte for byte with the view's bookkeeping
proportional to what is new (not to the streams open × chunks), backpressure from a slow client, and
no growth over many requests (memory, descriptors, the view's history).

These are the small versions; ``benches/bench_proxy.py`` runs the full sizes (200 concurrent streams,
the 8 MB slow read, a 100,000-request soak) and reports the wall-time ratios and memory.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import socket
import time
from typing import Any

import httpx
import pytest
from proxy_upstream import (
    SSE_HEAD,
    RawUpstream,
    chunk,
    memory_kb,
    open_fds,
    proxy_process,
    send_paced,
    tool_stream,
)
from tooljson.proxy.observe import MAX_WAITING_BYTES, Side
from tooljson.proxy.serve import ProxyServer, bind
from tooljson.ui.model import KEPT_LOG_LINES, RunView

REQUEST = {"model": "m", "max_tokens": 10, "stream": True, "messages": [{"role": "user", "content": "go"}]}


def test_concurrent_streams_are_relayed_whole_and_the_view_works_per_news(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    streams = 50
    events = {seed: tool_stream(seed) for seed in range(streams)}
    counts = {"news": 0, "chunks": 0}
    log_news, chunk_of = RunView._log_news, Side.chunk

    def counted_news(self: RunView, reader: Any) -> None:
        counts["news"] += 1
        log_news(self, reader)

    def counted_chunk(self: Side, key: int, data: bytes) -> None:
        counts["chunks"] += 1
        chunk_of(self, key, data)

    monkeypatch.setattr(RunView, "_log_news", counted_news)
    monkeypatch.setattr(Side, "chunk", counted_chunk)

    async def respond(
        path: str, body: bytes, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> bool:
        await send_paced(writer, events[int(path.rsplit("=", 1)[1])], 2.0)
        return True

    async def read_all(base: str) -> list[tuple[int, bytes]]:
        limits = httpx.Limits(max_connections=streams)
        async with httpx.AsyncClient(timeout=60, limits=limits) as client:

            async def one(seed: int) -> tuple[int, bytes]:
                async with client.stream("POST", f"{base}/v1/messages?seed={seed}", json=REQUEST) as response:
                    return seed, b"".join([data async for data in response.aiter_raw()])

            return await asyncio.gather(*(one(seed) for seed in range(streams)))

    with caplog.at_level(logging.INFO), RawUpstream(respond) as upstream, ProxyServer(upstream.url) as proxy:
        received = asyncio.run(read_all(proxy.url))
        proxy.settle()
        proxy.run.update()
        statuses = [call.status for call in proxy.run.calls]
    assert all(body == b"".join(events[seed]) for seed, body in received)
    assert statuses == ["complete"] * streams
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.WARNING]
    # Each chunk, start and end logs the news of its own response; each new response, the news of
    # those open.
    # Walking every open reader on every chunk would be about chunks × streams / 2 calls.
    assert counts["chunks"] >= streams * 50
    assert counts["news"] <= counts["chunks"] + 2 * streams + streams * streams


def test_a_slow_client_makes_the_proxy_read_the_upstream_at_its_pace() -> None:
    size = 8 * 1024 * 1024
    ping = b'event: ping\ndata: {"type": "ping"}\n\n'
    piece = ping * (65536 // len(ping))
    pieces = size // len(piece)
    expected = hashlib.sha256(piece * pieces).hexdigest()

    async def respond(
        path: str, body: bytes, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> bool:
        if path.endswith("warm"):
            writer.write(SSE_HEAD + chunk(ping) + b"0\r\n\r\n")
            return True
        writer.transport.set_write_buffer_limits(high=65536)
        writer.write(SSE_HEAD)
        for _ in range(pieces):
            writer.write(chunk(piece))
            await writer.drain()
        writer.write(b"0\r\n\r\n")
        await writer.drain()
        return False

    with RawUpstream(respond) as upstream, proxy_process(upstream.url, "--plain") as (process, url, _):
        port = int(url.rsplit(":", 1)[1])
        # A first response loads what relaying needs (the HTTP client, the readers).
        with httpx.Client(timeout=30) as warm:
            assert warm.post(url + "/v1/messages?warm", json=REQUEST).content == ping
        time.sleep(0.3)
        before = memory_kb(process.pid)[1]
        with socket.socket() as client:
            client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
            client.connect(("127.0.0.1", port))
            client.sendall(
                b"POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}"
            )
            response = bytearray()
            started = time.monotonic()
            while time.monotonic() - started < 3.0:  # about 64 KB a second
                response += client.recv(8192)
                time.sleep(8192 / 65536)
            taken = len(response)
            peak = memory_kb(process.pid)[1]
            while not response.endswith(b"0\r\n\r\n"):
                data = client.recv(1 << 20)
                assert data
                response += data
    # The proxy held back: its peak memory did not grow by what waited (the rest waited in the
    # upstream and in the sockets' buffers, which the kernel bounds).
    assert taken < size / 20
    assert peak - before < 4 * 1024, (before, peak)
    head, _, body = bytes(response).partition(b"\r\n\r\n")
    whole = bytearray()
    while body:
        length, _, body = body.partition(b"\r\n")
        whole += body[: int(length, 16)]
        body = body[int(length, 16) + 2 :]
    assert hashlib.sha256(whole).hexdigest() == expected


def test_a_thousand_requests_leave_memory_and_descriptors_where_they_were() -> None:
    events = b"".join(tool_stream(8, size=600))

    async def respond(
        path: str, body: bytes, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> bool:
        writer.write(SSE_HEAD + chunk(events) + b"0\r\n\r\n")
        await writer.drain()
        return True

    with (
        RawUpstream(respond) as upstream,
        proxy_process(upstream.url, terminal=True) as (process, url, output),
    ):
        with httpx.Client(timeout=30) as client:
            readings: dict[int, tuple[int, int]] = {}
            for number in range(1, 1001):
                with client.stream("POST", url + "/v1/messages", json=REQUEST) as response:
                    assert b"".join(response.iter_raw()) == events
                if number in (100, 1000):
                    time.sleep(0.3)
                    readings[number] = (memory_kb(process.pid)[0], open_fds(process.pid))
    assert readings[1000][0] - readings[100][0] < 20 * 1024, readings
    # No descriptor left behind (one fewer is a kept-alive connection the other side closed).
    assert readings[1000][1] <= readings[100][1], readings
    assert b"Traceback" not in b"".join(output)


def test_the_view_keeps_a_bounded_number_of_finished_turns_and_log_lines() -> None:
    run = RunView(keep_turns=100)
    side = Side(run)
    events = b"".join(tool_stream(9, size=300))
    for key in range(1, 3001):
        side.begin(key, {}, {"content-type": "text/event-stream"})
        side.chunk(key, events)
        side.end(key, "complete")
    single = RunView()
    single_side = Side(single)
    single_side.begin(1, {}, {"content-type": "text/event-stream"})
    single_side.chunk(1, events)
    single_side.end(1, "complete")
    single.update()
    assert len(run.turns) == 100
    assert run.turns[-1].number == 3000
    frame = run.frame(max_calls=10)
    assert frame["earlier_calls"] == 3000 - 10 and len(frame["calls"]) == 10
    assert frame["counters"]["events"] == 3000 * run.turns[-1].events
    # Every line was logged once; the oldest are let go.
    assert KEPT_LOG_LINES <= len(run.log) <= 2 * KEPT_LOG_LINES
    assert run.log_dropped + len(run.log) == 3000 * len(single.log)


def test_an_open_stream_is_never_let_go() -> None:
    run = RunView(keep_turns=2)
    side = Side(run)
    events = tool_stream(10, size=300)
    side.begin(1, {}, {"content-type": "text/event-stream"})
    side.chunk(1, b"".join(events[:3]))
    for key in range(2, 10):
        side.begin(key, {}, {"content-type": "text/event-stream"})
        side.chunk(key, b"".join(events))
        side.end(key, "complete")
    assert [reader.number for reader in run.turns] == [1, 8, 9]
    side.chunk(1, b"".join(events[3:]))
    side.end(1, "complete")
    assert run.calls[0].status == "complete"


def test_chunks_are_read_in_batches_in_an_event_loop_and_at_once_outside() -> None:
    events = tool_stream(11, size=2000)
    whole = b"".join(events)

    async def relayed() -> tuple[int, int, int, int]:
        run = RunView()
        side = Side(run, interval=0.05)
        side.begin(1, {}, {"content-type": "text/event-stream"})
        side.chunk(1, events[0])
        put_aside = run.turns[0].events
        await asyncio.sleep(0.2)
        after_interval = run.turns[0].events
        # Past MAX_WAITING_BYTES, a response's chunks are read at once.
        side.chunk(1, b"".join(events[1:]) + b": padding\n" * (MAX_WAITING_BYTES // 10))
        at_once = run.turns[0].events
        side.end(1, "complete")
        return put_aside, after_interval, at_once, len(run.calls)

    put_aside, after_interval, at_once, calls = asyncio.run(relayed())
    assert (put_aside, after_interval, at_once, calls) == (0, 1, len(events), 1)
    # Outside an event loop (a program feeding a Side itself) each chunk is read at once.
    run = RunView()
    side = Side(run)
    side.begin(1, {}, {"content-type": "text/event-stream"})
    side.chunk(1, whole[: len(whole) // 2])
    assert 0 < run.turns[0].events < len(events)


def test_a_chunks_events_are_taken_together_and_those_before_a_bad_one_still_count() -> None:
    events = tool_stream(12, size=600)
    # The reader takes a chunk's events together, as it takes them one by one.
    alone, together = RunView(), RunView()
    for run in (alone, together):
        side = Side(run)
        side.begin(1, {}, {"content-type": "text/event-stream"})
        for piece in events if run is alone else [b"".join(events)]:
            side.chunk(1, piece)
        side.end(1, "complete")
    assert together.turns[0].events == alone.turns[0].events == len(events)
    assert (
        together.turns[0].calls[0].input == alone.turns[0].calls[0].input
        and together.calls[0].status == "complete"
    )
    assert together.turns[0].feed_seconds > 0 and together.log == alone.log
    # An event that does not parse stops the reading; the events before it in the chunk were taken.
    run = RunView()
    side = Side(run)
    side.begin(1, {}, {"content-type": "text/event-stream"})
    side.chunk(
        1, b"".join(events[:3]) + b"event: content_block_delta\ndata: {not json\n\n" + b"".join(events[3:])
    )
    side.end(1, "complete")
    assert run.turns[0].events == 3 and run.turns[0].interruption is not None


def test_the_proxy_turns_nagle_off_on_its_connections() -> None:
    # Without TCP_NODELAY a response's body waits for the client's delayed acknowledgement of its
    # headers (40 ms per response): asyncio sets it on the connections of a socket that says it is TCP.
    listener = bind(0)
    found: list[int] = []

    async def serve() -> None:
        async def accepted(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            found.append(writer.get_extra_info("socket").getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
            writer.close()

        server = await asyncio.start_server(accepted, sock=listener)
        _, writer = await asyncio.open_connection(*listener.getsockname())
        while not found:
            await asyncio.sleep(0.01)
        writer.close()
        server.close()
        await server.wait_closed()

    asyncio.run(serve())
    assert found and found[0] != 0
