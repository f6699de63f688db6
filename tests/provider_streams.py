"""Chat Completions, Responses and Bedrock streams for tests that name those three: each source's own
builders (``tooljson.providers.<name>.streams``, what ``Source.streams`` names), by the source's name.
Tests of what every source shares take the registry's sources instead (tests/test_sources_shared.py).
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any

from tooljson.providers.bedrock.streams import bedrock_events
from tooljson.providers.chat.streams import chat_chunks
from tooljson.providers.registry import source
from tooljson.providers.responses.streams import responses_events

__all__ = [
    "CUT_OFF_STOP",
    "NORMAL_STOP",
    "PROVIDERS",
    "as_sdk_objects",
    "bedrock_events",
    "chat_chunks",
    "responses_events",
    "stream",
]

PROVIDERS = ("openai", "responses", "bedrock")


def _builders(provider: str) -> Any:
    made = source(provider).streams
    assert made is not None
    return importlib.import_module(made)


# Each provider's word for a response that ended normally after tool calls, and for the token limit.
NORMAL_STOP = {provider: _builders(provider).NORMAL_STOP for provider in PROVIDERS}
CUT_OFF_STOP = {provider: _builders(provider).CUT_OFF_STOP for provider in PROVIDERS}


def stream(provider: str, calls: Sequence[Sequence[str]], *, cut_off: bool = False) -> list[dict[str, Any]]:
    """The events of one response of ``provider`` holding ``calls``, stopped normally or at the limit."""
    events: list[dict[str, Any]] = _builders(provider).events(calls, cut_off=cut_off)
    return events


def as_sdk_objects(provider: str, events: Sequence[dict[str, Any]]) -> list[Any]:
    """The events as the provider's client yields them."""
    objects: list[Any] = _builders(provider).as_sdk_objects(events)
    return objects
