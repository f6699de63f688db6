"""The live terminal view, drawn with rich (the ``ui`` extra; :mod:`tooljson.ui.plain` needs none).

:class:`LiveView` redraws at most ``fps`` times a second, whatever the event rate: a frame is built
from :meth:`RunView.frame`, which shows long strings by their tail, so drawing costs the same at the
first fragment of a 100 KB argument as at the last. When the console is not a terminal (a pipe, a
file, CI), nothing is drawn while the run goes on and the final frame is printed once at the end.
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
from typing import Any

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.panel import Panel
from rich.text import Text

from tooljson.ui.model import RunView

__all__ = ["LiveView", "LiveViewProcess", "render_frame"]

DEFAULT_FPS = 20.0

_logger = logging.getLogger("tooljson")
# The share of one core the live view's own drawing process may take.
DRAWING_SHARE = 0.25
# ... at this scheduling priority (added to the proxy's niceness; 19 is the lowest priority).
DRAWING_NICENESS = 10

_BORDER = {
    "streaming": "cyan",
    "complete": "green",
    "malformed": "red",
    "incomplete": "yellow",
    "truncated": "yellow",
    "interrupted": "magenta",
    "rejected": "red",
    "repaired": "blue",
    "failed": "red",
}
_MARK = {
    "streaming": "…",
    "complete": "✓",
    "malformed": "✗",
    "incomplete": "?",
    "truncated": "✂",
    "interrupted": "⚡",
    "rejected": "⊘",
    "repaired": "✎",
    "failed": "✗",
}


def _key_text(key: str | int | None) -> str:
    # An object key comes as JSON text already, an array position as a number.
    if key is None:
        return ""
    if isinstance(key, int):
        return f"[{key}] "
    return key + ": "


def _call_panel(call: dict[str, Any], *, max_rows: int) -> Panel:
    # Folded, never clipped: a clipped line would hide the end of a string, where it grows.
    body = Text(overflow="fold")
    if call["hidden_rows"]:
        body.append(f"… {call['hidden_rows']} rows above\n", style="dim")
    rows = call["rows"]
    if not rows:
        body.append("(no input yet)\n" if call["status"] == "streaming" else "(no input)\n", style="dim")
    for row in rows[-max_rows:]:
        body.append("  " * row["d"])
        body.append(_key_text(row["k"]), style="bold blue" if isinstance(row["k"], str) else "dim")
        state = row["s"]
        if state == "open":
            body.append(row["t"], style="yellow")
            # The cursor sits where the string grows.
            body.append("▌", style="bold yellow blink")
        elif state == "partial":
            body.append(row["t"], style="dim")
        else:
            body.append(row["t"])
            if "r" in row:
                body.append(" → ", style="bold blue")
                body.append(row["r"], style="bold blue")
                body.append(" ✎ repaired", style="blue")
            elif row["t"] not in ("{", "["):
                body.append(" ✓", style="green")
        body.append("\n")
    status = call["status"]
    if call["excerpt"] is not None:
        before, after = call["excerpt"]
        body.append("text: ", style="bold")
        body.append(before.replace("\n", "⏎"))
        body.append("◆", style=f"bold {_BORDER.get(status, 'white')}")
        body.append(after.replace("\n", "⏎"), style="dim")
        body.append(f"  (position {call['position']})\n", style="dim")
    body.append(f"{call['deltas']} deltas · {call['chars']:,} chars", style="dim")
    if call["escaped"]:
        body.append(f" · {call['escaped']}", style="yellow")
    result = call["result"]
    if result is not None:
        text = (result["text"] or "").replace("\n", " ⏎ ")
        if result["is_error"]:
            body.append("\nerror: ", style="bold red")
            body.append(text, style="red")
        else:
            body.append("\nresult: ", style="bold green")
            body.append(text, style="green")
    colour = _BORDER.get(status, "white")
    # The source's own word for the call (a server tool, a custom tool, a function call, ...).
    kind = f" [{call['block_type']}]"
    title = Text.assemble(
        (f"turn {call['turn']} · ", "dim"), (call["name"], "bold"), (kind, "dim"), (f"  {call['id']}", "dim")
    )
    subtitle = Text(f"{_MARK.get(status, '')} {call['label']}", style=f"bold {colour}")
    return Panel(
        body, title=title, title_align="left", subtitle=subtitle, subtitle_align="left", border_style=colour
    )


def _call_line(call: dict[str, Any]) -> Text:
    status = call["status"]
    colour = _BORDER.get(status, "white")
    return Text.assemble(
        (f"turn {call['turn']} · ", "dim"),
        (call["name"], "bold"),
        (f"  {call['id']}  ", "dim"),
        (f"{_MARK.get(status, '')} {call['label']}", f"bold {colour}"),
        no_wrap=True,
        overflow="ellipsis",
    )


def render_frame(frame: dict[str, Any], *, max_rows: int = 14, max_calls: int = 6) -> RenderableType:
    """Draw a :meth:`RunView.frame` snapshot."""
    parts: list[RenderableType] = []
    counters = frame["counters"]
    header = Text.assemble(
        (frame["title"] or "tooljson", "bold"),
        (
            f"   turn {frame['turn']} · {counters['events']:,} events · {counters['deltas']:,} deltas · "
            f"{counters['chars']:,} chars · tooljson {counters['parse_ms']:.1f} ms · "
            f"elapsed {counters['elapsed_ms'] / 1000:.2f} s",
            "dim",
        ),
    )
    parts.append(header)
    calls = frame["calls"]
    earlier = frame.get("earlier_calls", 0) + max(len(calls) - max_calls, 0)
    if earlier:
        parts.append(Text(f"… {earlier} earlier calls", style="dim"))
    for call in calls[-max_calls:]:
        if not frame["done"] and call["turn"] < frame["turn"]:
            # While a run goes on, earlier turns shrink to one line each, leaving the screen to the
            # calls arriving now; the final frame shows every call in full.
            parts.append(_call_line(call))
        else:
            parts.append(_call_panel(call, max_rows=max_rows))
    if frame["escaped"]:
        parts.append(Text(f"title, text and failure: {frame['escaped']}", style="yellow"))
    if frame["done"]:
        if frame["failure"]:
            parts.append(Text(f"✗ {frame['failure']}", style="bold red"))
        parts.append(Text.assemble(("final text: ", "bold"), frame["final_text"] or "(none)"))
    else:
        if frame["thinking_chars"]:
            parts.append(Text(f"thinking: {frame['thinking_chars']:,} characters", style="dim italic"))
        parts.append(Text.assemble(("text: ", "bold"), _tail(frame["text"], 300)))
        for line in frame["log"][-4:]:
            parts.append(Text(line, style="dim", no_wrap=True, overflow="ellipsis"))
    return Group(*parts)


def _tail(text: str, limit: int) -> str:
    return text if len(text) <= limit else "…" + text[-limit:]


class LiveView:
    """A live display of a run; use as a context manager around the run, with :meth:`on_change`
    as the driver's callback."""

    def __init__(
        self, console: Console | None = None, *, fps: float = DEFAULT_FPS, tail: int | None = None
    ) -> None:
        self.console = console if console is not None else Console(highlight=False)
        self.interval = 1.0 / fps if fps > 0 else 0.0
        # Strings show the tail that fits a line of the console.
        self.tail = tail if tail is not None else max(16, self.console.width - 50)
        self.frames = 0
        self._live: Live | None = None
        self._next = 0.0

    def __enter__(self) -> LiveView:
        if self.console.is_terminal:
            # Frames taller than the screen are cut while the run goes on (redrawing past the top of
            # the screen would leave copies behind); rich shows the last frame whole when it stops.
            self._live = Live(
                console=self.console, auto_refresh=False, redirect_stdout=False, redirect_stderr=False
            )
            self._live.start()
        # The first frame waits one interval too: a frame of the very first event shows nothing yet.
        self._next = time.perf_counter() + self.interval
        return self

    def __exit__(self, *exc: object) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None

    def frame(self, view: RunView) -> dict[str, Any]:
        return view.frame(tail=self.tail, max_rows=14, max_calls=6, earlier_rows=False)

    def render(self, view: RunView) -> RenderableType:
        return render_frame(self.frame(view))

    def due(self, view: RunView) -> bool:
        """Whether a frame is to be drawn now (at most ``fps`` a second, while the run goes on)."""
        if self._live is None or view.done:
            # The final frame is close's to draw: drawing it here as well would draw it twice.
            return False
        now = time.perf_counter()
        if now < self._next:
            return False
        self._next = now + self.interval
        return True

    def on_change(self, view: RunView) -> None:
        if self.due(view):
            self.draw(self.frame(view))

    def draw(self, frame: dict[str, Any], *, final: bool = False) -> None:
        """Draw a frame; the final one is drawn in place when the display stops on a terminal,
        printed once elsewhere."""
        self.frames += 1
        if self._live is None:
            if final:
                self.console.print(render_frame(frame))
        elif final:
            # Drawn when the display stops, once, whole.
            self._live.update(render_frame(frame), refresh=False)
        else:
            self._live.update(render_frame(frame), refresh=True)

    def close(self, view: RunView) -> None:
        """Set the final frame."""
        self.draw(self.frame(view), final=True)


class LiveViewProcess:
    """The live view drawn by a process of its own, for a server that must not be held up (the proxy):
    this process only makes each frame (a dict, a fraction of a millisecond) and hands it to a sender
    thread; drawing it for the terminal (a few milliseconds) happens elsewhere. The same interface as
    :class:`LiveView`, on this process's standard output.

    At most one frame waits to be sent (a newer one replaces it: the view draws the newest anyway),
    so a drawing process that is slow, stopped or dead costs the server nothing but the frames it
    misses. One warning says so; stopping waits for it ``STOP_SECONDS`` at most, then ends it."""

    STOP_SECONDS = 2.0
    # A frame in flight this long means the drawing process takes nothing any more.
    STUCK_SECONDS = 5.0

    def __init__(self, *, fps: float = DEFAULT_FPS) -> None:
        import multiprocessing
        import shutil
        import threading

        context = multiprocessing.get_context("spawn")
        self._receiving, self._sending = context.Pipe(duplex=False)
        self._process = context.Process(
            target=_draw_frames, args=(self._receiving, fps), name="tooljson-view", daemon=True
        )
        self.interval = 1.0 / fps if fps > 0 else 0.0
        self.tail = max(16, shutil.get_terminal_size().columns - 50)
        self._next = 0.0
        # What waits to be sent: at most one frame, then the final frame and the end (None).
        self._waiting: list[tuple[str, Any] | None] = []
        self._wake = threading.Condition()
        self._sending_since: float | None = None
        self._sender = threading.Thread(target=self._send_frames, name="tooljson-view-sender", daemon=True)
        self.dropped = 0
        self.trouble: str | None = None
        self._stuck = False
        self._stopping = False

    def __enter__(self) -> LiveViewProcess:
        self._process.start()
        # Only the drawing process holds the reading end: when it dies, sending fails at once.
        self._receiving.close()
        self._sender.start()
        self._next = time.perf_counter() + self.interval
        return self

    def __exit__(self, *exc: object) -> None:
        self._stopping = True
        self._offer(None)
        self._sender.join(self.STOP_SECONDS)
        self._process.join(0 if self._sender.is_alive() else self.STOP_SECONDS)
        for end in (self._process.terminate, self._process.kill):
            if self._process.is_alive():
                end()
                self._process.join(1)
        self._sender.join(1)
        self._sending.close()

    def on_change(self, view: RunView) -> None:
        if view.done or self.trouble is not None:
            return
        now = time.perf_counter()
        if now < self._next:
            return
        self._next = now + self.interval
        since = self._sending_since
        if since is not None and time.monotonic() - since > self.STUCK_SECONDS and not self._stuck:
            self._stuck = True
            _logger.warning(
                "proxy: the live view has taken no frame for %g s; frames are dropped until it does",
                self.STUCK_SECONDS,
            )
        # Earlier turns are one line each while the run goes on: their rows would not be drawn.
        self._offer(("frame", view.frame(tail=self.tail, max_rows=14, max_calls=6, earlier_rows=False)))

    def close(self, view: RunView) -> None:
        if self.trouble is None:
            self._offer(("final", view.frame(tail=self.tail, max_rows=14, max_calls=6)))

    def _offer(self, item: tuple[str, Any] | None) -> None:
        with self._wake:
            waiting = self._waiting
            if (
                item is not None
                and item[0] == "frame"
                and waiting
                and waiting[-1] is not None
                and waiting[-1][0] == "frame"
            ):
                waiting[-1] = item
                self.dropped += 1
            else:
                waiting.append(item)
            self._wake.notify()

    def _send_frames(self) -> None:
        while True:
            with self._wake:
                while not self._waiting:
                    self._wake.wait()
                item = self._waiting.pop(0)
            self._sending_since = time.monotonic()
            try:
                self._sending.send(item)
            except (OSError, ValueError):
                if not self._stopping:
                    self._process.join(0.5)
                    self._warn(
                        f"the live view stopped (its process exited with code {self._process.exitcode})"
                    )
                return
            self._sending_since = None
            if item is None:
                return

    def _warn(self, trouble: str) -> None:
        if self.trouble is None:
            self.trouble = trouble
            _logger.warning("proxy: %s; the relay goes on without it", trouble)


def _draw_frames(frames: Any, fps: float) -> None:
    """The drawing process: frames in, the live display out, using at most ``DRAWING_SHARE`` of a core.
    When several frames wait, only the newest is drawn; it ends at the end mark, or when the server's
    end of the pipe closes."""
    import signal

    # Ctrl-C reaches every process of the terminal: the parent decides when drawing ends.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # Drawing yields to every ordinary process (the proxy it shows, the application behind it): on a
    # busy machine it draws fewer frames instead of taking their turns.
    with contextlib.suppress(OSError, AttributeError):
        os.nice(DRAWING_NICENESS)

    view = LiveView(fps=fps)
    with view:
        while True:
            try:
                item = frames.recv()
                while item is not None and item[0] == "frame" and frames.poll():
                    item = frames.recv()
            except (EOFError, OSError):
                return
            if item is None:
                return
            kind, frame = item
            started = time.process_time()
            view.draw(frame, final=kind == "final")
            # Drawing takes at most a share of a core: on a busy machine the drawing competes with
            # the server it shows (and its clients) for the same cores; frames sent meanwhile are
            # skipped, the newest drawn.
            time.sleep((time.process_time() - started) * (1 / DRAWING_SHARE - 1))
