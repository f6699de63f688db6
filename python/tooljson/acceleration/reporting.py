"""What an accelerated stream says about a call whose input did not parse: one warning, worded once.

Every accelerated stream (the ``anthropic`` and ``openai`` helpers alike) goes on past an input that
does not parse and logs one warning on the ``"tooljson"`` logger once the call's verdict is known.
:func:`describe_unparsed` words the verdict; :class:`UnparsedReport` logs each call at most once.
"""

from __future__ import annotations

import logging

from tooljson.calls import ToolCall
from tooljson.turn import TurnReader

__all__ = ["UnparsedReport", "describe_unparsed", "logger"]

logger = logging.getLogger("tooljson")


def describe_unparsed(reader: TurnReader, call: ToolCall) -> str:
    """What went wrong with a call's input, in a phrase: its verdict and the parser's message."""
    state = reader.state(call)
    error = call.error
    reason = f": {error.msg}" if error is not None else ""
    stop_reason = reader.accumulator.stop_reason_for(call)
    if state == "truncated":
        return f"cut off at {stop_reason}{reason}"
    if state == "incomplete":
        return f"cut off with stop_reason {stop_reason!r}{reason}"
    where = f" at position {error.pos}" if error is not None else ""
    return f"{state}{where}{reason}"


class UnparsedReport:
    """Logs a warning for each call of a reader whose input did not parse, once per call.

    ``template`` is a ``%``-format taking the call's block type, name, id, key (the block index, or a
    Chat Completions call's ``(choice, index)``) and :func:`describe_unparsed`'s phrase, in order.
    """

    def __init__(self, reader: TurnReader, template: str) -> None:
        self.reader = reader
        self._template = template
        self._reported: set[object] = set()

    def clear(self) -> None:
        self._reported.clear()

    def reword(self, template: str) -> None:
        """Say something else of each call from now on: what the code that took the stream over does
        with it (the tool runner), so that one line tells both what went wrong and what follows."""
        self._template = template

    def report(self, calls: list[ToolCall] | None = None) -> None:
        """Warn about each call of ``calls`` (default: every finished call) not reported yet."""
        reader = self.reader
        for call in reader.calls if calls is None else calls:
            if call.ok or call.key in self._reported:
                continue
            self._reported.add(call.key)
            logger.warning(
                self._template, call.block_type, call.name, call.id, call.key, describe_unparsed(reader, call)
            )
