"""The browser view: a local page that shows tool calls arrive, pushed as server-sent events.

``GET /`` is the page (plain HTML, CSS and JavaScript shipped in ``tooljson/ui/static``);
``GET /api/sources`` lists the runs the server was given to offer (each a :class:`RunOffer`: the
recordings of :func:`recording_offers`, whatever else its caller offers, or none: the view knows no
source of runs itself); ``GET /api/run`` starts one (``source=ID``, ``speed`` in events a second).

Its answer is the Vercel AI SDK's UI message stream (``data: <part>`` lines, then ``data: [DONE]``),
the parts :mod:`tooljson.protocols.ai_sdk` writes for an application's own front end: ``start``
(``messageId`` is the run's id), each response's parts (:mod:`tooljson.ui.parts`: text, each call's
start, deltas, stable previews and verdict), ``finish``, and an ``error`` part when the run broke.
What the protocol has no part for comes in a data part of the view's own, ``data-run`` (transient,
at most ``FRAMES_PER_SECOND`` a second): a :meth:`RunView.frame` snapshot with the counters (events,
deltas, time), each call's argument tree marked row by row (complete, growing, where it broke) and
the loop's outcome (repaired, rejected, the result), the log, the failure.
``POST /api/runs/ID/speed?speed=N`` changes the pace of a run in progress. The run happens in a
worker thread (the tool loop and the stand-in are synchronous) and stops at the next event when the
page goes away.

:class:`WebServer` binds ``127.0.0.1`` only, on a free port unless told otherwise. Every malformed
query gets a 400 with a JSON error; what it lets in (hosts, origins, how many runs at once) and the
headers it sends are :mod:`tooljson.ui.web_guard`'s.
"""

from __future__ import annotations

import asyncio
import math
import threading
import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from tooljson.protocols.ai_sdk import DONE, HEADERS, encode
from tooljson.text import encodable
from tooljson.ui.listen import bind
from tooljson.ui.model import RunView
from tooljson.ui.parts import RunParts
from tooljson.ui.playback import Cancelled, OnChange, Pacer, play_events
from tooljson.ui.recording import RecordingError, load_recording
from tooljson.ui.web_guard import MAX_RUNS, RunSlots, guarded

__all__ = ["FRAMES_PER_SECOND", "RunContext", "RunOffer", "WebServer", "create_app", "recording_offers"]

FRAMES_PER_SECOND = 20.0
# Strings in the browser keep a longer tail than in a terminal line; rows per call are bounded so
# that a frame stays small whatever the argument's size.
_TAIL = 400
_MAX_ROWS = 200
_STATIC_TYPES = {"app.js": "text/javascript", "style.css": "text/css", "index.html": "text/html"}
# A pace is 0 (full speed) or between these, in events a second: slower would leave a run (and its
# place among the runs allowed) waiting for hours between two events.
_SPEED_RANGE = (0.1, 100_000.0)
# Parts a page has not read yet past which its run stops: the page is gone or stuck (30 s of frames,
# and as many parts of the stream's own).
_UNREAD_LIMIT = int(60 * FRAMES_PER_SECOND)
FRAME_PART = "data-run"
"""The type of the view's own data part: ``data`` is a :meth:`RunView.frame` snapshot."""

Publish = Callable[[dict[str, Any] | None], None]


@dataclass(frozen=True)
class RunContext:
    """What an offered run is played with: the view it feeds, the pace it waits on between events,
    ``on_change`` to call after each, the ``stop`` that ends it (:class:`Cancelled`), and the
    :class:`~tooljson.ui.parts.RunParts` its events become for the page: a replay reads its
    responses with their readers (``reading=parts``), a run whose own reader reads the events (the
    tool loop) hands each to ``parts.tee``."""

    view: RunView
    pacer: Pacer
    on_change: OnChange
    stop: threading.Event
    parts: RunParts


@dataclass(frozen=True)
class RunOffer:
    """One run the page may start: how the picker shows it and how it is played.

    ``id`` is what the page asks for (``source=ID``), never a path; ``group`` is the picker's heading
    it goes under. ``play(context)`` plays the run in a worker thread (:class:`RunContext`).
    """

    id: str
    group: str
    name: str
    description: str
    title: str
    play: Callable[[RunContext], None]


def recording_offers(files: Sequence[str | Path]) -> list[RunOffer]:
    """Each recording replayed, offered by its position (``file:N``) so that no request names a path."""

    def offer(number: int, path: Path) -> RunOffer:
        def play(run: RunContext) -> None:
            recording = load_recording(path)
            play_events(
                recording,
                run.view,
                speed=run.pacer,
                on_change=run.on_change,
                stop=run.stop,
                reading=run.parts,
            )

        name = encodable(path.name, escape=True)[0]
        return RunOffer(
            id=f"file:{number}",
            group="Recordings",
            name=name,
            description=f"Replay of {name}",
            title=f"replay of {path.name}",
            play=play,
        )

    return [offer(number, Path(path)) for number, path in enumerate(files)]


def _static(name: str) -> str:
    return resources.files("tooljson.ui").joinpath("static", name).read_text(encoding="utf-8")


def _frame_part(view: RunView, *, live: bool = False) -> dict[str, Any]:
    frame = view.frame(tail=_TAIL, max_rows=_MAX_ROWS)
    frame["live"] = live
    return {"type": FRAME_PART, "id": "run", "data": frame, "transient": True}


def _produce(offer: RunOffer, speed: Pacer, publish: Publish, stop: threading.Event) -> None:
    """Play one offered run in this thread, publishing its parts and throttled frames, then ``finish``
    (the caller then ends the stream)."""
    interval = 1.0 / FRAMES_PER_SECOND
    next_frame = 0.0
    view = RunView(title=offer.title)
    parts = RunParts(publish, interval=interval)

    def on_change(current: RunView) -> None:
        nonlocal next_frame
        now = time.perf_counter()
        if now >= next_frame:
            next_frame = now + interval
            publish(_frame_part(current))

    failure: str | None = None
    try:
        offer.play(RunContext(view, speed, on_change, stop, parts))
    except Cancelled:
        return
    except RecordingError as error:
        failure = encodable(str(error), escape=True)[0]
    except Exception as error:  # noqa: BLE001 - whatever broke, the page must say so rather than hang
        failure = encodable(f"{type(error).__name__}: {error}", escape=True)[0]
    parts.close()
    if failure is not None:
        publish({"type": "error", "errorText": failure})
    publish(_frame_part(view))
    finish = "error" if failure is not None or view.failure else parts.finish
    publish({"type": "finish", "finishReason": finish})


async def _live_parts(live: RunView) -> AsyncIterator[str]:
    """A run fed by this event loop, until the page goes away: its frames, read in the loop that feeds
    the run, between two of its events, so nothing is read while it changes. (The proxy relays many
    responses at once, each read by its own reader: there is no one stream to write parts of, so
    the page draws the calls from the frames.)"""
    yield encode({"type": "start", "messageId": "live"})
    while True:
        # Each frame is sent once the previous one was taken (the server waits on a page that does
        # not read), so a page that never reads holds one frame, never a growing backlog.
        yield encode(_frame_part(live, live=True))
        if live.done:
            yield encode({"type": "finish", "finishReason": "error" if live.failure else "stop"})
            yield DONE
            return
        await asyncio.sleep(1.0 / FRAMES_PER_SECOND)


def _speed(text: str | None) -> float | None:
    """A pace from a query, or ``None`` when it is not one: 0, or a number in ``_SPEED_RANGE``."""
    try:
        speed = float(text if text is not None else "")
    except ValueError:
        return None
    low, high = _SPEED_RANGE
    return speed if speed == 0 or (math.isfinite(speed) and low <= speed <= high) else None


_SPEED_PROBLEM = f"speed must be 0 (full speed) or a number of events a second from {_SPEED_RANGE[0]:g} to {_SPEED_RANGE[1]:g}"


def create_app(
    offers: Sequence[RunOffer] = (), *, max_runs: int = MAX_RUNS, live: RunView | None = None
) -> Starlette:
    """The ASGI application; ``offers`` are the runs the page may start (nothing else can be run); at
    most ``max_runs`` play at once. ``live`` is a run fed by this server's own event loop (the
    proxy's): the source ``live`` shows it as it goes."""
    by_id = {offer.id: offer for offer in offers}
    if len(by_id) != len(offers) or "live" in by_id:
        raise ValueError("each offered run needs an id of its own, and 'live' is the proxy's")
    runs = RunSlots(max_runs)

    async def index(request: Request) -> Response:
        return HTMLResponse(_static("index.html"))

    async def static(request: Request) -> Response:
        name = request.path_params["name"]
        media_type = _STATIC_TYPES.get(name)
        if media_type is None:
            return Response("not found", status_code=404, media_type="text/plain")
        return Response(_static(name), media_type=media_type)

    async def sources(request: Request) -> Response:
        return JSONResponse(
            {
                "sources": [
                    {"id": o.id, "group": o.group, "name": o.name, "description": o.description}
                    for o in offers
                ],
                "live": live.title if live is not None else None,
            }
        )

    async def run(request: Request) -> Response:
        source = request.query_params.get("source", "")
        if source == "live" and live is not None:
            return StreamingResponse(_live_parts(live), headers=HEADERS)
        offer = by_id.get(source)
        speed = _speed(request.query_params.get("speed", "0"))
        if offer is None:
            return JSONResponse({"error": f"unknown source {source[:80]!r}"}, status_code=400)
        if speed is None:
            return JSONResponse({"error": _SPEED_PROBLEM}, status_code=400)
        pacer = Pacer(speed)
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        stop = threading.Event()
        run_id = runs.reserve(stop, pacer)
        if run_id is None:
            busy = f"{runs.limit} runs are in progress, the most this server plays at once; try again when one ends"
            return JSONResponse({"error": busy}, status_code=429, headers={"Retry-After": "5"})

        def publish(part: dict[str, Any] | None) -> None:
            if queue.qsize() > _UNREAD_LIMIT:
                # Nobody reads the parts any more (the page is gone or stuck): the run stops.
                stop.set()
            try:
                loop.call_soon_threadsafe(queue.put_nowait, part)
            except RuntimeError:
                # The server's loop is closed: it stopped, and nobody is listening any more.
                stop.set()

        def work() -> None:
            try:
                _produce(offer, pacer, publish, stop)
            finally:
                # The run's place is given back before the stream ends (so a speed change after it
                # is a 404), and the end is sent in every case, ending the response.
                runs.end(run_id)
                publish(None)

        async def stream() -> AsyncIterator[str]:
            if not runs.begin(run_id):
                yield encode(
                    {"type": "error", "errorText": "the run was not started in time; start it again"}
                )
                yield encode({"type": "finish", "finishReason": "error"})
                yield DONE
                return
            yield encode({"type": "start", "messageId": run_id})
            threading.Thread(target=work, name="tooljson-ui-run", daemon=True).start()
            try:
                while True:
                    part = await queue.get()
                    if part is None:
                        break
                    yield encode(part)
                yield DONE
            finally:
                # The page went away or the run ended: either way the worker stops at its next event.
                stop.set()

        return StreamingResponse(stream(), headers=HEADERS)

    async def set_speed(request: Request) -> Response:
        pacer = runs.pacer(request.path_params["run_id"])
        if pacer is None:
            return JSONResponse({"error": "no such run in progress"}, status_code=404)
        speed = _speed(request.query_params.get("speed"))
        if speed is None:
            return JSONResponse({"error": _SPEED_PROBLEM}, status_code=400)
        pacer.set_speed(speed)
        return JSONResponse({"speed": speed})

    app = Starlette(
        routes=[
            Route("/", index),
            Route("/static/{name}", static),
            Route("/api/sources", sources),
            Route("/api/run", run),
            Route("/api/runs/{run_id}/speed", set_speed, methods=["POST"]),
        ]
    )
    app.state.runs = runs
    return app


class WebServer:
    """The browser view served by uvicorn in a background thread, on ``127.0.0.1``."""

    def __init__(self, offers: Sequence[RunOffer] = (), *, port: int = 0, max_runs: int = MAX_RUNS) -> None:
        import uvicorn

        self.app = create_app(offers, max_runs=max_runs)
        self._socket = bind(port)
        self.port: int = self._socket.getsockname()[1]
        config = uvicorn.Config(
            guarded(self.app, work_paths=("/api/run",)),
            log_level="warning",
            lifespan="off",
            timeout_graceful_shutdown=2,
            access_log=False,
            # uvicorn's own Server and Date headers say nothing the page needs.
            server_header=False,
        )
        self._server = uvicorn.Server(config)
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def start(self) -> WebServer:
        """Serve in a background thread; returns once the server accepts connections."""
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._socket]}, name="tooljson-ui-web", daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the web server did not start")
            time.sleep(0.01)
        return self

    def wait(self, timeout: float | None = None) -> None:
        """Block until the server stops, or ``timeout`` seconds have passed."""
        if self._thread is not None:
            self._thread.join(timeout)

    def stop(self) -> None:
        """End the runs in progress, stop serving and wait for the server thread."""
        self.app.state.runs.stop_all()
        self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(10)
            self._thread = None
        self._socket.close()

    def __enter__(self) -> WebServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
