"""What a scenario answers a request with: a :class:`Reply`, its content blocks, a stop reason and,
optionally, a fault.

A scenario builds a :class:`Reply`; the server turns the same reply into an event stream or into a
whole message, so both ways of asking see the same content. Tool input is kept as *text*, not as a
dict, because some scenarios must send text that is not JSON at all.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = [
    "Block",
    "Fault",
    "Reply",
    "Text",
    "Thinking",
    "ToolUse",
    "WebSearchResult",
]


@dataclass(frozen=True)
class Text:
    """A text block, streamed as ``text_delta`` fragments."""

    text: str


@dataclass(frozen=True)
class Thinking:
    """A thinking block: ``thinking_delta`` fragments, then one ``signature_delta``."""

    thinking: str
    signature: str


@dataclass(frozen=True)
class ToolUse:
    """A tool call a scenario makes: a ``tool_use`` (or, with ``server=True``, a ``server_tool_use``)
    block as the Messages API streams it, written in each wire's own shape. It is what the stand-in
    sends, not what a reader gives back (a :class:`tooljson.ToolCall`).

    ``input_text`` is the exact argument text streamed as ``input_json_delta`` fragments; it need not
    be JSON. ``id`` is generated from the seed when left ``None``. An empty ``input_text`` streams no
    delta at all, unless ``empty_delta`` asks for one delta holding ``""``. With ``whole``, the text
    arrives in one fragment, as some servers send it (Chat Completions: inside the call's first
    chunk, and consecutive whole calls share one chunk). ``custom`` makes it a Responses custom tool
    call, whose input is free text.
    """

    name: str
    input_text: str
    id: str | None = None
    server: bool = False
    empty_delta: bool = False
    whole: bool = False
    custom: bool = False


@dataclass(frozen=True)
class WebSearchResult:
    """A ``web_search_tool_result`` block: it arrives whole in ``content_block_start``."""

    tool_use_id: str
    results: tuple[dict[str, Any], ...]


Block = Text | Thinking | ToolUse | WebSearchResult


@dataclass(frozen=True)
class Fault:
    """A stream that breaks inside the tool input of block ``block``.

    After fragments covering the first ``after_chars`` characters of that input, the stream either
    sends an ``error`` event and ends (``kind="error"``) or the server closes the connection without
    finishing the response (``kind="drop"``).
    """

    kind: Literal["error", "drop"]
    block: int
    after_chars: int
    error_type: str = "overloaded_error"
    error_message: str = "Overloaded"


@dataclass(frozen=True)
class Reply:
    """One response: its content blocks, in order, and how it stopped."""

    blocks: tuple[Block, ...]
    stop_reason: Literal["end_turn", "tool_use", "max_tokens", "stop_sequence", "pause_turn", "refusal"]
    fault: Fault | None = None
    # Counted in the final usage, as the API reports server tool requests.
    web_search_requests: int = 0
    # Set by scenarios that cut their output at the request's budget, so usage says exactly that.
    output_tokens: int | None = field(default=None)
    # Further answers to the same request: choices 1, 2, ... of a Chat Completions request with n > 1
    # (choice i takes the last one when n asks for more). Other APIs answer with this reply alone.
    alternatives: tuple[Reply, ...] = ()
