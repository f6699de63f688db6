"""Running the proxy: its server on 127.0.0.1, the view of what passes through, and recordings.

The proxy, the browser view and the terminal view run in one thread and one event loop: every turn
reader is fed and read by that thread, nothing is locked, and a frame (a few milliseconds, at most
``fps`` times a second) is drawn between two relayed chunks, after each was sent on.
"""

from __future__ import annotations

import asyncio
import signal
import socket
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from tooljson.proxy.app import DEFAULT_IDLE_TIMEOUT, ProxyApp, quiet_cuts
from tooljson.proxy.observe import Recorder, Side
from tooljson.ui.listen import bind
from tooljson.ui.model import RunView

if TYPE_CHECKING:
    from tooljson.proxy.telemetry import ProxyTelemetry

__all__ = ["SHUTDOWN_GRACE", "ProxyServer", "bind", "serve"]

# Seconds the servers give their open connections to end when the proxy stops (the open streams
# are cut first, as an upstream reset would): past it they are closed.
SHUTDOWN_GRACE = 2


def serve(
    upstream: str,
    listener: socket.socket,
    *,
    record: Path | None = None,
    view: str = "live",
    web_listener: socket.socket | None = None,
    out: IO[str] | None = None,
    fps: float = 20.0,
    idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
    telemetry: ProxyTelemetry | None = None,
) -> RunView:
    """Serve until interrupted (Ctrl-C or SIGTERM); returns the run as the view showed it.

    ``view`` is ``"live"`` (the terminal view), ``"plain"`` (a line log) or ``"none"``; with a
    ``web_listener`` the browser view is served there too, its page showing the proxy's calls live.
    With ``telemetry``, each response and its calls are spans, flushed when the proxy stops.
    Stopping cuts the responses still open, as an upstream reset would, and takes a few seconds at
    most, whatever the views and the collector do.
    """
    import uvicorn

    from tooljson.ui.plain import PlainView
    from tooljson.ui.terminal import LiveViewProcess

    run = RunView(title=f"proxy → {upstream}")
    shown: Any = None
    if view == "plain":
        shown = PlainView(out)
    elif view == "live":
        # Drawn by a process of its own: drawing must never hold up a relayed chunk.
        shown = LiveViewProcess(fps=fps)

    def changed() -> None:
        if shown is not None:
            shown.on_change(run)

    side = Side(run, recorder=Recorder(record) if record else None, on_change=changed, telemetry=telemetry)
    quiet_cuts()
    app = ProxyApp(upstream, side=side, idle_timeout=idle_timeout)
    servers = [(uvicorn.Server(_config(uvicorn, app, "auto")), listener)]
    if web_listener is not None:
        from tooljson.ui.web import create_app

        servers.append((uvicorn.Server(_config(uvicorn, create_app(live=run), "off")), web_listener))

    async def main() -> None:
        tasks = [asyncio.create_task(server.serve(sockets=[sock])) for server, sock in servers]
        while not any(server.should_exit for server, _ in servers) and not any(task.done() for task in tasks):
            await asyncio.sleep(0.1)
        # Stopping: the open responses are cut, the run ends (a browser page gets its last frame and
        # its stream ends), then the servers close.
        await app.cut_all()
        run.finish()
        for server, _ in servers:
            server.should_exit = True
        await asyncio.gather(*tasks, return_exceptions=True)

    # Ctrl-C and SIGTERM stop the servers (uvicorn handles both while it serves, then raises the
    # signal again): the handlers here only take that last one, so that stopping is an ordinary end.
    previous = (
        {sig: signal.signal(sig, _stopped) for sig in (signal.SIGINT, signal.SIGTERM)}
        if _main_thread()
        else {}
    )
    if shown is not None:
        shown.__enter__()
    try:
        asyncio.run(main())
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if not run.done:
            run.finish()
        if shown is not None:
            shown.close(run)
            shown.__exit__(None, None, None)
        if telemetry is not None:
            telemetry.close()
    return run


def _config(uvicorn: Any, app: Any, lifespan: str) -> Any:
    # The standard event loop, even where uvloop is installed: with httpx2 as the HTTP client, uvloop
    # let it read a response from the upstream ahead of a slow client (an 8 MB response read at 64 KB/s
    # grew the proxy by the whole 8 MB, against under 2 MB with the standard loop); with aiohttp it
    # grew by 4.2 MB, and saved under 4% of the CPU per relayed MB at 200 streams, within the noise.
    # HTTP itself is parsed by httptools when it is installed (the proxy extra brings it), by h11
    # otherwise.
    return uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,
        lifespan=lifespan,
        timeout_graceful_shutdown=SHUTDOWN_GRACE,
        loop="asyncio",
    )


def _stopped(signum: int, frame: object) -> None:
    return None


def _main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()


class ProxyServer:
    """The proxy in a background thread, for tests and for programs that embed it: a context manager;
    ``url`` is where to point a client, ``run`` the :class:`RunView` of what passed (fed by the
    proxy's thread: read it once the traffic of interest is over and :meth:`settle` has returned)."""

    def __init__(
        self,
        upstream: str,
        *,
        port: int = 0,
        record: Path | None = None,
        idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
        telemetry: ProxyTelemetry | None = None,
    ) -> None:
        import threading

        import uvicorn

        self.run = RunView(title=f"proxy → {upstream}")
        self.telemetry = telemetry
        self._side = Side(self.run, recorder=Recorder(record) if record else None, telemetry=telemetry)
        self.app = ProxyApp(upstream, side=self._side, idle_timeout=idle_timeout)
        quiet_cuts()
        self._listener = bind(port)
        self._server = uvicorn.Server(_config(uvicorn, self.app, "on"))
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._listener]}, name="tooljson-proxy", daemon=True
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._listener.getsockname()[1]}"

    def __enter__(self) -> ProxyServer:
        import time

        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the proxy did not start")
            time.sleep(0.01)
        return self

    def settle(self, timeout: float = 10.0) -> None:
        """Waits until every response relayed so far has been read to its end (and recorded). The
        relay ends a response's reading just after sending its last byte, so a client can hold the
        whole body a moment before ``run`` shows the call complete. Raises ``TimeoutError`` when a
        response is still being read after ``timeout`` seconds."""
        import time

        deadline = time.monotonic() + timeout
        while self._side.reading:
            if time.monotonic() > deadline:
                raise TimeoutError(f"{self._side.reading} responses still being read after {timeout} s")
            time.sleep(0.01)

    def __exit__(self, *exc: object) -> None:
        self._server.should_exit = True
        self._thread.join(10)
        self._listener.close()
        if self.telemetry is not None:
            self.telemetry.close()
