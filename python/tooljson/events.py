"""The structural events of a value being streamed (see :meth:`tooljson.Parser.events`)."""

from __future__ import annotations

from typing import Any, Literal, NamedTuple

__all__ = ["Event"]


class Event(NamedTuple):
    """One change to the value being streamed.

    ``kind`` "begin": a container opened, or a string is still open at the end of a fragment
    (``value`` is "object", "array" or "string"); "append": text added to that open string
    (``value`` is the new text; the appends of a string add up to the whole string); "complete":
    a value is whole (``value`` is the value, the very object the final result holds). Strings that
    start and end within one scan, numbers and literals get only "complete"; a number is complete
    once the character after it has arrived. ``path`` holds the keys and array positions from the
    root.

    Events are plain named tuples, made by the parser without calling Python code, so that
    following a stream event by event stays cheap.
    """

    kind: Literal["begin", "append", "complete"]
    path: tuple[str | int, ...]
    value: Any

    @property
    def pointer(self) -> str:
        """The path as an RFC 6901 JSON Pointer (``""`` for the root)."""
        return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in self.path)
