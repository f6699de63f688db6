"""The shape of a Messages API stream event, checked in one place (the Messages API's package).

:func:`event_problem` says what makes an event unreadable (a field its ``type`` requires is missing
or of the wrong JSON type), or ``None``. It is the one check behind every reader of events: the
recording loader runs it on every line before anything is played, the
:class:`~tooljson.providers.anthropic.MessageAssembler` on every event but the tool-input fragments, and
the Messages adapter (:mod:`tooljson.providers.anthropic.adapter`) when an event could not be taken (so the bulk of a
stream, its ``input_json_delta`` fragments, pays nothing for it). Each turns a problem into
:class:`~tooljson.errors.MalformedEvent`.

Oddities a reader can live with (an event or delta type it does not know, a delta for a block never
started, a second start for an open block) are not problems: the readers note them as warnings and
go on. Both work on plain dicts and on the SDK's event objects alike.
"""

from __future__ import annotations

import sys
from typing import Any

from tooljson.errors import MalformedEvent, is_event, not_an_event

__all__ = ["DELTA_FIELDS", "EVENT_TYPES", "event_problem", "malformed"]

EVENT_TYPES = frozenset(
    {
        "message_start",
        "message_delta",
        "message_stop",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "ping",
        "error",
        # Derived events of the SDK's stream helper (messages.stream): they repeat the raw events.
        "text",
        "input_json",
        "thinking",
        "citation",
        "signature",
    }
)
"""The event types the readers know; any other one is a tolerated oddity."""

DELTA_FIELDS = {
    "input_json_delta": ("partial_json", str),
    "text_delta": ("text", str),
    "thinking_delta": ("thinking", str),
    "signature_delta": ("signature", str),
    "citations_delta": ("citation", dict),
}
"""Each delta type the readers know, with the field it carries and that field's type."""

_NAMES = {str: "a string", dict: "an object", int: "an integer"}


def _field(obj: Any, name: str) -> Any:
    if isinstance(obj, dict):
        return obj.get(name)
    return getattr(obj, name, None)


def _is_object(value: Any) -> bool:
    # An SDK event carries its parts as model objects, which the readers turn into dicts.
    return isinstance(value, dict) or hasattr(value, "to_dict") or hasattr(value, "model_dump")


def _is_position(value: Any) -> bool:
    # A block's position in the message: a non-negative integer no sequence index exceeds.
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= sys.maxsize


def _is_key(value: Any) -> bool:
    # Any hashable value keys a block, as the pure accumulator takes any (other providers key calls
    # by item ids and tuples); only its absence is a problem.
    if value is None:
        return False
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _needs(
    kind: str, owner: str, name: str, expected: type, value: Any, *, optional: bool = False
) -> str | None:
    if value is None and optional:
        return None
    if expected is dict:
        good = _is_object(value)
    else:
        good = isinstance(value, expected) and not isinstance(value, bool)
    if good:
        return None
    got = "null or nothing" if value is None else f"{type(value).__name__} {value!r:.40}"
    where = f'{owner} "{name}"' if owner else f'"{name}"'
    return f"{_an(kind)} event needs {_NAMES[expected]} for {where}, got {got}"


def _an(kind: str) -> str:
    return ("an " if kind[:1] in "aeiou" else "a ") + kind


def _block_problem(block: Any) -> str | None:
    kind = "content_block_start"
    if not _is_object(block):
        return _needs(kind, "", "content_block", dict, block)
    block_type = _field(block, "type")
    if not isinstance(block_type, str):
        return _needs(kind, "content_block", "type", str, block_type)
    if block_type in ("tool_use", "server_tool_use"):
        return _needs(kind, block_type, "id", str, _field(block, "id")) or _needs(
            kind, block_type, "name", str, _field(block, "name")
        )
    if block_type in ("text", "thinking"):
        return _needs(kind, block_type, block_type, str, _field(block, block_type), optional=True)
    return None


def event_problem(event: Any, *, positions: bool = False) -> str | None:
    """What makes ``event`` unreadable, in a line; ``None`` when every field its type needs is there.

    A block's ``index`` may be any hashable value, as the accumulator takes any; with ``positions``
    it must be what the Messages API sends, the block's position (a non-negative integer), as in a
    recording of its stream. Unknown event and delta types are not problems (see the module's
    description).
    """
    if not is_event(event):
        return f"expected a JSON object (a stream event), got {type(event).__name__}"
    kind = _field(event, "type")
    if not isinstance(kind, str):
        return 'the event has no "type" string'
    if kind in ("content_block_start", "content_block_delta", "content_block_stop"):
        index = _field(event, "index")
        if positions and not _is_position(index):
            return f'{_an(kind)} event needs a non-negative integer "index" (a block position), got {index!r:.40}'
        if not _is_key(index):
            return f'{_an(kind)} event needs an "index" (any hashable value), got {index!r:.40}'
        if kind == "content_block_start":
            return _block_problem(_field(event, "content_block"))
        if kind == "content_block_delta":
            delta = _field(event, "delta")
            if not _is_object(delta):
                return _needs(kind, "", "delta", dict, delta)
            delta_type = _field(delta, "type")
            if not isinstance(delta_type, str):
                return _needs(kind, "delta", "type", str, delta_type)
            known = DELTA_FIELDS.get(delta_type)
            if known is not None:
                name, expected = known
                return _needs(kind, delta_type, name, expected, _field(delta, name))
        return None
    if kind == "message_start":
        message = _field(event, "message")
        if not _is_object(message):
            return _needs(kind, "", "message", dict, message)
        return _needs(kind, "message", "usage", dict, _field(message, "usage"), optional=True)
    if kind == "message_delta":
        delta = _field(event, "delta")
        if not _is_object(delta):
            return _needs(kind, "", "delta", dict, delta)
        return _needs(
            kind, "delta", "stop_reason", str, _field(delta, "stop_reason"), optional=True
        ) or _needs(kind, "", "usage", dict, _field(event, "usage"), optional=True)
    if kind == "error":
        error = _field(event, "error")
        if not _is_object(error):
            return _needs(kind, "", "error", dict, error)
    return None


def malformed(event: Any, error: BaseException) -> BaseException:
    """What to raise when reading ``event`` failed with ``error``: :class:`MalformedEvent` saying
    what is wrong with it, :func:`not_an_event` for a non-event, or ``error`` itself when the event
    is well formed (then the failure is not the event's)."""
    if not is_event(event):
        return not_an_event(event)
    problem = event_problem(event)
    return error if problem is None else MalformedEvent(problem)
