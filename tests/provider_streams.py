"""Event streams of the other providers, built from argument fragments, as dicts or as SDK objects.

Each builder takes the calls of one response as lists of fragments and writes the events the API
would stream for them, in the shapes the SDKs document (and the stand-in sends): Chat Completions
chunks, Responses events, Bedrock ConverseStream events. ``as_sdk_objects`` turns the dicts into the
objects the openai client yields (Bedrock's client yields dicts).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from openai._models import construct_type
from openai.types.chat import ChatCompletionChunk
from openai.types.responses import ResponseStreamEvent

# Each provider's word for a response that ended normally after tool calls, and for the token limit.
NORMAL_STOP = {"openai": "tool_calls", "responses": "completed", "bedrock": "tool_use"}
CUT_OFF_STOP = {"openai": "length", "responses": "max_output_tokens", "bedrock": "max_tokens"}
PROVIDERS = ("openai", "responses", "bedrock")


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


def responses_events(calls: Sequence[Sequence[str]], *, cut_off: bool = False) -> list[dict[str, Any]]:
    """Events of one response: per call ``output_item.added``, the deltas, ``.done`` with the whole
    arguments and ``output_item.done`` (not for the last call when ``cut_off``), then
    ``response.completed`` or ``response.incomplete`` at ``max_output_tokens``."""
    events: list[dict[str, Any]] = []

    def add(kind: str, **fields: Any) -> None:
        events.append({"type": kind, "sequence_number": len(events), **fields})

    def response(status: str, **extra: Any) -> dict[str, Any]:
        return {
            "id": "resp_test",
            "object": "response",
            "created_at": 1,
            "model": "m",
            "output": [],
            "status": status,
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            **extra,
        }

    add("response.created", response=response("in_progress"))
    for index, fragments in enumerate(calls):
        item = {
            "type": "function_call",
            "id": f"fc_{index}",
            "call_id": f"call_{index}",
            "name": f"tool_{index}",
            "arguments": "",
        }
        add("response.output_item.added", output_index=index, item=dict(item, status="in_progress"))
        for piece in fragments:
            add("response.function_call_arguments.delta", item_id=item["id"], output_index=index, delta=piece)
        if cut_off and index == len(calls) - 1:
            break
        whole = "".join(fragments)
        add("response.function_call_arguments.done", item_id=item["id"], output_index=index, arguments=whole)
        add(
            "response.output_item.done",
            output_index=index,
            item=dict(item, arguments=whole, status="completed"),
        )
    if cut_off:
        add(
            "response.incomplete",
            response=response("incomplete", incomplete_details={"reason": "max_output_tokens"}),
        )
    else:
        add("response.completed", response=response("completed"))
    return events


def bedrock_events(
    calls: Sequence[Sequence[str]], stop_reason: str, *, first_index: int = 1
) -> list[dict[str, Any]]:
    """ConverseStream events: a text block, then per call start, deltas, stop; then ``messageStop``."""
    events: list[dict[str, Any]] = [
        {"messageStart": {"role": "assistant"}},
        {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "Calling."}}},
        {"contentBlockStop": {"contentBlockIndex": 0}},
    ]
    for number, fragments in enumerate(calls):
        index = first_index + number
        events.append(
            {
                "contentBlockStart": {
                    "contentBlockIndex": index,
                    "start": {"toolUse": {"toolUseId": f"tooluse_{index}", "name": f"tool_{number}"}},
                }
            }
        )
        events += [
            {"contentBlockDelta": {"contentBlockIndex": index, "delta": {"toolUse": {"input": piece}}}}
            for piece in fragments
        ]
        events.append({"contentBlockStop": {"contentBlockIndex": index}})
    events.append({"messageStop": {"stopReason": stop_reason}})
    events.append(
        {
            "metadata": {
                "usage": {"inputTokens": 1, "outputTokens": 1, "totalTokens": 2},
                "metrics": {"latencyMs": 1},
            }
        }
    )
    return events


def stream(provider: str, calls: Sequence[Sequence[str]], *, cut_off: bool = False) -> list[dict[str, Any]]:
    """The events of one response of ``provider`` holding ``calls``, stopped normally or at the limit."""
    if provider == "openai":
        return chat_chunks(calls, CUT_OFF_STOP[provider] if cut_off else NORMAL_STOP[provider])
    if provider == "responses":
        return responses_events(calls, cut_off=cut_off)
    return bedrock_events(calls, CUT_OFF_STOP[provider] if cut_off else NORMAL_STOP[provider])


def as_sdk_objects(provider: str, events: Sequence[dict[str, Any]]) -> list[Any]:
    """The events as the provider's client yields them: the openai client builds its objects from
    the decoded JSON with ``construct_type``, without validation, and so does this."""
    if provider == "openai":
        return [construct_type(type_=ChatCompletionChunk, value=event) for event in events]
    if provider == "responses":
        return [construct_type(type_=ResponseStreamEvent, value=event) for event in events]
    return list(events)
