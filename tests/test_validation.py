"""Validation of parsed tool input: the repairs it allows, the rejections and their wording."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from pydantic import BaseModel
from tooljson import ToolCall
from tooljson.results import rejected_input_result, unknown_tool_result
from tooljson.text import json_pointer
from tooljson.validation import ToolHandler, model_of, validate_tool_input

TICKET_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "title": {"type": "string"},
        "priority": {"type": "string", "enum": ["low", "medium", "high"]},
        "due": {"type": "string", "format": "date"},
        "code": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]+$"},
        "count": {"type": "integer"},
        "tags": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"level": {"type": "string", "enum": ["Info", "Warn"]}},
                "required": ["level"],
            },
        },
    },
    "required": ["title", "priority"],
    "additionalProperties": False,
}


def test_valid_input_passes_unchanged() -> None:
    value = {"title": "Printer", "priority": "low", "count": 2}
    outcome = validate_tool_input("create_ticket", value, schema=TICKET_SCHEMA)
    assert outcome.ok
    assert outcome.value == value
    assert outcome.repairs == ()


def test_enum_letter_case_is_repaired_and_logged(caplog: pytest.LogCaptureFixture) -> None:
    value = {"title": "Printer", "priority": "High"}
    with caplog.at_level(logging.DEBUG, logger="tooljson"):
        outcome = validate_tool_input("create_ticket", value, schema=TICKET_SCHEMA)
    assert outcome.ok
    assert outcome.value == {"title": "Printer", "priority": "high"}
    assert value["priority"] == "High", "the caller's input must not be mutated"
    [repair] = outcome.repairs
    assert (repair.path, repair.before, repair.after) == ("/priority", "High", "high")
    messages = [r.getMessage() for r in caplog.records]
    assert any("raw input" in m and "High" in m for m in messages)
    assert any("repaired at /priority" in m for m in messages)


def test_whitespace_around_enum_format_and_pattern_is_repaired() -> None:
    value = {
        "title": "  keeps its spaces  ",
        "priority": " MEDIUM\n",
        "due": " 2025-03-01 ",
        "code": "\tABC-12 ",
        "tags": [{"level": "info "}],
    }
    outcome = validate_tool_input("create_ticket", value, schema=TICKET_SCHEMA)
    assert outcome.ok, outcome.problems
    assert outcome.value == {
        "title": "  keeps its spaces  ",
        "priority": "medium",
        "due": "2025-03-01",
        "code": "ABC-12",
        "tags": [{"level": "Info"}],
    }
    assert sorted(r.path for r in outcome.repairs) == ["/code", "/due", "/priority", "/tags/0/level"]


def test_ambiguous_enum_case_is_rejected() -> None:
    schema = {"type": "object", "properties": {"mode": {"enum": ["fast", "FAST"]}}}
    outcome = validate_tool_input("t", {"mode": "Fast"}, schema=schema)
    assert not outcome.ok
    assert outcome.problems[0].path == "/mode"


def test_missing_field_wrong_type_and_unknown_enum_are_each_named() -> None:
    value = {"priority": "urgent", "count": "5", "color": "red"}
    outcome = validate_tool_input("create_ticket", value, schema=TICKET_SCHEMA)
    assert not outcome.ok
    by_path = {p.path: p.message for p in outcome.problems}
    assert set(by_path) == {"/title", "/priority", "/count", "/color"}
    assert "missing" in by_path["/title"]
    assert '"low", "medium", "high"' in by_path["/priority"]
    assert "expected integer" in by_path["/count"] and "string" in by_path["/count"]
    assert "leave it out" in by_path["/color"]
    assert outcome.value is value


def test_repairable_slip_is_not_applied_when_the_call_is_rejected_anyway() -> None:
    outcome = validate_tool_input("create_ticket", {"priority": "High"}, schema=TICKET_SCHEMA)
    assert not outcome.ok
    assert outcome.repairs == ()
    assert {p.path for p in outcome.problems} == {"/title", "/priority"}


def test_whitespace_is_not_stripped_when_the_value_is_still_wrong() -> None:
    value = {"title": "x", "priority": "low", "due": " soon "}
    outcome = validate_tool_input("create_ticket", value, schema=TICKET_SCHEMA)
    assert not outcome.ok
    assert outcome.problems[0].path == "/due"
    assert "valid date" in outcome.problems[0].message


def _call(call_id: str, name: str) -> ToolCall:
    # A Messages API call: its results are tool_result blocks.
    return ToolCall(0, call_id, name, {}, "{}", provider="anthropic")


def test_rejected_result_names_every_field_and_says_what_to_do(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="tooljson"):
        outcome = validate_tool_input("create_ticket", {"count": 1.5}, schema=TICKET_SCHEMA)
    result = rejected_input_result(_call("toolu_1", "create_ticket"), outcome)
    assert result["type"] == "tool_result"
    assert result["tool_use_id"] == "toolu_1"
    assert result["is_error"] is True
    text = result["content"]
    for path in ("/title", "/priority", "/count"):
        assert path in text
    assert "call the tool again" in text
    assert any("rejected" in r.getMessage() for r in caplog.records)


def test_unknown_tool_has_its_own_message_and_log_line(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="tooljson"):
        result = unknown_tool_result(_call("toolu_9", "delete_everything"), ["get_weather", "create_ticket"])
    assert result["is_error"] is True
    assert result["tool_use_id"] == "toolu_9"
    assert result["content"].startswith("No tool named 'delete_everything'; available: ")
    assert "create_ticket, get_weather" in result["content"]
    assert any("unknown tool 'delete_everything'" in r.getMessage() for r in caplog.records)


def test_the_loop_s_error_results_take_the_shape_of_the_call_s_source() -> None:
    outcome = validate_tool_input("create_ticket", {"count": 1.5}, schema=TICKET_SCHEMA)
    call = ToolCall(0, "call_1", "create_ticket", {}, "{}", block_type="function", provider="openai")
    rejected = rejected_input_result(call, outcome)
    unknown = unknown_tool_result(call, ["get_weather"])
    for result in (rejected, unknown):
        assert result["role"] == "tool"
        assert result["tool_call_id"] == "call_1"
    assert "/title" in rejected["content"]
    assert unknown["content"].startswith("No tool named 'create_ticket'")


class Weather(BaseModel):
    city: str
    days: int = 1


def weather_handler(query: Weather) -> str:
    return f"{query.city}:{query.days}"


def test_model_found_from_first_parameter_annotation() -> None:
    assert model_of(weather_handler) is Weather
    assert model_of(lambda value: value) is None
    assert model_of(ToolHandler(lambda value: value, model=Weather)) is Weather


def test_pydantic_model_validates_and_builds_the_instance() -> None:
    outcome = validate_tool_input("get_weather", {"city": "Oslo", "days": 3}, model=Weather)
    assert outcome.ok
    assert outcome.value == Weather(city="Oslo", days=3)


def test_pydantic_rejection_names_fields() -> None:
    outcome = validate_tool_input("get_weather", {"days": "many"}, model=Weather)
    assert not outcome.ok
    by_path = {p.path: p.message for p in outcome.problems}
    assert set(by_path) == {"/city", "/days"}
    assert "missing" in by_path["/city"]
    assert '"many"' in by_path["/days"]


def test_schema_repair_then_model() -> None:
    schema = {"type": "object", "properties": {"city": {"enum": ["Oslo", "Rome"]}}}
    outcome = validate_tool_input("get_weather", {"city": "oslo"}, schema=schema, model=Weather)
    assert outcome.ok
    assert outcome.value == Weather(city="Oslo")


def test_json_pointer_escapes() -> None:
    assert json_pointer(["a/b", "c~d", 0]) == "/a~1b/c~0d/0"
    assert json_pointer([]) == ""
