"""What the debug views show, read from the turn readers of a run.

A :class:`RunView` follows one run: a tool loop over several requests, or a replayed recording. It
holds the :class:`~tooljson.turn.TurnReader` of every response (the loop or the replay feeds them;
the view never parses anything itself) and the loop's own steps (requests, retries, pauses), and
turns them into what a person reads: a log of notable moments, and :meth:`RunView.frame`, a
JSON-ready snapshot of every call (its verdict, the argument tree filling in, counters), built only
when a view asks for one, never per event. The terminal and the browser draw the same frames.
"""

from __future__ import annotations

import time
from typing import Any

from tooljson.text import encodable, escaped_note, json_excerpt, json_text, shorten
from tooljson.turn import TurnReader, describe_break
from tooljson.ui.call_view import CallView, call_view
from tooljson.ui.tree import tree_rows

__all__ = ["KEPT_LOG_LINES", "KEPT_TURNS", "CallView", "RunView"]

# Finished turns a RunView keeps by default (open ones are all kept), and log lines it keeps at least.
KEPT_TURNS = 100
KEPT_LOG_LINES = 1000


class RunView:
    """One run as the views show it: its turn readers, the loop's steps, a log, the final text."""

    def __init__(self, *, title: str = "", keep_turns: int | None = KEPT_TURNS) -> None:
        self.title = title
        # Every open turn and the last ``keep_turns`` finished ones (history is the recordings' job).
        self.turns: list[TurnReader] = []
        self.keep_turns = keep_turns
        # Time spent reading previews for frames (feeding is counted by the readers themselves).
        self.frame_seconds = 0.0
        # The clock starts at the first step, so that imports and connecting are not counted.
        self.started: float | None = None
        self.finished_at: float | None = None
        self.final_text: str | None = None
        self.failure: str | None = None
        # Notable moments as lines (the oldest let go past ``KEPT_LOG_LINES``, ``log_dropped`` counts them).
        self.log: list[str] = []
        self.log_dropped = 0
        # The readers whose news may not all be logged yet (by id), and what the log says of each:
        # blocks started, calls finished, results, whether the stop reason and a break were logged.
        self._active: dict[int, TurnReader] = {}
        self._logged: dict[int, list[Any]] = {}
        # The counters of the turns let go: events, deltas, characters, feeding seconds, calls.
        self._gone = [0, 0, 0, 0.0, 0]

    # --- input

    def add_turn(self, reader: TurnReader) -> None:
        """Follow a new response's reader (fed by the loop or a replay, never by the view)."""
        if self.started is None:
            self.started = time.perf_counter()
        self.update()
        self.turns.append(reader)
        self._active[id(reader)] = reader
        self._logged[id(reader)] = [0, 0, 0, False, False]
        self._forget()

    def _forget(self) -> None:
        """Let the oldest finished turns (out of ``_active``) go past ``keep_turns``, counters kept."""
        excess = len(self.turns) - self.keep_turns if self.keep_turns is not None else 0
        for reader in [r for r in self.turns[:-1] if id(r) not in self._active][: max(excess, 0)]:
            blocks = reader.blocks
            counted = (
                reader.events,
                sum(b.deltas for b in blocks),
                sum(b.chars for b in blocks),
                reader.feed_seconds,
                len(blocks),
            )
            self._gone = [total + value for total, value in zip(self._gone, counted)]
            self.turns.remove(reader)

    def loop_event(self, event: Any) -> None:
        """Take one :class:`tooljson.LoopEvent` from ``run_tool_loop``'s ``on_event``."""
        kind = event.kind
        if self.started is None:
            self.started = time.perf_counter()
        if kind == "turn":
            self.add_turn(event.data)
        elif kind == "request":
            self.update()
            self.log.append(f"request {event.turn} (max_tokens={event.data.get('max_tokens')})")
        elif kind == "retry":
            self.update()
            self.log.append(f"cut off at max_tokens: the loop resends with max_tokens={event.data}")
        elif kind == "pause":
            self.update()
            self.log.append("pause_turn: the loop resends the conversation")

    def update(self, reader: TurnReader | None = None) -> None:
        """Log what changed since the last call: calls started and finished, the stop reason and
        the verdicts it decides, a break, results. With ``reader``, that reader's news only (a
        proxy's chunk changes one of its concurrent responses): the cost is that of the news, a few
        lengths, whatever the number of readers open; without, every active reader's."""
        if reader is None:
            readers = list(self._active.values())
        else:
            readers = [reader] if id(reader) in self._active else []
        for each in readers:
            self._log_news(each)
        # A reader that ended, with a newer one after it, has nothing more to say.
        latest = self.turns[-1] if self.turns else None
        for each in readers:
            if each is not latest and (each.stopped or each.interruption is not None):
                del self._active[id(each)]
                del self._logged[id(each)]
        if len(self.log) > 2 * KEPT_LOG_LINES:
            dropped = len(self.log) - KEPT_LOG_LINES
            del self.log[:dropped]
            self.log_dropped += dropped

    def _log_news(self, reader: TurnReader) -> None:
        logged = self._logged[id(reader)]
        blocks, calls, results = logged[0], logged[1], logged[2]
        number = reader.number
        for block in reader.blocks[blocks:]:
            self.log.append(f"turn {number}: call {block.name} ({block.id}) started")
        for call in reader.calls[calls:]:
            view = call_view(reader, next(b for b in reader.blocks if b.call is call))
            if call.ok:
                self.log.append(
                    f"turn {number}: {call.name} ({call.id}) complete: {json_excerpt(call.input)}"
                )
            elif view.status != "incomplete" or reader.stop_reason is not None:
                self.log.append(f"turn {number}: {call.name} ({call.id}) {view.label}")
        if reader.stop_reason is not None and not logged[3]:
            logged[3] = True
            self.log.append(f"turn {number}: stop_reason {reader.stop_reason}")
            if reader.refused:
                said = f": {json_excerpt(reader.stop_message)}" if reader.stop_message else ""
                self.log.append(f"turn {number}: no valid call ({reader.stop_reason}){said}")
            # Verdicts that waited for the stop reason, for calls that finished before it came.
            for call in reader.calls[:calls]:
                if call.status == "incomplete":
                    view = call_view(reader, next(b for b in reader.blocks if b.call is call))
                    self.log.append(f"turn {number}: {call.name} ({call.id}) {view.label}")
        if reader.interruption is not None and not logged[4]:
            logged[4] = True
            self.log.append(f"turn {number}: stream interrupted: {reader.interruption}")
        answered = list(reader.results.items()) if len(reader.results) > results else []
        for tool_use_id, result in answered[results:]:
            name = next((b.name for b in reader.blocks if b.id == tool_use_id), "?")
            label = "error" if result.get("is_error") else "result"
            text = result.get("content")
            text = text if isinstance(text, str) else json_text(text)
            self.log.append(f"{label} for {name} ({tool_use_id}): {shorten(text)}")
        logged[0], logged[1], logged[2] = len(reader.blocks), len(reader.calls), len(reader.results)

    def finish(self, *, final_text: str | None = None, failure: str | None = None) -> None:
        """The run is over: ``final_text`` is the model's last text (the last turn's when ``None``)."""
        if self.turns:
            reader = self.turns[-1]
            if not reader.stopped and reader.interruption is None:
                reader.interrupt(failure or describe_break(None, reader.provider))
        self.update()
        if failure is not None:
            self.failure = failure
            self.log.append(failure)
        elif self.turns and self.turns[-1].interruption is not None:
            self.failure = self.turns[-1].interruption
        self.final_text = final_text if final_text is not None else self.text
        self.finished_at = time.perf_counter()

    # --- output

    @property
    def calls(self) -> list[CallView]:
        """Every tool call of the run, turn by turn, as it stands now."""
        return [call_view(reader, block) for reader in self.turns for block in reader.blocks]

    @property
    def turn(self) -> int:
        return self.turns[-1].number if self.turns else 0

    @property
    def stop_reason(self) -> str | None:
        return self.turns[-1].stop_reason if self.turns else None

    @property
    def text(self) -> str:
        """The model's text of the latest turn so far."""
        return self.turns[-1].assembler.text if self.turns else ""

    @property
    def events(self) -> int:
        return int(self._gone[0]) + sum(reader.events for reader in self.turns)

    @property
    def deltas(self) -> int:
        return int(self._gone[1]) + sum(block.deltas for reader in self.turns for block in reader.blocks)

    @property
    def chars(self) -> int:
        return int(self._gone[2]) + sum(block.chars for reader in self.turns for block in reader.blocks)

    @property
    def parse_seconds(self) -> float:
        """Time spent inside tooljson: the readers' feeding and the previews read for frames."""
        return self._gone[3] + sum(reader.feed_seconds for reader in self.turns) + self.frame_seconds

    @property
    def elapsed(self) -> float:
        if self.started is None:
            return 0.0
        end = self.finished_at if self.finished_at is not None else time.perf_counter()
        return end - self.started

    @property
    def done(self) -> bool:
        return self.finished_at is not None

    def recent_calls(self, count: int) -> tuple[list[CallView], int]:
        """The last ``count`` calls of the run, and how many came before them."""
        blocks = [(reader, block) for reader in self.turns for block in reader.blocks]
        shown = blocks[-count:] if count > 0 else []
        return [call_view(reader, block) for reader, block in shown], int(self._gone[4]) + len(blocks) - len(
            shown
        )

    def frame(
        self, *, tail: int = 80, max_rows: int = 40, max_calls: int = 50, earlier_rows: bool = True
    ) -> dict[str, Any]:
        """A JSON-ready snapshot of everything a view shows: the last ``max_calls`` calls with their
        status, counters and rows (``earlier_calls`` counts the others), and the run's counters.

        Every string in it can be encoded: lone surrogates (valid in JSON, kept by the parser) are
        shown as their ``\\udXXX`` escapes, and ``escaped`` says so (per call, and for the title,
        text and failure; a log line says it at its end), ``None`` when nothing was escaped.
        ``earlier_rows=False``: no rows for the calls of earlier turns while the run goes on.
        """
        started = time.perf_counter()
        views, earlier = self.recent_calls(max_calls)
        # Without ``earlier_rows``, a run going on has rows for its latest turn's calls only.
        every = earlier_rows or self.done
        calls = [
            self._call_frame(view, tail=tail, max_rows=max_rows if every or view.turn >= self.turn else 0)
            for view in views
        ]
        self.frame_seconds += time.perf_counter() - started
        latest = self.turns[-1] if self.turns else None
        frame, escaped = encodable(self._run_frame(latest), escape=True)
        frame["escaped"] = escaped_note(escaped)
        frame["calls"] = calls
        frame["earlier_calls"] = earlier
        frame["log"] = [_shown(line) for line in self.log[-8:]]
        return dict(frame)

    def _run_frame(self, latest: TurnReader | None) -> dict[str, Any]:
        return {
            "title": self.title,
            "turn": self.turn,
            "text": self.text,
            "thinking_chars": latest.assembler.thinking_chars if latest is not None else 0,
            "final_text": self.final_text,
            "stop_reason": self.stop_reason,
            "failure": self.failure,
            "done": self.done,
            "counters": {
                "events": self.events,
                "deltas": self.deltas,
                "chars": self.chars,
                "parse_ms": round(self.parse_seconds * 1000, 3),
                "elapsed_ms": round(self.elapsed * 1000, 1),
            },
        }

    def _call_frame(self, view: CallView, *, tail: int, max_rows: int) -> dict[str, Any]:
        if view.value is None or max_rows == 0:
            rows, hidden = [], 0
        else:
            tree = tree_rows(
                view.value,
                open_path=view.open_path,
                growing=view.status == "streaming",
                tail=tail,
                max_rows=max_rows,
                repairs={repair.path: repair.after for repair in view.repairs},
            )
            rows, hidden = [row.as_json() for row in tree.rows], tree.hidden
        result = None
        if view.result is not None:
            result = {"is_error": bool(view.result.get("is_error")), "text": view.result_text}
        frame = {
            "turn": view.turn,
            # Any hashable index: numbers and strings as they are, anything else as its repr.
            "index": view.index if isinstance(view.index, (int, str)) else repr(view.index),
            "id": view.id,
            "name": view.name,
            "block_type": view.block_type,
            "status": view.status,
            "label": view.label,
            "position": view.position,
            "deltas": view.deltas,
            "chars": view.chars,
            "rows": rows,
            "hidden_rows": hidden,
            "result": result,
            "excerpt": list(view.excerpt) if view.excerpt is not None else None,
        }
        shown, escaped = encodable(frame, escape=True)
        shown["escaped"] = escaped_note(escaped)
        return dict(shown)


def _shown(line: str) -> str:
    """A log line as a view shows it: encodable, saying so when it had to escape something."""
    shown, escaped = encodable(line, escape=True)
    return f"{shown}  [{escaped_note(escaped)}]" if escaped else str(shown)
