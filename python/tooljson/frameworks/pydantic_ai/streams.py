"""pydantic-ai event streams built from argument fragments: what tests feed a reader, as an agent streams.

:func:`events` writes the events of one model response whose tool-call parts stream given argument
fragments (``PartStartEvent``, a ``PartDeltaEvent`` per fragment, ``PartEndEvent``), as plain objects
of the same fields (the reader takes them by attribute, never dicts); :func:`as_sdk_objects` turns
them into pydantic-ai's own events. The events carry no stop reason (:data:`NORMAL_STOP` and
:data:`CUT_OFF_STOP` are ``None``): a call cut off at the token limit gets no ``PartEndEvent`` and is
*incomplete*, never *truncated*.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

__all__ = ["ARGUMENT_TEXT", "CUT_OFF_STOP", "NORMAL_STOP", "as_sdk_objects", "events"]

ARGUMENT_TEXT = True
"""The deltas carry a call's arguments as JSON text cut anywhere."""
NORMAL_STOP = None
"""pydantic-ai's events say no stop reason."""
CUT_OFF_STOP = None
"""pydantic-ai's events say no stop reason: the token limit shows only as a call never ended."""


def _part(index: int, args: str = "") -> SimpleNamespace:
    return SimpleNamespace(
        part_kind="tool-call", tool_name=f"tool_{index}", args=args, tool_call_id=f"call_{index}"
    )


def events(calls: Sequence[Sequence[str]], *, cut_off: bool = False) -> list[Any]:
    """The events of one response: per call a start (id ``call_<n>``, name ``tool_<n>``), a delta per
    fragment and an end (not for the last call when ``cut_off``)."""
    out: list[Any] = []
    for index, fragments in enumerate(calls):
        out.append(SimpleNamespace(event_kind="part_start", index=index, part=_part(index)))
        out += [
            SimpleNamespace(
                event_kind="part_delta",
                index=index,
                delta=SimpleNamespace(
                    part_delta_kind="tool_call", args_delta=piece, tool_name_delta=None, tool_call_id=None
                ),
            )
            for piece in fragments
        ]
        if not (cut_off and index == len(calls) - 1):
            # The part as it ended: its arguments whole.
            out.append(
                SimpleNamespace(event_kind="part_end", index=index, part=_part(index, "".join(fragments)))
            )
    return out


def as_sdk_objects(stream: Sequence[Any]) -> list[Any]:
    """The events as pydantic-ai's own (needs pydantic-ai)."""
    from pydantic_ai.messages import (
        PartDeltaEvent,
        PartEndEvent,
        PartStartEvent,
        ToolCallPart,
        ToolCallPartDelta,
    )

    made: list[Any] = []
    for event in stream:
        if event.event_kind == "part_delta":
            made.append(
                PartDeltaEvent(index=event.index, delta=ToolCallPartDelta(args_delta=event.delta.args_delta))
            )
            continue
        part = ToolCallPart(
            tool_name=event.part.tool_name, args=event.part.args, tool_call_id=event.part.tool_call_id
        )
        kind = PartStartEvent if event.event_kind == "part_start" else PartEndEvent
        made.append(kind(index=event.index, part=part))
    return made
