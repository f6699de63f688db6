"""The sources of tool calls tooljson reads, and what they share.

Every source streams a tool call's arguments the same way, as JSON text cut anywhere and keyed by
some index; only the event shapes differ. Each source is one package (a provider's API here, in
``providers/<name>/``; a framework's stream in :mod:`tooljson.frameworks`) that holds all tooljson
knows about it and exports its :class:`~tooljson.providers.source.Source`; the registry,
:mod:`tooljson.providers.registry`, lists them (it is the list: this docstring does not repeat it),
and everything else asks the registry. :meth:`tooljson.ToolCallAccumulator.feed` recognises the
source of each event and hands it to that source's adapter
(:class:`~tooljson.providers.adapter.Adapter`), an object bound to the accumulator that keeps its own
per-response state and drives the accumulator's public operations (a call begins, a fragment
arrives, a call ends, the response stops, a new response begins).

Nothing here imports a provider's SDK: events are read by attribute or by key, so an SDK object and
the same event as a plain dict take the same path. No adapter imports the accumulator: they know it
through :class:`~tooljson.providers.adapter.CallOperations`.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Provider", "event_field"]

Provider = str
"""Whose stream an event or a call comes from: the ``name`` of a registered source
(:data:`tooljson.providers.registry.NAMES`)."""


def event_field(obj: Any, name: str) -> Any:
    """Read ``name`` from an SDK object or a dict alike (``None`` when absent)."""
    if isinstance(obj, dict):
        return obj.get(name)
    return getattr(obj, name, None)
