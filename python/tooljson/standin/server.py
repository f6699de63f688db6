"""The stand-in's transport: a local HTTP server that answers every API's endpoints from a scenario.

Each ``POST`` goes to the route that matches its path (:mod:`tooljson.standin.routes`, from the
wires of the registered sources; ``POST /v1/messages`` is :mod:`tooljson.providers.anthropic.endpoint`).
It listens on loopback only, on a free port unless told otherwise, and serves each connection in its
own thread, so the same server works for ``Anthropic`` and ``AsyncAnthropic`` clients. Every request is
recorded. Each answer is drawn from a random generator seeded by the server's seed, the scenario and
the request body (without ``stream``), so the same request always gets the same ids and cuts, and a
streamed and a whole answer to it agree.

Streams use chunked transfer encoding, as the API does: a dropped connection then leaves the response
visibly unfinished instead of looking like a short, complete one. What a client can make it hold is
bounded (:class:`~tooljson.standin.intake.Limits`): every malformed or oversized request gets a 4xx
in the API's error shape (:mod:`~tooljson.standin.intake`), connections are bounded in number and in
the time a request may take to arrive (:mod:`~tooljson.standin.connections`), and so is the log.
"""

from __future__ import annotations

import asyncio
import collections
import random
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from types import TracebackType
from typing import Any

from tooljson.standin import routes
from tooljson.standin.connections import BoundedHTTPServer, shut
from tooljson.standin.intake import Limits, Refusal, error_body, error_type, json_bytes, parse_body, read_body
from tooljson.standin.render import make_id
from tooljson.standin.scenario import Scenario
from tooljson.standin.scenarios import get_scenario
from tooljson.standin.threads import ThreadStore

__all__ = ["RecordedRequest", "StandInServer"]


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the server received it.

    ``headers`` has lower-case names (HTTP names are case-insensitive; clients differ in how they
    write them); ``body`` is the parsed JSON, or ``None`` when there was none or it was refused;
    ``size`` is the body's length in bytes.
    """

    method: str
    path: str
    headers: dict[str, str]
    body: Any
    size: int = 0


class _HTTPServer(BoundedHTTPServer):
    def __init__(self, address: tuple[str, int], owner: StandInServer) -> None:
        self.owner = owner
        super().__init__(address, _Handler, owner.limits, owner.record_failure)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # A request line too broken to name its version is answered in HTTP/1.1, with a status line.
    default_request_version = "HTTP/1.1"
    server: _HTTPServer

    def setup(self) -> None:
        super().setup()
        # The socket timeout bounds every single wait; the watchdog bounds each part of a request.
        self.connection.settimeout(self.server.limits.idle_timeout)
        self.server.remember(self.connection)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.forget(self.connection)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        if self.server.owner.verbose:
            super().log_message(format, *args)

    def handle_one_request(self) -> None:
        # An idle keep-alive connection waits up to idle_timeout for a request's first byte; from
        # there its request line and headers must arrive within header_timeout.
        try:
            if not self.rfile.peek(1):  # type: ignore[attr-defined]
                self.close_connection = True
                return
        except OSError:
            self.close_connection = True
            return
        self.server.expect_by(self.connection, self.server.limits.header_timeout)
        super().handle_one_request()

    def parse_request(self) -> bool:
        # The request line and the headers are read in here: the head is in when it returns.
        parsed = super().parse_request()
        self.server.expect_by(self.connection, None)
        return parsed

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """http.server's own refusals (a bad request line, headers too long, an unknown method) in
        the API's error shape, like every other answer."""
        self.close_connection = True
        text = message or self.responses.get(code, ("error",))[0]
        self.send_json(code, error_body(error_type(code), text), make_id(random.Random(), "req_"))

    # --- plumbing

    def _read_body(self) -> tuple[Any, int]:
        """The parsed JSON body (``None`` for none) and its size; raises :class:`Refusal`."""
        limits = self.server.limits
        self.server.expect_by(self.connection, limits.body_timeout)
        try:
            raw = read_body(self.headers, self.rfile, limits)
        finally:
            self.server.expect_by(self.connection, None)
        return parse_body(raw, limits), len(raw)

    def _headers(self) -> dict[str, str]:
        return {name.lower(): value for name, value in self.headers.items()}

    def send_json(self, status: int, payload: dict[str, Any], request_id: str) -> None:
        data = json_bytes(payload)
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("request-id", request_id)
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def _refuse(self, refusal: Refusal) -> None:
        """Answer a refused request; when its body was left unread, close the connection after it."""
        self.close_connection = self.close_connection or refusal.close
        self.send_json(
            refusal.status, error_body(refusal.error_type, refusal.message), make_id(random.Random(), "req_")
        )
        if refusal.close:
            self.server.linger(self.connection, self.wfile)

    def drop(self) -> None:
        """End the connection at once, leaving whatever response was begun unfinished."""
        self.close_connection = True
        try:
            self.wfile.flush()
        except OSError:
            pass
        shut(self.connection)

    # --- verbs

    def _receive(self) -> tuple[Any, int] | None:
        """Read and record the request; ``None`` when it was refused (and answered)."""
        owner = self.server.owner
        try:
            body, size = self._read_body()
        except Refusal as refusal:
            owner.record(self.command, self.path, self._headers(), None, 0)
            self._refuse(refusal)
            return None
        owner.record(self.command, self.path, self._headers(), body, size)
        return body, size

    def do_GET(self) -> None:
        if self._receive() is not None:
            self._not_found()

    do_DELETE = do_PUT = do_PATCH = do_HEAD = do_OPTIONS = do_GET  # noqa: N815 - http.server dispatches by these names

    def do_POST(self) -> None:
        received = self._receive()
        if received is None:
            return
        # Every API's endpoints are its wire's routes (tooljson.standin.routes).
        if not routes.serve(self, received[0]):
            self._not_found()

    def _not_found(self) -> None:
        error = error_body("not_found_error", f"Not found: {self.command} {self.path}")
        self.send_json(404, error, make_id(random.Random(), "req_"))


class StandInServer:
    """The stand-in Messages API on ``127.0.0.1``; a context manager, sync or async.

    ``scenario`` is a name from :data:`~tooljson.standin.scenarios.SCENARIOS` or a
    :class:`~tooljson.standin.scenario.Scenario`. ``fragment_sizes`` bounds the length, in
    characters, of every streamed fragment (the last one of a block may be shorter). ``limits``
    (:class:`~tooljson.standin.intake.Limits`) bounds what clients can make it hold: body size,
    threads, backlog, how long a request may take to arrive, the request log.
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
        limits: Limits | None = None,
    ) -> None:
        low, high = fragment_sizes
        if not 1 <= low <= high:
            raise ValueError(f"fragment_sizes must satisfy 1 <= low <= high, got {fragment_sizes}")
        self.scenario = get_scenario(scenario) if isinstance(scenario, str) else scenario
        self.fragment_sizes = (low, high)
        self.seed = seed
        self.verbose = verbose
        self.limits = limits if limits is not None else Limits()
        self._address = (host, port)
        self._lock = threading.Lock()
        self._requests: collections.deque[RecordedRequest] = collections.deque()
        self._recorded_bytes = 0
        self.requests_received = 0
        self._failures: list[str] = []
        self.threads = ThreadStore()
        self._http: _HTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- recording

    def record(self, method: str, path: str, headers: dict[str, str], body: Any, size: int = 0) -> None:
        """Keep a request; the oldest are let go past ``limits.max_recorded`` requests or
        ``limits.max_recorded_bytes`` of bodies (the newest one is always kept)."""
        with self._lock:
            self.requests_received += 1
            self._requests.append(RecordedRequest(method, path, headers, body, size))
            self._recorded_bytes += size
            while len(self._requests) > 1 and (
                len(self._requests) > self.limits.max_recorded
                or self._recorded_bytes > self.limits.max_recorded_bytes
            ):
                self._recorded_bytes -= self._requests.popleft().size

    def record_failure(self, text: str) -> None:
        with self._lock:
            self._failures.append(text)

    @property
    def requests(self) -> list[RecordedRequest]:
        """The requests received, in arrival order (a copy): all of them, unless there were more
        than the limits keep (``requests_received`` counts them all)."""
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
        http.stopping.set()
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
