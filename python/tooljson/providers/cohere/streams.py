"""Cohere v2 chat streams built from argument fragments: what tests feed a reader, in Cohere's shape.

:func:`events` writes the events the API streams for a response holding given calls (each a list
of argument fragments), as dicts, the shape of the SSE ``data:`` lines; :func:`as_sdk_objects`
turns them into the objects cohere's client yields, parsed as the client parses them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["ARGUMENT_TEXT", "CUT_OFF_STOP", "NORMAL_STOP", "as_sdk_objects", "events"]

ARGUMENT_TEXT = True
"""The wire carries a call's arguments as JSON text cut anywhere."""

NORMAL_STOP = "TOOL_CALL"
"""The ``finish_reason`` of a response that ended after its calls."""
CUT_OFF_STOP = "MAX_TOKENS"
"""The ``finish_reason`` of a response cut off at the token limit."""


def events(
    calls: Sequence[Sequence[str]],
    *,
    cut_off: bool = False,
    plan: str = "",
    text: str = "",
    message_id: str = "msg_test",
) -> list[dict[str, Any]]:
    """The events of one response: ``message-start``; the ``plan`` as one ``tool-plan-delta``; per
    call ``tool-call-start`` (id ``call_<n>``, name ``tool_<n>``, empty arguments), a
    ``tool-call-delta`` per fragment and ``tool-call-end`` (not for the last call when ``cut_off``);
    the ``text`` as one content item; ``message-end`` with ``TOOL_CALL`` or ``MAX_TOKENS``."""
    out: list[dict[str, Any]] = [
        {"type": "message-start", "id": message_id, "delta": {"message": {"role": "assistant"}}}
    ]
    if plan:
        out.append({"type": "tool-plan-delta", "delta": {"message": {"tool_plan": plan}}})
    for index, fragments in enumerate(calls):
        start = {
            "id": f"call_{index}",
            "type": "function",
            "function": {"name": f"tool_{index}", "arguments": ""},
        }
        out.append({"type": "tool-call-start", "index": index, "delta": {"message": {"tool_calls": start}}})
        out += [
            {
                "type": "tool-call-delta",
                "index": index,
                "delta": {"message": {"tool_calls": {"function": {"arguments": piece}}}},
            }
            for piece in fragments
        ]
        if not (cut_off and index == len(calls) - 1):
            out.append({"type": "tool-call-end", "index": index})
    if text:
        out += [
            {
                "type": "content-start",
                "index": 0,
                "delta": {"message": {"content": {"type": "text", "text": ""}}},
            },
            {"type": "content-delta", "index": 0, "delta": {"message": {"content": {"text": text}}}},
            {"type": "content-end", "index": 0},
        ]
    usage = {
        "billed_units": {"input_tokens": 1, "output_tokens": 1},
        "tokens": {"input_tokens": 1, "output_tokens": 1},
    }
    out.append(
        {
            "type": "message-end",
            "delta": {"finish_reason": CUT_OFF_STOP if cut_off else NORMAL_STOP, "usage": usage},
        }
    )
    return out


def as_sdk_objects(stream: Sequence[dict[str, Any]]) -> list[Any]:
    """The events as cohere's ``chat_stream`` yields them: each ``data:`` line's JSON parsed into
    the SDK's stream event union (needs the cohere extra)."""
    import cohere
    from cohere.core.pydantic_utilities import parse_obj_as

    kind = cohere.StreamedChatResponseV2
    return [parse_obj_as(kind, event) for event in stream]  # type: ignore[arg-type]
