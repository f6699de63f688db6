"""The field checks every source's recording check is made of.

The adapters take what the SDKs yield and skip what they do not know, but they assume that a field
they read has its documented type (a list of choices, a string fragment). Events from a file (a
recording to replay) are checked first, by their source's ``check``
(:attr:`tooljson.providers.source.Source.check`), so that a bad line is refused with a message naming
the field instead of failing half-way through a replay. Those checks are written with these two.
"""

from __future__ import annotations

from typing import Any

__all__ = ["check", "fields"]

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
