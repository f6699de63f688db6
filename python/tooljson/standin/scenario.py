"""What a stand-in scenario is, and the pieces the scenarios' answers share.

A :class:`Scenario` is named: the tools and prompt of its first request and a ``respond`` function
that reads each request and returns the :class:`~tooljson.standin.reply.Reply` to send (every one
is in :mod:`tooljson.standin.scenarios`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tooljson.standin.conversation import ToolResult, last_assistant_blocks, last_user_results
from tooljson.standin.reply import Reply, Text

__all__ = [
    "DEFAULT_MODEL",
    "WEATHER_TOOL",
    "Scenario",
    "closing",
    "object_schema",
    "results_by_call",
    "summary",
    "unexpected",
]

DEFAULT_MODEL = "claude-sonnet-4-6"


@dataclass(frozen=True)
class Scenario:
    """A named scenario: the tools and prompt of its first request and how it answers each request.

    ``respond(body, turn)`` gets the parsed request body and the number of assistant messages in its
    history, and returns the :class:`~tooljson.standin.reply.Reply` to send; it raises
    :class:`~tooljson.standin.conversation.RequestRejected` for a request the API would refuse.
    """

    name: str
    description: str
    prompt: str
    tools: list[dict[str, Any]]
    respond: Callable[[dict[str, Any], int], Reply]
    # The max_tokens of the first request, chosen so that it shows what the scenario is about.
    first_max_tokens: int = 4096
    # What only some APIs have that the scenario uses (server tools, thinking, n > 1 choices, custom
    # tools): it is played by the wires that have all of it (tooljson.standin.wire.Wire.features).
    needs: frozenset[str] = frozenset()
    # The n of a Chat Completions request: how many choices it asks for.
    choices: int = 1

    def function_tools(self) -> list[dict[str, Any]]:
        """The scenario's tools that take JSON input (not server tools or free-text ones)."""
        return [tool for tool in self.tools if "input_schema" in tool]

    def first_request(self, *, model: str = DEFAULT_MODEL, max_tokens: int | None = None) -> dict[str, Any]:
        """Keyword arguments for ``client.messages.create``/``stream`` that start the scenario."""
        return {
            "model": model,
            "max_tokens": self.first_max_tokens if max_tokens is None else max_tokens,
            "tools": [dict(tool) for tool in self.tools],
            "messages": [{"role": "user", "content": self.prompt}],
        }


def object_schema(properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return schema


WEATHER_TOOL: dict[str, Any] = {
    "name": "get_weather",
    "description": "Current weather for one city.",
    "input_schema": object_schema(
        {
            "city": {"type": "string", "description": "City name, in the local spelling"},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
        },
        ["city"],
    ),
}


def closing(text: str) -> Reply:
    return Reply(blocks=(Text(text),), stop_reason="end_turn")


def unexpected(problem: str) -> Reply:
    return closing(f"UNEXPECTED: {problem}")


def results_by_call(body: dict[str, Any]) -> tuple[list[dict[str, Any]], list[ToolResult]] | None:
    """The last assistant message's ``tool_use`` blocks and their results, in call order.

    ``None`` when the request does not end with results for that message (the first request, say).
    The pairing check has already made sure every call has exactly its result.
    """
    results = last_user_results(body)
    if not results:
        return None
    calls = [b for b in last_assistant_blocks(body) if b.get("type") == "tool_use"]
    by_id = {result.tool_use_id: result for result in results}
    return calls, [by_id[str(call.get("id"))] for call in calls if str(call.get("id")) in by_id]


def summary(results: list[ToolResult]) -> str:
    parts = [("error: " if r.is_error else "") + r.text for r in results]
    return "Results received: " + " | ".join(parts)
