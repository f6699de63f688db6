"""What the debug views show, kept up to date from stream events and tool-loop events.

:class:`Session` feeds every raw stream event to its own :class:`~tooljson.ToolCallAccumulator`, with
structural events switched on, and keeps one :class:`CallView` per tool call: the parser's live
preview, which paths are complete, which string is growing, counters, and the verdict. Views read it
through :meth:`Session.frame`, a JSON-ready snapshot, so the terminal and the browser show the same
thing; the snapshot is only built when a view asks for a frame, never per event.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any, Literal

from tooljson.events import Event
from tooljson.stream import ToolCall, ToolCallAccumulator
from tooljson.ui.tree import tree_rows

__all__ = ["CallStatus", "CallView", "Session"]

Path = tuple[str | int, ...]

CallStatus = Literal["streaming", "complete", "invalid", "cut_off", "truncated", "interrupted"]
"""``cut_off``: the text stopped as a valid prefix and the verdict waits for ``stop_reason``;
``truncated``: cut off by ``max_tokens``; ``interrupted``: the stream itself broke off."""

TOOL_BLOCK_TYPES = frozenset({"tool_use", "server_tool_use"})


def _short(text: str, limit: int = 160) -> str:
    text = text.replace("\n", "\\n")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _excerpt(raw: str, position: int, before: int = 40, after: int = 20) -> tuple[str, str]:
    start = max(0, position - before)
    head = ("…" if start else "") + raw[start:position]
    tail = raw[position : position + after] + ("…" if position + after < len(raw) else "")
    return head, tail


@dataclass
class CallView:
    """One tool call as the views show it."""

    turn: int
    index: int
    id: str
    name: str
    block_type: str
    status: CallStatus = "streaming"
    # Character offset where the text broke (invalid) or stopped (cut off, truncated, interrupted).
    position: int | None = None
    message: str | None = None
    deltas: int = 0
    bytes: int = 0
    # The parser's preview (the live object while streaming), or the parsed input once complete.
    value: Any = None
    complete_paths: set[Path] = field(default_factory=set)
    open_path: Path | None = None
    result: dict[str, Any] | None = None
    call: ToolCall | None = None
    # The raw text on each side of ``position``, to show where the text broke or stopped.
    excerpt: tuple[str, str] | None = None

    @property
    def label(self) -> str:
        """The status as a person reads it."""
        if self.status == "invalid":
            return f"invalid at position {self.position}: {self.message}"
        if self.status == "cut_off":
            return f"cut off at position {self.position}, waiting for stop_reason"
        if self.status == "truncated":
            return f"truncated at position {self.position} (max_tokens)"
        if self.status == "interrupted":
            return f"interrupted at position {self.position}: {self.message}"
        return self.status

    @property
    def result_text(self) -> str | None:
        if self.result is None:
            return None
        content = self.result.get("content")
        if isinstance(content, str):
            return content
        return json.dumps(content, ensure_ascii=False)


class Session:
    """The state of one run (a tool loop over several requests, or a replayed recording)."""

    def __init__(self, *, title: str = "") -> None:
        self.title = title
        self.accumulator = ToolCallAccumulator(on_event=self._on_parse_event)
        self.calls: list[CallView] = []
        self._open: dict[int, CallView] = {}
        self._texts: list[str] = []
        # Characters of thinking streamed in the latest turn: shown as a count, the text is the model's.
        self.thinking_chars = 0
        self.turn = 0
        self.stop_reason: str | None = None
        self.deltas = 0
        self.bytes = 0
        self.events = 0
        # Time spent inside tooljson: feeding the accumulator (with its structural events) and
        # reading previews for frames.
        self.parse_seconds = 0.0
        # The clock starts at the first event, so that imports and connecting are not counted.
        self.started: float | None = None
        self.finished_at: float | None = None
        self.final_text: str | None = None
        self.failure: str | None = None
        # Notable moments as lines: the plain view prints them, the live views show the last ones.
        self.log: list[str] = []

    # --- input

    def feed(self, event: dict[str, Any]) -> None:
        """Take one raw stream event (a dict, as the Messages API sends it)."""
        if self.started is None:
            self.started = time.perf_counter()
        self.events += 1
        kind = event.get("type")
        if kind == "content_block_delta":
            delta = event.get("delta") or {}
            view = self._open.get(event.get("index", -1))
            if view is not None and delta.get("type") == "input_json_delta":
                fragment = delta.get("partial_json", "")
                view.deltas += 1
                size = len(fragment.encode("utf-8"))
                view.bytes += size
                self.deltas += 1
                self.bytes += size
            elif delta.get("type") == "text_delta" and self._texts:
                self._texts[-1] += delta.get("text", "")
            elif delta.get("type") == "thinking_delta":
                self.thinking_chars += len(delta.get("thinking", ""))
        elif kind == "message_start":
            self.turn += 1
            self._texts.append("")
            self.thinking_chars = 0
            self.stop_reason = None
            self._open.clear()
        elif kind == "error":
            error = event.get("error") or {}
            self.interrupt(f"{error.get('type', 'error')}: {error.get('message', '')}")
            return
        if kind in ("content_block_stop", "message_delta"):
            self._keep_previews()
        started = time.perf_counter()
        calls = self.accumulator.feed(event)
        self.parse_seconds += time.perf_counter() - started
        if kind == "content_block_start":
            self._start_call(event)
        for call in calls:
            self._finish_call(call)
        if kind == "message_delta":
            self.stop_reason = (event.get("delta") or {}).get("stop_reason")
            self._decide_cut_off_calls()
            self.log.append(f"turn {self.turn}: stop_reason {self.stop_reason}")

    def loop_event(self, event: Any) -> None:
        """Take one :class:`tooljson.LoopEvent` from ``run_tool_loop``'s ``on_event``."""
        kind = event.kind
        if kind == "stream_event":
            if isinstance(event.data, dict):
                self.feed(event.data)
            return
        if self.started is None:
            self.started = time.perf_counter()
        if kind == "request":
            self.log.append(f"request {event.turn} (max_tokens={event.data.get('max_tokens')})")
        elif kind == "tool_result" and event.call is not None:
            self.record_result(event.call.id, event.data)
        elif kind == "retry":
            self.log.append(f"cut off at max_tokens: the loop resends with max_tokens={event.data}")
        elif kind == "pause":
            self.log.append("pause_turn: the loop resends the conversation")

    def record_result(self, tool_use_id: str, result: dict[str, Any]) -> None:
        """Attach a ``tool_result`` block to the latest call with that id."""
        for view in reversed(self.calls):
            if view.id == tool_use_id:
                view.result = result
                label = "error" if result.get("is_error") else "result"
                self.log.append(f"{label} for {view.name} ({view.id}): {_short(view.result_text or '')}")
                return

    def interrupt(self, reason: str) -> None:
        """The stream broke off: every call still open is marked interrupted where it stopped."""
        self._keep_previews()
        for view in self._open.values():
            view.open_path = None
            raw = self.accumulator.text(view.index)
            status = self.accumulator.status(view.index)
            if status.state == "malformed":
                # Broken before the stream was: the text's own fault is the more useful verdict.
                view.status = "invalid"
                view.position = status.pos
                view.message = status.msg
                view.excerpt = _excerpt(raw, status.pos or 0)
                continue
            view.status = "interrupted"
            view.position = len(raw)
            view.excerpt = _excerpt(raw, len(raw))
            view.message = reason
        self._open.clear()
        self.failure = reason
        self.log.append(f"stream interrupted: {reason}")

    def finish(self, *, final_text: str | None = None, failure: str | None = None) -> None:
        """The run is over: ``final_text`` is the model's last text (the last turn's when ``None``)."""
        if self._open:
            self.interrupt(failure or "the stream ended before message_stop")
        if failure is not None:
            self.failure = failure
            self.log.append(failure)
        self.final_text = final_text if final_text is not None else (self._texts[-1] if self._texts else "")
        self.finished_at = time.perf_counter()

    # --- the accumulator's side

    def _on_parse_event(self, index: int, event: Event) -> None:
        view = self._open.get(index)
        if view is None:
            return
        kind = event.kind
        if kind == "complete":
            path = event.path
            view.complete_paths.add(path)
            if path == view.open_path:
                view.open_path = None
        elif kind == "append" or (kind == "begin" and event.value == "string"):
            view.open_path = event.path

    def _start_call(self, event: dict[str, Any]) -> None:
        block = event.get("content_block") or {}
        if block.get("type") not in TOOL_BLOCK_TYPES:
            return
        index = event["index"]
        view = CallView(self.turn, index, str(block.get("id")), str(block.get("name")), str(block.get("type")))
        self.calls.append(view)
        self._open[index] = view
        self.log.append(f"turn {self.turn}: call {view.name} ({view.id}) started")

    def _keep_previews(self) -> None:
        # The accumulator forgets a block once it is finished; its preview object stays as it was,
        # which is what a broken or cut-off call should go on showing.
        for index, view in self._open.items():
            view.value = self.accumulator.preview(index)

    def _finish_call(self, call: ToolCall) -> None:
        view = self._open.pop(call.index, None)
        if view is None:
            return
        view.call = call
        view.open_path = None
        if call.ok:
            view.status = "complete"
            view.value = call.input
            self.log.append(f"turn {self.turn}: {view.name} ({view.id}) complete: {_short(json.dumps(call.input, ensure_ascii=False))}")
            return
        error = call.error
        view.position = error.pos if error is not None else len(call.raw_json)
        view.excerpt = _excerpt(call.raw_json, view.position)
        view.message = error.msg if error is not None else call.status
        if call.status == "incomplete":
            # Whether the cut was max_tokens is only known once message_delta brings stop_reason.
            view.status = "cut_off"
            if self.stop_reason is not None:
                self._decide(view)
        else:
            view.status = "invalid"
            self.log.append(f"turn {self.turn}: {view.name} ({view.id}) {view.label}")

    def _decide_cut_off_calls(self) -> None:
        for view in self.calls:
            if view.turn == self.turn and view.status == "cut_off":
                self._decide(view)

    def _decide(self, view: CallView) -> None:
        if self.stop_reason == "max_tokens":
            view.status = "truncated"
        else:
            view.status = "invalid"
        self.log.append(f"turn {self.turn}: {view.name} ({view.id}) {view.label}")

    # --- output

    @property
    def elapsed(self) -> float:
        if self.started is None:
            return 0.0
        end = self.finished_at if self.finished_at is not None else time.perf_counter()
        return end - self.started

    @property
    def done(self) -> bool:
        return self.finished_at is not None

    @property
    def text(self) -> str:
        """The model's text of the latest turn so far."""
        return self._texts[-1] if self._texts else ""

    def frame(self, *, tail: int = 80, max_rows: int = 40) -> dict[str, Any]:
        """A JSON-ready snapshot of everything a view shows: each call's status, counters and rows."""
        started = time.perf_counter()
        calls = []
        for view in self.calls:
            if view.status == "streaming" and self._open.get(view.index) is view:
                view.value = self.accumulator.preview(view.index)
                status = self.accumulator.status(view.index)
                if status.state == "malformed":
                    # Malformed text stays malformed: say so at once instead of at the block's end.
                    view.status = "invalid"
                    view.position = status.pos
                    view.message = status.msg
                    view.excerpt = _excerpt(self.accumulator.text(view.index), status.pos or 0)
            calls.append(self._call_frame(view, tail=tail, max_rows=max_rows))
        self.parse_seconds += time.perf_counter() - started
        return {
            "title": self.title,
            "turn": self.turn,
            "calls": calls,
            "text": self.text,
            "thinking_chars": self.thinking_chars,
            "final_text": self.final_text,
            "stop_reason": self.stop_reason,
            "failure": self.failure,
            "done": self.done,
            "log": self.log[-8:],
            "counters": {
                "events": self.events,
                "deltas": self.deltas,
                "bytes": self.bytes,
                "parse_ms": round(self.parse_seconds * 1000, 3),
                "elapsed_ms": round(self.elapsed * 1000, 1),
            },
        }

    def _call_frame(self, view: CallView, *, tail: int, max_rows: int) -> dict[str, Any]:
        if view.value is None:
            rows, hidden = [], 0
        else:
            complete = None if view.status == "complete" else view.complete_paths
            tree = tree_rows(view.value, complete=complete, open_path=view.open_path, tail=tail, max_rows=max_rows)
            rows, hidden = [row.as_json() for row in tree.rows], tree.hidden
        result = None
        if view.result is not None:
            result = {"is_error": bool(view.result.get("is_error")), "text": view.result_text}
        return {
            "turn": view.turn,
            "index": view.index,
            "id": view.id,
            "name": view.name,
            "block_type": view.block_type,
            "status": view.status,
            "label": view.label,
            "position": view.position,
            "deltas": view.deltas,
            "bytes": view.bytes,
            "rows": rows,
            "hidden_rows": hidden,
            "result": result,
            "excerpt": list(view.excerpt) if view.excerpt is not None else None,
        }
