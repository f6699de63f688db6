"""How a run is played into a view: its pace, its stop from outside, and a recording replayed.

Whatever drives a run (a replay here, the tool loop or an API's client in :mod:`tooljson.demo`, the
proxy's traffic) feeds :class:`~tooljson.turn.TurnReader` s, hands each to a
:class:`~tooljson.ui.model.RunView`, and calls ``on_change(view)`` after each event, which is where a
view decides whether to draw. ``speed`` paces stream events so that a person can follow them (events
per second; 0 plays at full speed). ``stop``, when set from another thread, ends the run at the next
event (:class:`Cancelled`).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any, Protocol

from tooljson.errors import MalformedEvent
from tooljson.turn import TurnReader
from tooljson.ui.model import RunView
from tooljson.ui.recording import Recording

__all__ = [
    "Cancelled",
    "LogToView",
    "OnChange",
    "Pacer",
    "Reading",
    "ignore_change",
    "pacer_for",
    "play_events",
]

OnChange = Callable[[RunView], None]


class Reading(Protocol):
    """How a replay reads its responses: ``begin(number)`` gives the reader of the next response
    (the view shows it), ``feed(event)`` has it read the next event."""

    def begin(self, number: int) -> TurnReader: ...

    def feed(self, event: Any) -> None: ...


class _OwnReaders:
    """A reader of its own for each response, timed."""

    def __init__(self) -> None:
        self._reader: TurnReader | None = None

    def begin(self, number: int) -> TurnReader:
        self._reader = TurnReader(number=number, timing=True)
        return self._reader

    def feed(self, event: Any) -> None:
        assert self._reader is not None
        self._reader.feed(event)


class Cancelled(Exception):
    """The run was stopped from outside (a browser tab closed, say)."""


class Pacer:
    """Spaces events ``1 / speed`` seconds apart, measured from the start so that slow frames
    do not add up into drift. ``speed <= 0`` never waits."""

    def __init__(self, speed: float) -> None:
        self.interval = 0.0
        self._next = time.perf_counter()
        self.set_speed(speed)

    def set_speed(self, speed: float) -> None:
        """Change the pace from now on (from any thread: the next wait reads it)."""
        self.interval = 1.0 / speed if speed > 0 else 0.0
        self._next = time.perf_counter()

    def wait(self, stop: threading.Event | None = None) -> None:
        """Until the next event is due; ``stop`` being set ends the wait at once."""
        if not self.interval:
            return
        self._next += self.interval
        delay = self._next - time.perf_counter()
        if delay > 0:
            if stop is None:
                time.sleep(delay)
            else:
                stop.wait(delay)
        else:
            # Behind schedule (a slow frame, a slow network): catch up without bursting later.
            self._next = time.perf_counter()


def ignore_change(_: RunView) -> None:
    """The ``on_change`` of a run nobody draws."""
    return None


def pacer_for(speed: float | Pacer) -> Pacer:
    # A Pacer given by the caller lets it change the pace while the run goes on.
    return speed if isinstance(speed, Pacer) else Pacer(speed)


def play_events(
    events: Recording | Iterable[dict[str, Any]],
    view: RunView,
    *,
    speed: float | Pacer = 0.0,
    on_change: OnChange = ignore_change,
    stop: threading.Event | None = None,
    on_warning: Callable[[str], None] | None = None,
    reading: Reading | None = None,
) -> None:
    """Replay recorded events, one :class:`TurnReader` per response (each starts at its
    ``message_start``, or the event that opens a response of another provider), then close the view.

    Each oddity a reader tolerates becomes a warning line naming where it is (``"FILE, line N:
    warning: ..."`` for a :class:`Recording`, ``"event N: ..."`` otherwise): it goes to the view's log
    and to ``on_warning``. An event the reader cannot read raises
    :class:`~tooljson.MalformedEvent`, its message naming where it is too. ``reading`` makes and
    feeds the readers (by default each response's own, timed).
    """
    pacer = pacer_for(speed)
    read = _OwnReaders() if reading is None else reading
    recording = events if isinstance(events, Recording) else None
    played: Iterable[dict[str, Any]] = events.events if isinstance(events, Recording) else events
    reader: TurnReader | None = None
    for position, event in enumerate(played):
        if stop is not None and stop.is_set():
            raise Cancelled
        if event.get("type") != "ping":
            pacer.wait(stop)
        if reader is None or reader.begins_another(event):
            reader = read.begin(view.turn + 1)
            view.add_turn(reader)
        warned = len(reader.warnings)
        where = recording.where(position) if recording is not None else f"event {position + 1}"
        try:
            read.feed(event)
        except MalformedEvent as error:
            raise MalformedEvent(f"{where}: {error.problem}") from error
        for warning in reader.warnings[warned:]:
            line = f"{where}: warning: {warning}"
            view.log.append(line)
            if on_warning is not None:
                on_warning(line)
        view.update()
        on_change(view)
    view.finish()
    on_change(view)


class LogToView(logging.Handler):
    """Puts the library's log lines (repairs, rejections, retries) in the view's log, where the
    views show them, instead of letting them cross a live display on stderr."""

    def __init__(self, view: RunView) -> None:
        super().__init__(logging.INFO)
        self.view = view

    def emit(self, record: logging.LogRecord) -> None:
        self.view.update()
        line = record.getMessage().replace("\n", " ")
        self.view.log.append(f"log {record.levelname.lower()}: {line[:300]}")
