"""The OpenAI Agents SDK's run stream through tooljson.protocols: argument deltas live, while the SDK
itself gives a call's arguments only once the call is complete (openai-agents-python#834)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

pytest.importorskip("agents")

from agents import Runner
from agents.exceptions import ModelBehaviorError
from helpers import assert_same_json
from test_openai_agents import MODELS, _agent, _client, _server
from tooljson.protocols import ai_sdk

pytest.importorskip("ag_ui")
from tooljson.protocols import ag_ui


def live_parts(
    kind: str, scenario: str, **server_options: Any
) -> tuple[list[tuple[int, dict[str, Any]]], list[Any]]:
    """Each part of a streamed run with how many of the run's events had been read when it came,
    and the events (the run's own, as the SDK yields them)."""
    seen: list[Any] = []

    async def run() -> list[tuple[int, dict[str, Any]]]:
        with _server(scenario, **server_options) as server:
            async with _client(server) as client:
                result = Runner.run_streamed(_agent(kind, scenario, client), "go")

                async def counted() -> Any:
                    async for event in result.stream_events():
                        seen.append(event)
                        yield event

                return [(len(seen), part) async for part in ai_sdk.aparts(counted(), preview_interval=0)]

    return asyncio.run(run()), seen


def _completed_at(events: list[Any]) -> dict[str, int]:
    """For each call id, how many events had come when the SDK said the call was made (its
    ``tool_called`` run item, which carries the whole arguments)."""
    done: dict[str, int] = {}
    for number, event in enumerate(events, 1):
        if getattr(event, "type", None) == "run_item_stream_event" and event.name == "tool_called":
            done.setdefault(event.item.raw_item.call_id, number)
    return done


@pytest.mark.parametrize("kind", MODELS)
def test_argument_deltas_come_before_the_sdk_has_the_call(kind: str) -> None:
    parts, events = live_parts(kind, "parallel_calls", fragment_sizes=(1, 3))
    completed = _completed_at(events)
    assert len(completed) == 2
    for call_id, at in completed.items():
        deltas = [
            (count, p) for count, p in parts if p["type"] == "tool-input-delta" and p["toolCallId"] == call_id
        ]
        assert len(deltas) > 3
        # The first delta was given while the SDK still had only part of the arguments.
        assert deltas[0][0] < at
        (final,) = [p for _, p in parts if p["type"] == "tool-input-available" and p["toolCallId"] == call_id]
        assert_same_json(final["input"], json.loads("".join(p["inputTextDelta"] for _, p in deltas)))
    kinds = [p["type"] for _, p in parts]
    assert kinds[0] == "start" and kinds[-1] == "finish"
    # The run's later responses (the answer after the tools ran) come as text.
    assert "text-delta" in kinds


def test_a_cut_off_call_on_the_responses_model_says_so_before_the_sdk_raises() -> None:
    seen: list[Any] = []

    async def run() -> list[Any]:
        with _server("max_tokens") as server:
            async with _client(server) as client:
                result = Runner.run_streamed(_agent("responses", "max_tokens", client), "go")

                async def counted() -> Any:
                    async for event in result.stream_events():
                        seen.append(event)
                        yield event

                return [event async for event in ag_ui.aevents(counted(), thread_id="t", run_id="r")]

    got = asyncio.run(run())
    verdicts = [e.value for e in got if getattr(e, "name", None) == ag_ui.VERDICT_EVENT]
    assert [v["verdict"] for v in verdicts] == ["truncated"]
    # The SDK then ends the run with ModelBehaviorError: the stream broke, said as RunError.
    assert got[-1].type.value == "RUN_ERROR"
    assert ModelBehaviorError.__name__ in got[-1].message
