"""What is Gemini's own in the stand-in's Gemini wire, read by the real google-genai client on the
Gemini API and on Vertex AI (with and without streamed arguments).

Every scenario the stand-in plays for Gemini is streamed through ``client.models`` and
``client.aio.models`` on the three ways in. The calls are rebuilt from the chunks the SDK yields by a
small joiner written here (RFC 9535 paths of names and indices, string pieces concatenated while
``willContinue``), independent of the stand-in's own code, and compared type for type with
``json.loads`` of the scripted argument texts. The stand-in's ``partialArgs`` and JSON paths are
checked for any object and every prefix of one; errors and refused requests (per route, ``v1beta``
and ``v1beta1``) raise the SDK's own exceptions; the results sent back are paired as the API pairs
them. End to end, tooljson's reader, results, proxy, recordings and command line run on this wire.

The behaviours every source shares run over the registry in tests/test_sources_shared.py, Gemini's
among them (its proxy relay is checked there for one scenario on Vertex with streamed arguments, its
record and replay for five scenarios); the proxy and record-replay tests here go further.
"""

from __future__ import annotations

import asyncio
import json
import re
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import closing
from typing import Any

import aiohttp
import httpx
import httpx2
import pytest
from google.genai import errors, types
from helpers import assert_same_json
from hypothesis import given, settings
from hypothesis import strategies as st
from tooljson.providers.gemini import wire as gemini
from tooljson.standin import StandInServer, get_scenario, scenarios_for
from tooljson.standin.reply import ToolUse
from tooljson.standin.scenario import Scenario

# The three ways in: the Gemini API, Vertex AI with whole calls, Vertex AI with streamed arguments.
MODES = ("gemini", "vertex", "streamed")
FAULTY = ("stream_error", "connection_drop")
CASES = [(mode, name) for mode in MODES for name in scenarios_for("gemini") if name not in FAULTY]
# google-genai's async client subclasses aiohttp's ClientSession, which aiohttp warns against.
SDK_SESSION_WARNING = pytest.mark.filterwarnings(
    "ignore:Inheritance class AiohttpClientSession:DeprecationWarning"
)


# ---------------------------------------------------------------------------------------------------
# A reference joiner for the chunks, written from the API's description alone

_STEP = re.compile(r"\.([^.\[]+)|\[(\d+)\]|\['((?:[^'\\]|\\.)*)'\]")
_UNESCAPE = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "'": "'", "\\": "\\", "/": "/"}


def _steps(path: str) -> list[str | int]:
    """An RFC 9535 path of names and indices as its steps."""
    assert path.startswith("$"), path
    steps: list[str | int] = []
    position = 1
    while position < len(path):
        match = _STEP.match(path, position)
        assert match is not None, f"not a path of names and indices: {path!r} at {position}"
        name, index, quoted = match.groups()
        if index is not None:
            steps.append(int(index))
        elif name is not None:
            steps.append(name)
        else:
            steps.append(
                re.sub(
                    r"\\u([0-9a-fA-F]{4})|\\(.)",
                    lambda m: chr(int(m.group(1), 16)) if m.group(1) else _UNESCAPE[m.group(2)],
                    quoted,
                )
            )
        position = match.end()
    return steps


def _place(root: dict[str, Any], steps: list[str | int], value: Any, *, append: bool) -> None:
    container: Any = root
    for step, following in zip(steps, steps[1:]):
        fresh: Any = [] if isinstance(following, int) else {}
        if isinstance(step, int):
            assert step <= len(container), f"index {step} skips ahead of {len(container)}"
            if step == len(container):
                container.append(fresh)
        elif step not in container:
            container[step] = fresh
        container = container[step]
    last = steps[-1]
    if isinstance(last, int) and last == len(container):
        container.append(value)
    elif append:
        container[last] += value
    else:
        container[last] = value


class JoinedCall:
    """A call as the chunks told it: name, id, arguments, whether it ended."""

    def __init__(self, name: str, call_id: str | None, arguments: dict[str, Any], ended: bool) -> None:
        self.name, self.id, self.arguments, self.ended = name, call_id, arguments, ended
        self.open_string: str | None = None


def join(chunks: list[dict[str, Any]]) -> list[JoinedCall]:
    """The calls of a stream's chunks (camelCase dicts), whole or streamed."""
    calls: list[JoinedCall] = []
    streaming: JoinedCall | None = None
    for chunk in chunks:
        for candidate in chunk.get("candidates", []):
            for part in (candidate.get("content") or {}).get("parts", []):
                call = part.get("functionCall")
                if call is None:
                    continue
                if streaming is None and "args" in call:
                    calls.append(JoinedCall(call["name"], call.get("id"), call["args"], True))
                    continue
                if streaming is None:
                    assert call.get("name") and call.get("willContinue") is True, call
                    streaming = JoinedCall(call["name"], call.get("id"), {}, False)
                    calls.append(streaming)
                    continue
                assert "name" not in call and "id" not in call, call
                for entry in call.get("partialArgs", []):
                    value = next(
                        entry[key]
                        for key in ("stringValue", "numberValue", "boolValue", "nullValue")
                        if key in entry
                    )
                    if "nullValue" in entry:
                        value = None
                    path = entry["jsonPath"]
                    _place(streaming.arguments, _steps(path), value, append=streaming.open_string == path)
                    streaming.open_string = path if entry.get("willContinue") else None
                if not call.get("willContinue"):
                    assert streaming.open_string is None, "a call ended inside a string"
                    streaming.ended = True
                    streaming = None
    return calls


# ---------------------------------------------------------------------------------------------------
# Streaming through the SDK


def _client(server: StandInServer, mode: str) -> Any:
    return gemini.open_client(server.base_url, vertex=mode != "gemini")


def _request(scenario: Scenario, mode: str) -> dict[str, Any]:
    return gemini.first_request(scenario, stream_arguments=mode == "streamed")


def _stream(mode: str, name: str, **server_options: Any) -> list[types.GenerateContentResponse]:
    scenario = get_scenario(name)
    with StandInServer(scenario, **server_options) as server:
        client = _client(server, mode)
        with closing(client):
            chunks = list(gemini.stream_events(client, _request(scenario, mode)))
        assert server.failures == []
    return chunks


async def _astream(mode: str, name: str, **server_options: Any) -> list[types.GenerateContentResponse]:
    scenario = get_scenario(name)
    async with StandInServer(scenario, **server_options) as server:
        client = _client(server, mode)
        try:
            stream = await client.aio.models.generate_content_stream(**_request(scenario, mode))
            chunks = [chunk async for chunk in stream]
        finally:
            await client.aio.aclose()
            client.close()
        assert server.failures == []
    return chunks


def _scripted(name: str) -> tuple[list[ToolUse], str]:
    scenario = get_scenario(name)
    reply = scenario.respond(scenario.first_request(), 0)
    return [block for block in reply.blocks if isinstance(block, ToolUse)], reply.stop_reason


def _numbers_as_doubles(value: Any) -> Any:
    """A JSON value with every number a float, as the wire's doubles arrive."""
    if isinstance(value, dict):
        return {key: _numbers_as_doubles(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_numbers_as_doubles(item) for item in value]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return value


def _check(mode: str, name: str, chunks: list[types.GenerateContentResponse]) -> list[JoinedCall]:
    dicts = [gemini.as_dict(chunk) for chunk in chunks]
    assert dicts and all(
        chunk["responseId"] == dicts[0]["responseId"] and chunk["modelVersion"] == gemini.DEFAULT_MODEL
        for chunk in dicts
    )
    assert [("usageMetadata" in chunk) for chunk in dicts] == [False] * (len(dicts) - 1) + [True]
    reasons = [
        candidate.finish_reason
        for chunk in chunks
        for candidate in chunk.candidates or []
        if candidate.finish_reason
    ]
    calls = join(dicts)
    scripted, stop = _scripted(name)
    texts = [block.input_text for block in scripted]
    if name == "invalid_json":
        assert reasons == [types.FinishReason.MALFORMED_FUNCTION_CALL] and calls == []
        message = dicts[-1]["candidates"][0].get("finishMessage")
        # The SDK keeps finishMessage on Vertex only: its Gemini API reader drops the field.
        assert message == (
            None
            if mode == "gemini"
            else "Malformed function call: " + "\n".join(f"save_record {text}" for text in texts)
        )
        return calls
    assert reasons == [types.FinishReason.MAX_TOKENS if stop == "max_tokens" else types.FinishReason.STOP]
    if stop == "max_tokens" and mode != "streamed":
        # A whole call cut off at the limit is not sent at all.
        scripted, texts = scripted[:-1], texts[:-1]
    assert [call.name for call in calls] == [block.name for block in scripted]
    for call, text in zip(calls, texts):
        assert (call.id is None) == (mode == "gemini")
        if call.ended:
            expected = json.loads(text) if text else {}
            assert_same_json(
                call.arguments, _numbers_as_doubles(expected) if mode == "streamed" else expected
            )
    assert [call.ended for call in calls] == [
        not (stop == "max_tokens" and number == len(calls) - 1) for number in range(len(calls))
    ]
    if stop == "max_tokens" and mode == "streamed":
        _check_prefix(calls[-1].arguments, json.loads(_full_text(name)))
    return calls


def _full_text(name: str) -> str:
    scenario = get_scenario(name)
    return next(
        block.input_text
        for block in scenario.respond({**scenario.first_request(), "max_tokens": 10**6}, 0).blocks
        if isinstance(block, ToolUse)
    )


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _leaves(item, (*path, index))
    else:
        yield path, value


def _check_prefix(partial: dict[str, Any], whole: dict[str, Any]) -> int:
    """``partial``'s leaves are the first of ``whole``'s, in order, equal but for the last, which may
    be a string still being written; returns how many there are."""
    got, wanted = list(_leaves(_numbers_as_doubles(partial))), list(_leaves(_numbers_as_doubles(whole)))
    assert [path for path, _ in got] == [path for path, _ in wanted[: len(got)]]
    for (_, value), (_, full) in zip(got[:-1], wanted):
        assert_same_json(value, full)
    if got:
        value, full = got[-1][1], wanted[len(got) - 1][1]
        if isinstance(full, str):
            assert isinstance(value, str) and full.startswith(value)
        else:
            assert_same_json(value, full)
    return len(got)


@pytest.mark.parametrize(("mode", "name"), CASES)
def test_every_scenario_through_the_sdk_gives_the_scripted_arguments(mode: str, name: str) -> None:
    _check(mode, name, _stream(mode, name))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("seed", "sizes"), [(1, (1, 1)), (2, (1, 5)), (3, (40, 200))])
def test_seeded_fragmentations(mode: str, seed: int, sizes: tuple[int, int]) -> None:
    for name in ("parallel_calls", "max_tokens", "nested_arguments"):
        _check(mode, name, _stream(mode, name, seed=seed, fragment_sizes=sizes))


@SDK_SESSION_WARNING
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", ["parallel_calls", "nested_arguments", "max_tokens", "invalid_json"])
def test_the_async_client_reads_the_same_chunks(mode: str, name: str) -> None:
    chunks = asyncio.run(_astream(mode, name))
    _check(mode, name, chunks)
    assert [gemini.as_dict(chunk) for chunk in chunks] == [
        gemini.as_dict(chunk) for chunk in _stream(mode, name)
    ]


def test_streamed_arguments_use_every_value_kind_and_bracketed_names() -> None:
    dicts = [
        gemini.as_dict(chunk) for chunk in _stream("streamed", "nested_arguments", fragment_sizes=(1, 4))
    ]
    entries = [
        entry
        for chunk in dicts
        for part in chunk["candidates"][0].get("content", {}).get("parts", [])
        for entry in part.get("functionCall", {}).get("partialArgs", [])
    ]
    kinds = {key for entry in entries for key in entry if key.endswith("Value")}
    assert kinds == {"stringValue", "numberValue", "boolValue", "nullValue"}
    paths = {entry["jsonPath"] for entry in entries}
    assert {
        "$.items[1].tags[2]",
        "$.matrix[1][1][0]",
        "$['gift wrap']",
        "$['path.with.dots']",
        "$.order.customer.address.city",
    } <= paths
    # Long strings arrive in many pieces, every piece but the last of each string marked to continue.
    pieces = [entry for entry in entries if entry["jsonPath"] == "$.instructions"]
    assert len(pieces) > 100 and [entry.get("willContinue") for entry in pieces] == [True] * (
        len(pieces) - 1
    ) + [None]


# ---------------------------------------------------------------------------------------------------
# partialArgs for any JSON object, and for every prefix of one

_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**53), 2**53),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(),
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, min_size=1, max_size=4), st.dictionaries(st.text(), inner, min_size=1, max_size=4)
    ),
    max_leaves=20,
)
_OBJECTS = st.dictionaries(st.text(), _VALUES, min_size=1, max_size=5)


def _joined_entries(entries: list[dict[str, Any]]) -> JoinedCall:
    opening = {"functionCall": {"name": "f", "willContinue": True}}
    parts = [opening, {"functionCall": {"partialArgs": entries, "willContinue": True}}]
    return join([{"candidates": [{"content": {"parts": parts}}]}])[0]


@settings(max_examples=300)
@given(_OBJECTS, st.integers(0, 2**32), st.tuples(st.integers(1, 6), st.integers(0, 6)))
def test_partial_args_of_any_object_join_to_it(
    value: dict[str, Any], seed: int, sizes: tuple[int, int]
) -> None:
    import random

    text = json.dumps(value, ensure_ascii=seed % 2 == 0)
    entries = gemini.partial_args(text, random.Random(seed), (sizes[0], sizes[0] + sizes[1]))
    assert_same_json(
        _numbers_as_doubles(_joined_entries(entries).arguments), _numbers_as_doubles(json.loads(text))
    )


# Every prefix of each text is rendered: fewer examples keep it to seconds.
@settings(max_examples=40)
@given(_OBJECTS, st.integers(0, 2**32))
def test_partial_args_of_every_prefix_are_a_prefix_of_the_values(value: dict[str, Any], seed: int) -> None:
    import random

    text = json.dumps(value, ensure_ascii=seed % 2 == 0)
    seen = 0
    for cut in range(1, len(text) + 1):
        entries = gemini.partial_args(text[:cut], random.Random(seed), (1, 3))
        count = _check_prefix(_joined_entries(entries).arguments, json.loads(text))
        assert count >= seen
        seen = count
    assert seen == len(list(_leaves(value)))


@given(st.text())
def test_json_paths_name_every_key(key: str) -> None:
    assert _steps(gemini.json_path((key, 3, "x"))) == [key, 3, "x"]


def test_json_paths_use_shorthands_where_rfc_9535_allows() -> None:
    assert gemini.json_path(("items", 0, "x")) == "$.items[0].x"
    assert gemini.json_path(("naïve", "_a1")) == "$.naïve._a1"
    assert (
        gemini.json_path(("gift wrap", "a.b", "1st", "it's", "\\\n"))
        == "$['gift wrap']['a.b']['1st']['it\\'s']['\\\\\\n']"
    )


def test_an_empty_object_or_array_cannot_be_streamed() -> None:
    import random

    for text in ('{"a": {}}', '{"a": [1, []]}'):
        with pytest.raises(gemini.UnstreamableArguments, match="empty object or array"):
            gemini.partial_args(text, random.Random(0), (1, 4))


# ---------------------------------------------------------------------------------------------------
# Broken streams and refused requests raise the SDK's exceptions


@pytest.mark.parametrize("mode", MODES)
def test_an_error_chunk_raises_server_error_after_the_chunks_before_it(mode: str) -> None:
    scenario = get_scenario("stream_error")
    with StandInServer(scenario) as server, closing(_client(server, mode)) as client:
        chunks: list[Any] = []
        with pytest.raises(errors.ServerError) as raised:
            chunks += gemini.stream_events(client, _request(scenario, mode))
    assert (raised.value.code, raised.value.status, raised.value.message) == (
        503,
        "UNAVAILABLE",
        "Overloaded",
    )
    assert gemini.error_event(raised.value) == {
        "error": {"code": 503, "message": "Overloaded", "status": "UNAVAILABLE"}
    }


def _chunks_until_error(client: Any, request: dict[str, Any]) -> tuple[list[Any], BaseException]:
    chunks: list[Any] = []
    try:
        for chunk in gemini.stream_events(client, request):
            chunks.append(chunk)
    except Exception as error:  # noqa: BLE001 - the test looks at which one
        return chunks, error
    raise AssertionError("the stream did not break")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", FAULTY)
def test_a_broken_stream_keeps_the_chunks_before_the_break(mode: str, name: str) -> None:
    scenario = get_scenario(name)
    with StandInServer(scenario, fragment_sizes=(1, 3)) as server, closing(_client(server, mode)) as client:
        chunks, error = _chunks_until_error(client, _request(scenario, mode))
    # google-genai reads with httpx up to 2.x and with httpx2 from 3.0 on.
    dropped = (httpx.RemoteProtocolError, httpx2.RemoteProtocolError)
    assert isinstance(error, errors.ServerError if name == "stream_error" else dropped)
    if name == "connection_drop":
        assert gemini.error_event(error) is None
    else:
        assert gemini.error_event(error) == {
            "error": {"code": 503, "message": "Overloaded", "status": "UNAVAILABLE"}
        }
    dicts = [gemini.as_dict(chunk) for chunk in chunks]
    text = "".join(
        part.get("text", "") for chunk in dicts for part in chunk["candidates"][0]["content"]["parts"]
    )
    assert text == "Checking the weather."
    calls = join(dicts)
    if mode != "streamed":
        assert calls == []  # a whole call is never half sent
        return
    from tooljson.standin.scenarios.answers import FAULT_AFTER_CHARS, FAULT_INPUT

    (call,) = calls
    assert not call.ended and call.arguments["city"] == "Reykjav"
    assert FAULT_INPUT[:FAULT_AFTER_CHARS].endswith("Reykjav\\u0")


@SDK_SESSION_WARNING
def test_the_async_client_raises_for_broken_streams() -> None:
    async def broken(name: str) -> BaseException:
        scenario = get_scenario(name)
        async with StandInServer(scenario) as server:
            client = _client(server, "streamed")
            try:
                stream = await client.aio.models.generate_content_stream(**_request(scenario, "streamed"))
                async for _ in stream:
                    pass
            except Exception as error:  # noqa: BLE001 - the test looks at which one
                return error
            finally:
                await client.aio.aclose()
                client.close()
        raise AssertionError("the stream did not break")

    assert isinstance(asyncio.run(broken("stream_error")), errors.ServerError)
    assert isinstance(asyncio.run(broken("connection_drop")), aiohttp.ClientPayloadError)


def _post(server: StandInServer, path: str, body: Any) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(
        server.base_url + path,
        data=json.dumps(body).encode(),
        method="POST",
        headers={"Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, {"body": answer.read().decode()}
    except urllib.error.HTTPError as refused:
        with refused:
            return refused.code, json.loads(refused.read())


_GEMINI_PATH = "/v1beta/models/gemini-3-pro-preview:streamGenerateContent?alt=sse"
_VERTEX_PATH = "/v1beta1/publishers/google/models/gemini-3-pro-preview:streamGenerateContent?alt=sse"
_USER = {"role": "user", "parts": [{"text": "hi"}]}
_CALL_TURN = {
    "role": "model",
    "parts": [{"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}}],
}


@pytest.mark.parametrize(
    ("path", "body", "message"),
    [
        (_GEMINI_PATH, [], "must be a JSON object"),
        (_GEMINI_PATH, {"contents": []}, "contents: at least one content"),
        (_GEMINI_PATH, {"contents": [{"role": "system", "parts": [{"text": "x"}]}]}, "valid role"),
        (_GEMINI_PATH, {"contents": [{"role": "user", "parts": [{"inlineData": {}}]}]}, "parts[0]"),
        (
            _GEMINI_PATH,
            {"contents": [_USER], "generationConfig": {"maxOutputTokens": 0}},
            "max_output_tokens",
        ),
        (_GEMINI_PATH, {"contents": [_USER], "tools": [{"googleSearch": {}}]}, "functionDeclarations"),
        (
            _GEMINI_PATH,
            {
                "contents": [_USER],
                "toolConfig": {"functionCallingConfig": {"streamFunctionCallArguments": True}},
            },
            'Unknown name "streamFunctionCallArguments"',
        ),
        (
            _GEMINI_PATH,
            {
                "contents": [_USER],
                "tool_config": {"function_calling_config": {"stream_function_call_arguments": True}},
            },
            "Unknown name",
        ),
        (
            _VERTEX_PATH,
            {"contents": [_USER, _CALL_TURN, _USER]},
            "function call turn comes immediately before",
        ),
        (
            _VERTEX_PATH,
            {
                "contents": [
                    {"role": "user", "parts": [{"functionResponse": {"name": "get_weather", "response": {}}}]}
                ]
            },
            "comes immediately after a function call turn",
        ),
        (
            _VERTEX_PATH,
            {
                "contents": [
                    _USER,
                    _CALL_TURN,
                    {
                        "role": "user",
                        "parts": [
                            {"functionResponse": {"name": "get_weather", "response": {}}},
                            {"functionResponse": {"name": "get_weather", "response": {}}},
                        ],
                    },
                ]
            },
            "number of function response parts (2)",
        ),
        (
            _VERTEX_PATH,
            {
                "contents": [
                    _USER,
                    _CALL_TURN,
                    {"role": "user", "parts": [{"functionResponse": {"name": "other", "response": {}}}]},
                ]
            },
            "no function call named 'other'",
        ),
    ],
)
def test_refused_requests_get_a_400_in_the_apis_error_shape(path: str, body: Any, message: str) -> None:
    with StandInServer("parallel_calls") as server:
        status, answer = _post(server, path, body)
        assert server.failures == []
    assert status == 400
    assert set(answer) == {"error"} and (answer["error"]["code"], answer["error"]["status"]) == (
        400,
        "INVALID_ARGUMENT",
    )
    assert message in answer["error"]["message"]


@pytest.mark.parametrize("mode", MODES)
def test_the_sdk_raises_client_error_for_a_refused_request(mode: str) -> None:
    scenario = get_scenario("parallel_calls")
    request = _request(scenario, mode)
    # A response with no call before it.
    request["contents"] = [
        {
            "role": "user",
            "parts": [{"function_response": {"name": "get_weather", "response": {"output": "x"}}}],
        }
    ]
    with StandInServer(scenario) as server, closing(_client(server, mode)) as client:
        with pytest.raises(errors.ClientError) as raised:
            list(gemini.stream_events(client, request))
        assert len(server.requests) == 1  # no retry
    assert (raised.value.code, raised.value.status) == (400, "INVALID_ARGUMENT")
    assert "function response turn comes immediately after a function call turn" in str(raised.value.message)


@pytest.mark.parametrize("mode", MODES)
def test_a_failing_scenario_is_a_server_error_asked_once(mode: str) -> None:
    def fail(body: dict[str, Any], turn: int) -> Any:
        raise RuntimeError("the script broke")

    scenario = Scenario(name="broken", description="", prompt="hi", tools=[], respond=fail)
    with StandInServer(scenario) as server, closing(_client(server, mode)) as client:
        with pytest.raises(errors.ServerError) as raised:
            list(gemini.stream_events(client, _request(scenario, mode)))
        # 500 is one of the statuses the SDK retries when told to: the stand-in's clients are not.
        assert len(server.requests) == 1 and len(server.failures) == 1
    assert (raised.value.code, raised.value.status) == (500, "INTERNAL")


def test_the_sdk_itself_refuses_streamed_arguments_on_the_gemini_api() -> None:
    scenario = get_scenario("parallel_calls")
    with StandInServer(scenario) as server, closing(_client(server, "gemini")) as client:
        with pytest.raises(ValueError, match="stream_function_call_arguments"):
            list(gemini.stream_events(client, _request(scenario, "streamed")))
        assert server.requests == []


# ---------------------------------------------------------------------------------------------------
# Results sent back through the SDK are paired with their calls


def _model_turn(calls: list[JoinedCall]) -> dict[str, Any]:
    parts = []
    for call in calls:
        function_call: dict[str, Any] = {"name": call.name, "args": call.arguments}
        if call.id is not None:
            function_call["id"] = call.id
        parts.append({"function_call": function_call})
    return {"role": "model", "parts": parts}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("with_ids", [True, False])
def test_results_are_paired_by_id_or_by_name_and_order(mode: str, with_ids: bool) -> None:
    scenario = get_scenario("parallel_calls")
    request = _request(scenario, mode)
    with StandInServer(scenario) as server, closing(_client(server, mode)) as client:
        calls = join([gemini.as_dict(chunk) for chunk in gemini.stream_events(client, request)])
        assert [call.arguments["city"] for call in calls] == ["Paris", "São Paulo"]
        answers = [
            {"name": call.name, "response": {"output": f"sunny in {call.arguments['city']}"}}
            for call in calls
        ]
        if with_ids and mode != "gemini":
            # With ids, the order of the responses does not matter.
            answers = [{**answer, "id": call.id} for answer, call in reversed(list(zip(answers, calls)))]
        following = {
            **request,
            "contents": [
                *request["contents"],
                _model_turn(calls),
                {"role": "user", "parts": [{"function_response": answer} for answer in answers]},
            ],
        }
        closing_chunks = [gemini.as_dict(chunk) for chunk in gemini.stream_events(client, following)]
        assert server.failures == []
    text = "".join(
        part["text"] for chunk in closing_chunks for part in chunk["candidates"][0]["content"]["parts"]
    )
    assert text == "Results received: sunny in Paris | sunny in São Paulo"


@pytest.mark.parametrize("mode", MODES)
def test_error_results_and_the_invalid_json_convention_are_understood(mode: str) -> None:
    scenario = get_scenario("unknown_tool")
    request = _request(scenario, mode)
    with StandInServer(scenario) as server, closing(_client(server, mode)) as client:
        (call,) = join([gemini.as_dict(chunk) for chunk in gemini.stream_events(client, request)])
        assert call.name == "get_stock_price" and call.arguments == {"symbol": "ACME"}
        answer = {"name": call.name, "response": {"error": "no such tool; available: get_weather"}}
        following = {
            **request,
            "contents": [
                *request["contents"],
                _model_turn([call]),
                {"role": "user", "parts": [{"function_response": answer}]},
            ],
        }
        chunks = [gemini.as_dict(chunk) for chunk in gemini.stream_events(client, following)]
    text = "".join(part["text"] for chunk in chunks for part in chunk["candidates"][0]["content"]["parts"])
    assert (
        text
        == "I can't look up stock prices with the tools available (no such tool; available: get_weather)."
    )


def test_openapi_parameters_and_camel_case_fields_are_read() -> None:
    # The tools a request offers decide the unknown tool's name: one named get_stock_price is offered.
    body = {
        "contents": [_USER],
        "tools": [
            {
                "functionDeclarations": [
                    {
                        "name": "get_stock_price",
                        "parameters": {"type": "OBJECT", "properties": {"symbol": {"type": "STRING"}}},
                    }
                ]
            }
        ],
        "generationConfig": {"maxOutputTokens": 100},
        "toolConfig": {"functionCallingConfig": {"streamFunctionCallArguments": True}},
    }
    with StandInServer("unknown_tool") as server:
        status, answer = _post(server, _VERTEX_PATH, body)
    assert status == 200
    chunks = [json.loads(line[len("data: ") :]) for line in answer["body"].split("\r\n\r\n") if line]
    (call,) = join(chunks)
    assert call.name == "get_stock_price_v2" and call.arguments == {"symbol": "ACME"}


# ---------------------------------------------------------------------------------------------------
# End to end: tooljson's Gemini reader, the proxy, recordings and the command line on this wire


def _read(chunks: list[Any]) -> Any:
    import tooljson

    reader = tooljson.TurnReader()
    for chunk in chunks:
        reader.feed(chunk)
    return reader


def _broken(mode: str, name: str) -> tuple[list[Any], BaseException]:
    scenario = get_scenario(name)
    with StandInServer(scenario) as server, closing(_client(server, mode)) as client:
        return _chunks_until_error(client, _request(scenario, mode))


@pytest.mark.parametrize(
    ("mode", "name"), [(mode, name) for mode in MODES for name in scenarios_for("gemini")]
)
def test_a_turn_reader_fed_the_sdks_chunks_gives_the_scripted_inputs_and_verdicts(
    mode: str, name: str
) -> None:
    if name in FAULTY:
        chunks, error = _broken(mode, name)
    else:
        chunks, error = _stream(mode, name), None
    dicts = [gemini.as_dict(chunk) for chunk in chunks]
    joined = join(dicts)
    for source in (chunks, dicts):
        reader = _read(source)
        if error is not None:
            reader.interrupt(str(error), error)
            assert not reader.stopped and reader.calls == []
            # The call the break fell into (streamed arguments only: whole calls are never half sent).
            assert [(block.name, reader.state(block)) for block in reader.blocks] == (
                [("get_weather", "interrupted")] if mode == "streamed" else []
            )
            continue
        scripted, stop = _scripted(name)
        if name == "invalid_json":
            scripted = []
        elif stop == "max_tokens" and mode != "streamed":
            scripted = scripted[:-1]  # a whole call cut off at the limit is not sent
        assert reader.stopped
        assert reader.stop_reason == {"max_tokens": "MAX_TOKENS"}.get(
            stop, "MALFORMED_FUNCTION_CALL" if name == "invalid_json" else "STOP"
        )
        assert (
            [call.name for call in reader.calls]
            == [call.name for call in joined]
            == [block.name for block in scripted]
        )
        if mode == "gemini":
            assert all(call.id.startswith("gemini-") for call in reader.calls)  # minted: the wire has none
        else:
            assert [call.id for call in reader.calls] == [call.id for call in joined]
        for call, wire, block in zip(reader.calls, joined, scripted):
            if wire.ended:
                assert reader.state(call) == "complete"
                expected = json.loads(block.input_text or "{}")
                # Streamed numbers are doubles on the wire; whole arguments keep the JSON's own types.
                if mode == "streamed":
                    assert_same_json(_numbers_as_doubles(call.input), _numbers_as_doubles(expected))
                else:
                    assert_same_json(call.input, expected)
            else:
                assert reader.state(call) == "truncated"
                _check_prefix(call.preview, json.loads(_full_text(name)))
        assert len(reader.calls) == len(joined)


def _answered(mode: str, name: str, answer: Any) -> str:
    """The closing text after tooljson's reader and results answer the scenario's first turn."""
    scenario = get_scenario(name)
    request = _request(scenario, mode)
    with StandInServer(scenario) as server, closing(_client(server, mode)) as client:
        reader = _read(list(gemini.stream_events(client, request)))
        results = [answer(call) for call in reader.calls]
        following = {
            **request,
            "contents": [*request["contents"], *reader.content, {"role": "user", "parts": results}],
        }
        text = "".join(chunk.text or "" for chunk in gemini.stream_events(client, following))
        assert server.failures == []
    return text


@pytest.mark.parametrize("mode", MODES)
def test_the_readers_content_and_tooljsons_results_are_taken_by_the_api(mode: str) -> None:
    from tooljson.results import handler_error_result, success_result

    weather = _answered(
        mode,
        "parallel_calls",
        lambda call: success_result(call, {"city": call.input["city"], "sky": "clear"}),
    )
    assert weather == (
        'Results received: {"city": "Paris", "sky": "clear"} | {"city": "São Paulo", "sky": "clear"}'
    )
    refused = _answered(
        mode, "unknown_tool", lambda call: handler_error_result(call, LookupError("no such tool"))
    )
    assert (
        refused
        == "I can't look up stock prices with the tools available (The tool raised LookupError: no such tool)."
    )


# Beyond the shared relay test: both APIs, three scenarios, and the SDK's own client through the proxy.
@pytest.mark.parametrize("mode", ["gemini", "streamed"])
@pytest.mark.parametrize("name", ["parallel_calls", "max_tokens", "nested_arguments"])
def test_the_proxy_relays_a_gemini_stream_byte_for_byte_and_reads_it(mode: str, name: str) -> None:
    from tooljson.proxy.serve import ProxyServer

    scenario = get_scenario(name)
    request = _request(scenario, mode)
    with StandInServer(scenario) as upstream, ProxyServer(upstream.base_url) as proxy:
        with closing(_client(upstream, mode)) as client:
            direct = [gemini.as_dict(chunk) for chunk in gemini.stream_events(client, request)]
        sent = upstream.requests[-1]
        bodies = []
        for base in (upstream.base_url, proxy.url):
            post = urllib.request.Request(
                base + sent.path,
                data=json.dumps(sent.body).encode(),
                method="POST",
                headers={"Content-Type": "application/json", "x-goog-api-key": "stand-in"},
            )
            with urllib.request.urlopen(post, timeout=30) as answer:
                bodies.append(answer.read())
        assert bodies[0] == bodies[1] and bodies[0].startswith(b"data: {")
        proxied_client = gemini.open_client(proxy.url, vertex=mode != "gemini")
        with closing(proxied_client):
            assert [
                gemini.as_dict(chunk) for chunk in gemini.stream_events(proxied_client, request)
            ] == direct
        proxy.settle()
        proxy.run.update()
        statuses = [(call.name, call.status) for call in proxy.run.calls]
    expected = [(call.name, "complete" if call.ended else "truncated") for call in join(direct)]
    # The raw request and the SDK's both went through the proxy.
    assert statuses == expected * 2


def _summary(calls: list[Any]) -> list[tuple[Any, ...]]:
    return [
        (c.id, c.name, c.status, c.position, None if c.status == "interrupted" else c.message, c.value)
        for c in calls
    ]


# Beyond the shared record-replay test: every scenario Gemini plays, and which of them make calls.
def test_record_then_replay_gives_the_same_calls_for_every_scenario(tmp_path: Any) -> None:
    from tooljson.demo.runs import run_provider_scenario
    from tooljson.ui.model import RunView
    from tooljson.ui.playback import play_events
    from tooljson.ui.recording import load_events, write_events

    for name in scenarios_for("gemini"):
        events: list[dict[str, Any]] = []
        recorded = RunView()
        run_provider_scenario("gemini", name, recorded, on_raw_event=events.append)
        path = tmp_path / f"gemini-{name}.jsonl"
        with path.open("w", encoding="utf-8") as out:
            write_events(events, out)
        replayed = RunView()
        play_events(load_events(path), replayed)
        assert _summary(replayed.calls) == _summary(recorded.calls), name
        assert replayed.final_text == recorded.final_text, name
        assert (replayed.failure is None) == (recorded.failure is None) == (name not in FAULTY), name
        assert bool(recorded.calls) == (name != "invalid_json"), name


def test_record_command_then_replay_command(tmp_path: Any) -> None:
    import subprocess
    import sys

    path = tmp_path / "gemini.jsonl"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "tooljson",
            "record",
            "--provider",
            "gemini",
            "--scenario",
            "max_tokens",
            "-o",
            str(path),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "recorded" in done.stdout and "truncated at position" in done.stdout
    assert all("candidates" in json.loads(line) for line in path.read_text(encoding="utf-8").splitlines())
    done = subprocess.run(
        [sys.executable, "-m", "tooljson", "replay", str(path), "--plain"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "calls: write_note truncated at position" in done.stdout and "(MAX_TOKENS)" in done.stdout


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ('{"candidates": 3}', "chunk.candidates must be list, not int"),
        ('{"candidates": [{"finishReason": 7}]}', "chunk.candidates[0].finishReason must be str"),
        (
            '{"candidates": [{"content": {"parts": [{"functionCall": {"name": "f", "args": [1]}}]}}]}',
            "functionCall.args must be dict",
        ),
        (
            '{"candidates": [{"content": {"parts": [{"functionCall": {"partialArgs": [{"jsonPath": 5}]}}]}}]}',
            "partialArgs[0].jsonPath must be str",
        ),
    ],
)
def test_a_bad_gemini_chunk_in_a_recording_names_its_line(line: str, says: str) -> None:
    from tooljson.ui.recording import RecordingError, parse_events

    good = '{"candidates": [{"content": {"role": "model", "parts": [{"text": "hi"}]}, "index": 0}], "responseId": "r"}'
    with pytest.raises(RecordingError) as caught:
        parse_events([good, good, line], source="gemini.jsonl")
    assert caught.value.line == 3 and says in caught.value.problem


def test_demo_with_gemini_shows_its_scenarios_and_their_verdicts(capsys: pytest.CaptureFixture[str]) -> None:
    from tooljson import cli
    from tooljson.demo.runs import demo_scenarios

    assert cli.main(["demo", "--provider", "gemini", "--plain"]) == 0
    out = capsys.readouterr().out
    titles = [line[3:] for line in out.splitlines() if line.startswith("== ")]
    assert titles == [f"{name} (gemini client, stand-in)" for name in demo_scenarios("gemini")]
    assert "write_note truncated at position" in out and "stop_reason MALFORMED_FUNCTION_CALL" in out
    # The refusal and what the model said with it (Vertex keeps finishMessage).
    assert 'no valid call (MALFORMED_FUNCTION_CALL): "Malformed function call: save_record' in out
    assert "place_order complete" in out


@settings(max_examples=100)
@given(
    st.integers(0, 2**32),
    st.tuples(st.integers(1, 8), st.integers(0, 40)),
    st.sampled_from(["nested_arguments", "max_tokens"]),
)
def test_any_seed_and_cut_of_streamed_arguments_reads_as_the_script(
    seed: int, sizes: tuple[int, int], name: str
) -> None:
    import random

    import tooljson

    scenario = get_scenario(name)
    body = {
        "contents": [{"role": "user", "parts": [{"text": scenario.prompt}]}],
        "toolConfig": {"functionCallingConfig": {"streamFunctionCallArguments": True}},
    }
    reply = scenario.respond(scenario.first_request(), 0)
    stream = gemini.render(
        reply,
        rng=random.Random(seed),
        body=body,
        model="m",
        vertex=True,
        fragment_sizes=(sizes[0], sizes[0] + sizes[1]),
    )
    reader = tooljson.TurnReader()
    for event in stream.events:
        reader.feed(event)
    (call,) = reader.calls
    (scripted,) = [block for block in reply.blocks if isinstance(block, ToolUse)]
    if reply.stop_reason == "max_tokens":
        assert reader.state(call) == "truncated"
        _check_prefix(call.preview, json.loads(_full_text(name)))
    else:
        # The wire's dicts keep the script's own number types: the arguments are exactly json.loads'.
        assert reader.state(call) == "complete"
        assert_same_json(call.input, json.loads(scripted.input_text))
