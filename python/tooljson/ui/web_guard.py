"""What the browser view lets in, and the headers every answer carries.

The view serves recorded tool inputs, so it guards against the other pages a browser on the same
machine has open (see the README's security model):

* **Hosts**: a request must name the server as ``127.0.0.1`` or ``localhost`` in its ``Host``
  header (starlette's ``TrustedHostMiddleware``), so a page that rebinds its own domain name to
  127.0.0.1 gets a 400 instead of the recordings.
* **Origins**: a request that starts or steers a run must come from the page itself: an ``Origin``
  header, when sent, must be the server's own, and a browser's ``Sec-Fetch-Site`` must say
  ``same-origin`` (or ``none``: typed in the address bar). Anything else gets a 403, before any
  work is done; ``no-cors`` requests from other pages included.
* **Headers**: a Content-Security-Policy allowing only the server's own scripts, styles and
  connections, no framing (``frame-ancestors 'none'`` and ``X-Frame-Options: DENY``),
  ``nosniff``, no referrer, and resources readable by the same origin only.
* **Runs**: :class:`RunSlots` bounds how many runs play at once (each is a thread, and a stand-in
  server for a scenario).
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Sequence
from typing import Any

from starlette.datastructures import Headers
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["ALLOWED_HOSTS", "MAX_RUNS", "SECURITY_HEADERS", "RunSlots", "guarded"]

ALLOWED_HOSTS = ("127.0.0.1", "localhost")
"""The names a request may give the server in its ``Host`` header: the address it binds, and localhost."""

MAX_RUNS = 4
"""Runs playing at once, by default; one more is refused with 429 until one ends."""

SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (
        b"content-security-policy",
        b"default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; "
        b"base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    ),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-resource-policy", b"same-origin"),
    (b"cross-origin-opener-policy", b"same-origin"),
)

# How long a run's place is kept for a client that has not started reading its stream.
_START_GRACE = 30.0


def _cross_site(headers: Headers) -> str | None:
    """Why a request that would start or steer work does not come from the page itself, or ``None``."""
    origin = headers.get("origin")
    own = f"http://{headers.get('host', '')}"
    if origin is not None and origin != own:
        return f"a request from {origin[:80]} may not start or steer a run"
    site = headers.get("sec-fetch-site")
    if site is not None and site not in ("same-origin", "none"):
        return f"a {site[:20]} request may not start or steer a run"
    return None


class _Guard:
    """Adds the security headers to every answer and refuses cross-site requests to ``work_paths``."""

    def __init__(self, app: ASGIApp, work_paths: Sequence[str]) -> None:
        self.app = app
        self.work_paths = tuple(work_paths)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *SECURITY_HEADERS]}
            await send(message)

        if str(scope.get("path", "")).startswith(self.work_paths):
            problem = _cross_site(Headers(scope=scope))
            if problem is not None:
                await JSONResponse({"error": problem}, status_code=403)(scope, receive, send_with_headers)
                return
        await self.app(scope, receive, send_with_headers)


def guarded(app: ASGIApp, *, work_paths: Sequence[str]) -> ASGIApp:
    """``app`` behind the host allow-list, the origin check on ``work_paths`` and the headers."""
    return _Guard(TrustedHostMiddleware(app, allowed_hosts=list(ALLOWED_HOSTS)), work_paths)


class _Slot:
    def __init__(self, stop: threading.Event, pacer: Any) -> None:
        self.stop = stop
        self.pacer = pacer
        self.reserved = time.monotonic()
        self.started = False


class RunSlots:
    """The runs in progress by id, at most ``limit``: their stop flags (stopping the server ends them
    all) and pacers (the page changes a run's speed while it plays).

    A place is taken when a run is asked for and given back when its worker ends; a place whose
    client never started reading is given back after a grace period."""

    def __init__(self, limit: int = MAX_RUNS) -> None:
        if limit < 1:
            raise ValueError(f"the number of runs must be at least 1, got {limit}")
        self.limit = limit
        self.started = 0
        self._lock = threading.Lock()
        self._runs: dict[str, _Slot] = {}

    def reserve(self, stop: threading.Event, pacer: Any) -> str | None:
        """A new run's id, or ``None`` when ``limit`` runs are in progress."""
        with self._lock:
            now = time.monotonic()
            for run_id, slot in list(self._runs.items()):
                if not slot.started and now - slot.reserved > _START_GRACE:
                    slot.stop.set()
                    del self._runs[run_id]
            if len(self._runs) >= self.limit:
                return None
            run_id = secrets.token_hex(8)
            self._runs[run_id] = _Slot(stop, pacer)
            return run_id

    def begin(self, run_id: str) -> bool:
        """The run's worker starts: its place is kept until :meth:`end`. ``False`` when the place
        was given back meanwhile (its client took longer than the grace period to start reading)."""
        with self._lock:
            slot = self._runs.get(run_id)
            if slot is None:
                return False
            slot.started = True
            self.started += 1
            return True

    def end(self, run_id: str) -> None:
        with self._lock:
            self._runs.pop(run_id, None)

    def __len__(self) -> int:
        with self._lock:
            return len(self._runs)

    def pacer(self, run_id: str) -> Any:
        with self._lock:
            slot = self._runs.get(run_id)
        return slot.pacer if slot is not None else None

    def stop_all(self) -> None:
        with self._lock:
            for slot in self._runs.values():
                slot.stop.set()
