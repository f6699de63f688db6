"""feed() on Chat Completions, Responses and Bedrock events: what is each API's own (the behaviour every
source shares is tested over the registry, in tests/test_sources_shared.py): result shapes, quirks."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
import tooljson
from helpers import split_at
from provider_streams import PROVIDERS, as_sdk_objects, bedrock_events, chat_chunks, responses_events, stream

TEXTS = (
    '{"city": "S\\u00e3o Paulo", "unit": "celsius"}',
    '{"emoji": "\\ud83d\\ude80", "n": -12.5e-3, "ok": true, "none": null, "list": [1, [2, {}]]}',
    '"just a string"',
    "[]",
)


def _fed(provider: str, events: list[dict[str, Any]], *, sdk: bool) -> tooljson.ToolCallAccumulator:
    accumulator = tooljson.ToolCallAccumulator()
    for event in as_sdk_objects(provider, events) if sdk else events:
        accumulator.feed(event)
    return accumulator


@pytest.mark.parametrize("provider", PROVIDERS)
def test_invalid_json_results_take_the_providers_shape_and_carry_the_raw_text(provider: str) -> None:
    raw = '{"note": "a\\qb"}'
    (call,) = _fed(provider, stream(provider, [[raw[:5], raw[5:]]]), sdk=True).calls
    result = tooljson.invalid_json_result(call)
    if provider == "openai":
        assert result == {
            "role": "tool",
            "tool_call_id": "call_0_0",
            "content": json.dumps({"INVALID_JSON": raw}),
        }
    elif provider == "responses":
        assert result == {
            "type": "function_call_output",
            "call_id": "call_0",
            "output": json.dumps({"INVALID_JSON": raw}),
        }
    else:
        expected = {"toolUseId": "tooluse_1", "content": [{"json": {"INVALID_JSON": raw}}], "status": "error"}
        assert result == {"toolResult": expected}


def test_result_shapes_are_the_sdks_own_types() -> None:
    from botocore.session import Session
    from botocore.validate import ParamValidator
    from openai.types.chat import ChatCompletionToolMessageParam
    from openai.types.responses.response_input_param import FunctionCallOutput
    from pydantic import TypeAdapter
    from tooljson.results import handler_error_result, success_result

    calls = {
        provider: _fed(provider, stream(provider, [['{"a": 1}']]), sdk=False).calls[0]
        for provider in PROVIDERS
    }
    made = [
        tooljson.invalid_json_result,
        lambda call: success_result(call, {"ok": True}),
        lambda call: success_result(call, "done"),
        lambda call: handler_error_result(call, KeyError("x")),
    ]
    model = Session().get_service_model("bedrock-runtime")
    message_shape = model.operation_model("ConverseStream").input_shape.members["messages"].member
    for build in made:
        TypeAdapter(ChatCompletionToolMessageParam).validate_python(build(calls["openai"]), strict=True)
        TypeAdapter(FunctionCallOutput).validate_python(build(calls["responses"]), strict=True)
        report = ParamValidator().validate(
            {"role": "user", "content": [build(calls["bedrock"])]}, message_shape
        )
        assert not report.has_errors(), report.generate_report()


def test_chat_choices_never_mix_even_interleaved() -> None:
    rng = random.Random(7)
    texts = [TEXTS[0], TEXTS[1], TEXTS[3]]
    pieces = [split_at(text, sorted(rng.sample(range(len(text)), min(6, len(text))))) for text in texts]
    zero = chat_chunks(pieces[:2], "tool_calls", choice=0, rng=rng)
    one = chat_chunks([pieces[2], split_at(TEXTS[0][:15], [3])], "length", choice=1, rng=rng)
    merged = []
    while zero or one:
        source = rng.choice([queue for queue in (zero, one) if queue])
        merged.append(source.pop(0))
    accumulator = _fed("openai", merged, sdk=True)
    by_key = {call.key: call for call in accumulator.calls}
    assert set(by_key) == {(0, 0), (0, 1), (1, 0), (1, 1)}
    assert [by_key[key].input for key in [(0, 0), (0, 1), (1, 0)]] == [json.loads(t) for t in texts]
    # Each choice's own finish_reason decides its calls.
    assert accumulator.state(by_key[(1, 1)]) == "truncated"
    assert accumulator.stop_reason_for(by_key[(0, 0)]) == "tool_calls"
    assert [by_key[(1, 0)].id, by_key[(1, 0)].provider] == ["call_1_0", "openai"]


def test_chat_servers_that_bend_the_shape() -> None:
    def chunk(*pieces: dict[str, Any], finish: str | None = None, chunk_id: str = "c1") -> dict[str, Any]:
        delta = {"tool_calls": list(pieces)} if pieces else {}
        return {"id": chunk_id, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    events = [
        # Two whole calls in one chunk, as some servers send them.
        chunk(
            {"index": 0, "id": "a", "type": "function", "function": {"name": "f", "arguments": '{"x": 1}'}},
            {"index": 1, "id": "b", "type": "function", "function": {"name": "g", "arguments": "[2]"}},
        ),
        # No index: a new id starts a call, pieces without an id continue it.
        chunk({"id": "c", "function": {"name": "h", "arguments": '{"y"'}}),
        chunk({"function": {"arguments": ": 3}"}}),
        # The id and the name repeated in every piece.
        chunk({"index": 3, "id": "d", "function": {"name": "k", "arguments": "{"}}),
        chunk({"index": 3, "id": "d", "function": {"name": "k", "arguments": "}"}}),
        {"id": "c1", "choices": [], "usage": {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3}},
        chunk(finish="tool_calls"),
    ]
    accumulator = _fed("openai", events, sdk=False)
    assert [(call.id, call.name, call.input) for call in accumulator.calls] == [
        ("a", "f", {"x": 1}),
        ("b", "g", [2]),
        ("c", "h", {"y": 3}),
        ("d", "k", {}),
    ]
    # A chunk with another id begins the next response.
    accumulator.feed(
        chunk({"index": 0, "id": "e", "function": {"name": "f", "arguments": "{}"}}, chunk_id="c2")
    )
    assert accumulator.calls == [] and accumulator.stop_reason is None
    assert [block.id for block in accumulator.blocks] == ["e"]


def test_responses_whole_arguments_in_done_item_id_fallback_and_custom_tools() -> None:
    events = responses_events([[]])
    # No delta at all: the arguments arrive in .done only.
    events[2]["arguments"] = '{"a": [1]}'
    # A delta that names its item but not its output_index still finds its call.
    extra = responses_events([['{"b"', ": 2}"]])
    for event in extra:
        if event["type"] == "response.function_call_arguments.delta":
            del event["output_index"]
    (first,) = _fed("responses", events, sdk=True).calls
    (second,) = _fed("responses", extra, sdk=False).calls
    assert (first.input, second.input) == ({"a": [1]}, {"b": 2})
    assert (first.item_id, first.id, first.key, first.block_type) == ("fc_0", "call_0", 0, "function_call")
    text = "SELECT \"x\" FROM t WHERE a = '{'"
    custom = [
        {
            "type": "response.output_item.added",
            "sequence_number": 1,
            "output_index": 0,
            "item": {
                "type": "custom_tool_call",
                "id": "ctc_1",
                "call_id": "call_c",
                "name": "sql",
                "input": "",
            },
        },
        *[
            {
                "type": "response.custom_tool_call_input.delta",
                "sequence_number": 2,
                "output_index": 0,
                "item_id": "ctc_1",
                "delta": text[i : i + 4],
            }
            for i in range(0, len(text), 4)
        ],
        {
            "type": "response.custom_tool_call_input.done",
            "sequence_number": 3,
            "output_index": 0,
            "item_id": "ctc_1",
            "input": text,
        },
    ]
    accumulator = _fed("responses", custom, sdk=True)
    (call,) = accumulator.calls
    assert (call.input, call.raw_json, call.status, call.block_type) == (
        text,
        text,
        "complete",
        "custom_tool_call",
    )
    assert tooljson.invalid_json_result(call)["type"] == "custom_tool_call_output"


def test_bedrock_keys_and_a_new_message_starts_over() -> None:
    accumulator = _fed("bedrock", bedrock_events([['{"a"', ": 1}"]], "tool_use", first_index=4), sdk=False)
    (call,) = accumulator.calls
    assert (call.key, call.id, call.provider, call.block_type, call.input) == (
        4,
        "tooluse_4",
        "bedrock",
        "toolUse",
        {"a": 1},
    )
    accumulator.feed({"messageStart": {"role": "assistant"}})
    assert accumulator.calls == [] and accumulator.stop_reason is None


def test_other_shapes_are_ignored_unknown_ones_and_text_are_refused() -> None:
    accumulator = tooljson.ToolCallAccumulator()
    for event in ({"metadata": {}}, {"type": "response.output_text.delta", "delta": "x"}):
        assert accumulator.feed(event) == []
    # An event no source recognises is refused, naming what it looked like, never read as no calls.
    with pytest.raises(tooljson.MalformedEvent, match="a dict with keys 'unknown'"):
        accumulator.feed({"unknown": 1})
    # Cohere's v1 chat stream, which no source reads (its v2 stream's message-start is Cohere's).
    with pytest.raises(tooljson.MalformedEvent, match="an event of type 'stream-start'"):
        accumulator.feed({"type": "stream-start", "generation_id": "x"})
    with pytest.raises(TypeError, match="expected a stream event"):
        accumulator.feed(object())
    with pytest.raises(TypeError, match="decode the server-sent event"):
        accumulator.feed('data: {"choices": []}')


def test_many_unindexed_calls_and_choices_are_kept_apart() -> None:
    # Each event finds its call through an index kept per choice or per item, never by a scan.
    events = [
        {
            "id": "c",
            "choices": [
                {
                    "index": choice,
                    "delta": {"tool_calls": [{"id": f"{choice}-{n}", "function": {"arguments": f"[{n}"}}]},
                }
            ],
        }
        for choice in range(300)
        for n in range(3)
    ]
    events += [
        {
            "id": "c",
            "choices": [
                {
                    "index": choice,
                    "delta": {"tool_calls": [{"function": {"arguments": "]"}}]},
                    "finish_reason": "stop",
                }
            ],
        }
        for choice in range(300)
    ]
    accumulator = _fed("openai", events, sdk=False)
    assert len(accumulator.calls) == 900
    # A piece without an index and without an id continues the choice's latest call.
    assert all(call.input == ([2] if call.key[1] == 2 else None) for call in accumulator.calls)
    assert {call.key[1] for call in accumulator.calls} == {0, 1, 2}
    items = [
        {
            "type": "response.output_item.added",
            "output_index": n,
            "item": {"type": "function_call", "id": f"fc_{n}", "call_id": f"c{n}", "name": "f"},
        }
        for n in range(500)
    ]
    items += [
        {"type": "response.function_call_arguments.delta", "item_id": f"fc_{n}", "delta": str(n)}
        for n in range(500)
    ]
    accumulator = _fed(
        "responses", [*items, {"type": "response.completed", "response": {"status": "completed"}}], sdk=False
    )
    assert [call.input for call in accumulator.calls] == list(range(500))
