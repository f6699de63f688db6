"""LangChain streams built from argument fragments: what tests feed a reader, as a chat model streams.

:func:`events` writes the ``AIMessageChunk`` s of one response whose calls stream given argument
fragments (``tool_call_chunks`` by index), as plain objects of the same fields (LangChain's reader
takes messages by their attributes, never dicts); :func:`as_sdk_objects` turns them into
langchain-core's own ``AIMessageChunk`` s. The stop reason is an OpenAI-backed model's, in
``response_metadata.finish_reason`` of the last chunk (``chunk_position="last"``).
"""

from __future__ import annotations

from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

__all__ = ["ARGUMENT_TEXT", "CUT_OFF_STOP", "NORMAL_STOP", "as_sdk_objects", "events"]

ARGUMENT_TEXT = True
"""The chunks carry a call's arguments as JSON text cut anywhere."""
NORMAL_STOP = "tool_calls"
"""The ``finish_reason`` of a response that ended after its calls (an OpenAI-backed model's)."""
CUT_OFF_STOP = "length"
"""The ``finish_reason`` of a response cut off at the token limit."""


def _chunk(pieces: list[dict[str, Any]], *, content: str = "", **fields: Any) -> SimpleNamespace:
    return SimpleNamespace(
        type="AIMessageChunk",
        id="run-test",
        content=content,
        tool_call_chunks=pieces,
        response_metadata=fields.pop("response_metadata", {}),
        chunk_position=fields.pop("chunk_position", None),
        additional_kwargs={},
        usage_metadata=None,
        **fields,
    )


def events(calls: Sequence[Sequence[str]], *, cut_off: bool = False) -> list[Any]:
    """The chunks of one response: a text chunk, per call a first piece (id ``call_<n>``, name
    ``tool_<n>``, empty ``args``) and a piece per fragment, then the last chunk with the stop reason."""
    out = [_chunk([], content="Calling.")]
    for index, fragments in enumerate(calls):
        out.append(
            _chunk(
                [
                    {
                        "name": f"tool_{index}",
                        "args": "",
                        "id": f"call_{index}",
                        "index": index,
                        "type": "tool_call_chunk",
                    }
                ]
            )
        )
        out += [
            _chunk([{"name": None, "args": piece, "id": None, "index": index, "type": "tool_call_chunk"}])
            for piece in fragments
        ]
    reason = CUT_OFF_STOP if cut_off else NORMAL_STOP
    out.append(_chunk([], response_metadata={"finish_reason": reason}, chunk_position="last"))
    return out


def as_sdk_objects(stream: Sequence[Any]) -> list[Any]:
    """The chunks as langchain-core's ``AIMessageChunk`` s (needs langchain-core)."""
    from langchain_core.messages import AIMessageChunk

    return [
        AIMessageChunk(
            content=chunk.content,
            id=chunk.id,
            tool_call_chunks=chunk.tool_call_chunks,
            response_metadata=chunk.response_metadata,
            chunk_position=chunk.chunk_position,
        )
        for chunk in stream
    ]
