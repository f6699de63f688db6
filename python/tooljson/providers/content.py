"""What every source's content assembler shares: text pieces by position, finished calls, the ending.

A :class:`~tooljson.TurnReader` keeps, beside its accumulator, the content of the response it reads,
made by its source's ``assembler`` (:attr:`tooljson.providers.source.Source.assembler`). They are
deliberately small: the text, the tool calls (handed over parsed by the reader, never parsed again),
the usage, whether the response ended and the error that broke it. Their ``content`` is the
assistant side of the exchange in the source's own history shape, ready to be sent back before the
tool results. Their ``error`` has the Messages API's shape (``{"type": "error", "error": {"type",
"message"}}``, :func:`error_event`) so that a reader states every source's break in the same words.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tooljson.calls import ToolCall

__all__ = ["ContentAssembler", "error_event", "plain"]


def error_event(kind: Any, message: Any) -> dict[str, Any]:
    """A break in the Messages API's words (``{"type": "error", "error": {"type", "message"}}``)."""
    return {"type": "error", "error": {"type": str(kind or "error"), "message": str(message or "")}}


def plain(value: Any) -> Any:
    """An SDK object as plain data (dicts pass as they are)."""
    if value is None or isinstance(value, (dict, list, str, int, float, bool)):
        return value
    to_dict = getattr(value, "to_dict", None)
    return to_dict() if to_dict is not None else value


class ContentAssembler:
    """What every assembler keeps: text pieces by position, finished calls by key, the ending.

    ``warnings`` is the reader's list of tolerated oddities, one line each, for an assembler that
    notes some. Subclasses implement ``feed(event)`` and ``content``.
    """

    def __init__(self, warnings: list[str] | None = None) -> None:
        self.warnings: list[str] = [] if warnings is None else warnings
        self._text: dict[Any, list[str]] = {}
        self._calls: dict[Any, ToolCall] = {}
        self.usage: dict[str, Any] = {}
        self.stopped = False
        self.error: dict[str, Any] | None = None
        self.thinking_chars = 0

    def set_call(self, call: ToolCall) -> None:
        """Put a finished call in place (parsed by the reader's accumulator)."""
        self._calls[call.key] = call

    def _piece(self, position: Any, text: Any) -> None:
        if isinstance(text, str) and text:
            self._text.setdefault(position, []).append(text)

    def _joined(self, position: Any) -> str:
        return "".join(self._text.get(position, ()))

    @property
    def text(self) -> str:
        """The text so far (every position's, in order: each choice's for Chat Completions with ``n > 1``)."""
        return "\n\n".join(text for position in sorted(self._text) if (text := self._joined(position)))

    def standard_content(self) -> list[dict[str, Any]]:
        """The text and the calls as standard content blocks, text first: ``{"type": "text", "text"}``
        and ``{"type": "tool_call", "id", "name", "args"}`` (the frameworks' shape)."""
        blocks = [{"type": "text", "text": self._joined(position)} for position in self._text]
        blocks += [
            {"type": "tool_call", "id": call.id, "name": call.name, "args": call.input}
            for call in self._calls.values()
        ]
        return blocks
