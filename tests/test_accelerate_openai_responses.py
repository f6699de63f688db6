"""accelerate(openai client).responses.stream(...) against the SDK's own helper, and the SDK's
Responses tool runner, over the stand-in with the real client.

The same request goes to ``responses.stream`` of the plain client and of the accelerated copy; the
stand-in answers both with the same events. They must yield the same event classes in the same
order with the same fields and the same final response (the SDK's own parsing of strict tools'
arguments); a strict tool's malformed arguments make the SDK's helper raise at
``response.completed``, while the accelerated stream completes with ``parsed_arguments`` None, the
verdict and one warning.

The SDK's ``ResponsesToolRunner`` is not accelerated by an accelerated client: it asks for
``responses.create(stream=True)`` and builds the SDK's ``ResponseStream`` itself, never calling
``responses.stream``. The last test shows it: the runner on an accelerated client opens no
accelerated stream and does what it does on the plain client.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import anyio
import openai
import pydantic
import pytest
import tooljson
from helpers import assert_same_json
from openai.lib._tools import pydantic_responses_function_tool
from openai.lib.responses_tool_runner import RegisteredFunction, ResponsesToolRunner
from openai.lib.streaming.responses import AsyncResponseStream, ResponseStream
from tooljson.acceleration import AcceleratedOpenAIStream, openai_streams
from tooljson.standin import StandInServer, get_scenario
from tooljson.standin.clients import first_request

# scenario, strict tools, what the SDK's helper raises (or None), the verdicts of the calls
CASES = {
    "parallel_strict": ("parallel_calls", True, None, ["complete", "complete"]),
    "parallel_loose": ("parallel_calls", False, None, ["complete", "complete"]),
    "whole_arguments": ("whole_arguments", True, None, ["complete", "complete"]),
    "large_file_write": ("large_file_write", True, None, ["complete"]),
    "max_output_tokens": ("max_tokens", True, RuntimeError, ["truncated"]),
    "malformed_strict": ("invalid_json", True, json.JSONDecodeError, ["malformed", "malformed"]),
    "malformed_loose": ("invalid_json", False, None, ["malformed", "malformed"]),
}


def _request(scenario: str, strict: bool) -> dict[str, Any]:
    request = first_request(get_scenario(scenario), "responses")
    for tool in request["tools"]:
        if tool["type"] == "function" and strict:
            tool["strict"] = True
    return request


def _fields(event: Any) -> dict[str, Any]:
    return (
        event.model_dump(warnings=False)
        if event.type in ("response.created", "response.completed")
        else dict(vars(event))
    )


def _consume(manager: Any) -> tuple[Any, list[Any], list[dict[str, Any]], Any, BaseException | None]:
    events: list[Any] = []
    fields: list[dict[str, Any]] = []
    stream = final = error = None
    try:
        with manager as stream:
            for event in stream:
                events.append(event)
                fields.append(_fields(event))
            final = stream.get_final_response()
    except Exception as caught:  # noqa: BLE001 - what the helper raised is compared
        error = caught
    return stream, events, fields, final, error


async def _aconsume(manager: Any) -> tuple[Any, list[Any], list[dict[str, Any]], Any, BaseException | None]:
    events: list[Any] = []
    fields: list[dict[str, Any]] = []
    stream = final = error = None
    try:
        async with manager as stream:
            async for event in stream:
                events.append(event)
                fields.append(_fields(event))
            final = await stream.get_final_response()
    except Exception as caught:  # noqa: BLE001 - what the helper raised is compared
        error = caught
    return stream, events, fields, final, error


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize("name", list(CASES))
def test_responses_stream_matches_the_sdk_helper(
    name: str, asynchronous: bool, caplog: pytest.LogCaptureFixture
) -> None:
    scenario, strict, sdk_raises, verdicts = CASES[name]
    request = _request(scenario, strict)
    with caplog.at_level(logging.WARNING, logger="tooljson"), StandInServer(scenario, seed=0) as server:
        url = server.base_url + "/v1"
        if asynchronous:

            async def main() -> tuple[Any, Any]:
                async with openai.AsyncOpenAI(base_url=url, api_key="k", max_retries=0) as client:
                    fast = tooljson.accelerate(client)
                    return (
                        await _aconsume(client.responses.stream(**request)),
                        await _aconsume(fast.responses.stream(**request)),
                    )

            sdk, ours = anyio.run(main)
        else:
            with openai.OpenAI(base_url=url, api_key="k", max_retries=0) as client:
                fast = tooljson.accelerate(client)
                sdk, ours = (
                    _consume(client.responses.stream(**request)),
                    _consume(fast.responses.stream(**request)),
                )
    (sdk_stream, sdk_events, sdk_fields, sdk_final, sdk_error) = sdk
    (stream, events, fields, final, error) = ours
    assert isinstance(stream, AcceleratedOpenAIStream)
    assert isinstance(stream, AsyncResponseStream if asynchronous else ResponseStream)
    assert type(sdk_error) is (sdk_raises or type(None)), sdk_error
    malformed_strict = sdk_raises is json.JSONDecodeError
    if malformed_strict:
        # The SDK's helper raised at response.completed; the accelerated one completes.
        assert error is None, error
        events, fields = events[: len(sdk_events)], fields[: len(sdk_fields)]
        assert all(item.parsed_arguments is None for item in final.output if item.type == "function_call")
    else:
        assert type(error) is type(sdk_error)
        assert final == sdk_final
    assert [type(event) for event in events] == [type(event) for event in sdk_events]
    assert fields == sdk_fields
    assert [stream.turn.state(call) for call in stream.tool_calls] == verdicts
    if strict and sdk_final is not None:
        for item in sdk_final.output:
            if item.type == "function_call":
                assert_same_json(item.parsed_arguments, json.loads(item.arguments))
    warnings = [record for record in caplog.records if record.name == "tooljson"]
    assert len(warnings) == verdicts.count("malformed") + verdicts.count("truncated")


class get_weather(pydantic.BaseModel):  # noqa: N801 - the tool's name, as the model sees it
    city: str
    unit: str = "celsius"


def _run_runner(client: Any) -> tuple[str, list[Any], int]:
    tool = pydantic_responses_function_tool(get_weather)
    executed: list[Any] = []

    def execute(arguments: get_weather) -> str:
        executed.append(arguments)
        return f"20 degrees in {arguments.city}"

    runner = ResponsesToolRunner(functions=[RegisteredFunction.from_tool(tool, execute=execute)])
    events: list[Any] = []
    response = runner.run(
        client,
        {"model": "m", "input": "Weather in Paris and São Paulo?"},
        stream=True,
        on_event=events.append,
        max_steps=4,
    )
    return response.output_text, executed, len(events)


def test_the_sdk_tool_runner_is_not_accelerated(monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[Any] = []
    original = openai_streams.AcceleratedResponseStream.__init__

    def counting(self: Any, **kwargs: Any) -> None:
        opened.append(self)
        original(self, **kwargs)

    monkeypatch.setattr(openai_streams.AcceleratedResponseStream, "__init__", counting)
    with StandInServer("parallel_calls", seed=0) as server:
        with openai.OpenAI(base_url=server.base_url + "/v1", api_key="k", max_retries=0) as client:
            fast = tooljson.accelerate(client)
            plain_run = _run_runner(client)
            fast_run = _run_runner(fast)
            # The accelerated client's own responses.stream does open one: the counter counts.
            with fast.responses.stream(**_request("parallel_calls", True)) as stream:
                stream.until_done()
    assert fast_run == plain_run
    assert [call.city for call in fast_run[1]] == ["Paris", "São Paulo"]
    assert len(opened) == 1 and opened[0] is stream
