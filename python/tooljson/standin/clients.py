"""Each API's real client against the stand-in: a scenario's first request, the client, its events.

What the command line (``demo --provider``, ``record --provider``) and the tests drive, by the
source's name; each API's part is its wire's (``tooljson.providers.<name>.wire``, :func:`tooljson.standin.wire.wires`). The clients are the
providers' own SDKs, imported only when asked for.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from tooljson.providers import Provider
from tooljson.standin.scenario import Scenario
from tooljson.standin.scenarios import scenarios_needing
from tooljson.standin.wire import wire

__all__ = [
    "as_dict",
    "error_event",
    "first_request",
    "open_client",
    "scenarios_for",
    "stream_events",
]


def scenarios_for(provider: Provider) -> list[str]:
    """The names of the scenarios the stand-in of ``provider`` plays: those that need nothing its
    wire lacks (server tools, thinking...), in the order of :data:`~tooljson.standin.scenarios.SCENARIOS`."""
    return scenarios_needing(wire(provider).features)


def first_request(scenario: Scenario, provider: Provider, *, model: str | None = None) -> dict[str, Any]:
    """Keyword arguments for ``provider``'s client that start ``scenario`` (without ``stream``)."""
    spoken = wire(provider)
    return spoken.first_request(scenario, model or spoken.default_model)


def open_client(provider: Provider, base_url: str) -> Any:
    """``provider``'s client pointed at a stand-in at ``base_url``, with dummy credentials and no retries."""
    return wire(provider).open_client(base_url)


def stream_events(provider: Provider, client: Any, request: dict[str, Any]) -> Iterator[Any]:
    """The events ``client`` yields for a streamed ``request``, exactly as it yields them; the
    response is closed when the iteration ends, however it ends."""
    stream = wire(provider).stream(client, request)
    try:
        yield from stream
    finally:
        stream.close()


def as_dict(event: Any, provider: Provider | None = None) -> dict[str, Any]:
    """An event as the plain dict the wire carried (the SDKs' objects leave out unsent fields), as
    ``provider``'s wire writes it back (without ``provider``: an SDK object's ``to_dict()``)."""
    if isinstance(event, dict):
        return event
    if provider is not None:
        return wire(provider).as_dict(event)
    result: dict[str, Any] = event.to_dict()
    return result


def error_event(provider: Provider, error: BaseException) -> dict[str, Any] | None:
    """The event a stream that ``error`` broke would have held, as a recording keeps it; ``None``
    for a dropped connection (the stream simply ends)."""
    return wire(provider).error_event(error)
