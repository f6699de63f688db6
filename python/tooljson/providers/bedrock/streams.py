"""Bedrock ConverseStream streams built from argument fragments: what tests feed a reader, in its shape.

:func:`events` writes the events ``converse_stream`` yields for a response whose calls stream given
argument fragments; boto3 yields them as dicts, so :func:`as_sdk_objects` is the same list.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["ARGUMENT_TEXT", "CUT_OFF_STOP", "NORMAL_STOP", "as_sdk_objects", "bedrock_events", "events"]

ARGUMENT_TEXT = True
"""The wire carries a call's arguments as JSON text cut anywhere."""
NORMAL_STOP = "tool_use"
"""The ``stopReason`` of a response that ended after its calls."""
CUT_OFF_STOP = "max_tokens"
"""The ``stopReason`` of a response cut off at the token limit."""


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


def events(calls: Sequence[Sequence[str]], *, cut_off: bool = False) -> list[dict[str, Any]]:
    """The events of one response holding ``calls``, stopped normally or at the token limit."""
    return bedrock_events(calls, CUT_OFF_STOP if cut_off else NORMAL_STOP)


def as_sdk_objects(stream: Sequence[dict[str, Any]]) -> list[Any]:
    """The events as boto3 yields them: dicts, the same ones."""
    return list(stream)
