"""LiteLLM (1.110) against the stand-in over loopback: its chunks through ``feed()``, side by side with
the providers' own clients, and tool results sent back through it.

``litellm.completion(..., stream=True)`` and ``litellm.acompletion(..., stream=True)`` yield
``ModelResponseStream`` chunks in the Chat Completions shape, whatever the route: ``openai/`` (the
stand-in's Chat Completions endpoint) and ``anthropic/`` (its Messages endpoint, which LiteLLM turns
into chunks). The same scenario read from the openai client, the anthropic client and both routes
must give the same calls, inputs and verdicts. LiteLLM is made to fetch nothing (no price list, no
catalog): every connection made while it is imported and while it runs is checked to go to the
stand-in on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import warnings
from collections.abc import Iterator
from contextlib import closing, contextmanager
from typing import Any

import anthropic
import openai
import pytest

import tooljson
from helpers import assert_same_json, expected_input
from tooljson.results import success_result
from tooljson.standin import StandInServer, get_scenario
from tooljson.standin.clients import first_request, stream_events
from tooljson.standin.scenarios import BROKEN_ESCAPE_INPUT, CORRECTED_INPUTS, TRAILING_OBJECT_INPUT

# LiteLLM reads these when it is imported: its bundled price list and catalogs, nothing fetched.
os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
os.environ["LITELLM_OFFLINE_MODE"] = "true"

# LiteLLM imports its GitHub Copilot provider on its first call, whose TypedDicts pydantic warns about.
pytestmark = pytest.mark.filterwarnings("ignore:Items? .* on TypedDict class .* `ReadOnly` qualifier:UserWarning")

NAMES = ("parallel_calls", "invalid_json", "max_tokens", "empty_input", "whole_arguments")
VERDICTS = {"invalid_json": ["malformed", "malformed"], "max_tokens": ["truncated"]}


LOOPBACK = ("127.0.0.1", "::1", "localhost")


@contextmanager
def _loopback_only() -> Iterator[list[Any]]:
    """Record every address a socket connects to and every name looked up, and refuse any that is not
    loopback (a name lookup is a network call of its own, made below Python's sockets)."""
    connect, getaddrinfo = socket.socket.connect, socket.getaddrinfo
    reached: list[Any] = []

    def checked_connect(sock: socket.socket, address: Any) -> Any:
        if sock.family in (socket.AF_INET, socket.AF_INET6):
            reached.append(address)
            if address[0] not in LOOPBACK:
                raise AssertionError(f"a connection to {address!r}: LiteLLM must reach nothing but the stand-in")
        return connect(sock, address)

    def checked_getaddrinfo(host: Any, *arguments: Any, **options: Any) -> Any:
        reached.append(host)
        if host not in LOOPBACK and host not in (b"127.0.0.1", b"localhost"):
            raise AssertionError(f"a name lookup of {host!r}: LiteLLM must reach nothing but the stand-in")
        return getaddrinfo(host, *arguments, **options)

    socket.socket.connect = checked_connect  # type: ignore[method-assign]
    socket.getaddrinfo = checked_getaddrinfo
    try:
        yield reached
    finally:
        socket.socket.connect = connect  # type: ignore[method-assign]
        socket.getaddrinfo = getaddrinfo


with _loopback_only() as _import_connections:
    import litellm
assert _import_connections == [], _import_connections
# LiteLLM prints a hint to stdout when it looks up the price of a model it does not know ("x").
litellm.suppress_debug_info = True


@pytest.fixture(autouse=True)
def _no_network() -> Iterator[None]:
    with _loopback_only() as reached:
        yield
    assert reached, "the guard saw nothing: LiteLLM did not reach the stand-in through it"
    # litellm.completion makes the thread's default event loop (for its logging) and leaves it open:
    # close it here, as a program's exit would.
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            loop = asyncio.get_event_loop_policy().get_event_loop()
    except RuntimeError:
        return  # none was made
    loop.close()
    asyncio.set_event_loop(None)


def _tools(name: str) -> list[dict[str, Any]]:
    """The scenario's tools in the OpenAI shape LiteLLM takes for every route."""
    return first_request(get_scenario(name), "openai")["tools"]


def _arguments(route: str, server: StandInServer, name: str, messages: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    scenario = get_scenario(name)
    base = server.base_url + "/v1" if route == "openai" else server.base_url
    return {
        "model": f"{route}/stand-in",
        "api_base": base,
        "api_key": "stand-in",
        "messages": messages or [{"role": "user", "content": scenario.prompt}],
        "tools": _tools(name),
        "max_tokens": scenario.first_max_tokens,
        "stream": True,
    }


def _read(chunks: list[Any]) -> tooljson.TurnReader:
    reader = tooljson.TurnReader()
    for chunk in chunks:
        reader.feed(chunk)
    return reader


def _litellm(route: str, name: str) -> tooljson.TurnReader:
    with StandInServer(get_scenario(name)) as server:
        chunks = list(litellm.completion(**_arguments(route, server, name)))
        assert server.failures == []
    assert all(type(chunk).__name__ == "ModelResponseStream" for chunk in chunks)
    return _read(chunks)


def _alitellm(route: str, name: str) -> tooljson.TurnReader:
    async def run(server: StandInServer) -> list[Any]:
        stream = await litellm.acompletion(**_arguments(route, server, name))
        try:
            return [chunk async for chunk in stream]
        finally:
            await stream.aclose()
            # LiteLLM keeps its async HTTP clients across calls (in its client cache, and one at module
            # level that its Anthropic route streams with): close them in the loop that made them, and
            # let the next call make new ones.
            await litellm.close_litellm_async_clients()
            litellm.in_memory_llm_clients_cache.flush_cache()
            module_client = vars(litellm).pop("module_level_aclient", None)
            if module_client is not None:
                await module_client.close()

    with StandInServer(get_scenario(name)) as server:
        chunks = asyncio.run(run(server))
        assert server.failures == []
    return _read(chunks)


def _client(provider: str, name: str) -> tooljson.TurnReader:
    """The same scenario through the provider's own client: openai's Chat Completions, anthropic's Messages."""
    scenario = get_scenario(name)
    with StandInServer(scenario) as server:
        if provider == "openai":
            with closing(openai.OpenAI(base_url=server.base_url + "/v1", api_key="stand-in", max_retries=0)) as client:
                return _read(list(stream_events("openai", client, first_request(scenario, "openai"))))
        with closing(anthropic.Anthropic(base_url=server.base_url, api_key="stand-in", max_retries=0)) as client:
            return _read(list(stream_events("anthropic", client, scenario.first_request())))


def _summary(reader: tooljson.TurnReader) -> list[tuple[str, str, Any, str]]:
    """(name, raw text, input, verdict) of every call, in order; each input checked against json.loads.

    LiteLLM's Anthropic route writes ``"{}"`` as the arguments of a call whose input streamed as one
    empty delta (the Messages API's way of saying "no arguments"); the input is ``{}`` either way,
    so an empty text is shown as ``"{}"`` here.
    """
    calls = sorted(reader.calls, key=lambda call: call.key)
    for call in calls:
        expected = expected_input(call.raw_json)
        if expected.accepted:
            assert_same_json(call.input, expected.value)
        else:
            assert call.input is None
    return [(call.name, call.raw_json or "{}", call.input, reader.state(call)) for call in calls]


@pytest.mark.parametrize("name", NAMES)
def test_litellm_chunks_give_what_the_providers_own_clients_give(name: str) -> None:
    from_openai = _summary(_client("openai", name))
    from_anthropic = _summary(_client("anthropic", name))
    through_openai_route = _litellm("openai", name)
    through_anthropic_route = _litellm("anthropic", name)
    assert _summary(through_openai_route) == from_openai
    assert _summary(through_anthropic_route) == from_anthropic == from_openai
    assert [verdict for *_, verdict in from_openai] == VERDICTS.get(name, ["complete"] * len(from_openai))
    for reader in (through_openai_route, through_anthropic_route):
        # They are Chat Completions chunks: the calls are "openai" calls, LiteLLM's finish_reason the stop.
        assert reader.provider == "openai" and reader.stopped and reader.warnings == []
        assert {call.provider for call in reader.calls} <= {"openai"}
        assert reader.stop_reason == ("length" if name == "max_tokens" else "tool_calls")


@pytest.mark.parametrize("route", ["openai", "anthropic"])
def test_acompletion_chunks_read_as_completion_chunks(route: str) -> None:
    for name in ("parallel_calls", "max_tokens", "invalid_json"):
        assert _summary(_alitellm(route, name)) == _summary(_litellm(route, name))


def _turn(server: StandInServer, route: str, name: str, messages: list[dict[str, Any]]) -> tooljson.TurnReader:
    return _read(list(litellm.completion(**_arguments(route, server, name, messages))))


def test_invalid_json_results_go_back_through_litellm_and_the_model_corrects_itself() -> None:
    scenario = get_scenario("invalid_json")
    with StandInServer(scenario) as server:
        messages: list[dict[str, Any]] = [{"role": "user", "content": scenario.prompt}]
        first = _turn(server, "openai", "invalid_json", messages)
        assert [call.raw_json for call in first.calls] == [BROKEN_ESCAPE_INPUT, TRAILING_OBJECT_INPUT]
        assert all(first.accumulator.is_invalid(call) for call in first.calls)
        results = [tooljson.invalid_json_result(call) for call in first.calls]
        # LiteLLM's own shape for a tool result: the OpenAI tool message.
        assert results == [
            {"role": "tool", "tool_call_id": call.id, "content": json.dumps({"INVALID_JSON": call.raw_json})}
            for call in first.calls
        ]
        messages += [*first.content, *results]
        second = _turn(server, "openai", "invalid_json", messages)
        assert [call.input for call in second.calls] == [json.loads(text) for text in CORRECTED_INPUTS]
        messages += [*second.content, *(success_result(call, "saved") for call in second.calls)]
        last = _turn(server, "openai", "invalid_json", messages)
        assert last.calls == [] and last.content[0]["content"] == "Results received: saved | saved"
        assert server.failures == []


def test_results_go_back_through_the_anthropic_route_without_is_error() -> None:
    scenario = get_scenario("invalid_json")
    with StandInServer(scenario) as server:
        messages: list[dict[str, Any]] = [{"role": "user", "content": scenario.prompt}]
        first = _turn(server, "anthropic", "invalid_json", messages)
        results = [tooljson.invalid_json_result(call) for call in first.calls]
        # LiteLLM parses each call's arguments to build the Messages tool_use input, and refuses
        # history whose arguments are not JSON, before it sends anything.
        with pytest.raises(litellm.BadRequestError, match="Failed to parse tool call arguments"):
            _turn(server, "anthropic", "invalid_json", [*messages, *first.content, *results])
        # The Messages API takes {} as a malformed call's input: the assistant message says so.
        (assistant,) = first.content
        for call in assistant["tool_calls"]:
            call["function"]["arguments"] = "{}"
        messages += [assistant, *results]
        second = _turn(server, "anthropic", "invalid_json", messages)
        sent = server.requests[-1].body["messages"][-1]["content"]
        assert server.failures == []
    # The results reached the Messages API as tool_result blocks answering each call, with the
    # INVALID_JSON text, but LiteLLM sends no is_error flag: the stand-in took them as plain results.
    assert [(block["type"], block["tool_use_id"]) for block in sent] == [("tool_result", call.id) for call in first.calls]
    assert all("is_error" not in block for block in sent)
    assert [json.loads(block["content"]) for block in sent] == [{"INVALID_JSON": call.raw_json} for call in first.calls]
    assert second.calls == []
    assert second.content[0]["content"].startswith('Results received: {"INVALID_JSON"')
