"""One tool call as the debug views show it: :class:`CallView`, read from its turn reader by
:func:`call_view` when a frame is made (its verdict in words, where its text broke or stopped, the
value as far as it was built). :mod:`tooljson.ui.model` makes them for every call of a run.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tooljson.calls import CallState, ToolBlock

if TYPE_CHECKING:
    from tooljson.turn import TurnReader
    from tooljson.validation import Repair

__all__ = ["CallView", "Path", "call_view"]

Path = tuple[str | int, ...]


def _excerpt(raw: str, position: int, before: int = 40, after: int = 20) -> tuple[str, str]:
    start = max(0, position - before)
    head = ("…" if start else "") + raw[start:position]
    tail = raw[position : position + after] + ("…" if position + after < len(raw) else "")
    return head, tail


@dataclass
class CallView:
    """One tool call as the views show it, read from its turn reader when a frame is made."""

    turn: int
    index: Any
    id: str
    name: str
    block_type: str
    status: CallState
    # Character offset where the text broke (malformed) or stopped (cut off, truncated, interrupted).
    position: int | None
    message: str | None
    deltas: int
    chars: int
    # The parser's preview while streaming (the live object), the parsed input once complete, the
    # value as far as it was built for a call that did not parse.
    value: Any
    # The value still being filled (None once the call parsed); every other value is complete.
    open_path: Path | None
    result: dict[str, Any] | None
    # The raw text on each side of ``position``, to show where the text broke or stopped.
    excerpt: tuple[str, str] | None
    stop_reason: str | None
    # What validation repaired in the input the handler got (the call is then ``repaired``).
    repairs: tuple[Repair, ...] = ()

    @property
    def label(self) -> str:
        """The status as a person reads it."""
        if self.status == "repaired":
            # The fields only: the panel's subtitle is one line (each field shows its repair, the
            # log says why).
            return "repaired: " + ", ".join(r.path or "(input)" for r in self.repairs)
        if self.status == "failed":
            return "failed: the tool raised (see its result)"
        if self.status == "rejected":
            return "rejected: the tool was not run (see its result)"
        if self.status == "malformed":
            return f"malformed at position {self.position}: {self.message}"
        if self.status == "incomplete":
            if self.stop_reason is None:
                return f"cut off at position {self.position}, waiting for stop_reason"
            return f"incomplete at position {self.position} (stop_reason {self.stop_reason}): {self.message}"
        if self.status == "truncated":
            return f"truncated at position {self.position} ({self.stop_reason})"
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


def call_view(reader: TurnReader, block: ToolBlock) -> CallView:
    """The view of one tool block of ``reader``, as it stands now."""
    accumulator = reader.accumulator
    call = reader.call(block)
    status = reader.state(call if call is not None else block)
    position = message = excerpt = None
    open_path: Path | None
    if call is None and block.free_text is not None:
        # A custom tool's free text (Responses): shown as it stands, never parsed.
        value, open_path = "".join(block.free_text), ()
        if status == "interrupted":
            position, message = block.chars, reader.interruption
    elif call is None:
        # Still open in the accumulator: streaming, broken mid-stream, or left open by a break.
        value, open_path = accumulator.preview(block.index), accumulator.open_path(block.index)
        if status in ("malformed", "interrupted"):
            raw = accumulator.text(block.index)
            parse = accumulator.status(block.index)
            position = parse.pos if status == "malformed" else len(raw)
            message = parse.msg if status == "malformed" else reader.interruption
            excerpt = _excerpt(raw, position or 0)
    elif call.ok:
        value, open_path = call.input, None
    else:
        value, open_path = call.preview, call.open_path
        error = call.error
        position = error.pos if error is not None else len(call.raw_json)
        message = error.msg if error is not None else call.status
        excerpt = _excerpt(call.raw_json, position)
    return CallView(
        turn=reader.number,
        index=block.index,
        id=str(block.id),
        name=str(block.name),
        block_type=str(block.block_type),
        status=status,
        position=position,
        message=message,
        deltas=block.deltas,
        chars=block.chars,
        value=value,
        open_path=open_path,
        result=reader.results.get(block.id),
        excerpt=excerpt,
        stop_reason=accumulator.stop_reason_for(block),
        repairs=reader.repairs.get(block.id, ()),
    )
