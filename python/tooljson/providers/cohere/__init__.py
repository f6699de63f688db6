"""Cohere v2 chat streams (``cohere.ClientV2(...).chat_stream(...)`` and ``AsyncClientV2``), in one package.

Every event has a ``type``: ``message-start``; ``content-start`` / ``content-delta`` /
``content-end`` (text, by ``index``); ``tool-plan-delta`` (the model's plan); ``tool-call-start`` /
``tool-call-delta`` / ``tool-call-end`` (a call, by ``index``); ``citation-start`` /
``citation-end``; ``message-end`` with ``delta.finish_reason`` (``MAX_TOKENS``: the token limit).
The SDK yields them as typed objects, a recording or the SSE ``data:`` lines as dicts; both are read
by attribute or by key, without importing the SDK.

Here: recognition and the :data:`SOURCE` (this module), the adapter (:mod:`.adapter`), the content
and the tool results (:mod:`.content`), the check of an event (:mod:`.checks`), the stand-in's
``POST /v2/chat`` and the client against it (:mod:`.wire`, imported only when the stand-in or a
client needs it) and the events a test builds (:mod:`.streams`).
"""

from __future__ import annotations

from typing import Any

from tooljson.providers.cohere.adapter import CohereAdapter
from tooljson.providers.cohere.checks import EVENTS, check
from tooljson.providers.cohere.content import CohereAssembler, answer, describe_error, stop_reason_of
from tooljson.providers.source import Source

__all__ = ["SOURCE", "CohereAdapter", "CohereAssembler", "recognise"]


def recognise(event: Any) -> bool:
    """Whether ``event`` is a Cohere v2 chat stream event: its ``type`` is one of :data:`EVENTS`
    (hyphenated words no other source uses)."""
    if isinstance(event, dict):
        return event.get("type") in EVENTS
    fields = getattr(event, "__dict__", None)
    return isinstance(fields, dict) and fields.get("type") in EVENTS


SOURCE = Source(
    name="cohere",
    title="Cohere v2 chat",
    recognise=recognise,
    # The tool-call events, the bulk of a stream, show a dict is Cohere's by their type alone.
    type_prefix="tool-call-",
    adapter=CohereAdapter,
    assembler=CohereAssembler,
    cut_off=frozenset({"MAX_TOKENS"}),
    end_event="message-end",
    answer=answer,
    check=check,
    stream_paths=(r"/v2/chat$",),
    describe_error=describe_error,
    stop_reason_of=stop_reason_of,
    telemetry_name="cohere",
    wire="tooljson.providers.cohere.wire",
    streams="tooljson.providers.cohere.streams",
    extra="cohere",
    modules=("cohere",),
)
"""Everything tooljson knows about Cohere v2 chat streams (see :class:`tooljson.providers.source.Source`)."""
