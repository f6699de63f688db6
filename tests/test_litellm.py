"""LiteLLM (1.110) against the stand-in over loopback: its chunks through ``feed()``, side by side with
the providers' own clients, and tool results sent back through it.

``litellm.completion(..., stream=True)`` and ``litellm.acompletion(..., stream=True)`` yield
``ModelResponseStream`` chunks in the Chat Completions shape, whatever the route: ``openai/`` (the
stand-in's Chat Completions endpoint), ``anthropic/`` (its Messages endpoint) and ``gemini/`` (its
Gemini API ``streamGenerateContent``), the last two turned into chunks by LiteLLM. The same
scenario read from the openai client, the anthropic client and the first two routes must give the
same calls, inputs and verdicts; the ``gemini/`` route must give what google-genai gives against
the same stand-in, except where LiteLLM drops what the Gemini API said (asserted exactly here).
LiteLLM is made to fetch nothing (no price list, no catalog): every connection made while it is
imported and while it runs is checked to go to the stand-in on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import urllib.request
import warnings
from collections.abc import Iterator
from contextlib import closing, contextmanager
from typing import Any

import anthropic
import openai
import pytest
import tooljson
from helpers import assert_same_json, expected_input
from tooljson.providers.gemini import wire as gemini
from tooljson.results import success_result
from tooljson.sse import SSEDecoder
from tooljson.standin import StandInServer, get_scenario, scenarios_for
from tooljson.standin.clients import first_request, stream_events
from tooljson.standin.reply import Reply, Text, ToolUse
from tooljson.standin.scenario import Scenario
from tooljson.standin.scenarios.answers import (
    BROKEN_ESCAPE_INPUT,
    CORRECTED_INPUTS,
    MAX_TOKENS_NEEDED,
    NOTE_INPUT,
    PARIS_INPUT,
    SAO_PAULO_INPUT,
    TRAILING_OBJECT_INPUT,
)
from tooljson.standin.server import RecordedRequest

# LiteLLM reads these when it is imported: its bundled price list and catalogs, nothing fetched.
os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
os.environ["LITELLM_OFFLINE_MODE"] = "true"

# LiteLLM imports its GitHub Copilot provider on its first call, whose TypedDicts pydantic warns about.
pytestmark = pytest.mark.filterwarnings(
    "ignore:Items? .* on TypedDict class .* `ReadOnly` qualifier:UserWarning"
)

NAMES = ("parallel_calls", "invalid_json", "max_tokens", "empty_input", "whole_arguments")
VERDICTS = {"invalid_json": ["malformed", "malformed"], "max_tokens": ["truncated"]}
# Every scenario the stand-in plays on the Gemini API whose stream ends as its reply says.
GEMINI_NAMES = tuple(
    name for name in scenarios_for("gemini") if name not in ("stream_error", "connection_drop")
)
# The api_base each route is given: LiteLLM appends its own path to it.
ROUTE_PATHS = {"openai": "/v1", "anthropic": "", "gemini": "/v1beta"}


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
                raise AssertionError(
                    f"a connection to {address!r}: LiteLLM must reach nothing but the stand-in"
                )
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


def _arguments(
    route: str, server: StandInServer, name: str, messages: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    scenario = get_scenario(name)
    return {
        "model": f"{route}/stand-in",
        "api_base": server.base_url + ROUTE_PATHS[route],
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


def _litellm_chunks(route: str, name: str, **server_options: Any) -> list[Any]:
    with StandInServer(get_scenario(name), **server_options) as server:
        chunks = list(litellm.completion(**_arguments(route, server, name)))
        assert server.failures == []
        assert len(server.requests) == 1
    assert all(type(chunk).__name__ == "ModelResponseStream" for chunk in chunks)
    return chunks


def _litellm(route: str, name: str) -> tooljson.TurnReader:
    return _read(_litellm_chunks(route, name))


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


def _client(provider: str, name: str, **server_options: Any) -> tooljson.TurnReader:
    """The same scenario through the provider's own client: openai's Chat Completions, anthropic's
    Messages, google-genai's ``generate_content_stream`` on the Gemini API (whole calls)."""
    scenario = get_scenario(name)
    with StandInServer(scenario, **server_options) as server:
        if provider == "gemini":
            with closing(gemini.open_client(server.base_url, vertex=False)) as client:
                request = gemini.first_request(scenario, model="stand-in", stream_arguments=False)
                return _read(list(gemini.stream_events(client, request)))
        if provider == "openai":
            with closing(
                openai.OpenAI(base_url=server.base_url + "/v1", api_key="stand-in", max_retries=0)
            ) as client:
                return _read(list(stream_events("openai", client, first_request(scenario, "openai"))))
        with closing(
            anthropic.Anthropic(base_url=server.base_url, api_key="stand-in", max_retries=0)
        ) as client:
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


@pytest.mark.parametrize("route", ["openai", "anthropic", "gemini"])
def test_acompletion_chunks_read_as_completion_chunks(route: str) -> None:
    for name in ("parallel_calls", "max_tokens", "invalid_json"):
        assert _summary(_alitellm(route, name)) == _summary(_litellm(route, name))


# LiteLLM's gemini/ route's finish_reason for each Gemini finishReason the stand-in sends, where it
# does not put "tool_calls" instead (in place of "stop" once a call was seen, and for any reason on a
# chunk that carries a call).
GEMINI_FINISH_REASONS = {"STOP": "stop", "MAX_TOKENS": "length", "MALFORMED_FUNCTION_CALL": "stop"}


def _text(reader: tooljson.TurnReader) -> str:
    """The text the model said in the turn, from either history shape (Gemini's or Chat Completions')."""
    if reader.provider == "gemini":
        return "".join(
            part.get("text", "")
            for content in reader.content
            for part in content["parts"]
            if not part.get("thought")
        )
    return "".join(message.get("content") or "" for message in reader.content)


def _compare_with_google_genai(name: str, **server_options: Any) -> None:
    """The scenario through google-genai and through LiteLLM's gemini/ route (the same stand-in
    options, so the same bytes): the same calls, inputs, verdicts and text; the stop reason mapped."""
    from_genai = _client("gemini", name, **server_options)
    chunks = _litellm_chunks("gemini", name, **server_options)
    through_gemini_route = _read(chunks)
    assert from_genai.provider == "gemini" and through_gemini_route.provider == "openai"
    assert {call.provider for call in through_gemini_route.calls} <= {"openai"}
    assert _summary(through_gemini_route) == _summary(from_genai)
    assert _text(through_gemini_route) == _text(from_genai)
    assert from_genai.stopped and through_gemini_route.stopped and through_gemini_route.warnings == []
    reason = GEMINI_FINISH_REASONS[str(from_genai.stop_reason)]
    assert through_gemini_route.stop_reason == (
        "tool_calls" if from_genai.calls and reason == "stop" else reason
    )
    # What the Gemini API said about malformed calls is not in LiteLLM's chunks at all.
    assert through_gemini_route.stop_message is None and not through_gemini_route.refused
    assert not any("Malformed function call" in chunk.model_dump_json() for chunk in chunks)


@pytest.mark.parametrize("name", GEMINI_NAMES)
def test_the_gemini_route_gives_what_google_genai_gives(name: str) -> None:
    _compare_with_google_genai(name)


@pytest.mark.parametrize(("seed", "sizes"), [(1, (1, 1)), (2, (1, 5)), (3, (40, 200))])
def test_the_gemini_route_gives_what_google_genai_gives_in_any_fragmentation(
    seed: int, sizes: tuple[int, int]
) -> None:
    for name in ("parallel_calls", "max_tokens", "nested_arguments", "invalid_json"):
        _compare_with_google_genai(name, seed=seed, fragment_sizes=sizes)


def _wire(server: StandInServer, request: RecordedRequest) -> tooljson.TurnReader:
    """A reader fed the ``data:`` lines the stand-in answers ``request`` with, as dicts: all the wire said."""
    sent = urllib.request.Request(
        server.base_url + request.path,
        data=json.dumps(request.body).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(sent) as answer:
        decoder = SSEDecoder()
        events = decoder.feed(answer.read()) + decoder.close()
    return _read([json.loads(data) for _, data in events])


def test_malformed_calls_through_the_gemini_route_read_as_a_turn_that_ended_without_calls() -> None:
    from_genai = _client("gemini", "invalid_json")
    with StandInServer(get_scenario("invalid_json")) as server:
        through_gemini_route = _read(list(litellm.completion(**_arguments("gemini", server, "invalid_json"))))
        (request,) = server.requests
        from_the_wire = _wire(server, request)
    # How the route asks: the Gemini API's path under api_base, server-sent events, the key in a header.
    assert request.path == "/v1beta/models/stand-in:streamGenerateContent?alt=sse"
    assert request.headers["x-goog-api-key"] == "stand-in"
    # The Gemini API's answer names the broken calls in its finishMessage: read from the wire, tooljson
    # keeps it.
    assert from_the_wire.refused and from_the_wire.calls == []
    assert from_the_wire.stop_message == (
        f"Malformed function call: save_record {BROKEN_ESCAPE_INPUT}\nsave_record {TRAILING_OBJECT_INPUT}"
    )
    # The Gemini API sends no part of a malformed call: google-genai's reader has no call either, but
    # it knows the turn was refused. The broken text, in the stream's finishMessage, is not in
    # google-genai's chunks: its Gemini API reader copies no finishMessage into its Candidate.
    assert (
        from_genai.calls == [] and from_genai.refused and from_genai.stop_reason == "MALFORMED_FUNCTION_CALL"
    )
    assert from_genai.stop_message is None
    # Through LiteLLM the same turn is a plain end of turn with its text and nothing else: no call to
    # parse strictly, no refusal, no finish message.
    assert through_gemini_route.calls == [] and through_gemini_route.blocks == []
    assert through_gemini_route.stop_reason == "stop" and not through_gemini_route.refused
    assert through_gemini_route.content == [{"role": "assistant", "content": "Saving both records."}]


def test_a_call_cut_off_at_the_limit_reaches_neither_reader_and_a_larger_limit_completes_it() -> None:
    scenario = get_scenario("max_tokens")
    from_genai = _client("gemini", "max_tokens")
    assert from_genai.calls == [] and from_genai.blocks == [] and from_genai.stop_reason == "MAX_TOKENS"
    with StandInServer(scenario) as server:
        messages: list[dict[str, Any]] = [{"role": "user", "content": scenario.prompt}]
        first = _turn(server, "gemini", "max_tokens", messages)
        # The Gemini API sends a whole call or none: the cut-off call is not there to be truncated. The
        # stop reason says the limit was hit, and LiteLLM asked once (it does not continue the output).
        assert first.calls == [] and first.blocks == [] and first.stop_reason == "length"
        assert _text(first) == _text(from_genai) == "I'll save that as a note."
        assert len(server.requests) == 1
        resent = litellm.completion(
            **{**_arguments("gemini", server, "max_tokens", messages), "max_tokens": MAX_TOKENS_NEEDED}
        )
        second = _read(list(resent))
        assert server.requests[-1].body["generationConfig"]["max_output_tokens"] == MAX_TOKENS_NEEDED
        assert server.failures == []
    (call,) = second.calls
    assert (call.name, second.state(call), second.stop_reason) == ("write_note", "complete", "tool_calls")
    assert_same_json(call.input, json.loads(NOTE_INPUT))


# parallel_calls's first request answered with one whole call and the output limit inside the second.
CUT_AFTER_A_CALL = Scenario(
    name="cut_after_a_call",
    description="One whole call, then the output limit inside a second call.",
    prompt=get_scenario("parallel_calls").prompt,
    tools=get_scenario("parallel_calls").tools,
    respond=lambda body, turn: Reply(
        blocks=(
            Text("Checking both."),
            ToolUse("get_weather", PARIS_INPUT),
            ToolUse("get_weather", SAO_PAULO_INPUT[:20]),
        ),
        stop_reason="max_tokens",
    ),
)


def test_a_turn_cut_off_after_a_whole_call_reads_as_finished_through_the_gemini_route() -> None:
    with StandInServer(CUT_AFTER_A_CALL) as server:
        with closing(gemini.open_client(server.base_url, vertex=False)) as client:
            request = gemini.first_request(CUT_AFTER_A_CALL, model="stand-in", stream_arguments=False)
            from_genai = _read(list(gemini.stream_events(client, request)))
        through_gemini_route = _read(
            list(litellm.completion(**_arguments("gemini", server, "parallel_calls")))
        )
        assert server.failures == []
    # The API sends the whole call and leaves out the one the limit cut, finishReason MAX_TOKENS on the
    # call's chunk: google-genai's reader says the output was cut off.
    paris = json.loads(PARIS_INPUT)
    assert (
        _summary(through_gemini_route)
        == _summary(from_genai)
        == [("get_weather", json.dumps(paris), paris, "complete")]
    )
    assert from_genai.stop_reason == "MAX_TOKENS"
    # LiteLLM puts "tool_calls" before the Gemini reason when the chunk has a call: the turn reads as
    # one that ended with its calls, and nothing says a second call was cut off.
    assert through_gemini_route.stop_reason == "tool_calls"


def _turn(
    server: StandInServer, route: str, name: str, messages: list[dict[str, Any]]
) -> tooljson.TurnReader:
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
    assert [(block["type"], block["tool_use_id"]) for block in sent] == [
        ("tool_result", call.id) for call in first.calls
    ]
    assert all("is_error" not in block for block in sent)
    assert [json.loads(block["content"]) for block in sent] == [
        {"INVALID_JSON": call.raw_json} for call in first.calls
    ]
    assert second.calls == []
    assert second.content[0]["content"].startswith('Results received: {"INVALID_JSON"')


def _response(part: dict[str, Any]) -> Any:
    """A ``functionResponse`` part's ``response``, as either client writes the part's name."""
    return (part.get("functionResponse") or part["function_response"])["response"]


def _through_google_genai(name: str, answer: Any) -> tuple[list[Any], str]:
    """The scenario's two turns through google-genai on the Gemini API, ``answer(call)`` giving each
    call's result part: the ``response`` of each part the stand-in received, and the closing text."""
    scenario = get_scenario(name)
    request = gemini.first_request(scenario, model="stand-in", stream_arguments=False)
    with (
        StandInServer(scenario) as server,
        closing(gemini.open_client(server.base_url, vertex=False)) as client,
    ):
        first = _read(list(gemini.stream_events(client, request)))
        parts = [answer(call) for call in first.calls]
        following = {
            **request,
            "contents": [*request["contents"], *first.content, {"role": "user", "parts": parts}],
        }
        text = "".join(chunk.text or "" for chunk in gemini.stream_events(client, following))
        sent = server.requests[-1].body["contents"][-1]["parts"]
        assert server.failures == []
    return [_response(part) for part in sent], text


def _through_the_gemini_route(name: str, answer: Any) -> tuple[list[Any], str]:
    """The same two turns through LiteLLM's gemini/ route, ``answer(call)`` giving each call's tool message."""
    scenario = get_scenario(name)
    with StandInServer(scenario) as server:
        messages: list[dict[str, Any]] = [{"role": "user", "content": scenario.prompt}]
        first = _turn(server, "gemini", name, messages)
        results = [answer(call) for call in first.calls]
        assert [result["tool_call_id"] for result in results] == [call.id for call in first.calls]
        messages += [*first.content, *results]
        last = _turn(server, "gemini", name, messages)
        *_, model_turn, results_turn = server.requests[-1].body["contents"]
        assert server.failures == []
    # LiteLLM names the calls it read with ids of its own (the Gemini API sent none) and sends them
    # back on both the calls and their responses, which the API pairs by them.
    calls = [part["function_call"] for part in model_turn["parts"] if "function_call" in part]
    assert [(call["name"], call["id"]) for call in calls] == [(call.name, call.id) for call in first.calls]
    assert [part["function_response"]["id"] for part in results_turn["parts"]] == [
        call.id for call in first.calls
    ]
    assert last.calls == [] and last.stop_reason == "stop"
    return [_response(part) for part in results_turn["parts"]], _text(last)


WEATHER = {"Paris": {"city": "Paris", "sky": "clear"}, "São Paulo": {"city": "São Paulo", "sky": "clear"}}


def test_results_go_back_through_the_gemini_route_as_the_api_takes_them() -> None:
    def weather(call: tooljson.ToolCall) -> dict[str, Any]:
        return success_result(call, WEATHER[call.input["city"]])

    genai_sent, genai_text = _through_google_genai("parallel_calls", weather)
    sent, text = _through_the_gemini_route("parallel_calls", weather)
    # tooljson's Gemini results wrap a value in "output"; LiteLLM parses the tool message's JSON text
    # and sends the object itself. Either is a result the model reads as the same value.
    assert genai_sent == [{"output": WEATHER["Paris"]}, {"output": WEATHER["São Paulo"]}]
    assert sent == [WEATHER["Paris"], WEATHER["São Paulo"]]
    assert (
        text
        == genai_text
        == 'Results received: {"city": "Paris", "sky": "clear"} | {"city": "São Paulo", "sky": "clear"}'
    )


def test_invalid_json_results_reach_the_model_through_the_gemini_route_as_they_do_from_google_genai() -> None:
    # A call of this route is never malformed (the API sends none); the result is the convention's shape.
    genai_sent, genai_text = _through_google_genai("parallel_calls", tooljson.invalid_json_result)
    sent, text = _through_the_gemini_route("parallel_calls", tooljson.invalid_json_result)
    # The API sends arguments as an object: both readers' text is that object written out again.
    raw = [
        json.dumps(json.loads(scripted), ensure_ascii=False) for scripted in (PARIS_INPUT, SAO_PAULO_INPUT)
    ]
    assert sent == genai_sent == [{"INVALID_JSON": written} for written in raw]
    assert text == genai_text and text.startswith('Results received: error: {"INVALID_JSON"')


def test_error_results_lose_their_error_mark_through_the_gemini_route() -> None:
    def failed(call: tooljson.ToolCall) -> dict[str, Any]:
        return tooljson.results.handler_error_result(call, LookupError("no such tool"))

    genai_sent, genai_text = _through_google_genai("unknown_tool", failed)
    sent, text = _through_the_gemini_route("unknown_tool", failed)
    assert genai_sent == [{"error": "The tool raised LookupError: no such tool"}]
    assert (
        genai_text
        == "I can't look up stock prices with the tools available (The tool raised LookupError: no such tool)."
    )
    # The tool message has no error flag, and LiteLLM wraps text that is not JSON as {"content": ...}:
    # the model is told the call succeeded with that text.
    assert sent == [{"content": "The tool raised LookupError: no such tool"}]
    assert text.startswith("UNEXPECTED: a call to a tool that was not offered needs an is_error result")
