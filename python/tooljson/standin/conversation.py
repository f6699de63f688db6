"""Reading a request's history: which calls the model made last, and what the client answered.

Scenarios decide from these what the client actually sent, not from a turn counter, so a client that
drops a result or answers the wrong way gets a visibly different reply. The pairing rule the API
enforces (a ``tool_result`` for every ``tool_use``, and nothing else) is checked here too.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

__all__ = [
    "RequestRejected",
    "ToolResult",
    "blocks_of",
    "check_tool_pairing",
    "last_assistant_blocks",
    "last_user_results",
    "invalid_json_of",
    "parse_json_or_none",
    "tool_names",
    "turn_number",
]


class RequestRejected(Exception):
    """The request breaks an API rule: the server answers HTTP 400 ``invalid_request_error``."""


@dataclass(frozen=True)
class ToolResult:
    """One ``tool_result`` block of a user message, with its content flattened to text."""

    tool_use_id: str
    is_error: bool
    text: str


def blocks_of(message: dict[str, Any]) -> list[dict[str, Any]]:
    """A message's content as a list of blocks (a plain string is one text block)."""
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list):
        return [block for block in content if isinstance(block, dict)]
    return []


def _messages(body: dict[str, Any]) -> list[dict[str, Any]]:
    messages = body.get("messages")
    return [m for m in messages if isinstance(m, dict)] if isinstance(messages, list) else []


def turn_number(body: dict[str, Any]) -> int:
    """How many assistant messages the history holds: 0 for the first request."""
    return sum(1 for message in _messages(body) if message.get("role") == "assistant")


def tool_names(body: dict[str, Any]) -> set[str]:
    """The names of the tools the request offers."""
    tools = body.get("tools")
    if not isinstance(tools, list):
        return set()
    return {tool["name"] for tool in tools if isinstance(tool, dict) and isinstance(tool.get("name"), str)}


def last_assistant_blocks(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The content blocks of the last assistant message, or ``[]`` when there is none."""
    for message in reversed(_messages(body)):
        if message.get("role") == "assistant":
            return blocks_of(message)
    return []


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"]
        return "".join(str(text) for text in texts)
    return ""


def last_user_results(body: dict[str, Any]) -> list[ToolResult]:
    """The ``tool_result`` blocks of the final message when it is a user message, in order."""
    messages = _messages(body)
    if not messages or messages[-1].get("role") != "user":
        return []
    return [
        ToolResult(
            tool_use_id=str(block.get("tool_use_id")),
            is_error=bool(block.get("is_error", False)),
            text=_result_text(block.get("content")),
        )
        for block in blocks_of(messages[-1])
        if block.get("type") == "tool_result"
    ]


def parse_json_or_none(text: str) -> Any:
    """``json.loads(text)``, or ``None`` when the text is not JSON."""
    try:
        return json.loads(text)
    except ValueError:
        return None


def invalid_json_of(text: str) -> Any:
    """The raw text an ``INVALID_JSON`` result carries: ``text`` is the JSON text of
    ``{"INVALID_JSON": raw}``, perhaps with an ``"error"`` string saying where the raw text broke;
    ``None`` for any other text."""
    value = parse_json_or_none(text)
    if not isinstance(value, dict) or not isinstance(value.get("INVALID_JSON"), str):
        return None
    if set(value) == {"INVALID_JSON"} or (
        set(value) == {"INVALID_JSON", "error"} and isinstance(value["error"], str)
    ):
        return value["INVALID_JSON"]
    return None


def check_tool_pairing(body: dict[str, Any]) -> None:
    """Raise :class:`RequestRejected` when a ``tool_use`` lacks its result or a result has no call.

    As the API does: every ``tool_use`` of an assistant message that is followed by another message
    must be answered by a ``tool_result`` in the very next (user) message, and every ``tool_result``
    must answer a ``tool_use`` of the assistant message just before it.
    """
    messages = _messages(body)
    if not messages:
        raise RequestRejected("messages: at least one message is required")
    for position, message in enumerate(messages):
        if message.get("role") not in ("user", "assistant"):
            raise RequestRejected(f"messages.{position}.role: must be 'user' or 'assistant'")
        results = [b for b in blocks_of(message) if b.get("type") == "tool_result"]
        if results:
            before = messages[position - 1] if position > 0 else {}
            calls = {b.get("id") for b in blocks_of(before) if b.get("type") == "tool_use"}
            if message.get("role") != "user" or before.get("role") != "assistant":
                raise RequestRejected(
                    f"messages.{position}: tool_result blocks belong in a user message after a tool_use"
                )
            orphans = [b.get("tool_use_id") for b in results if b.get("tool_use_id") not in calls]
            if orphans:
                raise RequestRejected(
                    f"messages.{position}.content: tool_result for unknown tool_use ids {orphans}; each "
                    f"tool_result must answer a tool_use block of the previous assistant message"
                )
        if message.get("role") == "assistant" and position + 1 < len(messages):
            calls_here = [b.get("id") for b in blocks_of(message) if b.get("type") == "tool_use"]
            after = messages[position + 1]
            answered = {b.get("tool_use_id") for b in blocks_of(after) if b.get("type") == "tool_result"}
            missing = [call for call in calls_here if call not in answered]
            if missing:
                raise RequestRejected(
                    f"messages.{position + 1}: tool_use ids {missing} have no tool_result right after them; "
                    f"each tool_use block needs a tool_result block in the next user message"
                )
