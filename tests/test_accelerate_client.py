"""tooljson.accelerate(client): a copy of the client that differs only in its helper streams.

Everything but ``messages.stream`` and ``beta.messages.stream`` must be the SDK's own: the classes,
the methods, the requests sent (checked on the stand-in's record of them), and the original client
must keep working unchanged beside the copy. The stream members the SDK documents behave as the
SDK's, sync and async.
"""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import anthropic
import anyio
import pytest
import tooljson
from anthropic.lib.streaming import AsyncMessageStream, MessageStream, MessageStreamManager
from pydantic import BaseModel
from tooljson.acceleration import AcceleratedStream
from tooljson.acceleration.streams import (
    AcceleratedBetaAsyncMessageStreamManager,
    AcceleratedBetaMessageStreamManager,
    AcceleratedMessageStreamManager,
)
from tooljson.accumulator import ToolCallAccumulator
from tooljson.standin import Reply, Scenario, StandInServer, Text, get_scenario

REQUEST = get_scenario("parallel_calls").first_request()


def _client(server: StandInServer, **options: Any) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=server.base_url, api_key="stand-in", max_retries=0, **options)


def test_import_tooljson_does_not_import_anthropic() -> None:
    code = "import sys, tooljson; assert 'anthropic' not in sys.modules; tooljson.accelerate; print('ok')"
    assert (
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
        == "ok\n"
    )


@pytest.mark.parametrize("kind", [anthropic.Anthropic, anthropic.AsyncAnthropic])
def test_the_copy_is_the_same_client_with_two_methods_replaced(kind: type[Any]) -> None:
    client = kind(
        api_key="k",
        base_url="http://127.0.0.1:9",
        max_retries=5,
        timeout=12.5,
        default_headers={"x-team": "a"},
        _strict_response_validation=True,
    )
    fast = tooljson.accelerate(client)
    assert type(fast) is type(client) and fast is not client
    assert (fast.api_key, fast.base_url, fast.max_retries, fast.timeout) == (
        client.api_key,
        client.base_url,
        client.max_retries,
        client.timeout,
    )
    assert fast.default_headers == client.default_headers
    assert fast._strict_response_validation is True
    for path in [
        "messages",
        "messages.batches",
        "models",
        "beta",
        "beta.messages",
        "beta.messages.batches",
        "with_raw_response.messages",
        "with_streaming_response.messages",
    ]:
        ours, theirs = fast, client
        for name in path.split("."):
            ours, theirs = getattr(ours, name), getattr(theirs, name)
        assert type(ours) is type(theirs), path
    for method in ["create", "count_tokens", "parse"]:
        assert getattr(fast.messages, method).__func__ is getattr(client.messages, method).__func__
        assert getattr(fast.beta.messages, method).__func__ is getattr(client.beta.messages, method).__func__
    # The original's resources keep the SDK's own stream method.
    assert "stream" not in vars(client.messages) and "stream" not in vars(client.beta.messages)
    assert "stream" in vars(fast.messages) and "stream" in vars(fast.beta.messages)
    # The signature callers see (and IDEs read) is the SDK's.
    assert fast.messages.stream.__wrapped__.__func__ is type(client.messages).stream
    assert fast.messages.stream.__doc__ == client.messages.stream.__doc__


def test_create_and_count_tokens_are_the_originals() -> None:
    with StandInServer(scenario="parallel_calls") as server, _client(server) as client:
        fast = tooljson.accelerate(client)
        assert fast.messages.create(**REQUEST).model_dump() == client.messages.create(**REQUEST).model_dump()
        raw = [e.model_dump() for e in fast.messages.create(stream=True, **REQUEST)]
        assert raw == [e.model_dump() for e in client.messages.create(stream=True, **REQUEST)]
        with_raw = fast.messages.with_raw_response.create(**REQUEST)
        assert with_raw.parse().model_dump() == client.messages.create(**REQUEST).model_dump()
        # The stand-in has no token counting: both clients send the same request and get the same 404.
        errors = []
        for each in (client, fast):
            with pytest.raises(anthropic.NotFoundError) as caught:
                each.messages.count_tokens(model=REQUEST["model"], messages=REQUEST["messages"])
            errors.append(caught.value.body)
        assert errors[0] == errors[1]
        requests = server.requests
    first, second = requests[-2:]
    assert (first.method, first.path, first.body) == (second.method, second.path, second.body)
    assert first.path == "/v1/messages/count_tokens"
    assert _stable(first.headers) == _stable(second.headers)


def _stable(headers: dict[str, str]) -> dict[str, str]:
    return {name: value for name, value in headers.items() if name != "host"}


@pytest.mark.parametrize("beta", [False, True])
def test_the_stream_sends_the_sdks_request(beta: bool) -> None:
    extra = {"metadata": {"user_id": "u1"}, "stop_sequences": ["END"], "extra_headers": {"x-a": "1"}}
    with StandInServer(scenario="parallel_calls") as server, _client(server) as client:
        for each in (client, tooljson.accelerate(client)):
            resource = each.beta.messages if beta else each.messages
            with resource.stream(**REQUEST, **extra) as stream:
                stream.until_done()
        theirs, ours = server.requests
    assert ours.body == theirs.body and _stable(ours.headers) == _stable(theirs.headers)


def test_copies_of_the_copy_stay_accelerated_and_the_original_stays_as_it_was() -> None:
    with StandInServer(scenario="invalid_json") as server, _client(server) as client:
        fast = tooljson.accelerate(client)
        for copy in (fast.with_options(timeout=7.0), fast.copy(max_retries=2)):
            assert type(copy.messages.stream(**REQUEST)) is AcceleratedMessageStreamManager
            assert type(copy.beta.messages.stream(**REQUEST)) is AcceleratedBetaMessageStreamManager
        assert fast.with_options(timeout=7.0).timeout == 7.0
        # A second accelerate() takes new options.
        growing = tooljson.accelerate(fast, partial_strings=True)
        assert type(growing.messages.stream(**REQUEST)) is AcceleratedMessageStreamManager
        # The original: the SDK's manager and stream, and the SDK's error on this malformed input.
        manager = client.messages.stream(**get_scenario("invalid_json").first_request())
        assert type(manager) is MessageStreamManager
        with manager as stream:
            assert type(stream) is MessageStream
            with pytest.raises(ValueError, match="Unable to parse tool parameter JSON"):
                stream.until_done()
        with fast.messages.stream(**get_scenario("invalid_json").first_request()) as stream:
            assert isinstance(stream, MessageStream)
            message = stream.get_final_message()
        assert [block.type for block in message.content] == ["text", "tool_use", "tool_use"]
        assert [stream.turn.state(call) for call in stream.tool_calls] == ["malformed", "malformed"]


def test_the_stream_members_behave_as_the_sdks() -> None:
    request = get_scenario("parallel_calls").first_request()
    with StandInServer(scenario="parallel_calls", seed=4) as server, _client(server) as client:
        fast = tooljson.accelerate(client)
        seen: dict[str, list[Any]] = {}
        for name, each in (("sdk", client), ("ours", fast)):
            with each.messages.stream(**request) as stream:
                assert isinstance(stream, AcceleratedStream) == (name == "ours")
                texts = list(stream.text_stream)
                final_text = stream.get_final_text()
                snapshot = stream.current_message_snapshot.model_dump()
                assert (
                    stream.request_id is not None
                    and stream.request_id == stream.response.headers["request-id"]
                )
                assert stream.response.status_code == 200
            seen[name] = [texts, final_text, snapshot]
            # until_done after the end, and a stream closed half-way.
            stream.until_done()
            with each.messages.stream(**request) as stream:
                for _ in zip(range(3), stream):
                    pass
                stream.close()
                assert stream.response.is_closed
        assert seen["ours"] == seen["sdk"]
        assert seen["ours"][1] == "".join(seen["ours"][0]) and seen["ours"][1]


def test_the_async_stream_members_behave_as_the_sdks() -> None:
    request = get_scenario("parallel_calls").first_request()

    async def main() -> dict[str, list[Any]]:
        seen: dict[str, list[Any]] = {}
        async with StandInServer(scenario="parallel_calls", seed=4) as server:
            async with anthropic.AsyncAnthropic(
                base_url=server.base_url, api_key="k", max_retries=0
            ) as client:
                for name, each in (("sdk", client), ("ours", tooljson.accelerate(client))):
                    async with each.messages.stream(**request) as stream:
                        assert isinstance(stream, AsyncMessageStream)
                        texts = [text async for text in stream.text_stream]
                        seen[name] = [texts, await stream.get_final_text(), stream.request_id is not None]
                    async with each.beta.messages.stream(**request) as stream:
                        assert isinstance(stream, AcceleratedStream) == (name == "ours")
                        await stream.until_done()
                        seen[name].append((await stream.get_final_message()).model_dump())
        return seen

    seen = anyio.run(main)
    assert seen["ours"] == seen["sdk"]


class Weather(BaseModel):
    city: str
    celsius: float


def _json_reply(body: dict[str, Any], turn: int) -> Reply:
    return Reply(blocks=(Text('{"city": "Lisbon", "celsius": 21.5}'),), stop_reason="end_turn")


def test_output_format_is_parsed_as_the_sdk_parses_it() -> None:
    scenario = Scenario(
        name="json_text", description="A JSON answer.", prompt="Weather?", tools=[], respond=_json_reply
    )
    request = scenario.first_request()
    with StandInServer(scenario=scenario) as server, _client(server) as client:
        parsed = []
        for each in (client, tooljson.accelerate(client)):
            with each.messages.stream(**request, output_format=Weather) as stream:
                parsed.append(stream.get_final_message().parsed_output)
        theirs, ours = server.requests
    assert parsed == [Weather(city="Lisbon", celsius=21.5)] * 2
    assert ours.body == theirs.body and "output_config" in ours.body


def test_every_fragment_is_parsed_once() -> None:
    fragments: list[str] = []

    class Counting(ToolCallAccumulator):
        def add_delta(self, index: Any, fragment: str) -> None:
            fragments.append(fragment)
            super().add_delta(index, fragment)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("tooljson.turn.ToolCallAccumulator", Counting)
        with StandInServer(scenario="parallel_calls") as server, _client(server) as client:
            with tooljson.accelerate(client).messages.stream(**REQUEST) as stream:
                sent = [
                    e.delta.partial_json
                    for e in stream
                    if e.type == "content_block_delta" and e.delta.type == "input_json_delta"
                ]
    assert fragments == sent and sent


@pytest.mark.parametrize(
    "make",
    [
        lambda: anthropic.AnthropicBedrock(aws_access_key="a", aws_secret_key="s", aws_region="us-east-1"),
        lambda: anthropic.AnthropicVertex(region="us-east5", project_id="p", access_token="t"),
    ],
    ids=["bedrock", "vertex"],
)
def test_bedrock_and_vertex_clients_share_the_messages_resources(make: Any) -> None:
    client = make()
    fast = tooljson.accelerate(client)
    assert type(fast) is type(client)
    request = {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}]}
    # Not entered: no request is sent.
    assert type(fast.messages.stream(**request)) is AcceleratedMessageStreamManager
    assert type(fast.beta.messages.stream(**request)) is AcceleratedBetaMessageStreamManager
    assert type(client.messages.stream(**request)) is MessageStreamManager


def test_async_vertex_beta_stream_is_accelerated() -> None:
    fast = tooljson.accelerate(
        anthropic.AsyncAnthropicVertex(region="us-east5", project_id="p", access_token="t")
    )
    manager = fast.beta.messages.stream(model="m", max_tokens=5, messages=[{"role": "user", "content": "hi"}])
    assert type(manager) is AcceleratedBetaAsyncMessageStreamManager
    manager._request.close()  # never entered: close the request coroutine instead of leaking it


@pytest.mark.parametrize(
    ("arguments", "error"),
    [
        ({"partial_strings": "yes"}, TypeError),
        ({"max_depth": "deep"}, TypeError),
        ({"preview_string_limit": -1}, ValueError),
    ],
)
def test_bad_options_fail_at_once(arguments: dict[str, Any], error: type[Exception]) -> None:
    with pytest.raises(error):
        tooljson.accelerate(anthropic.Anthropic(api_key="k"), **arguments)


@pytest.mark.parametrize("value", [object(), "client", anthropic.Anthropic])
def test_what_is_not_a_client_is_refused(value: Any) -> None:
    with pytest.raises(TypeError, match="tooljson.accelerate takes an anthropic client"):
        tooljson.accelerate(value)
