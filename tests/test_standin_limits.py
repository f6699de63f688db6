"""The stand-in against many, large, malformed and slow requests: a 4xx in the API's error shape for
every bad request, bounded memory, threads and time, and a hundred concurrent real clients served."""

from __future__ import annotations

import gc
import json
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import anthropic
import psutil
import pytest
from tooljson.standin import StandInServer, get_scenario
from tooljson.standin.intake import Limits

SCENARIO = get_scenario("parallel_calls")


def _port(server: StandInServer) -> int:
    return int(server.base_url.rsplit(":", 1)[1])


def _exchange(server: StandInServer, raw: bytes, *, timeout: float = 30) -> tuple[int, dict[str, Any]]:
    """Send ``raw`` as it is, read the answer: its status and JSON body."""
    with socket.create_connection(("127.0.0.1", _port(server)), timeout=timeout) as connection:
        connection.sendall(raw)
        connection.shutdown(socket.SHUT_WR)
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    return status, json.loads(body)


def _post(body: bytes, *headers: str) -> bytes:
    lines = ["POST /v1/messages HTTP/1.1", "Host: 127.0.0.1", "Content-Type: application/json", *headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


VALID = json.dumps({**SCENARIO.first_request(), "stream": True}).encode()


@pytest.fixture
def server() -> Iterator[StandInServer]:
    with StandInServer("parallel_calls") as running:
        yield running


# --- malformed requests: 400 with a JSON error body, as the API answers


MALFORMED = [
    ("Content-Length -1", _post(VALID, "Content-Length: -1"), "Content-Length must be a number"),
    ("Content-Length not a number", _post(VALID, "Content-Length: lots"), "Content-Length must be a number"),
    ("Content-Length +5", _post(VALID, "Content-Length: +5"), "Content-Length must be a number"),
    ("Content-Length in other digits", _post(VALID, "Content-Length: ١٢"), "Content-Length must be a number"),
    (
        "two Content-Lengths",
        _post(VALID, f"Content-Length: {len(VALID)}", "Content-Length: 3"),
        "conflicting",
    ),
    (
        "length and chunks",
        _post(VALID, f"Content-Length: {len(VALID)}", "Transfer-Encoding: chunked"),
        "both",
    ),
    ("an unknown encoding", _post(VALID, "Transfer-Encoding: gzip"), "unsupported Transfer-Encoding"),
    (
        "broken chunks",
        _post(b"zz\r\nabc\r\n0\r\n\r\n", "Transfer-Encoding: chunked"),
        "malformed chunked body",
    ),
    ("a body cut short", _post(VALID[:20], f"Content-Length: {len(VALID)}"), "the body ended after 20"),
    ("not UTF-8", _post(b'{"model": "\xff"}', "Content-Length: 14"), "not UTF-8"),
    ("not JSON", _post(b'{"model": ', "Content-Length: 10"), "not valid JSON"),
    ("trailing text", _post(b"{} {}", "Content-Length: 5"), "not valid JSON"),
    ("too deep", _post(b"[" * 5000, "Content-Length: 5000"), "not valid JSON"),
    ("too many digits", _post(b"9" * 5000, "Content-Length: 5000"), "not valid JSON"),
    ("a JSON array", _post(b"[1]", "Content-Length: 3"), "must be a JSON object"),
    ("no body", _post(b"", "Content-Length: 0"), "must be a JSON object"),
    ("no length at all", _post(b""), "must be a JSON object"),
    ("a bad request line", b"GARBAGE\r\n\r\n", "Bad request"),
    (
        "a header line too long",
        b"POST /v1/messages HTTP/1.1\r\nX: " + b"a" * 70_000 + b"\r\n\r\n",
        "Line too long",
    ),
    ("too many headers", b"GET / HTTP/1.1\r\n" + b"X: y\r\n" * 120 + b"\r\n", "Too many headers"),
]


@pytest.mark.parametrize(("name", "raw", "says"), MALFORMED, ids=[m[0] for m in MALFORMED])
def test_a_malformed_request_gets_a_4xx_in_the_api_error_shape(
    server: StandInServer, name: str, raw: bytes, says: str
) -> None:
    status, body = _exchange(server, raw)
    assert 400 <= status < 500
    assert body["type"] == "error"
    assert body["error"]["type"] == "invalid_request_error"
    assert says in body["error"]["message"]
    assert not server.failures


def test_a_chunked_body_is_read(server: StandInServer) -> None:
    chunks = b"".join(
        b"%x\r\n%s\r\n" % (len(VALID[i : i + 100]), VALID[i : i + 100]) for i in range(0, len(VALID), 100)
    )
    with socket.create_connection(("127.0.0.1", _port(server)), timeout=30) as connection:
        connection.sendall(_post(chunks + b"0\r\n\r\n", "Transfer-Encoding: chunked"))
        head = connection.recv(65536)
    assert head.startswith(b"HTTP/1.1 200 ")
    assert server.requests[-1].body == json.loads(VALID)


def test_an_unknown_method_gets_the_api_error_shape(server: StandInServer) -> None:
    status, body = _exchange(server, b"BREW /v1/messages HTTP/1.1\r\nHost: x\r\n\r\n")
    assert status == 501
    assert body["error"]["type"] == "api_error"


# --- size: a body over the limit is refused before it is read, and the log is bounded


def _send_large(server: StandInServer, size: int) -> tuple[int, dict[str, Any]]:
    """POST ``size`` bytes without holding them: the answer must come back whole, not as a reset."""
    chunk = b" " * (1 << 20)
    with socket.create_connection(("127.0.0.1", _port(server)), timeout=60) as connection:
        connection.sendall(_post(b"", f"Content-Length: {size}")[:-2] + b"\r\n")
        sent = 0
        try:
            while sent < size:
                connection.sendall(chunk[: size - sent])
                sent += min(len(chunk), size - sent)
        except OSError:
            pass
        answer = b""
        while part := connection.recv(65536):
            answer += part
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), json.loads(body)


def test_three_100_mb_bodies_are_refused_with_413_and_hold_no_memory(server: StandInServer) -> None:
    process = psutil.Process()
    gc.collect()
    before = process.memory_info().rss
    for _ in range(3):
        status, body = _send_large(server, 100 * 1024 * 1024)
        assert status == 413
        assert body["error"]["type"] == "request_too_large"
    gc.collect()
    grown = process.memory_info().rss - before
    assert grown < 20 * 1024 * 1024, f"resident memory grew by {grown / 2**20:.1f} MiB"
    assert [request.size for request in server.requests] == [0, 0, 0]


def test_the_real_client_gets_request_too_large() -> None:
    limits = Limits(max_body_bytes=1024 * 1024)
    with StandInServer("parallel_calls", limits=limits) as server:
        with anthropic.Anthropic(base_url=server.base_url, api_key="stand-in", max_retries=0) as client:
            with pytest.raises(anthropic.RequestTooLargeError):
                client.messages.create(
                    model="m", max_tokens=10, messages=[{"role": "user", "content": "x" * (2 * 1024 * 1024)}]
                )
            # The connection was closed after the refusal; the next request is served as usual.
            assert client.messages.create(**SCENARIO.first_request()).stop_reason == "tool_use"


def test_the_request_log_keeps_the_newest_within_its_bounds() -> None:
    limits = Limits(max_recorded=5, max_recorded_bytes=4 * len(VALID))
    with StandInServer("parallel_calls", limits=limits) as server:
        with anthropic.Anthropic(base_url=server.base_url, api_key="stand-in", max_retries=0) as client:
            for n in range(12):
                client.messages.create(**SCENARIO.first_request(), metadata={"user_id": str(n)})
        kept = server.requests
    assert server.requests_received == 12
    assert 1 <= len(kept) <= 5
    assert sum(request.size for request in kept) <= 4 * len(VALID)
    assert [r.body["metadata"]["user_id"] for r in kept] == [str(n) for n in range(12 - len(kept), 12)]


# --- time and threads: half-sent requests are cut off, a burst of clients is served


def _stalled(server: StandInServer, head: bytes) -> socket.socket:
    connection = socket.create_connection(("127.0.0.1", _port(server)), timeout=30)
    connection.sendall(head)
    return connection


def _closed_within(connection: socket.socket, seconds: float) -> float:
    started = time.monotonic()
    connection.settimeout(seconds)
    with connection:
        while connection.recv(65536):
            pass
    return time.monotonic() - started


def test_a_half_sent_head_or_body_is_cut_off_in_time() -> None:
    limits = Limits(header_timeout=1.0, body_timeout=1.5)
    with StandInServer("parallel_calls", limits=limits) as server:
        head = _stalled(server, b"POST /v1/messages HTTP/1.1\r\nHost: x\r\n")
        body = _stalled(server, _post(VALID[:10], f"Content-Length: {len(VALID)}"))
        # A slow drip does not extend the deadline: it runs from the first byte.
        drip = _stalled(server, b"P")
        for byte in b"OST / HTTP/1.1\r\n":
            time.sleep(0.1)
            try:
                drip.send(bytes([byte]))
            except OSError:
                break
        assert _closed_within(head, 5) < 3
        assert _closed_within(body, 5) < 3
        assert _closed_within(drip, 5) < 3
        assert not server.failures


def test_stalled_connections_do_not_keep_real_clients_out() -> None:
    limits = Limits(max_connections=8, header_timeout=1.0)
    with StandInServer("parallel_calls", limits=limits) as server:
        process = psutil.Process()
        threads = process.num_threads()
        stalled = [_stalled(server, b"POST /v1/messages HTTP/1.1\r\n") for _ in range(30)]
        time.sleep(0.3)
        # Eight handler threads at most, whatever the number of connections.
        assert process.num_threads() - threads <= 8
        started = time.monotonic()
        with anthropic.Anthropic(
            base_url=server.base_url, api_key="stand-in", max_retries=0, timeout=30
        ) as client:
            assert client.messages.create(**SCENARIO.first_request()).stop_reason == "tool_use"
        # Served once the stalled heads were cut off, a second or so each round of eight.
        assert time.monotonic() - started < 15
        for connection in stalled:
            connection.close()


def test_a_hundred_concurrent_real_clients_are_all_served(server: StandInServer) -> None:
    clients = 100
    barrier = threading.Barrier(clients)
    outcomes: list[Any] = [None] * clients

    def one(n: int) -> None:
        try:
            with anthropic.Anthropic(
                base_url=server.base_url, api_key="stand-in", max_retries=0, timeout=60
            ) as client:
                barrier.wait(timeout=60)
                with client.messages.create(**SCENARIO.first_request(), stream=True) as stream:
                    outcomes[n] = [event.type for event in stream][-1]
        except Exception as error:  # noqa: BLE001 - every failure is reported below
            outcomes[n] = error

    threads = [threading.Thread(target=one, args=(n,)) for n in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    failures = [outcome for outcome in outcomes if outcome != "message_stop"]
    assert not failures, f"{len(failures)} of {clients} clients failed: {failures[:3]}"
    assert server.requests_received == clients
    assert not server.failures


def test_limits_refuse_nonsense() -> None:
    with pytest.raises(ValueError, match="max_connections must be at least 1"):
        Limits(max_connections=0)
    with pytest.raises(ValueError, match="header_timeout must be a positive number"):
        Limits(header_timeout=0)
