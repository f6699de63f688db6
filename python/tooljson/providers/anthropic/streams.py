"""Messages API streams built from argument fragments: what tests feed a reader, in this API's shape.

:func:`events` writes the raw events of ``messages.create(..., stream=True)`` for a response whose
``tool_use`` blocks stream given argument fragments (``input_json_delta``), after a text block;
:func:`as_sdk_objects` turns them into the objects the anthropic client yields, built as it builds
them (``construct_type``, without validation).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["ARGUMENT_TEXT", "CUT_OFF_STOP", "NORMAL_STOP", "as_sdk_objects", "events"]

ARGUMENT_TEXT = True
"""The wire carries a call's arguments as JSON text cut anywhere."""
NORMAL_STOP = "tool_use"
"""The ``stop_reason`` of a response that ended after its calls."""
CUT_OFF_STOP = "max_tokens"
"""The ``stop_reason`` of a response cut off at the token limit."""


def events(
    calls: Sequence[Sequence[str]], *, cut_off: bool = False, text: str = "Calling."
) -> list[dict[str, Any]]:
    """The events of one response: ``message_start``, a text block, per call a ``tool_use`` block
    (id ``toolu_<n>``, name ``tool_<n>``) with an ``input_json_delta`` per fragment, then
    ``message_delta`` with ``tool_use`` or ``max_tokens`` and ``message_stop``."""
    message: dict[str, Any] = {
        "id": "msg_test",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 7, "output_tokens": 1},
    }
    out: list[dict[str, Any]] = [
        {"type": "message_start", "message": message},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}},
        {"type": "content_block_stop", "index": 0},
    ]
    for number, fragments in enumerate(calls):
        index = number + 1
        block = {"type": "tool_use", "id": f"toolu_{number}", "name": f"tool_{number}", "input": {}}
        out.append({"type": "content_block_start", "index": index, "content_block": block})
        out += [
            {
                "type": "content_block_delta",
                "index": index,
                "delta": {"type": "input_json_delta", "partial_json": piece},
            }
            for piece in fragments
        ]
        out.append({"type": "content_block_stop", "index": index})
    stop = CUT_OFF_STOP if cut_off else NORMAL_STOP
    out.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop, "stop_sequence": None},
            "usage": {"output_tokens": 9},
        }
    )
    out.append({"type": "message_stop"})
    return out


def as_sdk_objects(stream: Sequence[dict[str, Any]]) -> list[Any]:
    """The events as the anthropic client yields them (needs the anthropic SDK)."""
    from anthropic._models import construct_type
    from anthropic.types import RawMessageStreamEvent

    return [construct_type(type_=RawMessageStreamEvent, value=event) for event in stream]
