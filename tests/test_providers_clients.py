"""Each provider's real client against the stand-in over loopback, fed to the accumulator as it yields.

The openai client (Chat Completions and Responses) and boto3 (Bedrock ConverseStream) stream every
scenario their stand-in plays; what they yield goes to ``feed()`` as SDK objects and again as dicts.
Every call's input must be ``json.loads`` of its joined arguments, rebuilt here from the events
independently, and the scenario's input; the verdicts follow each provider's stop words; the results
tooljson builds are taken by the stand-in as the API takes them. Anthropic's Messages events through
the ``AnthropicBedrock`` and ``AnthropicVertex`` clients go through the same ``feed()``.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections import defaultdict
from collections.abc import Iterator
from contextlib import ExitStack, closing
from typing import Any

import anthropic
import botocore.exceptions
import openai
import pytest
import tooljson
import urllib3.exceptions
from helpers import assert_same_json, expected_input
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tooljson.results import success_result
from tooljson.standin import StandInServer, get_scenario, scenarios_for
from tooljson.standin.clients import as_dict, first_request, open_client, stream_events
from tooljson.standin.scenarios.answers import CORRECTED_INPUTS, FAULT_AFTER_CHARS

PROVIDERS = ("openai", "responses", "bedrock")
FAULTY = ("stream_error", "connection_drop")
CASES = [(provider, name) for provider in PROVIDERS for name in scenarios_for(provider) if name not in FAULTY]
# Per scenario, the verdict of every call in key order (Chat Completions: choice, then call).
VERDICTS = {
    "max_tokens": ["truncated"],
    "invalid_json": ["malformed", "malformed"],
    "two_choices": ["complete", "complete", "truncated"],
}


def _stream(provider: str, name: str, **server_options: Any) -> list[Any]:
    scenario = get_scenario(name)
    with (
        StandInServer(scenario, **server_options) as server,
        closing(open_client(provider, server.base_url)) as client,
    ):
        events = list(stream_events(provider, client, first_request(scenario, provider)))
        assert server.failures == []
    return events


def _joined(provider: str, events: list[dict[str, Any]]) -> dict[Any, str]:
    """Each call's arguments, joined straight from the events (the oracle's input)."""
    pieces: dict[Any, list[str]] = defaultdict(list)
    for event in events:
        if provider == "openai":
            for choice in event.get("choices", []):
                for piece in choice["delta"].get("tool_calls") or []:
                    pieces[(choice["index"], piece["index"])].append(
                        piece.get("function", {}).get("arguments") or ""
                    )
        elif provider == "responses":
            if event["type"] == "response.output_item.added" and event["item"]["type"] in (
                "function_call",
                "custom_tool_call",
            ):
                pieces[event["output_index"]]
            elif event["type"].endswith((".function_call_arguments.delta", ".custom_tool_call_input.delta")):
                pieces[event["output_index"]].append(event["delta"])
        elif "contentBlockStart" in event:
            pieces[event["contentBlockStart"]["contentBlockIndex"]]
        elif "toolUse" in event.get("contentBlockDelta", {}).get("delta", {}):
            pieces[event["contentBlockDelta"]["contentBlockIndex"]].append(
                event["contentBlockDelta"]["delta"]["toolUse"]["input"]
            )
    return {key: "".join(parts) for key, parts in pieces.items()}


def _scripted(name: str) -> list[str]:
    """The argument texts the scenario's reply sends, choice by choice."""
    scenario = get_scenario(name)
    reply = scenario.respond(scenario.first_request(), 0)
    replies = [reply, *reply.alternatives] if scenario.choices > 1 else [reply]
    return [block.input_text for each in replies for block in each.blocks if hasattr(block, "input_text")]


def _read(events: list[Any]) -> tooljson.TurnReader:
    reader = tooljson.TurnReader()
    for event in events:
        reader.feed(event)
    return reader


def _check(provider: str, name: str, events: list[Any]) -> tooljson.TurnReader:
    dicts = [as_dict(event) for event in events]
    joined = _joined(provider, dicts)
    reader = _read(events)
    from_dicts = _read(dicts)
    assert reader.stopped and from_dicts.stopped
    calls = sorted(reader.calls, key=lambda call: call.key)
    assert [call.key for call in calls] == sorted(joined)
    assert [call.raw_json for call in calls] == [joined[call.key] for call in calls] == _scripted(name)
    for call, again in zip(calls, sorted(from_dicts.calls, key=lambda call: call.key)):
        assert (call.provider, call.id, call.name, call.raw_json, call.status) == (
            provider,
            again.id,
            again.name,
            again.raw_json,
            again.status,
        )
        if call.block_type == "custom_tool_call":
            assert call.input == call.raw_json
            continue
        expected = expected_input(call.raw_json)
        if expected.accepted:
            assert_same_json(call.input, expected.value)
            assert_same_json(again.input, expected.value)
        else:
            assert call.input is None and again.input is None
    verdicts = [reader.state(call) for call in calls]
    assert verdicts == VERDICTS.get(name, ["complete"] * len(calls))
    assert [
        from_dicts.state(call) for call in sorted(from_dicts.calls, key=lambda call: call.key)
    ] == verdicts
    return reader


@pytest.mark.parametrize(("provider", "name"), CASES)
def test_every_scenario_through_the_real_client_gives_json_loads_of_the_joined_arguments(
    provider: str, name: str
) -> None:
    _check(provider, name, _stream(provider, name))


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize(("seed", "sizes"), [(1, (1, 1)), (2, (1, 5)), (3, (40, 200))])
def test_seeded_fragmentations(provider: str, seed: int, sizes: tuple[int, int]) -> None:
    for name in ("parallel_calls", "max_tokens", "invalid_json"):
        _check(provider, name, _stream(provider, name, seed=seed, fragment_sizes=sizes))


def _next_request(
    provider: str, request: dict[str, Any], reader: tooljson.TurnReader, results: list[dict[str, Any]]
) -> dict[str, Any]:
    """The request after a tool turn: the history, the assistant content as the reader assembled it,
    the results, each in the provider's own shape."""
    following = dict(request)
    if provider == "openai":
        following["messages"] = [*request["messages"], *reader.content, *results]
    elif provider == "responses":
        following["input"] = [{"role": "user", "content": request["input"]}, *reader.content, *results]
    else:
        following["messages"] = [
            *request["messages"],
            {"role": "assistant", "content": reader.content},
            {"role": "user", "content": results},
        ]
    return following


@pytest.mark.parametrize("provider", PROVIDERS)
def test_invalid_json_results_in_the_providers_shape_are_understood(provider: str) -> None:
    scenario = get_scenario("invalid_json")
    with StandInServer(scenario) as server, closing(open_client(provider, server.base_url)) as client:
        request = first_request(scenario, provider)
        reader = _read(list(stream_events(provider, client, request)))
        assert all(reader.accumulator.is_invalid(call) for call in reader.calls)
        results = [tooljson.invalid_json_result(call) for call in reader.calls]
        corrected = _read(
            list(stream_events(provider, client, _next_request(provider, request, reader, results)))
        )
        assert "My arguments were not valid JSON" in corrected.assembler.text
        assert [call.input for call in corrected.calls] == [json.loads(text) for text in CORRECTED_INPUTS]
        final = _next_request(
            provider,
            _next_request(provider, request, reader, results),
            corrected,
            [success_result(call, "saved") for call in corrected.calls],
        )
        last = _read(list(stream_events(provider, client, final)))
        assert last.assembler.text == "Results received: saved | saved"
        assert server.failures == []


@pytest.mark.parametrize("provider", PROVIDERS)
def test_broken_streams_leave_the_call_interrupted_where_it_stopped(provider: str) -> None:
    for name in FAULTY:
        scenario = get_scenario(name)
        with StandInServer(scenario) as server, closing(open_client(provider, server.base_url)) as client:
            reader = tooljson.TurnReader()
            raised: BaseException | None = None
            try:
                for event in stream_events(provider, client, first_request(scenario, provider)):
                    reader.feed(event)
            except (
                openai.APIError,
                botocore.exceptions.EventStreamError,
                urllib3.exceptions.ProtocolError,
            ) as error:
                raised = error
                reader.interrupt(tooljson.turn.describe_break(error), error)
        (block,) = reader.blocks
        assert reader.state(block) == "interrupted" and not reader.stopped and reader.calls == []
        assert block.chars == FAULT_AFTER_CHARS
        if name == "connection_drop":
            assert isinstance(raised, (openai.APIConnectionError, urllib3.exceptions.ProtocolError))
        elif provider == "responses":
            # The error event is yielded, not raised, and the reader states it in the API's words.
            assert raised is None and reader.interruption == "overloaded_error: Overloaded"
        else:
            assert reader.interruption is not None and "Overloaded" in reader.interruption


@pytest.mark.parametrize("name", ["parallel_calls", "max_tokens", "invalid_json"])
def test_anthropic_bedrock_and_vertex_clients_yield_events_feed_reads(name: str) -> None:
    scenario = get_scenario(name)
    request = scenario.first_request()
    with StandInServer(scenario) as server, ExitStack() as opened:
        clients = {
            "messages": anthropic.Anthropic(base_url=server.base_url, api_key="stand-in", max_retries=0),
            "bedrock": anthropic.AnthropicBedrock(
                base_url=server.base_url,
                aws_region="us-east-1",
                aws_access_key="stand-in",
                aws_secret_key="stand-in",
                max_retries=0,
            ),
            "vertex": anthropic.AnthropicVertex(
                base_url=server.base_url,
                region="us-east5",
                project_id="stand-in",
                access_token="stand-in",
                max_retries=0,
            ),
        }
        for client in clients.values():
            opened.enter_context(closing(client))
        seen = {}
        for kind, client in clients.items():
            model = "anthropic.claude-sonnet-4-6-v1:0" if kind == "bedrock" else request["model"]
            with client.messages.create(**{**request, "model": model}, stream=True) as events:
                accumulator = tooljson.collect_tool_calls(events)
            seen[kind] = (
                accumulator.stop_reason,
                [(c.provider, c.raw_json, c.status, accumulator.state(c)) for c in accumulator.calls],
            )
        assert server.failures == []
        paths = [recorded.path for recorded in server.requests]
    assert seen["bedrock"] == seen["vertex"] == seen["messages"]
    assert paths[1].endswith("/invoke-with-response-stream") and paths[2].endswith(":streamRawPredict")


ROUTE_PATHS = (
    "/v1/chat/completions",
    "/v1/responses",
    "/model/m%3A0/converse-stream",
    "/model/m/invoke-with-response-stream",
    "/projects/p/locations/r/publishers/anthropic/models/m:streamRawPredict",
)
FIELD_NAMES = (
    "model",
    "messages",
    "stream",
    "n",
    "tools",
    "max_tokens",
    "max_completion_tokens",
    "max_output_tokens",
    "input",
    "role",
    "content",
    "tool_calls",
    "tool_call_id",
    "function",
    "arguments",
    "id",
    "type",
    "call_id",
    "output",
    "toolConfig",
    "inferenceConfig",
    "maxTokens",
    "toolSpec",
    "toolUse",
    "toolResult",
    "toolUseId",
    "anthropic_version",
    "stream_options",
    "include_usage",
    "text",
    "status",
    "json",
)
VALID_BODIES = (
    {"model": "m", "stream": True, "messages": [{"role": "user", "content": "x"}]},
    {"model": "m", "stream": True, "input": "x"},
    {"messages": [{"role": "user", "content": [{"text": "x"}]}]},
    {
        "anthropic_version": "v",
        "max_tokens": 64,
        "messages": [{"role": "user", "content": "x"}],
        "stream": True,
    },
)


def _post(url: str, data: bytes) -> tuple[int, dict[str, str], Any]:
    request = urllib.request.Request(
        url, data=data, method="POST", headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), json.loads(error.read())


@pytest.mark.parametrize(
    ("path", "body", "says"),
    [
        ("/v1/chat/completions", b"not json", "not valid JSON"),
        ("/v1/chat/completions", b"[1, 2]", "JSON object"),
        ("/v1/chat/completions", b'{"model": "m", "messages": []}', "messages: a non-empty array"),
        (
            "/v1/chat/completions",
            b'{"model": "m", "stream": true, "n": 99, "messages": [{"role": "user", "content": "x"}]}',
            "n: at most",
        ),
        ("/v1/chat/completions", b'{"model": "m", "stream": true, "messages": [{"role": "wizard"}]}', "role"),
        (
            "/v1/chat/completions",
            b'{"model": "m", "stream": true, "messages": [{"role": "user", "content": "x"}, '
            b'{"role": "assistant", "tool_calls": [{"id": "c", "function": {"name": "f"}}]}, {"role": "user", "content": "y"}]}',
            "tool_result",
        ),
        ("/v1/responses", b'{"model": "m", "stream": true, "input": 5}', "input"),
        (
            "/v1/responses",
            b'{"model": "m", "stream": true, "input": "x", "max_output_tokens": -1}',
            "max_output_tokens",
        ),
        ("/v1/responses", b'{"model": "m", "stream": true, "input": [{"type": "mystery"}]}', "mystery"),
        ("/model/m/converse-stream", b'{"messages": "x"}', "messages"),
        (
            "/model/m/converse-stream",
            b'{"messages": [{"role": "user", "content": [{"text": "a", "image": {}}]}]}',
            "exactly one",
        ),
        (
            "/model/m/converse-stream",
            b'{"messages": [{"role": "user", "content": [{"text": "a"}]}], "inferenceConfig": {"maxTokens": 0}}',
            "maxTokens",
        ),
        (
            "/model/m/invoke-with-response-stream",
            b'{"max_tokens": 10, "messages": [{"role": "user", "content": "x"}]}',
            "anthropic_version",
        ),
        (
            "/projects/p/locations/r/publishers/anthropic/models/m:streamRawPredict",
            b"{}",
            "anthropic_version",
        ),
    ],
)
def test_bad_requests_get_a_400_in_the_apis_own_error_shape(path: str, body: bytes, says: str) -> None:
    with StandInServer("parallel_calls") as server:
        status, headers, payload = _post(server.base_url + path, body)
        assert server.failures == []
    assert status == 400
    if path.startswith("/model/"):
        assert headers["x-amzn-ErrorType"].startswith("ValidationException") and says in payload["message"]
    elif path.startswith("/v1/"):
        assert payload["error"]["type"] == "invalid_request_error" and says in payload["error"]["message"]
    else:
        assert payload["type"] == "error" and says in payload["error"]["message"]


def test_the_clients_raise_their_own_errors_for_a_400() -> None:
    with (
        StandInServer("parallel_calls") as server,
        closing(open_client("openai", server.base_url)) as chat,
        closing(open_client("bedrock", server.base_url)) as bedrock,
    ):
        with pytest.raises(openai.BadRequestError, match="n: at most"):
            chat.chat.completions.create(
                model="m", messages=[{"role": "user", "content": "x"}], n=50, stream=True
            )
        # boto3 checks the parameters' shapes itself; the pairing rule only the server knows.
        orphan = {"toolResult": {"toolUseId": "tooluse_none", "content": [{"text": "x"}]}}
        with pytest.raises(botocore.exceptions.ClientError, match="ValidationException.*tool_result"):
            bedrock.converse_stream(modelId="m", messages=[{"role": "user", "content": [orphan]}])


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 10**6) | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.sampled_from(FIELD_NAMES) | st.text(max_size=5), children, max_size=5)
    ),
    max_leaves=20,
)


@pytest.fixture(scope="module")
def fuzzed_server() -> Iterator[StandInServer]:
    with StandInServer("parallel_calls") as server:
        yield server


@settings(max_examples=250, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    path=st.sampled_from(ROUTE_PATHS),
    body=JSON_VALUES,
    valid=st.sampled_from(VALID_BODIES),
    replace=st.dictionaries(st.sampled_from(FIELD_NAMES), JSON_VALUES, max_size=3),
)
def test_no_request_body_makes_a_stand_in_endpoint_fail(
    fuzzed_server: StandInServer, path: str, body: Any, valid: dict[str, Any], replace: dict[str, Any]
) -> None:
    # Random JSON, and valid requests with fields replaced by random values: a 200 or a 4xx, never a 500.
    for sent in (body, {**valid, **replace}):
        status, _, _ = _post(fuzzed_server.base_url + path, json.dumps(sent).encode())
        assert status == 200 or 400 <= status < 500, (path, sent, status)
    assert fuzzed_server.failures == []
