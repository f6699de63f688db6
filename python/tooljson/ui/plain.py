"""The plain view: the run's log lines as they come, then a summary; no colours, no cursor movement.

It needs nothing beyond tooljson itself (``--plain`` works without the ``ui`` extra). What it prints
can always be encoded: lone surrogates are shown as their ``\\udXXX`` escapes, and the line says so.
"""

from __future__ import annotations

import sys
from typing import IO

from tooljson.text import encodable, escaped_note
from tooljson.ui.model import RunView

__all__ = ["PlainView"]


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
        # Counted from the run's first line: the run lets its oldest lines go.
        log, total = view.log, view.log_dropped + len(view.log)
        if total > self._printed:
            for line in log[max(self._printed - view.log_dropped, 0) :]:
                self._print(line)
            self._printed = total

    def close(self, view: RunView) -> None:
        self.on_change(view)
        counters = view.frame(max_rows=0)["counters"]
        summary = ", ".join(f"{call.name} {call.label}" for call in view.calls)
        self._print(f"calls: {summary or 'none'}")
        if view.failure:
            self._print(f"failure: {view.failure}")
        self._print(f"final text: {view.final_text or ''}")
        self._print(
            f"{counters['events']} events, {counters['deltas']} deltas, {counters['chars']} chars, "
            f"tooljson {counters['parse_ms']:.1f} ms, elapsed {counters['elapsed_ms'] / 1000:.2f} s"
        )

    def _print(self, line: str) -> None:
        shown, escaped = encodable(line, escape=True)
        print(f"{shown}  [{escaped_note(escaped)}]" if escaped else shown, file=self.out)
