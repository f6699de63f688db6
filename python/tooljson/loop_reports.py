"""What a run of the tool loop reports: each step as it happens (:class:`LoopEvent`, passed to
``on_event``) and how it ended (:class:`ToolLoopResult`). The loop itself is :mod:`tooljson.loop`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from tooljson.calls import ToolCall

__all__ = ["LoopEvent", "ToolLoopResult"]


@dataclass(frozen=True)
class LoopEvent:
    """One step of the loop, passed to ``on_event``.

    ``kind`` is one of:

    * ``"request"``: a request is about to be sent; ``data`` is its keyword arguments.
    * ``"turn"``: its response is about to be read; ``data`` is the :class:`~tooljson.turn.TurnReader`
      that will read it (views observe it: calls, previews, verdicts, results).
    * ``"stream_event"``: the reader just took ``data``, a raw stream event: a dict with
      ``decode="json"``, the SDK's event object with ``decode="sdk"``.
    * ``"tool_call"``: a tool block finished; ``call`` is its :class:`~tooljson.ToolCall`.
    * ``"tool_result"``: ``data`` is the ``tool_result`` block answering ``call``.
    * ``"retry"``: a cut-off call makes the loop resend; ``data`` is the new ``max_tokens``.
    * ``"pause"``: ``pause_turn``; the loop resends.

    ``turn`` counts requests from 1.
    """

    kind: Literal["request", "turn", "stream_event", "tool_call", "tool_result", "retry", "pause"]
    turn: int
    data: Any = None
    call: ToolCall | None = None


@dataclass
class ToolLoopResult:
    """How the loop ended: a small dataclass, not the SDK's ``Message``.

    ``content`` is the last assistant message's blocks (dicts, as sent back to the API),
    ``stop_reason`` its stop reason, ``messages`` the whole history including that last assistant
    message, ``turns`` the number of requests made and ``usage`` the last response's usage.
    """

    content: list[dict[str, Any]]
    stop_reason: str | None
    messages: list[dict[str, Any]]
    turns: int
    usage: dict[str, Any] = field(default_factory=dict)

    @property
    def text(self) -> str:
        """The text blocks of the last message, joined."""
        return "".join(block.get("text", "") for block in self.content if block.get("type") == "text")
