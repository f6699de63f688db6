"""The one list of the APIs the stand-in speaks, each one module ending with its ``WIRE``.

Adding an API to the stand-in is its wire module (:class:`~tooljson.standin.wire.Wire`: endpoints,
reading, writing, its real client) and one line here.
"""

from __future__ import annotations

from tooljson.providers.cohere import wire as cohere
from tooljson.standin import bedrock, chat, gemini, messages, responses
from tooljson.standin.wire import Wire

__all__ = ["NAMES", "WIRES", "wire"]

WIRES: tuple[Wire, ...] = (messages.WIRE, chat.WIRE, responses.WIRE, bedrock.WIRE, gemini.WIRE, cohere.WIRE)
"""Every API the stand-in speaks; the Messages API's first (its own endpoint is the server's)."""

NAMES: tuple[str, ...] = tuple(each.name for each in WIRES)
"""Their names: the sources a stand-in scenario can be streamed by (``demo --provider``)."""

_BY_NAME = {each.name: each for each in WIRES}


def wire(name: str) -> Wire:
    """The wire of the API named ``name``; :class:`ValueError` names the known ones for any other."""
    found = _BY_NAME.get(name)
    if found is None:
        raise ValueError(f"the stand-in does not speak {name!r}; it speaks {', '.join(NAMES)}")
    return found
