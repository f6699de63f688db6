"""The one list of the sources tooljson reads, and the questions everything else asks of it.

:data:`SOURCES` lists each source's :class:`~tooljson.providers.source.Source`, in the order an event
is recognised: the frameworks' wrappers and objects first, then the providers' shapes. Each source's
recognition is exact (its own event shapes); an event none recognises is refused
(:func:`unrecognised` says what it looked like). Adding a source is one package whose ``__init__``
exports its ``SOURCE`` and one line here.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

from tooljson.frameworks import langchain, openai_agents, pydantic_ai
from tooljson.providers import anthropic, bedrock, chat, cohere, gemini, responses
from tooljson.providers.adapter import Adapter
from tooljson.providers.source import Source

__all__ = [
    "ADAPTERS",
    "DEFAULT",
    "KNOWN_CLASSES",
    "NAMES",
    "SOURCES",
    "SPOKEN",
    "check",
    "checker",
    "is_cut_off",
    "recognise",
    "source",
    "source_at",
    "unrecognised",
]

SOURCES: tuple[Source, ...] = (
    langchain.SOURCE,
    pydantic_ai.SOURCE,
    openai_agents.SOURCE,
    responses.SOURCE,
    chat.SOURCE,
    bedrock.SOURCE,
    gemini.SOURCE,
    cohere.SOURCE,
    anthropic.SOURCE,
)
"""Every source, in the order :func:`recognise` asks them."""

DEFAULT: Source = anthropic.SOURCE
"""The source of a reader that has read nothing yet."""

NAMES: tuple[str, ...] = tuple(source.name for source in SOURCES)
"""The sources' names: what ``ToolCall.provider`` and ``TurnReader.provider`` can be."""

SPOKEN: tuple[str, ...] = (
    DEFAULT.name,
    *(each.name for each in SOURCES if each.wire is not None and each is not DEFAULT),
)
"""The sources whose API the stand-in speaks (those with a ``wire``), the default first: what
``demo --provider`` takes. Only their names are here; the stand-in imports their wires."""

_BY_NAME: dict[str, Source] = {source.name: source for source in SOURCES}

ADAPTERS: dict[str, type[Adapter]] = {
    source.name: source.adapter for source in SOURCES if source.adapter is not None
}
"""The adapter class of each source, by name: what reads its events for one accumulator."""

# The source of an SDK object, by its class: every object of one SDK class is one source's, so a class
# is recognised once and then looked up. A generic class (SimpleNamespace, which tests and duck-typed
# callers use) says nothing of its objects: they are recognised one by one, as dicts and tuples are.
KNOWN_CLASSES: dict[type, Source] = {}
_GENERIC: frozenset[type] = frozenset({dict, tuple, types.SimpleNamespace})


def source(name: str) -> Source:
    """The source named ``name``; :class:`ValueError` names the known ones for any other."""
    found = _BY_NAME.get(name)
    if found is None:
        raise ValueError(f"no source named {name!r}; known: {', '.join(NAMES)}")
    return found


def recognise(event: Any) -> Source | None:
    """The source ``event`` belongs to, by its shape; ``None`` when no source's shape fits."""
    kind = type(event)
    known = KNOWN_CLASSES.get(kind)
    if known is not None:
        return known
    for candidate in SOURCES:
        if candidate.recognise(event):
            if kind not in _GENERIC:
                KNOWN_CLASSES[kind] = candidate
            return candidate
    return None


def is_cut_off(name: str, stop_reason: Any) -> bool:
    """Whether ``stop_reason`` is the word of the source named ``name`` for the token limit."""
    found = _BY_NAME.get(name)
    return found is not None and found.is_cut_off(stop_reason)


def unrecognised(event: Any) -> str:
    """Why ``event`` is refused when no source recognises it, naming what it looked like: its
    ``type``, else its keys (a dict) or its class."""
    kind = event.get("type") if isinstance(event, dict) else getattr(event, "type", None)
    if isinstance(kind, str):
        looks = f"an event of type {kind!r:.60}"
    elif isinstance(event, dict):
        keys = ", ".join(repr(key)[:40] for key in list(event)[:8])
        looks = f'a dict with keys {keys} and no "type" string' if keys else "an empty dict"
    else:
        looks = f"a {type(event).__name__} object"
    return f"{looks} is no registered source's event (sources: {', '.join(NAMES)})"


def check(event: dict[str, Any]) -> str | None:
    """What is wrong with a recorded event (a plain dict), by its source's check; ``None`` when
    nothing is. An event no source recognises is refused, as reading it alone would be."""
    return checker()(event)


def checker() -> Callable[[dict[str, Any]], str | None]:
    """The check of one recording's events, asked of each in order: :func:`check`, except that an
    event no source recognises passes when a source already seen tolerates it (a newer event type
    of the Messages API, in its stream), as reading the same events does."""
    seen: list[Source] = []

    def check_next(event: dict[str, Any]) -> str | None:
        found = recognise(event)
        if found is None:
            tolerated = any(each.adapter is not None and each.adapter.tolerates(event) for each in seen)
            return None if tolerated else unrecognised(event)
        if found not in seen:
            seen.append(found)
        return found.check(event) if found.check is not None else f"{found.title} streams are not recorded"

    return check_next


def source_at(path: str) -> Source | None:
    """The source whose streams answer a ``POST`` to ``path`` (its query left out), or ``None``."""
    path = path.split("?", 1)[0].rstrip("/")
    return next((candidate for candidate in SOURCES if candidate.streams_at(path)), None)
