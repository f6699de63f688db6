"""The proxy under faults: each one propagated at once, recording and the views never in the relay's
way, whatever the upstream sends relayed byte for byte, one warning line per trouble, no traceback.

Upstreams are raw HTTP/1.1 on loopback (``proxy_upstream``); clients are httpx, reading raw bytes.
"""

from __future__ import annotations

import asyncio
import errno
import functools
import json
import logging
import os
import re
import shutil
import signal
import socket
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from proxy_upstream import SSE_HEAD, RawUpstream, Respond, chunk, proxy_process, reset, stall, tool_stream
from tooljson.proxy.observe import Recorder
from tooljson.proxy.serve import ProxyServer

REQUEST = {"model": "m", "max_tokens": 10, "stream": True, "messages": [{"role": "user", "content": "go"}]}


def _post(
    base: str, *, timeout: float = 30.0, client: httpx.Client | None = None
) -> tuple[int, bytes, str | None]:
    """Status, the raw body as received, and the class of the error that ended it early (if any)."""
    own = client is None
    client = client or httpx.Client(timeout=timeout)
    received = bytearray()
    status = 0
    try:
        with client.stream("POST", base + "/v1/messages", json=REQUEST) as response:
            status = response.status_code
            for data in response.iter_raw():
                received += data
    except httpx.HTTPError as error:
        return status, bytes(received), type(error).__name__
    finally:
        if own:
            client.close()
    return status, bytes(received), None


def _no_traceback(caplog: pytest.LogCaptureFixture) -> None:
    assert not [r for r in caplog.records if r.exc_info], [
        r.getMessage() for r in caplog.records if r.exc_info
    ]
    assert all("\n" not in r.getMessage() for r in caplog.records if r.name == "tooljson")


def _warnings(caplog: pytest.LogCaptureFixture, text: str) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING and text in r.getMessage()]


def _streaming(events: list[bytes], *, seconds: float = 0.0) -> Respond:
    async def respond(
        path: str, body: bytes, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> bool:
        writer.write(SSE_HEAD)
        for event in events:
            writer.write(chunk(event))
            await writer.drain()
            if seconds:
                await asyncio.sleep(seconds / len(events))
        writer.write(b"0\r\n\r\n")
        await writer.drain()
        return True

    return respond


def _first_event_then_silence(seed: int, closed: threading.Event) -> Respond:
    async def respond(
        path: str, body: bytes, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> bool:
        writer.write(SSE_HEAD + chunk(tool_stream(seed)[0]))
        await writer.drain()
        return await stall(reader, closed)

    return respond


def test_a_client_that_goes_away_closes_the_upstream_within_2_s() -> None:
    closed = threading.Event()
    respond = _first_event_then_silence(1, closed)

    with (
        RawUpstream(respond) as upstream,
        ProxyServer(upstream.url) as proxy,
        httpx.Client(timeout=30) as client,
    ):
        with client.stream("POST", proxy.url + "/v1/messages", json=REQUEST) as response:
            next(response.iter_raw())
            gone = time.monotonic()
        assert closed.wait(10)
        assert time.monotonic() - gone < 2.0


def test_an_upstream_reset_ends_the_response_within_2_s_and_the_next_is_served(
    caplog: pytest.LogCaptureFixture,
) -> None:
    events = tool_stream(2)

    async def respond(
        path: str, body: bytes, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> bool:
        if path.endswith("reset"):
            writer.write(SSE_HEAD + chunk(b"".join(events[:5])))
            await writer.drain()
            await asyncio.sleep(0.3)
            reset(writer)
            return False
        return await _streaming(events)(path, body, reader, writer)

    with RawUpstream(respond) as upstream, ProxyServer(upstream.url) as proxy:
        with httpx.Client(timeout=30) as client:
            started = time.monotonic()
            with pytest.raises(httpx.RemoteProtocolError):
                with client.stream("POST", proxy.url + "/v1/messages?reset", json=REQUEST) as response:
                    for _ in response.iter_raw():
                        pass
            assert time.monotonic() - started < 2.0
            assert _post(proxy.url, client=client) == (200, b"".join(events), None)
    assert len(_warnings(caplog, "upstream closed mid-stream")) == 1
    _no_traceback(caplog)


def test_an_unreachable_upstream_is_a_502_within_2_s() -> None:
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    with ProxyServer(f"http://127.0.0.1:{port}") as proxy:
        started = time.monotonic()
        status, body, error = _post(proxy.url)
        assert time.monotonic() - started < 2.0
    assert (status, error) == (502, None)
    assert json.loads(body)["error"]["type"] == "api_error"


def test_an_upstream_that_stops_sending_is_cut_after_the_idle_timeout(
    caplog: pytest.LogCaptureFixture,
) -> None:
    closed = threading.Event()
    first = tool_stream(3)[0]

    async def respond(
        path: str, body: bytes, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> bool:
        if path.endswith("silent"):
            return await stall(reader, closed)  # not even headers
        writer.write(SSE_HEAD + chunk(first))
        await writer.drain()
        return await stall(reader, closed)

    with RawUpstream(respond) as upstream, ProxyServer(upstream.url, idle_timeout=1.0) as proxy:
        started = time.monotonic()
        status, received, error = _post(proxy.url)
        assert time.monotonic() - started < 1.0 + 2.0
        assert (status, received, error) == (200, first, "RemoteProtocolError")
        assert closed.wait(2)
        with httpx.Client(timeout=30) as client:
            answer = client.post(proxy.url + "/v1/messages?silent", json=REQUEST)
        assert answer.status_code == 504 and "--idle-timeout" in answer.json()["error"]["message"]
    [warning] = _warnings(caplog, "the upstream sent nothing for 1 s (--idle-timeout)")
    assert warning.endswith("the response is cut")
    _no_traceback(caplog)


class _FullDisk:
    """A file on a disk that fills up after ``room`` characters: writes past it raise ENOSPC."""

    def __init__(self, room: list[int]) -> None:
        self.room = room

    def write(self, text: str) -> int:
        if self.room[0] < len(text):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        self.room[0] -= len(text)
        return len(text)

    def close(self) -> None:
        return None

    def __enter__(self) -> _FullDisk:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


def test_settle_returns_once_the_last_response_is_recorded_and_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The relay ends a response's reading after the client has the last byte; ``settle`` waits
    for all of it (here the recording's close, made slow), not only for the reading to begin
    ending."""
    close = Recorder.close

    def slow_close(self: Recorder, key: int, request: dict[str, Any]) -> None:
        time.sleep(0.3)
        close(self, key, request)

    monkeypatch.setattr(Recorder, "close", slow_close)
    events = tool_stream(2, size=500)
    with RawUpstream(_streaming(events)) as upstream, ProxyServer(upstream.url, record=tmp_path) as proxy:
        assert _post(proxy.url) == (200, b"".join(events), None)
        proxy.settle()
        assert len(list(tmp_path.glob("*.request.json"))) == 1
        assert [call.status for call in proxy.run.calls] == ["complete"] * len(proxy.run.calls)
        assert proxy.run.calls


@pytest.mark.parametrize("trouble", ["full disk", "read-only", "deleted"])
def test_recording_that_fails_stops_with_one_warning_and_the_relay_goes_on(
    trouble: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    events = tool_stream(4, size=4000)
    directory = tmp_path / "recordings"
    if trouble == "full disk":
        # In-process: the disk fills up during the second response.
        room = [len(b"".join(events)) * 3 // 2]
        monkeypatch.setattr(Recorder, "_file", staticmethod(lambda path: _FullDisk(room)))
    elif trouble == "read-only" and os.geteuid() == 0:
        # Root writes into a directory whatever its mode: the file system's answer is simulated.
        def read_only(path: Path) -> Any:
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(path))

        monkeypatch.setattr(Recorder, "_file", staticmethod(read_only))
    with (
        RawUpstream(_streaming(events, seconds=0.2)) as upstream,
        ProxyServer(upstream.url, record=directory) as proxy,
    ):
        if trouble == "read-only" and os.geteuid() != 0:
            directory.chmod(0o500)
        with httpx.Client(timeout=30) as client:
            bodies = [_post(proxy.url, client=client)]
            if trouble == "deleted":
                # The first recording is closed (its .request.json written) just after the client has
                # read the body; the directory goes between two responses, not under that close.
                proxy.settle()
                shutil.rmtree(directory)
            with_stream_open = threading.Thread(target=lambda: bodies.append(_post(proxy.url)))
            with_stream_open.start()
            bodies += [_post(proxy.url, client=client) for _ in range(3)]
            with_stream_open.join(30)
    directory.chmod(0o700) if directory.exists() else None
    assert bodies == [(200, b"".join(events), None)] * 5
    [warning] = _warnings(caplog, "recording stopped")
    reason = {
        "full disk": "No space left on device",
        "read-only": "ermission denied",
        "deleted": "No such file",
    }[trouble]
    if trouble == "read-only" and os.geteuid() == 0:
        reason = "Read-only file system"
    assert reason in warning and warning.endswith("responses are still relayed")
    _no_traceback(caplog)


@functools.cache
def _garbage(path: str) -> bytes:
    big = json.dumps(
        {"type": "message", "content": [{"type": "text", "text": "é" * 5_000_000}]}, ensure_ascii=False
    ).encode()
    bodies = {
        "malformed": SSE_HEAD
        + chunk(b"event: message_start\ndata: {not json\n\n")
        + chunk(b"data: [1,\n\n")
        + b"0\r\n\r\n",
        "not-sse": SSE_HEAD + chunk(b"<html>an error page</html>\n") + b"0\r\n\r\n",
        "empty": b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: 0\r\n\r\n",
        "big": b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: %d\r\n\r\n%s"
        % (len(big), big),
        "not-json": b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 9\r\n\r\nnot json!",
        "length": b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: %d\r\n\r\n%s"
        % (len(b"".join(tool_stream(5))), b"".join(tool_stream(5))),
        "chunked": SSE_HEAD + b"".join(chunk(event) for event in tool_stream(5)) + b"0\r\n\r\n",
    }
    return bodies[path.rsplit("?", 1)[-1]]


def _body_of(response: bytes) -> bytes:
    head, _, body = response.partition(b"\r\n\r\n")
    if b"chunked" not in head:
        return body
    whole = bytearray()
    while True:
        size, _, body = body.partition(b"\r\n")
        if int(size, 16) == 0:
            return bytes(whole)
        whole += body[: int(size, 16)]
        body = body[int(size, 16) + 2 :]


def test_whatever_the_upstream_sends_is_relayed_byte_for_byte_on_kept_alive_connections(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def respond(
        path: str, body: bytes, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> bool:
        writer.write(_garbage(path))
        await writer.drain()
        return True

    kinds = ["malformed", "not-sse", "empty", "big", "not-json", "length", "chunked"]
    with (
        RawUpstream(respond) as upstream,
        ProxyServer(upstream.url) as proxy,
        httpx.Client(timeout=60) as client,
    ):
        for _ in range(6):
            for kind in kinds:
                with client.stream("POST", f"{proxy.url}/v1/messages?{kind}", json=REQUEST) as response:
                    received = b"".join(response.iter_raw())
                assert received == _body_of(_garbage(kind)), kind
        # Both sides kept their connections alive across the 42 requests.
        assert upstream.requests == 6 * len(kinds) and upstream.accepted <= 2
        proxy.settle()
        shown = {call.status for call in proxy.run.calls}
    assert shown == {"complete"}
    # One line for each response the observer could not read (bad JSON in SSE data, a body that is
    # not JSON); a non-SSE text under text/event-stream has no event to read, and no warning.
    unread = _warnings(caplog, "could not be shown")
    assert len(unread) == 6 * 2, unread
    _no_traceback(caplog)


def _view_process(pid: int) -> int:
    from proxy_upstream import children

    [view] = [c for c in children(pid) if b"resource_tracker" not in Path(f"/proc/{c}/cmdline").read_bytes()]
    return view


def _gone(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1].startswith("Z")
    except OSError:
        return True


def test_the_view_process_dying_or_stuck_never_hurts_the_relay_and_sigterm_still_works() -> None:
    events = tool_stream(6, size=4000)
    with RawUpstream(_streaming(events)) as upstream:
        for fault in (signal.SIGKILL, signal.SIGSTOP):
            with proxy_process(upstream.url, terminal=True) as (process, url, output):
                time.sleep(1.0)
                view = _view_process(process.pid)
                os.kill(view, fault)
                with httpx.Client(timeout=30) as client:
                    for _ in range(30):
                        assert _post(url, client=client) == (200, b"".join(events), None)
                    if fault == signal.SIGSTOP:
                        # A stopped view is noticed once a frame has waited in the pipe for 5 s, which
                        # takes as many frames as fill the pipe's buffer: how many requests that is
                        # depends on the machine's load, so relay until it is said (all unchanged).
                        deadline = time.monotonic() + 60
                        while b"taken no frame" not in b"".join(output) and time.monotonic() < deadline:
                            time.sleep(1.0)
                            for _ in range(10):
                                assert _post(url, client=client) == (200, b"".join(events), None)
                stopping = time.monotonic()
                process.send_signal(signal.SIGTERM)
                assert process.wait(10) == 0
                assert time.monotonic() - stopping < 5
                time.sleep(0.2)
                text = b"".join(output).decode("utf-8", "replace")
                assert "Traceback" not in text
                expected = (
                    "the live view stopped" if fault == signal.SIGKILL else "the live view has taken no frame"
                )
                assert text.count("live view") == text.count(expected) == 1, text[-2000:]
                assert _gone(view)


def test_sigterm_with_streams_open_cuts_them_and_ends_within_seconds() -> None:
    closed = threading.Event()
    respond = _first_event_then_silence(7, closed)

    with RawUpstream(respond) as upstream:
        for view in ("--plain", "--web"):
            with (
                proxy_process(upstream.url, view) as (process, url, output),
                httpx.Client(timeout=30) as watcher,
            ):
                results: list[Any] = []
                clients = [threading.Thread(target=lambda: results.append(_post(url))) for _ in range(5)]
                for thread in clients:
                    thread.start()
                frames = b""
                if view == "--web":
                    while not (page := re.search(rb"(http://127\.0\.0\.1:\d+/)\?source", b"".join(output))):
                        time.sleep(0.05)
                    with watcher.stream("GET", page.group(1).decode() + "api/run?source=live") as stream:
                        time.sleep(1.5)
                        process.send_signal(signal.SIGTERM)
                        stopping = time.monotonic()
                        frames = b"".join(stream.iter_raw())
                else:
                    time.sleep(1.5)
                    process.send_signal(signal.SIGTERM)
                    stopping = time.monotonic()
                assert process.wait(10) == 0
                assert time.monotonic() - stopping < 5
                for thread in clients:
                    thread.join(10)
                # The page got its last frame and the end of its stream.
                assert view == "--plain" or frames.endswith(b"data: [DONE]\n\n")
                # Every open stream was cut as an upstream reset would cut it.
                assert [error for _, _, error in results] == ["RemoteProtocolError"] * 5
                assert b"Traceback" not in b"".join(output)
