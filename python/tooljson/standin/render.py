"""Turning a :class:`Reply` into the Messages API's wire shapes: an event list or a whole message.

Identifiers come first from the request's random generator, then the fragment cuts, so a streamed and
a whole answer to the same request carry the same ids. Token counts are estimates (about four
characters a token); the stand-in only needs them to be plausible and consistent.
"""

from __future__ import annotations

import dataclasses
import json
import random
import string
from dataclasses import dataclass
from typing import Any

from tooljson.standin.reply import Block, Reply, Text, Thinking, ToolUse

__all__ = [
    "RenderedStream",
    "UnrenderableReply",
    "assign_ids",
    "cut_text",
    "estimate_tokens",
    "fragments_of",
    "make_id",
    "render_message",
    "render_stream",
]

_ID_ALPHABET = string.ascii_letters + string.digits
# Roughly how often a ping is slipped in between two events; the API sends them when it likes.
_PING_CHANCE = 1 / 16


def make_id(rng: random.Random, prefix: str) -> str:
    """An identifier shaped like the API's, such as ``toolu_01`` followed by 22 letters and digits."""
    return prefix + "01" + "".join(rng.choice(_ID_ALPHABET) for _ in range(22))


def estimate_tokens(text: str) -> int:
    """About four characters per token, and never zero for non-empty text."""
    return (len(text) + 3) // 4


def assign_ids(blocks: tuple[Block, ...], rng: random.Random) -> tuple[Block, ...]:
    """Give every tool block without an id a fresh ``toolu_``/``srvtoolu_`` id."""
    out: list[Block] = []
    for block in blocks:
        if isinstance(block, ToolUse) and block.id is None:
            prefix = "srvtoolu_" if block.server else "toolu_"
            block = dataclasses.replace(block, id=make_id(rng, prefix))
        out.append(block)
    return tuple(out)


def cut_text(text: str, rng: random.Random, sizes: tuple[int, int]) -> list[str]:
    """Cut ``text`` into pieces of ``sizes[0]`` to ``sizes[1]`` characters (the last may be shorter).

    The cuts fall on Python characters, which can be inside a JSON escape, a ``\\uXXXX`` pair written
    as escapes, or a number: exactly where the real stream cuts too.
    """
    low, high = sizes
    pieces: list[str] = []
    pos = 0
    while pos < len(text):
        size = rng.randint(low, high)
        pieces.append(text[pos : pos + size])
        pos += size
    return pieces


def fragments_of(call: ToolUse, text: str, rng: random.Random, sizes: tuple[int, int]) -> list[str]:
    """The fragments a scenario's call's input ``text`` streams in: one for a ``whole`` call."""
    if call.whole:
        return [text] if text else []
    return cut_text(text, rng, sizes)


def _output_tokens(reply: Reply) -> int:
    if reply.output_tokens is not None:
        return reply.output_tokens
    total = 0
    for block in reply.blocks:
        if isinstance(block, Text):
            total += estimate_tokens(block.text)
        elif isinstance(block, Thinking):
            total += estimate_tokens(block.thinking)
        elif isinstance(block, ToolUse):
            total += estimate_tokens(block.input_text) + 8
    return max(total, 1)


def _usage_start(input_tokens: int) -> dict[str, Any]:
    return {
        "input_tokens": input_tokens,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "output_tokens": 1,
        "service_tier": "standard",
    }


def _usage_final(reply: Reply) -> dict[str, Any]:
    usage: dict[str, Any] = {"output_tokens": _output_tokens(reply)}
    if reply.web_search_requests:
        usage["server_tool_use"] = {"web_search_requests": reply.web_search_requests}
    return usage


def _message_shell(message_id: str, model: str) -> dict[str, Any]:
    return {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
    }


def _empty_block(block: Block) -> dict[str, Any]:
    """The placeholder a ``content_block_start`` carries before any delta."""
    if isinstance(block, Text):
        return {"type": "text", "text": ""}
    if isinstance(block, Thinking):
        return {"type": "thinking", "thinking": "", "signature": ""}
    if isinstance(block, ToolUse):
        kind = "server_tool_use" if block.server else "tool_use"
        return {"type": kind, "id": block.id, "name": block.name, "input": {}}
    return _whole_block(block)


def _whole_block(block: Block, *, held: bool = False) -> dict[str, Any]:
    """The block as it appears in a whole (non-streamed) message."""
    if isinstance(block, Text):
        return {"type": "text", "text": block.text}
    if isinstance(block, Thinking):
        return {"type": "thinking", "thinking": block.thinking, "signature": block.signature}
    if isinstance(block, ToolUse):
        kind = "server_tool_use" if block.server else "tool_use"
        return {
            "type": kind,
            "id": block.id,
            "name": block.name,
            "input": _whole_input(block.input_text, held=held),
        }
    return {
        "type": "web_search_tool_result",
        "tool_use_id": block.tool_use_id,
        "content": list(block.results),
    }


class UnrenderableReply(ValueError):
    """A reply that only a stream can carry: its tool input is not JSON nor a prefix of JSON."""


def _whole_input(text: str, *, held: bool = False) -> Any:
    if not text:
        return {}
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    # A cut-off input (max_tokens) is shown the way the SDK's stream helper shows it: the parsed prefix.
    from jiter import from_json

    try:
        return from_json(text.encode("utf-8"), partial_mode=True)
    except ValueError as error:
        if held:
            return {}
        raise UnrenderableReply(f"tool input is not JSON ({error}); ask for it with stream=true") from error


def render_message(
    reply: Reply, *, rng: random.Random, model: str, input_tokens: int, held: bool = False
) -> dict[str, Any]:
    """The whole message, as ``POST /v1/messages`` without ``stream`` answers it.

    Raises :class:`UnrenderableReply` when a tool input can only be streamed, unless ``held``: the
    message a thread holds after a streamed answer then keeps such an input as ``{}``. Made from a
    generator seeded as the stream's was, it has the stream's message and block ids.
    """
    message = _message_shell(make_id(rng, "msg_"), model)
    blocks = assign_ids(reply.blocks, rng)
    message["content"] = [_whole_block(block, held=held) for block in blocks]
    message["stop_reason"] = reply.stop_reason
    usage = _usage_start(input_tokens)
    usage.update(_usage_final(reply))
    message["usage"] = usage
    return message


@dataclass(frozen=True)
class RenderedStream:
    """The events of one streamed response; ``drop`` asks the server to cut the connection after them."""

    events: list[dict[str, Any]]
    drop: bool


class _EventList:
    """Collects events and slips pings in between them."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.events: list[dict[str, Any]] = []

    def add(self, event: dict[str, Any]) -> None:
        if self.events and self.rng.random() < _PING_CHANCE:
            self.events.append({"type": "ping"})
        self.events.append(event)

    def delta(self, index: int, delta: dict[str, Any]) -> None:
        self.add({"type": "content_block_delta", "index": index, "delta": delta})


def render_stream(
    reply: Reply,
    *,
    rng: random.Random,
    model: str,
    input_tokens: int,
    fragment_sizes: tuple[int, int],
) -> RenderedStream:
    """The event list of a streamed answer (pings included), cut short where the reply has a fault."""
    message = _message_shell(make_id(rng, "msg_"), model)
    message["usage"] = _usage_start(input_tokens)
    blocks = assign_ids(reply.blocks, rng)
    out = _EventList(rng)
    out.events.append({"type": "message_start", "message": message})
    # The API always sends one ping right after message_start.
    out.events.append({"type": "ping"})
    for index, block in enumerate(blocks):
        out.add({"type": "content_block_start", "index": index, "content_block": _empty_block(block)})
        if isinstance(block, Text):
            for piece in cut_text(block.text, rng, fragment_sizes):
                out.delta(index, {"type": "text_delta", "text": piece})
        elif isinstance(block, Thinking):
            for piece in cut_text(block.thinking, rng, fragment_sizes):
                out.delta(index, {"type": "thinking_delta", "thinking": piece})
            out.delta(index, {"type": "signature_delta", "signature": block.signature})
        elif isinstance(block, ToolUse):
            fault = reply.fault if reply.fault is not None and reply.fault.block == index else None
            text = block.input_text if fault is None else block.input_text[: fault.after_chars]
            pieces = fragments_of(block, text, rng, fragment_sizes)
            if not pieces and block.empty_delta:
                pieces = [""]
            for piece in pieces:
                out.delta(index, {"type": "input_json_delta", "partial_json": piece})
            if fault is not None:
                if fault.kind == "drop":
                    return RenderedStream(out.events, drop=True)
                error = {"type": fault.error_type, "message": fault.error_message}
                out.add({"type": "error", "error": error})
                return RenderedStream(out.events, drop=False)
        out.add({"type": "content_block_stop", "index": index})
    delta = {"stop_reason": reply.stop_reason, "stop_sequence": None}
    out.add({"type": "message_delta", "delta": delta, "usage": _usage_final(reply)})
    out.add({"type": "message_stop"})
    return RenderedStream(out.events, drop=False)
