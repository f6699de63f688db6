"""The stand-in's Chat Completions and Responses answers to requests without ``stream``, through the
real openai client: the same scenario, the same seed, the same calls, arguments and stop as the
streamed answer; a fault is a 500 or a dropped connection. And the ``INVALID_JSON`` convention with
an ``error`` member saying where the text broke is read as an error result by every API's stand-in."""

from __future__ import annotations

import json
from contextlib import closing
from typing import Any

import openai
import pytest
import tooljson
from tooljson.providers.chat.wire import is_error_text
from tooljson.standin import StandInServer, get_scenario
from tooljson.standin.clients import first_request, open_client, stream_events
from tooljson.standin.conversation import invalid_json_of

NAMES = ("parallel_calls", "max_tokens", "invalid_json", "empty_input", "whole_arguments", "two_choices")


def _streamed(provider: str, name: str) -> tuple[dict[Any, Any], list[tuple[str, str, str]]]:
    """The stops (Chat Completions: each choice's ``finish_reason``) and the (call id, name,
    arguments) of the streamed answer, as a reader reads them."""
    scenario = get_scenario(name)
    with StandInServer(scenario) as server, closing(open_client(provider, server.base_url)) as client:
        reader = tooljson.TurnReader()
        stops: dict[Any, Any] = {}
        for event in stream_events(provider, client, first_request(scenario, provider)):
            reader.feed(event)
            for choice in getattr(event, "choices", ()):
                stops[choice.index] = choice.finish_reason or stops.get(choice.index)
    calls = sorted(reader.calls, key=lambda call: call.key)
    return stops or {0: reader.stop_reason}, [(call.id, call.name, call.raw_json) for call in calls]


@pytest.mark.parametrize("name", NAMES)
def test_chat_completions_without_stream_is_the_streamed_answer_folded(name: str) -> None:
    scenario = get_scenario(name)
    with StandInServer(scenario) as server, closing(open_client("openai", server.base_url)) as client:
        completion = client.chat.completions.create(**first_request(scenario, "openai"))
        assert server.failures == []
    stop, calls = _streamed("openai", name)
    assert completion.object == "chat.completion"
    assert [choice.index for choice in completion.choices] == list(range(scenario.choices))
    got = [
        (call.id, call.function.name, call.function.arguments)
        for choice in completion.choices
        for call in choice.message.tool_calls or []
    ]
    assert got == calls
    assert {choice.index: choice.finish_reason for choice in completion.choices} == stop


@pytest.mark.parametrize("name", [name for name in NAMES if name != "two_choices"])
def test_responses_without_stream_is_the_streamed_answer_folded(name: str) -> None:
    scenario = get_scenario(name)
    with StandInServer(scenario) as server, closing(open_client("responses", server.base_url)) as client:
        response = client.responses.create(**first_request(scenario, "responses"))
        assert server.failures == []
    stop, calls = _streamed("responses", name)
    got = [
        (item.call_id, item.name, item.arguments) for item in response.output if item.type == "function_call"
    ]
    assert got == calls
    reason = (
        response.incomplete_details.reason if response.incomplete_details is not None else response.status
    )
    assert {0: reason} == stop


@pytest.mark.parametrize("provider", ["openai", "responses"])
def test_faults_without_stream_are_a_500_or_a_dropped_connection(provider: str) -> None:
    for name, error in (
        ("stream_error", openai.InternalServerError),
        ("connection_drop", openai.APIConnectionError),
    ):
        scenario = get_scenario(name)
        with StandInServer(scenario) as server, closing(open_client(provider, server.base_url)) as client:
            request = first_request(scenario, provider)
            with pytest.raises(error):
                if provider == "openai":
                    client.chat.completions.create(**request)
                else:
                    client.responses.create(**request)
            assert server.failures == []


def test_invalid_json_may_say_where_the_text_broke() -> None:
    raw = '{"a": "\\q"}'
    assert invalid_json_of(json.dumps({"INVALID_JSON": raw})) == raw
    assert (
        invalid_json_of(
            json.dumps({"INVALID_JSON": raw, "error": "invalid escape: line 1 column 8 (char 7)"})
        )
        == raw
    )
    for other in (
        {"INVALID_JSON": raw, "error": 5},
        {"INVALID_JSON": raw, "hint": "x"},
        {"INVALID_JSON": 5},
        [raw],
        "text",
    ):
        assert invalid_json_of(json.dumps(other)) is None
    assert invalid_json_of("not json") is None
    assert is_error_text(tooljson.results.invalid_json_text(raw, ValueError("invalid escape")))
