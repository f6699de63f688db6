"""What one API's wire is in the stand-in: its endpoints (:class:`Route`) and its real client (:class:`Wire`).

Each API the stand-in speaks is one module of its source's package (``tooljson.providers.<name>.wire``)
that reads its requests into the Messages API's shape, writes the scenario's reply in its own wire
shape, and says how its real client is opened and driven against the stand-in; it ends with one
``WIRE``. The registry names those modules (:attr:`tooljson.providers.source.Source.wire`), and
:func:`wires` imports them the first time the stand-in needs them: there is no second list.
"""

from __future__ import annotations

import functools
import importlib
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tooljson.providers.registry import SPOKEN, source

if TYPE_CHECKING:
    from tooljson.standin.render import RenderedStream
    from tooljson.standin.reply import Reply
    from tooljson.standin.scenario import Scenario

__all__ = ["Route", "Wire", "own_render", "wire", "wires"]


@dataclass(frozen=True)
class Route:
    """One endpoint: how its requests read as Messages bodies and how its answers are written."""

    name: str
    pattern: re.Pattern[str]
    content_type: str
    # (request body, the model named in the path or None) -> a Messages API body
    to_messages: Callable[[Any, str | None], dict[str, Any]]
    # (reply, rng, the request as sent, the Messages body, fragment sizes) -> the events
    render: Callable[[Reply, random.Random, dict[str, Any], dict[str, Any], tuple[int, int]], RenderedStream]
    frame: Callable[[dict[str, Any]], bytes]
    tail: Callable[[RenderedStream], bytes]
    error: Callable[[int, str], tuple[dict[str, str], bytes]]
    request_id_header: str
    # (the rendered stream, the request as sent) -> the one JSON answer to a request without
    # "stream": true; None for the endpoints that only stream.
    whole: Callable[[RenderedStream, dict[str, Any]], dict[str, Any]] | None = None
    # (the request handler, this route, the request body) -> None: an endpoint that answers its
    # requests itself (the Messages API's own, which keeps threads); None for the rest, which
    # tooljson.standin.routes answers from the fields above.
    serve: Callable[[Any, Route, Any], None] | None = None


def own_render(
    render: Callable[..., RenderedStream],
) -> Callable[[Reply, random.Random, dict[str, Any], dict[str, Any], tuple[int, int]], RenderedStream]:
    """A wire's ``render(reply, rng=, body=, fragment_sizes=)`` as a route's ``render``, which writes
    the reply from the request as sent (not from its Messages reading)."""

    def rendered(
        reply: Reply,
        rng: random.Random,
        body: dict[str, Any],
        request: dict[str, Any],
        sizes: tuple[int, int],
    ) -> RenderedStream:
        return render(reply, rng=rng, body=body, fragment_sizes=sizes)

    return rendered


def _no_event(error: BaseException) -> dict[str, Any] | None:
    return None


def _to_dict(event: Any) -> dict[str, Any]:
    if isinstance(event, dict):
        return event
    result: dict[str, Any] = event.to_dict()
    return result


@dataclass(frozen=True)
class Wire:
    """One API as the stand-in speaks it, and its real client against the stand-in.

    ``name`` is the source's (:mod:`tooljson.providers.registry`): what ``demo --provider`` takes.
    ``modules`` are what its client needs. ``open_client(base_url)`` opens the client pointed at a
    stand-in, with dummy credentials and no retries; ``first_request(scenario, model)`` makes the
    keyword arguments that start a scenario (without ``stream``); ``stream(client, request)`` opens
    the streamed response the client iterates (its events exactly as the client yields them; it
    has ``close()``); ``error_event(exception)`` is the event a stream the client raised on would
    have held, as a recording keeps it (``None`` for a dropped connection: the stream simply ends);
    ``as_dict(event)`` is an event the client yielded as the plain dict the wire carried. ``features`` name what only some APIs have, which a scenario may need (``Scenario.needs``).
    """

    name: str
    default_model: str
    modules: tuple[str, ...]
    open_client: Callable[[str], Any]
    first_request: Callable[[Scenario, str], dict[str, Any]]
    stream: Callable[[Any, dict[str, Any]], Any]
    error_event: Callable[[BaseException], dict[str, Any] | None] = _no_event
    as_dict: Callable[[Any], dict[str, Any]] = _to_dict
    routes: tuple[Route, ...] = ()
    features: frozenset[str] = frozenset()


@functools.cache
def wires() -> tuple[Wire, ...]:
    """Every API the stand-in speaks: the ``WIRE`` of each source the registry lists with a wire
    (:data:`~tooljson.providers.registry.SPOKEN`, the default source's first), imported once."""
    made = []
    for name in SPOKEN:
        module = source(name).wire
        assert module is not None
        spoken: Wire = importlib.import_module(module).WIRE
        made.append(spoken)
    return tuple(made)


def wire(name: str) -> Wire:
    """The wire of the API named ``name``; :class:`ValueError` names the known ones for any other."""
    for each in wires():
        if each.name == name:
            return each
    raise ValueError(f"the stand-in does not speak {name!r}; it speaks {', '.join(SPOKEN)}")
