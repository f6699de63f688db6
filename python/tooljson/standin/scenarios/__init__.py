"""Every stand-in scenario by name: the tools and prompt of its first request, and how it answers.

How each answers, and the inputs its calls send (which tests compare against), is
:mod:`tooljson.standin.scenarios.answers`; the long inputs are made by
:mod:`tooljson.standin.scenarios.payloads`. Which scenarios an API's stand-in plays is
:func:`tooljson.standin.clients.scenarios_for`.
"""

from __future__ import annotations

from tooljson.standin.scenario import WEATHER_TOOL, Scenario, object_schema
from tooljson.standin.scenarios import answers

__all__ = ["SCENARIOS", "get_scenario", "scenarios_needing"]

_NO_ARGUMENTS = object_schema({})

SCENARIOS: dict[str, Scenario] = {
    scenario.name: scenario
    for scenario in [
        Scenario(
            name="parallel_calls",
            description="Two get_weather calls in one turn (one input with a \\u escape), then end_turn.",
            prompt="What's the weather in Paris and in São Paulo right now?",
            tools=[WEATHER_TOOL],
            respond=answers.respond_parallel_calls,
        ),
        Scenario(
            name="empty_input",
            description="Two argument-less calls: one streams no delta, the other one empty delta.",
            prompt="What time is it, and how long has the server been up?",
            tools=[
                {"name": "get_time", "description": "The current time.", "input_schema": _NO_ARGUMENTS},
                {"name": "get_uptime", "description": "The server's uptime.", "input_schema": _NO_ARGUMENTS},
            ],
            respond=answers.respond_empty_input,
        ),
        Scenario(
            name="max_tokens",
            description=(
                f"A write_note call cut off mid-input with stop_reason max_tokens when max_tokens < "
                f"{answers.MAX_TOKENS_NEEDED}; complete (tool_use) when it is at least that."
            ),
            prompt="Save my notes on streaming parsers as a note.",
            tools=[
                {
                    "name": "write_note",
                    "description": "Save a note.",
                    "input_schema": object_schema(
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
            respond=answers.respond_max_tokens,
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
                    "input_schema": object_schema(
                        {"name": {"type": "string"}, "note": {"type": "string"}}, ["name", "note"]
                    ),
                }
            ],
            respond=answers.respond_invalid_json,
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
            respond=answers.respond_schema_mismatch,
        ),
        Scenario(
            name="unknown_tool",
            description="A call to get_stock_price, a tool the request does not offer.",
            prompt="What is ACME's share price?",
            tools=[WEATHER_TOOL],
            respond=answers.respond_unknown_tool,
        ),
        Scenario(
            name="pause_turn",
            description=(
                "A web_search server_tool_use with stop_reason pause_turn; resent with the assistant "
                "content appended, it continues with a web_search_tool_result and text."
            ),
            prompt="Search the web for how to parse streamed tool arguments.",
            tools=[{"type": "web_search_20250305", "name": "web_search", "max_uses": 3}],
            respond=answers.respond_pause_turn,
            needs=frozenset({"server tools"}),
        ),
        Scenario(
            name="thinking",
            description="A signed thinking block before a calculator call; then end_turn.",
            prompt="What is 1234 times 5678?",
            tools=[
                {
                    "name": "calculator",
                    "description": "Evaluate an arithmetic expression.",
                    "input_schema": object_schema({"expression": {"type": "string"}}, ["expression"]),
                }
            ],
            respond=answers.respond_thinking,
            needs=frozenset({"thinking"}),
        ),
        Scenario(
            name="large_file_write",
            description=f"A write_file call whose input is {len(answers.LARGE_FILE_INPUT.encode())} bytes of JSON.",
            prompt="Write the generated listing to notes/large_file.py.",
            tools=[
                {
                    "name": "write_file",
                    "description": "Write a text file.",
                    "input_schema": object_schema(
                        {"path": {"type": "string"}, "content": {"type": "string"}}, ["path", "content"]
                    ),
                }
            ],
            respond=answers.respond_large_file_write,
            first_max_tokens=32_000,
        ),
        Scenario(
            name="lone_surrogate",
            description=(
                "A save_text call whose input holds lone surrogate escapes (\\ud800, valid JSON that "
                "json.loads keeps), after a text with a raw one; then end_turn."
            ),
            prompt="Save this text exactly as it is.",
            tools=[
                {
                    "name": "save_text",
                    "description": "Save a text exactly as given.",
                    "input_schema": object_schema({"text": {"type": "string"}}, ["text"]),
                }
            ],
            respond=answers.respond_lone_surrogate,
            # The Messages stream carries the raw surrogate in a text delta; the other renderers
            # write UTF-8, which cannot hold one.
            needs=frozenset({"raw surrogates"}),
        ),
        Scenario(
            name="nested_arguments",
            description=(
                f"A place_order call of {len(answers.NESTED_INPUT)} characters: nested objects, arrays of "
                "objects and of arrays, every scalar kind, names with a space and dots, escapes, non-ASCII "
                "and a long string (where arguments stream by JSON path: pieces at RFC 9535 paths)."
            ),
            prompt="Order two teas and a large cup for Zoë in Zürich, with the usual instructions.",
            tools=[
                {
                    "name": "place_order",
                    "description": "Place an order.",
                    "input_schema": object_schema(
                        {
                            "order": {"type": "object"},
                            "items": {"type": "array", "items": {"type": "object"}},
                            "matrix": {"type": "array"},
                            "gift wrap": {"type": "string"},
                            "path.with.dots": {"type": "string"},
                            "instructions": {"type": "string"},
                        },
                        ["order", "items"],
                    ),
                }
            ],
            respond=answers.respond_nested_arguments,
            # Written for Gemini's streamed partialArgs; the other wires stream such texts already.
            needs=frozenset({"streamed arguments"}),
        ),
        Scenario(
            name="stream_error",
            description="An overloaded_error event in the middle of a get_weather input.",
            prompt="What's the weather in Reykjavík?",
            tools=[WEATHER_TOOL],
            respond=answers.faulty("error"),
        ),
        Scenario(
            name="connection_drop",
            description="The server closes the connection in the middle of a get_weather input.",
            prompt="What's the weather in Reykjavík?",
            tools=[WEATHER_TOOL],
            respond=answers.faulty("drop"),
        ),
        Scenario(
            name="whole_arguments",
            description="Two get_weather calls whose whole arguments arrive in one fragment each "
            "(Chat Completions: both in one chunk), as some servers send them.",
            prompt="What's the weather in Lisbon and in Tokyo?",
            tools=[WEATHER_TOOL],
            respond=answers.respond_whole_arguments,
        ),
        Scenario(
            name="two_choices",
            description="Chat Completions with n=2: choice 0 makes two calls (tool_calls), choice 1 is "
            "cut off inside its call (length); their chunks interleave.",
            prompt="What's the weather in Paris and in São Paulo?",
            tools=[WEATHER_TOOL],
            respond=answers.respond_two_choices,
            needs=frozenset({"choices"}),
            choices=2,
        ),
        Scenario(
            name="custom_tool",
            description="A Responses custom tool call whose input is free text (SQL with quotes and "
            "braces), never parsed as JSON.",
            prompt="How many users have a note with braces in it?",
            tools=[
                {
                    "type": "custom",
                    "name": "run_sql",
                    "description": "Run one SQL query; the input is the query.",
                }
            ],
            respond=answers.respond_custom_tool,
            needs=frozenset({"custom tools"}),
        ),
    ]
}


def get_scenario(name: str) -> Scenario:
    """The scenario called ``name``; ``KeyError`` names the known ones."""
    try:
        return SCENARIOS[name]
    except KeyError:
        raise KeyError(f"unknown scenario {name!r}; known: {', '.join(SCENARIOS)}") from None


def scenarios_needing(features: frozenset[str]) -> list[str]:
    """The names of the scenarios that need nothing but ``features``, in the order of :data:`SCENARIOS`."""
    return [name for name, scenario in SCENARIOS.items() if scenario.needs <= features]
