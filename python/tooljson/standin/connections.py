"""The stand-in's HTTP server with bounded connections: threads, backlog, time to send a request.

Each connection is served by its own thread, at most ``Limits.max_connections`` at once: past that
the accept loop waits for a free thread and new connections queue in the listen backlog
(``Limits.backlog``), so a burst of clients is served in turn instead of reset. A connection that
is sending a request must finish each part of it by a deadline (its head within
``header_timeout`` of its first byte, its body within ``body_timeout``): a watchdog thread cuts off
those that do not, so a half-sent request cannot hold a thread. Stopping closes every open
connection and joins every thread.
"""

from __future__ import annotations

import socket
import sys
import threading
import time
import traceback
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tooljson.standin.intake import Limits

__all__ = ["BoundedHTTPServer", "shut"]


def shut(connection: socket.socket) -> None:
    """End both directions of ``connection`` (a thread blocked reading it wakes up)."""
    try:
        connection.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass


class BoundedHTTPServer(ThreadingHTTPServer):
    """A threading HTTP server within ``limits``; ``on_failure`` gets the traceback of anything a
    handler raised but a client hanging up."""

    daemon_threads = False
    block_on_close = True

    def __init__(
        self,
        address: tuple[str, int],
        handler: type[BaseHTTPRequestHandler],
        limits: Limits,
        on_failure: Callable[[str], None],
    ) -> None:
        self.limits = limits
        self.on_failure = on_failure
        self.request_queue_size = limits.backlog
        self.open_connections: set[socket.socket] = set()
        self.connections_lock = threading.Lock()
        self.stopping = threading.Event()
        self._slots = threading.BoundedSemaphore(limits.max_connections)
        # Connections that must have sent what is awaited by a time (monotonic).
        self._deadlines: dict[socket.socket, float] = {}
        super().__init__(address, handler)
        self._watchdog = threading.Thread(target=self._watch, name="standin-watchdog", daemon=True)
        self._watchdog.start()

    def process_request(self, request: Any, client_address: Any) -> None:
        # Wait for a free thread; meanwhile new connections wait in the listen backlog.
        while not self._slots.acquire(timeout=0.1):
            if self.stopping.is_set():
                self.shutdown_request(request)
                return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()

    def remember(self, connection: socket.socket) -> None:
        with self.connections_lock:
            self.open_connections.add(connection)

    def forget(self, connection: socket.socket) -> None:
        with self.connections_lock:
            self.open_connections.discard(connection)
            self._deadlines.pop(connection, None)

    def expect_by(self, connection: socket.socket, seconds: float | None) -> None:
        """Cut ``connection`` off unless what is awaited from it arrives within ``seconds``
        (``None``: nothing is awaited any more)."""
        with self.connections_lock:
            if seconds is None:
                self._deadlines.pop(connection, None)
            else:
                self._deadlines[connection] = time.monotonic() + seconds

    def _watch(self) -> None:
        while not self.stopping.wait(0.2):
            now = time.monotonic()
            with self.connections_lock:
                late = [connection for connection, deadline in self._deadlines.items() if deadline < now]
                for connection in late:
                    del self._deadlines[connection]
            for connection in late:
                shut(connection)

    def linger(self, connection: socket.socket, wfile: Any) -> None:
        """Close ``connection`` after an answer sent before the request's body was read: the client
        may finish sending it (discarded, within the body timeout), so that it reads the answer
        rather than a reset."""
        try:
            wfile.flush()
            connection.shutdown(socket.SHUT_WR)
            self.expect_by(connection, self.limits.body_timeout)
            while connection.recv(65536):
                pass
        except OSError:
            pass

    def handle_error(self, request: Any, client_address: Any) -> None:
        error = sys.exc_info()[1]
        # A client that hung up (say, after an error event) or was cut off is normal here.
        if isinstance(error, (ConnectionError, TimeoutError)):
            return
        self.on_failure(traceback.format_exc())

    def close_open_connections(self) -> None:
        self.stopping.set()
        with self.connections_lock:
            connections = list(self.open_connections)
        for connection in connections:
            shut(connection)
