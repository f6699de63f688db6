"""``float_mode="lossless-float"``: a float kept as the exact text it was written as."""

from __future__ import annotations

import decimal

__all__ = ["LosslessFloat"]


class LosslessFloat:
    """A JSON float kept as its text, converted only when asked: ``float(x)``, ``x.as_decimal()``,
    ``bytes(x)``. The counterpart of ``jiter.LosslessFloat`` (a different class with the same
    conversions and ``repr``)."""

    __slots__ = ("_text",)

    def __init__(self, text: bytes) -> None:
        if not isinstance(text, bytes):
            raise TypeError(f"LosslessFloat takes bytes, not {type(text).__name__}")
        self._text = text

    def __float__(self) -> float:
        return float(self._text)

    def __bytes__(self) -> bytes:
        return self._text

    def as_decimal(self) -> decimal.Decimal:
        return decimal.Decimal(self._text.decode())

    def __str__(self) -> str:
        return self._text.decode()

    def __repr__(self) -> str:
        return f"LosslessFloat({self._text.decode()})"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LosslessFloat):
            return self._text == other._text
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._text)
