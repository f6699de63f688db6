"""The field checks every source's recording check is made of.

The adapters take what the SDKs yield and skip what they do not know, but they assume that a field
they read has its documented type (a list of choices, a string fragment). Events from a file (a
recording to replay) are checked first, by their source's ``check``
(:attr:`tooljson.providers.source.Source.check`), so that a bad line is refused with a message naming
the field instead of failing half-way through a replay. Those checks are written with these two.
"""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from tooljson.errors import MalformedEvent, is_event

__all__ = ["UNREADABLE", "check", "fields", "unreadable"]

UNREADABLE = (AttributeError, KeyError, IndexError, TypeError)
"""What reading an event of the wrong shape raises in an adapter that trusts its fields: an adapter
catches these around its reading and refuses the event with :func:`unreadable` instead."""

_NO_VALUE = object()


def check(value: Any, where: str, kinds: tuple[type, ...], *, optional: bool = True) -> str | None:
    """What is wrong with ``value`` (found at ``where``) as one of ``kinds``, or ``None``; an absent or
    null value is wrong only when not ``optional``."""
    if value is _NO_VALUE or value is None:
        return None if optional else f"{where} is required"
    if isinstance(value, bool) and bool not in kinds:
        return f"{where} must be {' or '.join(kind.__name__ for kind in kinds)}, not bool"
    if not isinstance(value, kinds):
        return f"{where} must be {' or '.join(kind.__name__ for kind in kinds)}, not {type(value).__name__}"
    return None


def fields(obj: dict[str, Any], where: str, **kinds: tuple[type, ...]) -> str | None:
    """The first problem of ``obj``'s optional fields against their ``kinds``, or ``None``."""
    for name, expected in kinds.items():
        problem = check(obj.get(name, _NO_VALUE), f"{where}.{name}", expected)
        if problem is not None:
            return problem
    return None


def unreadable(
    event: Any, error: BaseException, check_event: Callable[[dict[str, Any]], str | None] | None
) -> BaseException:
    """The error for ``event``, which an adapter failed to read with ``error`` (one of
    :data:`UNREADABLE`): a :class:`~tooljson.MalformedEvent` naming the field that ``check_event``
    (the source's recording check, asked of the event as plain data) finds wrong, else naming the
    event's type and what failed. Something that is not an event at all keeps its ``TypeError``.
    Asked only once reading failed: the events read fine pay nothing for it."""
    if not is_event(event) and getattr(event, "__dict__", None) is None:
        return error
    data = event if isinstance(event, dict) else _plain(event)
    problem = None
    if check_event is not None and isinstance(data, dict):
        try:
            problem = check_event(data)
        except UNREADABLE:
            problem = None
    if problem is None:
        kind = data.get("type") if isinstance(data, dict) else getattr(event, "type", None)
        what = f"a {kind!r:.60} event" if isinstance(kind, str) else f"a {type(event).__name__} event"
        problem = f"{what} of the wrong shape: {type(error).__name__}: {str(error):.200}"
    return MalformedEvent(problem)


def _plain(event: Any) -> Any:
    """An SDK object as the dict it was made from, a look-alike (``SimpleNamespace``) as its
    attributes (``None`` for anything else)."""
    if isinstance(event, SimpleNamespace):
        return {name: _plain(value) for name, value in vars(event).items()}
    if isinstance(event, list):
        return [_plain(item) for item in event]
    dump = getattr(event, "model_dump", None)
    if dump is None:
        return event if isinstance(event, (dict, str, int, float, type(None))) else None
    try:
        return dump(warnings=False, by_alias=True)
    except Exception:  # noqa: BLE001 - an object too broken to dump is described by its error instead
        return None
