"""Reading a relayed response on the side, and keeping it: the observer and the recorder.

Each streamed Messages response is cut into server-sent events and fed to one
:class:`~tooljson.turn.TurnReader`; a whole (non-streamed) message is turned into the events it stands
for (:func:`message_events`) once it is complete. Nothing here can hold up or change the relay: the
bytes are read after they were sent on, and a response that cannot be read is only marked as such.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from tooljson._native import loads
from tooljson.providers.source import Framing, Source
from tooljson.sse import SSEDecoder
from tooljson.text import utf8_json
from tooljson.turn import TurnReader
from tooljson.ui.model import RunView
from tooljson.ui.recording import event_line

if TYPE_CHECKING:
    from tooljson.proxy.telemetry import ProxyTelemetry

__all__ = [
    "MAX_SHOWN_BODY_BYTES",
    "MAX_WAITING_BYTES",
    "READ_INTERVAL",
    "Observer",
    "Recorder",
    "Side",
    "request_summary",
]

logger = logging.getLogger("tooljson")

# A whole (non-streamed) response is also kept, up to this size, to be shown once complete.
MAX_SHOWN_BODY_BYTES = 16 * 1024 * 1024
# Relayed chunks are read on the side in batches, this often (seconds) ...
READ_INTERVAL = 0.05
# ... or as soon as one response has this many bytes waiting.
MAX_WAITING_BYTES = 64 * 1024


class Recorder:
    """Writes each observed response as a recording ``replay`` and ``web`` accept (one event a line),
    beside a ``.request.json`` with the request's method, path, model and body, and how it ended.
    Names are ``YYYYmmdd-HHMMSS-<number>-<request id>``.

    Recording never stands in the relay's way: the first write that fails (a full disk, a read-only
    or deleted directory) stops it, with one warning saying why (``stopped``); the files of the
    responses then open are closed as they stand, and the proxy goes on relaying without recording.
    """

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        directory.mkdir(parents=True, exist_ok=True)
        self.stopped: str | None = None
        self._count = 0
        self._files: dict[int, tuple[Path, IO[str]]] = {}

    @staticmethod
    def _file(path: Path) -> IO[str]:
        return path.open("x", encoding="utf-8")

    def open(self, key: int, request_id: str) -> None:
        """Start the recording of response ``key``."""
        if self.stopped is not None:
            return
        self._count += 1
        stamp = time.strftime("%Y%m%d-%H%M%S")
        safe = "".join(c for c in request_id if c.isalnum() or c in "-_")[:80] or "response"
        # The running number keeps the files of one second in the order the responses began.
        path = self.directory / f"{stamp}-{self._count:05d}-{safe}.jsonl"
        try:
            self._files[key] = (path, self._file(path))
        except OSError as error:
            self._stop(error)

    def write(self, key: int, event: Any) -> None:
        entry = self._files.get(key)
        if entry is not None:
            try:
                entry[1].write(event_line(event) + "\n")
            except OSError as error:
                self._stop(error)

    def close(self, key: int, request: dict[str, Any]) -> None:
        """End the recording of response ``key``, writing its ``.request.json``."""
        entry = self._files.pop(key, None)
        if entry is None:
            return
        path, handle = entry
        try:
            handle.close()
            with self._file(path.with_suffix(".request.json")) as out:
                out.write(utf8_json(request, indent=1))
        except OSError as error:
            self._stop(error)

    def _stop(self, error: OSError) -> None:
        self.stopped = f"{error.strerror or type(error).__name__} ({self.directory})"
        logger.warning("proxy: recording stopped: %s; responses are still relayed", self.stopped)
        for _, handle in self._files.values():
            with contextlib.suppress(OSError):
                handle.close()
        self._files.clear()


@dataclass
class Observer:
    """Reads one relayed response on the side: server-sent events, a source's own frames, or a whole
    answer, into a turn reader (which tells the provider from the events themselves)."""

    reader: TurnReader
    streamed: bool
    decompress: Any = None
    decoder: SSEDecoder = field(default_factory=SSEDecoder)
    body: bytearray = field(default_factory=bytearray)
    request: dict[str, Any] = field(default_factory=dict)
    # Where the events are recorded, under which key (none when not recording).
    recorder: Recorder | None = None
    key: int = 0
    broken: bool = False
    # Chunks relayed but not read yet (:class:`Side` reads them in batches), and their size.
    waiting: list[bytes] = field(default_factory=list)
    waiting_bytes: int = 0
    # The source the request's path names (None: not known), and its own framing of the body when its
    # wire is not server-sent events.
    source: Source | None = None
    frames: Framing | None = None

    def chunk(self, data: bytes) -> None:
        if self.broken:
            return
        if self.decompress is not None:
            data = self.decompress.decompress(data)
        if not self.streamed:
            if len(self.body) + len(data) <= MAX_SHOWN_BODY_BYTES:
                self.body += data
            return
        if self.frames is not None:
            framed, errors = self.frames.feed(data)
            self._take(framed)
            for error in errors:
                self.reader.interrupt(error)
            return
        # The chunk's events are parsed first, then taken by the reader together (its cost per call,
        # its timing, once per chunk): those before an event that does not parse are taken all the same.
        events: list[Any] = []
        try:
            for name, payload in self.decoder.feed(data):
                if name == "ping" or (payload[:1] != b"{" and payload.strip() in (b"", b"[DONE]")):
                    continue
                # tooljson's own strict parser (json.loads' results): a third of json.loads' time on
                # these events, which are most of what reading on the side costs.
                events.append(loads(payload.decode("utf-8")))
        finally:
            self._take(events)

    def _take(self, events: list[Any]) -> None:
        """Where every event read goes: the recording, then the turn reader."""
        if self.recorder is not None:
            for event in events:
                self.recorder.write(self.key, event)
        self.reader.feed_all(events)

    def end(self) -> None:
        if self.broken or self.streamed:
            return
        if self.source is None or self.source.whole is None:
            return
        for event in self.source.whole(json.loads(bytes(self.body))):
            self.reader.feed(event)


def decompressor(encoding: str) -> Any:
    encoding = encoding.strip().lower()
    if encoding in ("", "identity"):
        return None
    if encoding == "gzip":
        return zlib.decompressobj(16 + zlib.MAX_WBITS)
    if encoding == "deflate":
        return zlib.decompressobj()
    raise ValueError(f"content-encoding {encoding!r} is relayed but not shown")


def stop_observing(observer: Observer, error: BaseException) -> None:
    observer.broken = True
    observer.reader.interrupt(f"not shown: {type(error).__name__}: {error}")
    logger.warning(
        "proxy: a response could not be shown (%s: %s); it is relayed all the same",
        type(error).__name__,
        error,
    )


def request_summary(scope: dict[str, Any], body: bytes, source: Source | None = None) -> dict[str, Any]:
    """The request as the views and recordings show it: method, path, model and body. The model is the
    body's, or where the body names none, the one the path names for ``source``."""
    try:
        parsed: Any = json.loads(body) if body else None
    except ValueError:
        parsed = None
    model = parsed.get("model") if isinstance(parsed, dict) else None
    if not isinstance(model, str) and source is not None:
        model = source.model_at(scope["path"])
    return {"method": scope["method"], "path": scope["path"], "model": model, "body": parsed}


class Side:
    """Everything done beside the relay: each Messages response read by a turn reader that ``run``
    shows, and recorded when a ``recorder`` is given. The relay calls :meth:`begin`, :meth:`chunk`
    for every relayed chunk (after sending it on) and :meth:`end`, in order, from its event loop.

    A chunk is only put aside: the chunks put aside are read together every ``interval`` seconds (a
    frame of the live view at its default rate), by a callback of that loop, or at once when a
    response's waiting bytes pass ``MAX_WAITING_BYTES`` or the response ends; outside an event loop,
    at once. ``on_change`` is called after each reading, in that loop too, so the run is only touched
    by one thread. Reading in batches makes the cost of showing per batch, not per chunk: with 200
    streams at once, a relayed chunk no longer waits for the news of the others to be logged."""

    def __init__(
        self,
        run: RunView,
        *,
        recorder: Recorder | None = None,
        on_change: Callable[[], object] | None = None,
        interval: float = READ_INTERVAL,
        telemetry: ProxyTelemetry | None = None,
    ) -> None:
        self.run = run
        self.recorder = recorder
        # The spans of each response and its calls (--otlp), read inside the response's span.
        self.telemetry = telemetry
        self.on_change = on_change
        self.interval = interval
        self._observers: dict[int, Observer] = {}
        # The responses with chunks put aside, and whether a reading of them is due.
        self._waiting: dict[int, Observer] = {}
        self._due: asyncio.TimerHandle | None = None

    @property
    def reading(self) -> int:
        """How many responses are being read: begun, and not yet ended (their status set, their
        recording closed and the run told)."""
        return len(self._observers)

    def begin(
        self, key: int, request: dict[str, Any], headers: dict[str, str], source: Source | None = None
    ) -> None:
        """A response begins: ``source`` is whose answer the request's path asked for."""
        content_type = headers.get("content-type", "")
        framed = (
            source is not None and source.framing is not None and content_type.startswith(source.media_type)
        )
        streamed = framed or content_type.startswith("text/event-stream")
        try:
            decompress = decompressor(headers.get("content-encoding", ""))
            frames = (
                source.framing() if framed and source is not None and source.framing is not None else None
            )
        except (ValueError, ImportError) as error:
            logger.warning("proxy: a response is relayed but not shown: %s", error)
            return
        reader = TurnReader(number=key, timing=True)
        observer = Observer(reader, streamed, decompress, request=request, source=source, frames=frames)
        if self.recorder is not None and streamed:
            observer.recorder, observer.key = self.recorder, key
            self.recorder.open(key, headers.get("request-id") or headers.get("x-request-id") or "")
        self._observers[key] = observer
        if self.telemetry is not None:
            self.telemetry.begin(observer, request)
        self.run.add_turn(reader)
        self._changed(reader)

    def chunk(self, key: int, data: bytes) -> None:
        observer = self._observers.get(key)
        if observer is None or observer.broken:
            return
        observer.waiting.append(data)
        observer.waiting_bytes += len(data)
        self._waiting[key] = observer
        if observer.waiting_bytes > MAX_WAITING_BYTES:
            self._read(key)
            self._changed()
        elif self._due is None:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:  # fed directly, outside an event loop: read at once
                self.read_waiting()
                return
            self._due = loop.call_later(self.interval, self.read_waiting)

    def read_waiting(self) -> None:
        """Read every chunk put aside, then tell ``on_change`` once."""
        self._due = None
        for key in list(self._waiting):
            self._read(key)
        self._changed()

    def _read(self, key: int) -> None:
        observer = self._waiting.pop(key, None)
        if observer is None:
            return
        waiting, observer.waiting, observer.waiting_bytes = observer.waiting, [], 0
        if not observer.broken:
            with self._reading(observer):
                try:
                    observer.chunk(b"".join(waiting))
                except Exception as error:  # noqa: BLE001 - showing must never break relaying
                    stop_observing(observer, error)
        self.run.update(observer.reader)

    def end(self, key: int, state: str) -> None:
        self._read(key)
        observer = self._observers.get(key)
        if observer is None:
            return
        try:
            with self._reading(observer):
                if state == "complete" and not observer.broken:
                    try:
                        observer.end()
                    except Exception as error:  # noqa: BLE001
                        stop_observing(observer, error)
                if state != "complete" and observer.reader.interruption is None:
                    observer.reader.interrupt(state)
            if self.telemetry is not None:
                self.telemetry.end(observer, state)
            if observer.recorder is not None:
                observer.recorder.close(key, {**observer.request, "state": state})
            self._changed(observer.reader)
        finally:
            # Counted in `reading` until all of the above is done (`ProxyServer.settle` waits on it).
            del self._observers[key]

    def _reading(self, observer: Observer) -> contextlib.AbstractContextManager[None]:
        return contextlib.nullcontext() if self.telemetry is None else self.telemetry.reading(observer)

    def _changed(self, reader: TurnReader | None = None) -> None:
        if reader is not None:
            self.run.update(reader)
        if self.on_change is not None:
            self.on_change()
