"""Responses API streams built from argument fragments: what tests feed a reader, in this API's shape.

:func:`events` writes the events the API streams for a response whose function calls stream given
argument fragments; :func:`as_sdk_objects` turns them into the objects the openai client yields,
built as it builds them (``construct_type``, without validation).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["ARGUMENT_TEXT", "CUT_OFF_STOP", "NORMAL_STOP", "as_sdk_objects", "events", "responses_events"]

ARGUMENT_TEXT = True
"""The wire carries a call's arguments as JSON text cut anywhere."""
NORMAL_STOP = "completed"
"""The stop reason of a response that ended after its calls (its ``status``)."""
CUT_OFF_STOP = "max_output_tokens"
"""The stop reason of a response cut off at the token limit (``incomplete_details.reason``)."""


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


def events(calls: Sequence[Sequence[str]], *, cut_off: bool = False) -> list[dict[str, Any]]:
    """The events of one response holding ``calls``, stopped normally or at the token limit."""
    return responses_events(calls, cut_off=cut_off)


def as_sdk_objects(stream: Sequence[dict[str, Any]]) -> list[Any]:
    """The events as the openai client yields them (needs the openai SDK)."""
    from openai._models import construct_type
    from openai.types.responses import ResponseStreamEvent

    return [construct_type(type_=ResponseStreamEvent, value=event) for event in stream]
