"""The exceptions tooljson raises.

The parse errors subclass :class:`json.JSONDecodeError`, so code written as
``except json.JSONDecodeError`` keeps working, and they carry json's fields: ``msg``, ``doc`` (the
whole joined text), ``pos`` (a character offset into ``doc``), ``lineno`` and ``colno``. The stream's
and the tool loop's own failures follow them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tooljson.calls import ToolCall

__all__ = [
    "IncompleteJSONError",
    "InputTooLargeError",
    "JSONDecodeError",
    "MalformedEvent",
    "MalformedJSONError",
    "MaxTurnsExceeded",
    "MissingExtra",
    "NestingTooDeepError",
    "StreamInterrupted",
    "ToolLoopError",
    "TruncatedToolInput",
]


class JSONDecodeError(json.JSONDecodeError):
    """Base class of every parse error tooljson raises."""


class IncompleteJSONError(JSONDecodeError):
    """The text is a valid prefix of JSON that ended early: it was cut off.

    ``pos`` is ``len(doc)``: the place where more text was expected.
    """


class MalformedJSONError(JSONDecodeError):
    """The text can never become JSON: ``pos`` is the first character that makes it invalid."""


class NestingTooDeepError(MalformedJSONError, RecursionError):
    """Arrays and objects are nested deeper than the parser's ``max_depth``.

    It is also a :class:`RecursionError`, which is what :func:`json.loads` raises on such input.
    """


class InputTooLargeError(MalformedJSONError):
    """The text is longer than the parser's ``max_size`` (in UTF-8 bytes).

    ``pos`` is where the limit was crossed; ``doc`` holds the text up to the fragment that crossed
    it, which is not kept, so that the limit bounds memory as well as work.
    """


class TruncatedToolInput(Exception):
    """A tool call's input was cut off because the response hit ``max_tokens``.

    ``raw_json`` is the text received (a valid prefix of JSON), ``call`` the :class:`ToolCall`, and
    ``max_tokens`` the limit of the request that was cut off, when known.
    """

    def __init__(self, call: ToolCall, *, max_tokens: int | None = None) -> None:
        limit = f" (max_tokens={max_tokens})" if max_tokens is not None else ""
        super().__init__(
            f"input of tool call {call.name!r} (id {call.id}) was cut off at max_tokens{limit} "
            f"after {len(call.raw_json)} characters"
        )
        self.call = call
        self.raw_json = call.raw_json
        self.max_tokens = max_tokens


class ToolLoopError(Exception):
    """Base of the loop's own failures; ``messages`` is the history as it stood."""

    def __init__(self, message: str, *, messages: Sequence[dict[str, Any]] = ()) -> None:
        super().__init__(message)
        self.messages = list(messages)


class MaxTurnsExceeded(ToolLoopError):
    """The model was still calling tools after ``max_turns`` requests."""


class StreamInterrupted(ToolLoopError):
    """A stream ended early: an ``error`` event, a dropped connection, or no ``message_stop``.

    ``calls`` holds the tool calls completed before the break, ``content`` the partial assistant
    content, ``cause`` the exception raised while reading (``None`` when the stream simply ended).
    Nothing was run and nothing added to ``messages`` for this turn.
    """

    def __init__(
        self,
        message: str,
        *,
        messages: Sequence[dict[str, Any]],
        calls: Sequence[ToolCall],
        content: list[dict[str, Any]],
        cause: BaseException | None,
    ) -> None:
        super().__init__(message, messages=messages)
        self.calls = list(calls)
        self.content = content
        self.cause = cause


class MalformedEvent(ValueError):
    """A stream event without the shape its ``type`` requires (``partial_json`` missing or not a
    string, an ``index`` that is not a block position, ...). ``problem`` says what is wrong, in a line.

    Nothing read before the event is lost, and reading may go on with the next event. The refused event
    is not undone: a reader may already have taken the part of it that came before the field found
    wrong (a response id, a call it opened).
    """

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem


class MissingExtra(ImportError):
    """A part of tooljson was used without the optional packages it needs; the message names the
    extra to install (``pip install 'tooljson[stream]'``). Raised before that part does anything."""


def is_event(value: Any) -> bool:
    """Whether ``value`` can be an event at all: a dict, or an object with a ``type``."""
    return isinstance(value, dict) or hasattr(value, "type")


def not_an_event(value: Any) -> TypeError:
    """The error for feeding something that is not an event (``None``, a number, a string...); for
    text or bytes it says to decode the server-sent event's data first."""
    hint = ": decode the server-sent event's data first" if isinstance(value, (str, bytes, bytearray)) else ""
    return TypeError(
        f"expected a stream event (a dict or an SDK event object), got {type(value).__name__}{hint}"
    )
