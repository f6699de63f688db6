"""How each stand-in scenario answers, and the inputs its calls send (tests compare against these).

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
from typing import Any

from tooljson.standin.conversation import RequestRejected, invalid_json_of, last_assistant_blocks, tool_names
from tooljson.standin.render import estimate_tokens
from tooljson.standin.reply import Fault, Reply, Text, Thinking, ToolUse, WebSearchResult
from tooljson.standin.scenario import closing, results_by_call, summary, unexpected
from tooljson.standin.scenarios.payloads import large_file_input, long_note_input, nested_order_input

__all__ = [
    "BROKEN_ESCAPE_INPUT",
    "CORRECTED_INPUTS",
    "FAULT_AFTER_CHARS",
    "FAULT_INPUT",
    "LARGE_FILE_INPUT",
    "LONE_SURROGATE_INPUT",
    "LONE_SURROGATE_TEXT",
    "MAX_TOKENS_NEEDED",
    "NESTED_INPUT",
    "NOTE_INPUT",
    "PARIS_INPUT",
    "REJECTED_INPUT",
    "REPAIRABLE_INPUT",
    "SAO_PAULO_INPUT",
    "SEARCH_INPUT",
    "SEARCH_RESULTS",
    "THINKING_SIGNATURE",
    "THINKING_TEXT",
    "TRAILING_OBJECT_INPUT",
    "WHOLE_INPUTS",
    "CHOICE_INPUTS",
    "CUSTOM_INPUT",
]

# ---------------------------------------------------------------------------------------------------
# parallel_calls


PARIS_INPUT = '{"city": "Paris", "unit": "celsius"}'
SAO_PAULO_INPUT = '{"city": "S\\u00e3o Paulo", "unit": "celsius"}'


def respond_parallel_calls(body: dict[str, Any], turn: int) -> Reply:
    answered = results_by_call(body)
    if answered is None:
        return Reply(
            blocks=(
                Text("I'll look up both cities at once."),
                ToolUse("get_weather", PARIS_INPUT),
                ToolUse("get_weather", SAO_PAULO_INPUT),
            ),
            stop_reason="tool_use",
        )
    _, results = answered
    return closing(summary(results))


# ---------------------------------------------------------------------------------------------------
# empty_input


def respond_empty_input(body: dict[str, Any], turn: int) -> Reply:
    answered = results_by_call(body)
    if answered is None:
        return Reply(
            blocks=(
                ToolUse("get_time", ""),
                # The same situation sent the other way the API sends it: one delta holding "".
                ToolUse("get_uptime", "", empty_delta=True),
            ),
            stop_reason="tool_use",
        )
    return closing(summary(answered[1]))


# ---------------------------------------------------------------------------------------------------
# max_tokens

NOTE_INPUT = long_note_input()
_NOTE_PREAMBLE = "I'll save that as a note."
# Tokens the whole turn needs: the text, the call's overhead and its input.
MAX_TOKENS_NEEDED = estimate_tokens(_NOTE_PREAMBLE) + 8 + estimate_tokens(NOTE_INPUT)


def respond_max_tokens(body: dict[str, Any], turn: int) -> Reply:
    answered = results_by_call(body)
    if answered is not None:
        return closing(summary(answered[1]))
    budget = body.get("max_tokens")
    if isinstance(budget, int) and budget < MAX_TOKENS_NEEDED:
        # The output stops wherever the budget runs out, mid-escape or mid-number included.
        chars = (budget - estimate_tokens(_NOTE_PREAMBLE) - 8) * 4
        chars = min(max(chars, 1), len(NOTE_INPUT) - 1)
        return Reply(
            blocks=(Text(_NOTE_PREAMBLE), ToolUse("write_note", NOTE_INPUT[:chars])),
            stop_reason="max_tokens",
            output_tokens=budget,
        )
    return Reply(blocks=(Text(_NOTE_PREAMBLE), ToolUse("write_note", NOTE_INPUT)), stop_reason="tool_use")


# ---------------------------------------------------------------------------------------------------
# invalid_json

BROKEN_ESCAPE_INPUT = '{"name": "Ada", "note": "columns: a\\qb"}'
TRAILING_OBJECT_INPUT = '{"name": "Grace", "note": "second"}{"name": "Grace"}'
CORRECTED_INPUTS = ('{"name": "Ada", "note": "columns: a\\tb"}', '{"name": "Grace", "note": "second"}')


def respond_invalid_json(body: dict[str, Any], turn: int) -> Reply:
    answered = results_by_call(body)
    if answered is None:
        return Reply(
            blocks=(
                Text("Saving both records."),
                ToolUse("save_record", BROKEN_ESCAPE_INPUT),
                ToolUse("save_record", TRAILING_OBJECT_INPUT),
            ),
            # Eager input streaming: the server does not check the text, so the turn ends normally.
            stop_reason="tool_use",
        )
    _, results = answered
    if all(not r.is_error for r in results):
        return closing(summary(results))
    expected = [BROKEN_ESCAPE_INPUT, TRAILING_OBJECT_INPUT]
    got = [invalid_json_of(r.text) if r.is_error else None for r in results]
    if got != expected:
        return unexpected(
            "expected an is_error result with content "
            + " and ".join(json.dumps({"INVALID_JSON": e}) for e in expected)
            + f"; got {[(r.is_error, r.text) for r in results]}"
        )
    return Reply(
        blocks=(
            Text("My arguments were not valid JSON; here they are again."),
            ToolUse("save_record", CORRECTED_INPUTS[0]),
            ToolUse("save_record", CORRECTED_INPUTS[1]),
        ),
        stop_reason="tool_use",
    )


# ---------------------------------------------------------------------------------------------------
# schema_mismatch

# Repairable: an enum value in the wrong letter case, another with stray whitespace around it.
REPAIRABLE_INPUT = '{"title": "Login fails on Safari", "priority": "High", "component": " auth "}'
# To reject: "title" (required) is missing and "estimate_hours" is a string, not an integer.
REJECTED_INPUT = '{"priority": "low", "component": "ui", "estimate_hours": "three"}'


def respond_schema_mismatch(body: dict[str, Any], turn: int) -> Reply:
    answered = results_by_call(body)
    if answered is None:
        return Reply(
            blocks=(
                Text("Filing the two tickets."),
                ToolUse("create_ticket", REPAIRABLE_INPUT),
                ToolUse("create_ticket", REJECTED_INPUT),
            ),
            stop_reason="tool_use",
        )
    _, results = answered
    if len(results) != 2 or results[0].is_error or not results[1].is_error:
        return unexpected(
            "expected the first ticket to succeed after repair and the second to be rejected with "
            f"is_error; got {[(r.is_error, r.text) for r in results]}"
        )
    return closing(
        f"The first ticket was filed ({results[0].text}); the second was refused: {results[1].text}"
    )


# ---------------------------------------------------------------------------------------------------
# unknown_tool


def respond_unknown_tool(body: dict[str, Any], turn: int) -> Reply:
    answered = results_by_call(body)
    if answered is None:
        name = "get_stock_price"
        offered = tool_names(body)
        while name in offered:
            name += "_v2"
        return Reply(blocks=(ToolUse(name, '{"symbol": "ACME"}'),), stop_reason="tool_use")
    _, results = answered
    if not results or not results[0].is_error:
        return unexpected(f"a call to a tool that was not offered needs an is_error result; got {results}")
    return closing(f"I can't look up stock prices with the tools available ({results[0].text}).")


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


def respond_pause_turn(body: dict[str, Any], turn: int) -> Reply:
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
        return unexpected(
            "after pause_turn, resend the same messages with the assistant content appended "
            "and no new user message"
        )
    searched = any(b.get("type") == "web_search_tool_result" for b in last_assistant_blocks(body))
    if searched:
        return closing("The search is done; the answer is above.")
    if turn > 0:
        return unexpected("the paused turn's server_tool_use block was not sent back")
    return Reply(
        blocks=(Text("Let me search for that."), ToolUse("web_search", SEARCH_INPUT, server=True)),
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


def respond_thinking(body: dict[str, Any], turn: int) -> Reply:
    answered = results_by_call(body)
    if answered is None:
        return Reply(
            blocks=(
                Thinking(THINKING_TEXT, THINKING_SIGNATURE),
                ToolUse("calculator", '{"expression": "1234 * 5678"}'),
            ),
            stop_reason="tool_use",
        )
    thinking = [b for b in last_assistant_blocks(body) if b.get("type") == "thinking"]
    if not thinking or thinking[0].get("signature") != THINKING_SIGNATURE:
        raise RequestRejected(
            "messages: the assistant message with tool_use must start with its thinking block, passed "
            "back unchanged with its signature"
        )
    return closing(f"1234 × 5678 = {answered[1][0].text}")


# ---------------------------------------------------------------------------------------------------
# large_file_write

LARGE_FILE_INPUT = large_file_input()


def respond_large_file_write(body: dict[str, Any], turn: int) -> Reply:
    answered = results_by_call(body)
    if answered is None:
        return Reply(
            blocks=(Text("Writing the file now."), ToolUse("write_file", LARGE_FILE_INPUT)),
            stop_reason="tool_use",
        )
    return closing(summary(answered[1]))


# ---------------------------------------------------------------------------------------------------
# nested_arguments

NESTED_INPUT = nested_order_input()


def respond_nested_arguments(body: dict[str, Any], turn: int) -> Reply:
    answered = results_by_call(body)
    if answered is None:
        return Reply(
            blocks=(Text("Placing the order."), ToolUse("place_order", NESTED_INPUT)),
            stop_reason="tool_use",
        )
    return closing(summary(answered[1]))


# ---------------------------------------------------------------------------------------------------
# stream_error and connection_drop

FAULT_INPUT = '{"city": "Reykjav\\u00edk", "unit": "celsius"}'
# The break falls inside the \u00ed escape.
FAULT_AFTER_CHARS = FAULT_INPUT.index("\\u00ed") + 3


def faulty(kind: str) -> Callable[[dict[str, Any], int], Reply]:
    def respond(body: dict[str, Any], turn: int) -> Reply:
        answered = results_by_call(body)
        if answered is not None:
            return closing(summary(answered[1]))
        return Reply(
            blocks=(Text("Checking the weather."), ToolUse("get_weather", FAULT_INPUT)),
            stop_reason="tool_use",
            fault=Fault(kind="error" if kind == "error" else "drop", block=1, after_chars=FAULT_AFTER_CHARS),
        )

    return respond


# ---------------------------------------------------------------------------------------------------
# whole_arguments, two_choices and custom_tool: what only some servers or APIs do

WHOLE_INPUTS = ('{"city": "Lisboa", "unit": "celsius"}', '{"city": "\\u6771\\u4eac", "unit": "fahrenheit"}')


def respond_whole_arguments(body: dict[str, Any], turn: int) -> Reply:
    answered = results_by_call(body)
    if answered is not None:
        return closing(summary(answered[1]))
    return Reply(
        blocks=tuple(ToolUse("get_weather", text, whole=True) for text in WHOLE_INPUTS),
        stop_reason="tool_use",
    )


# Choice 0 calls twice and ends with tool_calls; choice 1 is cut off at the limit inside its call.
CHOICE_INPUTS = (PARIS_INPUT, SAO_PAULO_INPUT, '{"city": "Reykjav\\u00edk", "unit": "celsius"}')
_CUT_CHOICE_AT = CHOICE_INPUTS[2].index("\\u00ed") + 2


def respond_two_choices(body: dict[str, Any], turn: int) -> Reply:
    answered = results_by_call(body)
    if answered is not None:
        return closing(summary(answered[1]))
    cut_off = Reply(
        blocks=(
            Text("Checking Reykjavík."),
            ToolUse("get_weather", CHOICE_INPUTS[2][:_CUT_CHOICE_AT]),
        ),
        stop_reason="max_tokens",
    )
    return Reply(
        blocks=(
            ToolUse("get_weather", CHOICE_INPUTS[0]),
            ToolUse("get_weather", CHOICE_INPUTS[1]),
        ),
        stop_reason="tool_use",
        alternatives=(cut_off,),
    )


# Free text with everything JSON would choke on: quotes, braces, a backslash, a newline.
CUSTOM_INPUT = 'SELECT name FROM "users"\nWHERE note LIKE \'%{"a": \\x}%\' AND id > 3;'


def respond_custom_tool(body: dict[str, Any], turn: int) -> Reply:
    answered = results_by_call(body)
    if answered is not None:
        return closing(summary(answered[1]))
    return Reply(
        blocks=(Text("Running the query."), ToolUse("run_sql", CUSTOM_INPUT, custom=True)),
        stop_reason="tool_use",
    )


# lone_surrogate

# Valid JSON that json.loads keeps as is: "\\ud800" alone is a lone surrogate, in a value and in a key.
LONE_SURROGATE_INPUT = '{"text": "a\\ud800b", "key \\udfff": "pair \\ud83d\\ude80 kept"}'
LONE_SURROGATE_TEXT = "Saving the text with a lone surrogate \ud800 in it."


def respond_lone_surrogate(body: dict[str, Any], turn: int) -> Reply:
    answered = results_by_call(body)
    if answered is None:
        return Reply(
            blocks=(Text(LONE_SURROGATE_TEXT), ToolUse("save_text", LONE_SURROGATE_INPUT)),
            stop_reason="tool_use",
        )
    calls, results = answered
    # What came back: the client had to make the echoed input encodable (U+FFFD for each surrogate).
    echoed = calls[0].get("input") if calls else None
    return closing(f"Echoed input: {json.dumps(echoed, ensure_ascii=False)}. {summary(results)}")
