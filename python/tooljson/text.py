"""Small text helpers shared by every layer: JSON Pointers and one-line excerpts."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from tooljson._native import Event

__all__ = ["json_pointer", "json_text", "shorten"]


def json_pointer(path: Iterable[str | int]) -> str:
    """The RFC 6901 JSON Pointer of a path of keys and array positions (``""`` for the root).

    Built by the same code as :attr:`tooljson.Event.pointer`, so a validation problem and a
    structural event name the same field the same way.
    """
    return str(Event("complete", path, None).pointer)


def json_text(value: Any) -> str:
    """``value`` as compact, readable JSON text (non-ASCII kept; unknown objects by ``str``)."""
    return json.dumps(value, ensure_ascii=False, default=str)


def shorten(text: str, limit: int = 160) -> str:
    """``text`` on one line (newlines shown as ``\\n``), cut to at most ``limit`` characters with ``…``."""
    text = text.replace("\n", "\\n")
    return text if len(text) <= limit else text[: max(limit - 1, 0)] + "…"
