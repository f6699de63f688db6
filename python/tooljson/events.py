"""The structural events of a value being streamed (see :meth:`tooljson.Parser.events`).

:class:`Event` is native: its ``kind``, ``path`` and ``value`` are read as struct members, the
fastest attribute access CPython has, since a UI following a stream reads them for every event.
``kind, path, value = event`` unpacks it and ``match`` takes it apart by position.
"""

from __future__ import annotations

from tooljson._native import Event

__all__ = ["Event"]
