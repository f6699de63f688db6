"""Chat Completions streams built from argument fragments: what tests feed a reader, in this API's shape.

:func:`events` writes the chunks the API streams for one choice whose calls stream given argument
fragments (:func:`chat_chunks` with the choice, the response id and an interleaving to choose);
:func:`as_sdk_objects` turns them into the objects the openai client yields, built as it builds them
(``construct_type``, without validation).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

__all__ = ["ARGUMENT_TEXT", "CUT_OFF_STOP", "NORMAL_STOP", "as_sdk_objects", "chat_chunks", "events"]

ARGUMENT_TEXT = True
"""The wire carries a call's arguments as JSON text cut anywhere."""
NORMAL_STOP = "tool_calls"
"""The ``finish_reason`` of a choice that ended after its calls."""
CUT_OFF_STOP = "length"
"""The ``finish_reason`` of a choice cut off at the token limit."""


def chat_chunks(
    calls: Sequence[Sequence[str]],
    finish: str,
    *,
    choice: int = 0,
    response_id: str = "chatcmpl-test",
    rng: random.Random | None = None,
) -> list[dict[str, Any]]:
    """Chunks of one choice: each call's first chunk (id, name, ``arguments: ""``), then one chunk
    per fragment; with ``rng`` the fragments of different calls interleave. Then ``finish``."""

    def chunk(delta: dict[str, Any], reason: str | None = None) -> dict[str, Any]:
        return {
            "id": response_id,
            "object": "chat.completion.chunk",
            "created": 1,
            "model": "m",
            "choices": [{"index": choice, "delta": delta, "finish_reason": reason}],
        }

    events = [chunk({"role": "assistant", "content": None})]
    queues = []
    for index, fragments in enumerate(calls):
        first = {
            "index": index,
            "id": f"call_{choice}_{index}",
            "type": "function",
            "function": {"name": f"tool_{index}", "arguments": ""},
        }
        queues.append(
            [chunk({"tool_calls": [first]})]
            + [
                chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
                for piece in fragments
            ]
        )
    if rng is None:
        for queue in queues:
            events += queue
    else:
        # A call's first chunk still comes before its fragments; between calls, any order.
        while any(queues):
            queue = rng.choice([queue for queue in queues if queue])
            events.append(queue.pop(0))
    events.append(chunk({}, finish))
    return events


def events(calls: Sequence[Sequence[str]], *, cut_off: bool = False) -> list[dict[str, Any]]:
    """The chunks of one response holding ``calls``, stopped normally or at the token limit."""
    return chat_chunks(calls, CUT_OFF_STOP if cut_off else NORMAL_STOP)


def as_sdk_objects(stream: Sequence[dict[str, Any]]) -> list[Any]:
    """The chunks as the openai client yields them (needs the openai SDK)."""
    from openai._models import construct_type
    from openai.types.chat import ChatCompletionChunk

    return [construct_type(type_=ChatCompletionChunk, value=chunk) for chunk in stream]
