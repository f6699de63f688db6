"""The named scripts the stand-in server plays.

Each scenario reads the request to decide its answer: the first request gets the scenario's tool
calls; a request whose last user message answers them gets a closing text and ``end_turn``. When the
client answered in a way the scenario does not expect (a missing ``is_error``, a wrong
``INVALID_JSON`` payload, a user message where a continuation was due) the closing text starts with
``UNEXPECTED:`` and says what was wrong, so a faulty client shows in its transcript. Requests that
break an API rule get HTTP 400 instead (see :mod:`tooljson.standin.conversation`).
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tooljson.standin.conversation import (
    RequestRejected,
    ToolResult,
    last_assistant_blocks,
    last_user_results,
    parse_json_or_none,
    tool_names,
)
from tooljson.standin.payloads import large_file_input, long_note_input
from tooljson.standin.render import estimate_tokens
from tooljson.standin.script import Fault, Reply, Text, Thinking, ToolCall, WebSearchResult

__all__ = [
    "BROKEN_ESCAPE_INPUT",
    "CORRECTED_INPUTS",
    "DEFAULT_MODEL",
    "FAULT_AFTER_CHARS",
    "FAULT_INPUT",
    "LARGE_FILE_INPUT",
    "MAX_TOKENS_NEEDED",
    "NOTE_INPUT",
    "PARIS_INPUT",
    "REJECTED_INPUT",
    "REPAIRABLE_INPUT",
    "SAO_PAULO_INPUT",
    "SCENARIOS",
    "SEARCH_INPUT",
    "SEARCH_RESULTS",
    "THINKING_SIGNATURE",
    "THINKING_TEXT",
    "TRAILING_OBJECT_INPUT",
    "Scenario",
    "get_scenario",
]

DEFAULT_MODEL = "claude-sonnet-4-6"


@dataclass(frozen=True)
class Scenario:
    """A named script: the tools and prompt of its first request and how it answers each request.

    ``respond(body, turn)`` gets the parsed request body and the number of assistant messages in its
    history, and returns the :class:`~tooljson.standin.script.Reply` to send; it raises
    :class:`~tooljson.standin.conversation.RequestRejected` for a request the API would refuse.
    """

    name: str
    description: str
    prompt: str
    tools: list[dict[str, Any]]
    respond: Callable[[dict[str, Any], int], Reply]
    # The max_tokens of the first request, chosen so that it shows what the scenario is about.
    first_max_tokens: int = 4096

    def first_request(self, *, model: str = DEFAULT_MODEL, max_tokens: int | None = None) -> dict[str, Any]:
        """Keyword arguments for ``client.messages.create``/``stream`` that start the scenario."""
        return {
            "model": model,
            "max_tokens": self.first_max_tokens if max_tokens is None else max_tokens,
            "tools": [dict(tool) for tool in self.tools],
            "messages": [{"role": "user", "content": self.prompt}],
        }


# ---------------------------------------------------------------------------------------------------
# Shared pieces


def _object_schema(properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return schema


WEATHER_TOOL: dict[str, Any] = {
    "name": "get_weather",
    "description": "Current weather for one city.",
    "input_schema": _object_schema(
        {
            "city": {"type": "string", "description": "City name, in the local spelling"},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
        },
        ["city"],
    ),
}


def _closing(text: str) -> Reply:
    return Reply(blocks=(Text(text),), stop_reason="end_turn")


def _unexpected(problem: str) -> Reply:
    return _closing(f"UNEXPECTED: {problem}")


def _results_by_call(body: dict[str, Any]) -> tuple[list[dict[str, Any]], list[ToolResult]] | None:
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


def _summary(results: list[ToolResult]) -> str:
    parts = [("error: " if r.is_error else "") + r.text for r in results]
    return "Results received: " + " | ".join(parts)


# ---------------------------------------------------------------------------------------------------
# parallel_calls


PARIS_INPUT = '{"city": "Paris", "unit": "celsius"}'
SAO_PAULO_INPUT = '{"city": "S\\u00e3o Paulo", "unit": "celsius"}'


def _parallel_calls(body: dict[str, Any], turn: int) -> Reply:
    answered = _results_by_call(body)
    if answered is None:
        return Reply(
            blocks=(
                Text("I'll look up both cities at once."),
                ToolCall("get_weather", PARIS_INPUT),
                ToolCall("get_weather", SAO_PAULO_INPUT),
            ),
            stop_reason="tool_use",
        )
    _, results = answered
    return _closing(_summary(results))


# ---------------------------------------------------------------------------------------------------
# empty_input


def _empty_input(body: dict[str, Any], turn: int) -> Reply:
    answered = _results_by_call(body)
    if answered is None:
        return Reply(
            blocks=(
                ToolCall("get_time", ""),
                # The same situation sent the other way the API sends it: one delta holding "".
                ToolCall("get_uptime", "", empty_delta=True),
            ),
            stop_reason="tool_use",
        )
    return _closing(_summary(answered[1]))


# ---------------------------------------------------------------------------------------------------
# max_tokens

NOTE_INPUT = long_note_input()
_NOTE_PREAMBLE = "I'll save that as a note."
# Tokens the whole turn needs: the text, the call's overhead and its input.
MAX_TOKENS_NEEDED = estimate_tokens(_NOTE_PREAMBLE) + 8 + estimate_tokens(NOTE_INPUT)


def _max_tokens(body: dict[str, Any], turn: int) -> Reply:
    answered = _results_by_call(body)
    if answered is not None:
        return _closing(_summary(answered[1]))
    budget = body.get("max_tokens")
    if isinstance(budget, int) and budget < MAX_TOKENS_NEEDED:
        # The output stops wherever the budget runs out, mid-escape or mid-number included.
        chars = (budget - estimate_tokens(_NOTE_PREAMBLE) - 8) * 4
        chars = min(max(chars, 1), len(NOTE_INPUT) - 1)
        return Reply(
            blocks=(Text(_NOTE_PREAMBLE), ToolCall("write_note", NOTE_INPUT[:chars])),
            stop_reason="max_tokens",
            output_tokens=budget,
        )
    return Reply(blocks=(Text(_NOTE_PREAMBLE), ToolCall("write_note", NOTE_INPUT)), stop_reason="tool_use")


# ---------------------------------------------------------------------------------------------------
# invalid_json

BROKEN_ESCAPE_INPUT = '{"name": "Ada", "note": "columns: a\\qb"}'
TRAILING_OBJECT_INPUT = '{"name": "Grace", "note": "second"}{"name": "Grace"}'
CORRECTED_INPUTS = ('{"name": "Ada", "note": "columns: a\\tb"}', '{"name": "Grace", "note": "second"}')


def _invalid_json(body: dict[str, Any], turn: int) -> Reply:
    answered = _results_by_call(body)
    if answered is None:
        return Reply(
            blocks=(
                Text("Saving both records."),
                ToolCall("save_record", BROKEN_ESCAPE_INPUT),
                ToolCall("save_record", TRAILING_OBJECT_INPUT),
            ),
            # Eager input streaming: the server does not check the text, so the turn ends normally.
            stop_reason="tool_use",
        )
    _, results = answered
    if all(not r.is_error for r in results):
        return _closing(_summary(results))
    expected = [{"INVALID_JSON": BROKEN_ESCAPE_INPUT}, {"INVALID_JSON": TRAILING_OBJECT_INPUT}]
    got = [parse_json_or_none(r.text) if r.is_error else None for r in results]
    if got != expected:
        return _unexpected(
            "expected an is_error result with content "
            + " and ".join(json.dumps(e) for e in expected)
            + f"; got {[(r.is_error, r.text) for r in results]}"
        )
    return Reply(
        blocks=(
            Text("My arguments were not valid JSON; here they are again."),
            ToolCall("save_record", CORRECTED_INPUTS[0]),
            ToolCall("save_record", CORRECTED_INPUTS[1]),
        ),
        stop_reason="tool_use",
    )


# ---------------------------------------------------------------------------------------------------
# schema_mismatch

# Repairable: an enum value in the wrong letter case, another with stray whitespace around it.
REPAIRABLE_INPUT = '{"title": "Login fails on Safari", "priority": "High", "component": " auth "}'
# To reject: "title" (required) is missing and "estimate_hours" is a string, not an integer.
REJECTED_INPUT = '{"priority": "low", "component": "ui", "estimate_hours": "three"}'


def _schema_mismatch(body: dict[str, Any], turn: int) -> Reply:
    answered = _results_by_call(body)
    if answered is None:
        return Reply(
            blocks=(
                Text("Filing the two tickets."),
                ToolCall("create_ticket", REPAIRABLE_INPUT),
                ToolCall("create_ticket", REJECTED_INPUT),
            ),
            stop_reason="tool_use",
        )
    _, results = answered
    if len(results) != 2 or results[0].is_error or not results[1].is_error:
        return _unexpected(
            "expected the first ticket to succeed after repair and the second to be rejected with "
            f"is_error; got {[(r.is_error, r.text) for r in results]}"
        )
    return _closing(
        f"The first ticket was filed ({results[0].text}); the second was refused: {results[1].text}"
    )


# ---------------------------------------------------------------------------------------------------
# unknown_tool


def _unknown_tool(body: dict[str, Any], turn: int) -> Reply:
    answered = _results_by_call(body)
    if answered is None:
        name = "get_stock_price"
        offered = tool_names(body)
        while name in offered:
            name += "_v2"
        return Reply(blocks=(ToolCall(name, '{"symbol": "ACME"}'),), stop_reason="tool_use")
    _, results = answered
    if not results or not results[0].is_error:
        return _unexpected(f"a call to a tool that was not offered needs an is_error result; got {results}")
    return _closing(f"I can't look up stock prices with the tools available ({results[0].text}).")


# ---------------------------------------------------------------------------------------------------
# pause_turn

SEARCH_INPUT = '{"query": "incremental JSON parsing of streamed tool arguments"}'
SEARCH_RESULTS: tuple[dict[str, Any], ...] = (
    {
        "type": "web_search_result",
        "url": "https://example.org/streaming-json",
        "title": "Parsing JSON as it streams",
        "encrypted_content": "RW5jcnlwdGVkIGNvbnRlbnQgb2YgdGhlIGZpcnN0IHJlc3VsdA==",
        "page_age": "2 days ago",
    },
    {
        "type": "web_search_result",
        "url": "https://example.org/tool-calls",
        "title": "Tool calls, fragment by fragment",
        "encrypted_content": "RW5jcnlwdGVkIGNvbnRlbnQgb2YgdGhlIHNlY29uZCByZXN1bHQ=",
        "page_age": None,
    },
)


def _unanswered_search(body: dict[str, Any]) -> str | None:
    """The id of a ``server_tool_use`` in the last assistant message that has no result yet."""
    blocks = last_assistant_blocks(body)
    answered = {b.get("tool_use_id") for b in blocks if b.get("type") == "web_search_tool_result"}
    for block in blocks:
        if block.get("type") == "server_tool_use" and block.get("id") not in answered:
            return str(block.get("id"))
    return None


def _pause_turn(body: dict[str, Any], turn: int) -> Reply:
    messages = body.get("messages") or []
    last_role = messages[-1].get("role") if messages and isinstance(messages[-1], dict) else None
    pending = _unanswered_search(body)
    if pending is not None and last_role == "assistant":
        return Reply(
            blocks=(
                WebSearchResult(tool_use_id=pending, results=SEARCH_RESULTS),
                Text("Two sources describe parsing each fragment once instead of re-parsing the buffer."),
            ),
            stop_reason="end_turn",
        )
    if pending is not None:
        return _unexpected(
            "after pause_turn, resend the same messages with the assistant content appended "
            "and no new user message"
        )
    searched = any(b.get("type") == "web_search_tool_result" for b in last_assistant_blocks(body))
    if searched:
        return _closing("The search is done; the answer is above.")
    if turn > 0:
        return _unexpected("the paused turn's server_tool_use block was not sent back")
    return Reply(
        blocks=(Text("Let me search for that."), ToolCall("web_search", SEARCH_INPUT, server=True)),
        stop_reason="pause_turn",
        web_search_requests=1,
    )


# ---------------------------------------------------------------------------------------------------
# thinking

THINKING_TEXT = (
    "The user wants the product of 1234 and 5678. Multiplying by hand is error-prone, "
    "so I will use the calculator tool and report its answer."
)
THINKING_SIGNATURE = base64.b64encode(hashlib.sha256(THINKING_TEXT.encode()).digest() * 3).decode()


def _thinking(body: dict[str, Any], turn: int) -> Reply:
    answered = _results_by_call(body)
    if answered is None:
        return Reply(
            blocks=(
                Thinking(THINKING_TEXT, THINKING_SIGNATURE),
                ToolCall("calculator", '{"expression": "1234 * 5678"}'),
            ),
            stop_reason="tool_use",
        )
    thinking = [b for b in last_assistant_blocks(body) if b.get("type") == "thinking"]
    if not thinking or thinking[0].get("signature") != THINKING_SIGNATURE:
        raise RequestRejected(
            "messages: the assistant message with tool_use must start with its thinking block, passed "
            "back unchanged with its signature"
        )
    return _closing(f"1234 × 5678 = {answered[1][0].text}")


# ---------------------------------------------------------------------------------------------------
# large_file_write

LARGE_FILE_INPUT = large_file_input()


def _large_file_write(body: dict[str, Any], turn: int) -> Reply:
    answered = _results_by_call(body)
    if answered is None:
        return Reply(
            blocks=(Text("Writing the file now."), ToolCall("write_file", LARGE_FILE_INPUT)),
            stop_reason="tool_use",
        )
    return _closing(_summary(answered[1]))


# ---------------------------------------------------------------------------------------------------
# stream_error and connection_drop

FAULT_INPUT = '{"city": "Reykjav\\u00edk", "unit": "celsius"}'
# The break falls inside the \u00ed escape.
FAULT_AFTER_CHARS = FAULT_INPUT.index("\\u00ed") + 3


def _faulty(kind: str) -> Callable[[dict[str, Any], int], Reply]:
    def respond(body: dict[str, Any], turn: int) -> Reply:
        answered = _results_by_call(body)
        if answered is not None:
            return _closing(_summary(answered[1]))
        return Reply(
            blocks=(Text("Checking the weather."), ToolCall("get_weather", FAULT_INPUT)),
            stop_reason="tool_use",
            fault=Fault(kind="error" if kind == "error" else "drop", block=1, after_chars=FAULT_AFTER_CHARS),
        )

    return respond


# ---------------------------------------------------------------------------------------------------
# The registry

_NO_ARGUMENTS = _object_schema({})

SCENARIOS: dict[str, Scenario] = {
    scenario.name: scenario
    for scenario in [
        Scenario(
            name="parallel_calls",
            description="Two get_weather calls in one turn (one input with a \\u escape), then end_turn.",
            prompt="What's the weather in Paris and in São Paulo right now?",
            tools=[WEATHER_TOOL],
            respond=_parallel_calls,
        ),
        Scenario(
            name="empty_input",
            description="Two argument-less calls: one streams no delta, the other one empty delta.",
            prompt="What time is it, and how long has the server been up?",
            tools=[
                {"name": "get_time", "description": "The current time.", "input_schema": _NO_ARGUMENTS},
                {"name": "get_uptime", "description": "The server's uptime.", "input_schema": _NO_ARGUMENTS},
            ],
            respond=_empty_input,
        ),
        Scenario(
            name="max_tokens",
            description=(
                f"A write_note call cut off mid-input with stop_reason max_tokens when max_tokens < "
                f"{MAX_TOKENS_NEEDED}; complete (tool_use) when it is at least that."
            ),
            prompt="Save my notes on streaming parsers as a note.",
            tools=[
                {
                    "name": "write_note",
                    "description": "Save a note.",
                    "input_schema": _object_schema(
                        {
                            "title": {"type": "string"},
                            "body": {"type": "string"},
                            "tags": {"type": "array", "items": {"type": "string"}},
                            "priority": {"type": "integer"},
                            "ratio": {"type": "number"},
                            "pinned": {"type": "boolean"},
                        },
                        ["title", "body"],
                    ),
                }
            ],
            respond=_max_tokens,
            first_max_tokens=256,
        ),
        Scenario(
            name="invalid_json",
            description=(
                "Two save_record calls whose text is not JSON (a \\q escape; a second object after the "
                "first) with stop_reason tool_use; corrected after is_error INVALID_JSON results."
            ),
            prompt="Save a record for Ada and one for Grace.",
            tools=[
                {
                    "name": "save_record",
                    "description": "Save a named record.",
                    "input_schema": _object_schema(
                        {"name": {"type": "string"}, "note": {"type": "string"}}, ["name", "note"]
                    ),
                }
            ],
            respond=_invalid_json,
        ),
        Scenario(
            name="schema_mismatch",
            description=(
                "Two create_ticket calls: one with 'High' and ' auth ' (repairable enums), one missing "
                "'title' with a string for an integer (to reject)."
            ),
            prompt="File a high-priority auth ticket about Safari logins, and a low one for the UI.",
            tools=[
                {
                    "name": "create_ticket",
                    "description": "Open a ticket in the tracker.",
                    "input_schema": {
                        "type": "object",
                        "properties": {
                            "title": {"type": "string"},
                            "priority": {"type": "string", "enum": ["low", "medium", "high"]},
                            "component": {"type": "string", "enum": ["auth", "billing", "ui"]},
                            "estimate_hours": {"type": "integer"},
                        },
                        "required": ["title", "priority"],
                        "additionalProperties": False,
                    },
                }
            ],
            respond=_schema_mismatch,
        ),
        Scenario(
            name="unknown_tool",
            description="A call to get_stock_price, a tool the request does not offer.",
            prompt="What is ACME's share price?",
            tools=[WEATHER_TOOL],
            respond=_unknown_tool,
        ),
        Scenario(
            name="pause_turn",
            description=(
                "A web_search server_tool_use with stop_reason pause_turn; resent with the assistant "
                "content appended, it continues with a web_search_tool_result and text."
            ),
            prompt="Search the web for how to parse streamed tool arguments.",
            tools=[{"type": "web_search_20250305", "name": "web_search", "max_uses": 3}],
            respond=_pause_turn,
        ),
        Scenario(
            name="thinking",
            description="A signed thinking block before a calculator call; then end_turn.",
            prompt="What is 1234 times 5678?",
            tools=[
                {
                    "name": "calculator",
                    "description": "Evaluate an arithmetic expression.",
                    "input_schema": _object_schema({"expression": {"type": "string"}}, ["expression"]),
                }
            ],
            respond=_thinking,
        ),
        Scenario(
            name="large_file_write",
            description=f"A write_file call whose input is {len(LARGE_FILE_INPUT.encode())} bytes of JSON.",
            prompt="Write the generated listing to notes/large_file.py.",
            tools=[
                {
                    "name": "write_file",
                    "description": "Write a text file.",
                    "input_schema": _object_schema(
                        {"path": {"type": "string"}, "content": {"type": "string"}}, ["path", "content"]
                    ),
                }
            ],
            respond=_large_file_write,
            first_max_tokens=32_000,
        ),
        Scenario(
            name="stream_error",
            description="An overloaded_error event in the middle of a get_weather input.",
            prompt="What's the weather in Reykjavík?",
            tools=[WEATHER_TOOL],
            respond=_faulty("error"),
        ),
        Scenario(
            name="connection_drop",
            description="The server closes the connection in the middle of a get_weather input.",
            prompt="What's the weather in Reykjavík?",
            tools=[WEATHER_TOOL],
            respond=_faulty("drop"),
        ),
    ]
}


def get_scenario(name: str) -> Scenario:
    """The scenario called ``name``; ``KeyError`` names the known ones."""
    try:
        return SCENARIOS[name]
    except KeyError:
        raise KeyError(f"unknown scenario {name!r}; known: {', '.join(SCENARIOS)}") from None
