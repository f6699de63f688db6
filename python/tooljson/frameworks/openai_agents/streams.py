"""Agents SDK run streams built from argument fragments: what tests feed a reader, as a run streams.

The Responses model passes the server's events on, each wrapped in a ``raw_response_event``:
:func:`events` wraps the Responses API's events of a response whose calls stream given argument
fragments (:mod:`tooljson.providers.responses.streams`); :func:`as_sdk_objects` makes them the SDK's
``RawResponsesStreamEvent`` s around the openai client's objects.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tooljson.providers.responses import streams as responses

__all__ = ["ARGUMENT_TEXT", "CUT_OFF_STOP", "NORMAL_STOP", "as_sdk_objects", "events"]

ARGUMENT_TEXT = True
"""The wrapped events carry a call's arguments as JSON text cut anywhere."""
NORMAL_STOP = responses.NORMAL_STOP
"""The stop reason of a response that ended after its calls (the Responses model's)."""
CUT_OFF_STOP = responses.CUT_OFF_STOP
"""The stop reason of a response cut off at the token limit (the Responses model's)."""


def events(calls: Sequence[Sequence[str]], *, cut_off: bool = False) -> list[dict[str, Any]]:
    """The run events of one response holding ``calls``: its Responses events, each wrapped."""
    return [
        {"type": "raw_response_event", "data": event} for event in responses.events(calls, cut_off=cut_off)
    ]


def as_sdk_objects(stream: Sequence[dict[str, Any]]) -> list[Any]:
    """The events as the SDK's ``stream_events()`` yields them (needs openai-agents)."""
    from agents import RawResponsesStreamEvent

    inner = responses.as_sdk_objects([event["data"] for event in stream])
    return [RawResponsesStreamEvent(data=data) for data in inner]
