"""A local HTTP server that answers ``POST /v1/messages`` from a scenario, streamed or whole.

It listens on loopback only, on a free port unless told otherwise, and serves each connection in its
own thread, so the same server works for ``Anthropic`` and ``AsyncAnthropic`` clients. Every request is
recorded. Each answer is drawn from a random generator seeded by the server's seed, the scenario and
the request body (without ``stream``), so the same request always gets the same ids and cuts, and a
streamed and a whole answer to it agree.

Streams use chunked transfer encoding, as the API does: a dropped connection then leaves the response
visibly unfinished instead of looking like a short, complete one.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
import socket
import sys
import threading
import traceback
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

from tooljson.standin import routes
from tooljson.standin.conversation import RequestRejected, check_tool_pairing, turn_number
from tooljson.standin.render import (
    UnrenderableReply,
    estimate_tokens,
    make_id,
    render_message,
    render_stream,
)
from tooljson.standin.catalog import get_scenario
from tooljson.standin.scenario import Scenario

__all__ = ["RecordedRequest", "StandInServer"]

# HTTP status of an overloaded API, used when a faulty scenario is asked for a whole message.
_OVERLOADED_STATUS = 529


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the server received it.

    ``headers`` has lower-case names (HTTP names are case-insensitive; clients differ in how they
    write them); ``body`` is the parsed JSON, or ``None`` when there was none or it was not JSON.
    """

    method: str
    path: str
    headers: dict[str, str]
    body: Any


def _error_body(error_type: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": error_type, "message": message}}


def _request_rng(seed: int, scenario: str, body: dict[str, Any]) -> random.Random:
    unstreamed = {key: value for key, value in body.items() if key != "stream"}
    canonical = json.dumps(unstreamed, sort_keys=True, ensure_ascii=False)
    digest = hashlib.sha256(f"{seed}\0{scenario}\0{canonical}".encode()).digest()
    return random.Random(int.from_bytes(digest[:16], "big"))


def _check_body(body: Any) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise RequestRejected("the request body must be a JSON object")
    if not isinstance(body.get("model"), str):
        raise RequestRejected("model: field required")
    max_tokens = body.get("max_tokens")
    if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1:
        raise RequestRejected("max_tokens: a positive integer is required")
    check_tool_pairing(body)
    return body


class _HTTPServer(ThreadingHTTPServer):
    """Tracks open connections so that stopping can close them and join every handler thread."""

    daemon_threads = False
    block_on_close = True

    def __init__(self, address: tuple[str, int], owner: StandInServer) -> None:
        self.owner = owner
        self.open_connections: set[socket.socket] = set()
        self.connections_lock = threading.Lock()
        super().__init__(address, _Handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        error = sys.exc_info()[1]
        # A client that hung up (say, after an error event) is normal here, not a server failure.
        if isinstance(error, ConnectionError):
            return
        self.owner.record_failure(traceback.format_exc())

    def close_open_connections(self) -> None:
        with self.connections_lock:
            connections = list(self.open_connections)
        for connection in connections:
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # An idle keep-alive connection is let go after this many seconds.
    timeout = 30
    server: _HTTPServer

    def setup(self) -> None:
        super().setup()
        with self.server.connections_lock:
            self.server.open_connections.add(self.connection)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            with self.server.connections_lock:
                self.server.open_connections.discard(self.connection)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        if self.server.owner.verbose:
            super().log_message(format, *args)

    # --- plumbing

    def _read_body(self) -> Any:
        """The parsed JSON body; ``None`` when there is none or it is not JSON."""
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            return json.loads(raw) if raw else None
        except ValueError:
            return None

    def _headers(self) -> dict[str, str]:
        return {name.lower(): value for name, value in self.headers.items()}

    def _send_json(self, status: int, payload: dict[str, Any], request_id: str) -> None:
        data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("request-id", request_id)
        self.end_headers()
        self.wfile.write(data)

    def _drop(self) -> None:
        """End the connection at once, leaving whatever response was begun unfinished."""
        self.close_connection = True
        try:
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    # --- verbs

    def do_GET(self) -> None:
        self._not_found(self._read_body())

    def do_DELETE(self) -> None:
        self._not_found(self._read_body())

    def do_PUT(self) -> None:
        self._not_found(self._read_body())

    def do_POST(self) -> None:
        body = self._read_body()
        if self.path.split("?", 1)[0] != "/v1/messages":
            # The other APIs (Chat Completions, Responses, Bedrock, Vertex) are answered in routes.py.
            if routes.serve(self, body):
                return
            self._not_found(body)
            return
        owner = self.server.owner
        owner.record(self.command, self.path, self._headers(), body)
        request_id = make_id(random.Random(), "req_")
        try:
            checked = _check_body(body)
            reply = owner.scenario.respond(checked, turn_number(checked))
        except RequestRejected as rejected:
            self._send_json(400, _error_body("invalid_request_error", str(rejected)), request_id)
            return
        except Exception as error:  # a scenario bug: report it to the client and keep it for tests
            owner.record_failure(traceback.format_exc())
            self._send_json(500, _error_body("api_error", f"scenario failed: {error!r}"), request_id)
            return
        rng = _request_rng(owner.seed, owner.scenario.name, checked)
        model = str(checked["model"])
        prompt = json.dumps(checked.get("messages")) + json.dumps(checked.get("tools", []))
        input_tokens = estimate_tokens(prompt)
        if checked.get("stream") is True:
            stream = render_stream(
                reply, rng=rng, model=model, input_tokens=input_tokens, fragment_sizes=owner.fragment_sizes
            )
            self._send_stream(stream.events, drop=stream.drop, request_id=request_id)
            return
        if reply.fault is not None and reply.fault.kind == "drop":
            self._drop()
            return
        if reply.fault is not None:
            overloaded = _error_body(reply.fault.error_type, reply.fault.error_message)
            self._send_json(_OVERLOADED_STATUS, overloaded, request_id)
            return
        try:
            message = render_message(reply, rng=rng, model=model, input_tokens=input_tokens)
        except UnrenderableReply as error:
            self._send_json(500, _error_body("api_error", str(error)), request_id)
            return
        self._send_json(200, message, request_id)

    def _not_found(self, body: Any) -> None:
        self.server.owner.record(self.command, self.path, self._headers(), body)
        request_id = make_id(random.Random(), "req_")
        error = _error_body("not_found_error", f"Not found: {self.command} {self.path}")
        self._send_json(404, error, request_id)

    def _send_stream(self, events: list[dict[str, Any]], *, drop: bool, request_id: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("request-id", request_id)
        self.end_headers()
        try:
            for event in events:
                data = json.dumps(event, ensure_ascii=False, separators=(",", ":"))
                payload = f"event: {event['type']}\ndata: {data}\n\n".encode()
                self.wfile.write(b"%x\r\n%s\r\n" % (len(payload), payload))
            if drop:
                self._drop()
                return
            self.wfile.write(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            # The client went away mid-stream; nothing is left to answer.
            self.close_connection = True


class StandInServer:
    """The stand-in Messages API on ``127.0.0.1``; a context manager, sync or async.

    ``scenario`` is a name from :data:`~tooljson.standin.scenarios.SCENARIOS` or a
    :class:`~tooljson.standin.scenarios.Scenario`. ``fragment_sizes`` bounds the length, in
    characters, of every streamed fragment (the last one of a block may be shorter).
    """

    def __init__(
        self,
        scenario: str | Scenario = "parallel_calls",
        *,
        fragment_sizes: tuple[int, int] = (1, 32),
        seed: int = 0,
        host: str = "127.0.0.1",
        port: int = 0,
        verbose: bool = False,
    ) -> None:
        low, high = fragment_sizes
        if not 1 <= low <= high:
            raise ValueError(f"fragment_sizes must satisfy 1 <= low <= high, got {fragment_sizes}")
        self.scenario = get_scenario(scenario) if isinstance(scenario, str) else scenario
        self.fragment_sizes = (low, high)
        self.seed = seed
        self.verbose = verbose
        self._address = (host, port)
        self._lock = threading.Lock()
        self._requests: list[RecordedRequest] = []
        self._failures: list[str] = []
        self._http: _HTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- recording

    def record(self, method: str, path: str, headers: dict[str, str], body: Any) -> None:
        with self._lock:
            self._requests.append(RecordedRequest(method, path, headers, body))

    def record_failure(self, text: str) -> None:
        with self._lock:
            self._failures.append(text)

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request received so far, in arrival order (a copy)."""
        with self._lock:
            return list(self._requests)

    @property
    def failures(self) -> list[str]:
        """Tracebacks of whatever raised while serving: scenario code (also answered as HTTP 500) or
        the server itself. Hung-up clients are not failures."""
        with self._lock:
            return list(self._failures)

    # --- life cycle

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>``, to pass as the client's ``base_url``."""
        if self._http is None:
            raise RuntimeError("the server is not running")
        host, port = self._http.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> StandInServer:
        """Bind and serve in a background thread."""
        if self._http is not None:
            raise RuntimeError("the server is already running")
        self._http = _HTTPServer(self._address, self)
        self._thread = threading.Thread(
            target=self._http.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="standin-server",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop accepting, close open connections and wait for every handler thread to end."""
        if self._http is None:
            return
        http, thread = self._http, self._thread
        http.shutdown()
        http.close_open_connections()
        http.server_close()
        if thread is not None:
            thread.join()
        self._http = None
        self._thread = None

    def __enter__(self) -> StandInServer:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    async def __aenter__(self) -> StandInServer:
        return self.start()

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        # Joining handler threads blocks; keep the event loop free while it happens.
        await asyncio.to_thread(self.stop)
