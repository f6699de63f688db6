"""``PartialParser``: the growing-buffer functions for a caller that can keep one object per buffer."""

from __future__ import annotations

from typing import Any, Literal

from .._native import GrowingText, ParseStatus
from .jiter_mode import _jiter_partial, _reference, partial_mode_name
from .langchain_mode import _repaired, _resumed
from .resume import REFERENCE, TAIL_CHARS, growing_text

__all__ = ["PartialParser"]

Mode = Literal["on", "trailing-strings", "langchain"]


class PartialParser:
    """One buffer fed in fragments; ``value()`` is what the chosen function gives for all of it.

    ``mode``: ``"on"`` or ``True`` (``tooljson.from_json(text, partial_mode=True)``),
    ``"trailing-strings"`` (``partial_mode="trailing-strings"``), or ``"langchain"``
    (``tooljson.parse_partial_json(text)``). Fragments are all ``str`` or all ``bytes``. Each
    ``feed`` reads only its fragment; ``value()`` costs the size of the containers still open.
    """

    def __init__(self, mode: Mode | bool = "on", *, allow_inf_nan: bool = True) -> None:
        if mode == "langchain":
            self.mode: str = "langchain"
        else:
            self.mode = partial_mode_name(mode)
            if self.mode == "off":
                raise ValueError(
                    "PartialParser needs a partial mode: 'on', 'trailing-strings' or 'langchain'"
                )
        self.allow_inf_nan = allow_inf_nan
        self._entry: GrowingText | None = None
        self._parts: list[Any] = []
        #: The last few characters (or bytes) fed, for the checks that look behind a fragment.
        self._tail: Any = None

    def feed(self, fragment: str | bytes | bytearray) -> None:
        """Adds ``fragment`` to the buffer."""
        binary = not isinstance(fragment, str)
        if binary and not isinstance(fragment, (bytes, bytearray)):
            raise TypeError(f"feed takes str or bytes, not {type(fragment).__name__}")
        if self._entry is None:
            if self.mode == "langchain" and binary:
                raise TypeError("the langchain mode reads str fragments")
            self._entry = growing_text(strings=self.mode != "on", binary=binary)
            self._tail = b"" if binary else ""
        elif self._entry.binary != binary:
            raise TypeError("feed every fragment as str, or every fragment as bytes")
        piece = bytes(fragment) if isinstance(fragment, bytearray) else fragment
        self._parts.append(piece)
        around = self._tail + piece
        self._entry.read(around, len(self._tail))
        self._tail = around[-TAIL_CHARS:]

    @property
    def text(self) -> str | bytes:
        """Everything fed so far."""
        if len(self._parts) > 1:
            self._parts = [self._parts[0][:0].join(self._parts)]
        return self._parts[0] if self._parts else ""

    @property
    def status(self) -> ParseStatus:
        """Where the text so far stands: complete, incomplete or malformed (with the position of the
        first offending character), by the native parser's rules."""
        entry = self._entry
        if entry is None:
            entry = growing_text(strings=self.mode != "on", binary=False)
        return entry.status

    def value(self) -> Any:
        """The value for the buffer so far, as the chosen function gives it (or its error)."""
        entry = self._entry
        if entry is None:
            entry = growing_text(strings=self.mode != "on", binary=False)
        if self.mode == "langchain":
            value = _resumed(entry, self._tail or "")
            return _repaired(str(self.text), strict=False) if value is REFERENCE else value
        strings = self.mode == "trailing-strings"
        value = _jiter_partial(entry, strings, self.allow_inf_nan)
        if value is not REFERENCE:
            return value
        return _reference(self.text, self.allow_inf_nan, self.mode, False, "float")
