"""The terminal views: a live display drawn with rich, and a plain line log.

:class:`LiveView` redraws at most ``fps`` times a second, whatever the event rate: a frame is built
from :meth:`RunView.frame`, which shows long strings by their tail, so drawing costs the same at the
first fragment of a 100 KB argument as at the last. When the console is not a terminal (a pipe, a
file, CI), nothing is drawn while the run goes on and the final frame is printed once at the end.

:class:`PlainView` prints the run's log lines as they come: no colours, no cursor movement.
"""

from __future__ import annotations

import sys
import time
from typing import IO, Any

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.panel import Panel
from rich.text import Text

from tooljson.ui.model import RunView

__all__ = ["LiveView", "PlainView", "render_frame"]

DEFAULT_FPS = 20.0

_BORDER = {
    "streaming": "cyan",
    "complete": "green",
    "malformed": "red",
    "incomplete": "yellow",
    "truncated": "yellow",
    "interrupted": "magenta",
    "rejected": "red",
}
_MARK = {
    "streaming": "…",
    "complete": "✓",
    "malformed": "✗",
    "incomplete": "?",
    "truncated": "✂",
    "interrupted": "⚡",
    "rejected": "⊘",
}


def _key_text(key: str | int | None) -> str:
    if key is None:
        return ""
    if isinstance(key, int):
        return f"[{key}] "
    from json import dumps

    return dumps(key, ensure_ascii=False) + ": "


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
            if row["t"] not in ("{", "["):
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
    kind = "" if call["block_type"] == "tool_use" else f" [{call['block_type']}]"
    title = Text.assemble(
        (f"turn {call['turn']} · ", "dim"), (call["name"], "bold"), (kind, "dim"), (f"  {call['id']}", "dim")
    )
    subtitle = Text(f"{_MARK.get(status, '')} {call['label']}", style=f"bold {colour}")
    return Panel(body, title=title, title_align="left", subtitle=subtitle, subtitle_align="left", border_style=colour)


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
    if len(calls) > max_calls:
        parts.append(Text(f"… {len(calls) - max_calls} earlier calls", style="dim"))
    for call in calls[-max_calls:]:
        if not frame["done"] and call["turn"] < frame["turn"]:
            # While a run goes on, earlier turns shrink to one line each, leaving the screen to the
            # calls arriving now; the final frame shows every call in full.
            parts.append(_call_line(call))
        else:
            parts.append(_call_panel(call, max_rows=max_rows))
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

    def __init__(self, console: Console | None = None, *, fps: float = DEFAULT_FPS, tail: int | None = None) -> None:
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

    def render(self, view: RunView) -> RenderableType:
        return render_frame(view.frame(tail=self.tail, max_rows=14))

    def on_change(self, view: RunView) -> None:
        if self._live is None or view.done:
            # The final frame is close's to draw: drawing it here as well would draw it twice.
            return
        now = time.perf_counter()
        if now < self._next:
            return
        self._next = now + self.interval
        self.frames += 1
        self._live.update(self.render(view), refresh=True)

    def close(self, view: RunView) -> None:
        """Set the final frame: drawn in place when the display stops on a terminal, printed once
        elsewhere."""
        self.frames += 1
        if self._live is not None:
            # Drawn when the display stops, once, whole.
            self._live.update(self.render(view), refresh=False)
        else:
            self.console.print(self.render(view))


class PlainView:
    """Prints each new log line of the run; the driver calls :meth:`on_change`."""

    def __init__(self, out: IO[str] | None = None) -> None:
        self.out = out if out is not None else sys.stdout
        self._printed = 0

    def __enter__(self) -> PlainView:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def on_change(self, view: RunView) -> None:
        log = view.log
        if len(log) > self._printed:
            for line in log[self._printed :]:
                print(line, file=self.out)
            self._printed = len(log)

    def close(self, view: RunView) -> None:
        self.on_change(view)
        counters = view.frame(max_rows=0)["counters"]
        summary = ", ".join(f"{call.name} {call.label}" for call in view.calls)
        print(f"calls: {summary or 'none'}", file=self.out)
        if view.failure:
            print(f"failure: {view.failure}", file=self.out)
        print(f"final text: {view.final_text or ''}", file=self.out)
        print(
            f"{counters['events']} events, {counters['deltas']} deltas, {counters['chars']} chars, "
            f"tooljson {counters['parse_ms']:.1f} ms, elapsed {counters['elapsed_ms'] / 1000:.2f} s",
            file=self.out,
        )
