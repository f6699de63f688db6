"""accelerate(client) against the SDK's own helper, over the stand-in with the real client.

Every stand-in scenario, under seeded random fragmentations, through ``messages.stream`` and
``beta.messages.stream``, sync and async: the SDK's helper on the original client and the same
request on the accelerated copy must yield the same event classes in the same order, the same raw
events, text, thinking, signature and ``partial_json``, and (for well-formed input) the same
finished blocks and final message. Where they differ by design (a malformed or cut-off input) the
accelerated stream must complete with the right verdicts.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

import anthropic
import anyio
import pytest
import tooljson
from helper_streams import (
    StreamRun,
    aconsume,
    assert_same_events,
    assert_snapshots_grow,
    consume,
    without_tool_inputs,
)
from helpers import assert_same_json, dropped_stream_error
from tooljson.standin import StandInServer, get_scenario, scenarios_for

WELL_FORMED = {
    "parallel_calls",
    "empty_input",
    "schema_mismatch",
    "unknown_tool",
    "pause_turn",
    "thinking",
    "large_file_write",
    "whole_arguments",
}
TRUNCATED = {"max_tokens"}
MALFORMED = {"invalid_json"}
# Valid JSON that the SDK's helper refuses (jiter rejects a lone surrogate escape, json.loads keeps it).
REFUSED_BY_THE_HELPER = {"lone_surrogate"}
BROKEN = {"stream_error": anthropic.APIStatusError, "connection_drop": dropped_stream_error()}

# (fragment sizes, seed): the API's usual cuts, finer ones, and one character per fragment.
FRAGMENTATIONS = [((1, 32), 0), ((1, 32), 1), ((1, 4), 2), ((1, 1), 3)]


def test_the_scenario_lists_cover_the_catalog() -> None:
    assert WELL_FORMED | TRUNCATED | MALFORMED | REFUSED_BY_THE_HELPER | set(BROKEN) == set(
        scenarios_for("anthropic")
    )


def _tool_blocks(run: StreamRun) -> dict[int, tuple[Any, str]]:
    """Each tool block's start and its whole argument text (the partial_json of its deltas)."""
    blocks: dict[int, tuple[Any, list[str]]] = {}
    for event in run.events:
        if event.type == "content_block_start" and event.content_block.type in (
            "tool_use",
            "server_tool_use",
        ):
            blocks[event.index] = (event.content_block, [])
        elif event.type == "content_block_delta" and event.delta.type == "input_json_delta":
            blocks[event.index][1].append(event.delta.partial_json)
    return {index: (start, "".join(parts)) for index, (start, parts) in blocks.items()}


def check(scenario: str, sdk: StreamRun, ours: StreamRun) -> None:
    """What the accelerated stream must share with the SDK's on this scenario, and its verdicts."""
    turn = ours.stream.turn
    blocks = _tool_blocks(ours)
    if scenario in BROKEN:
        assert type(sdk.error) is BROKEN[scenario] and type(ours.error) is BROKEN[scenario]
        assert_same_events(sdk, ours)
        assert [turn.state(block) for block in turn.blocks] == ["interrupted"]
        return
    assert ours.error is None, ours.error
    if scenario in MALFORMED | REFUSED_BY_THE_HELPER:
        # The SDK's helper gives up at the first broken fragment; tooljson reads on.
        assert isinstance(sdk.error, ValueError) and "Unable to parse tool parameter JSON" in str(sdk.error)
        assert_same_events(sdk, ours)
    elif scenario in TRUNCATED:
        assert sdk.error is None
        assert_same_events(sdk, ours, compare_blocks=False)
        assert without_tool_inputs(ours.final) == without_tool_inputs(sdk.final)
    else:
        assert_same_events(sdk, ours)
    final_blocks = ours.final.content
    assert [call.id for call in ours.stream.tool_calls] == [start.id for start, _ in blocks.values()]
    for call in ours.stream.tool_calls:
        start, text = blocks[call.index]
        final_input = final_blocks[call.index].input
        if scenario in WELL_FORMED | REFUSED_BY_THE_HELPER:
            assert turn.state(call) == "complete"
            assert_same_json(final_input, json.loads(text) if text else {})
            assert_snapshots_grow(ours, call.index, final_input, whole_strings=True)
        else:
            assert turn.state(call) == ("truncated" if scenario in TRUNCATED else "malformed")
            assert call.raw_json == text
            # The block keeps the last preview as its input.
            snapshots = ours.block_snapshots(call.index)
            assert_same_json(final_input, snapshots[-1] if snapshots else {})


def _clients(server: StandInServer, async_client: bool) -> tuple[Any, Any]:
    kind = anthropic.AsyncAnthropic if async_client else anthropic.Anthropic
    client = kind(base_url=server.base_url, api_key="stand-in", max_retries=0)
    return client, tooljson.accelerate(client)


def _resource(client: Any, beta: bool) -> Any:
    return client.beta.messages if beta else client.messages


def run_sync(client: Any, beta: bool, request: dict[str, Any]) -> StreamRun:
    try:
        with _resource(client, beta).stream(**request) as stream:
            return consume(stream)
    except Exception as error:  # noqa: BLE001 - raised by close() after a broken stream: the run holds the first error
        run = StreamRun(error=error)
        return run


async def run_async(client: Any, beta: bool, request: dict[str, Any]) -> StreamRun:
    async with _resource(client, beta).stream(**request) as stream:
        return await aconsume(stream)


def _requests(scenario: str) -> dict[str, Any]:
    return get_scenario(scenario).first_request()


def _fragmentations(scenario: str) -> list[Any]:
    if scenario == "large_file_write":
        # The SDK's helper re-parses ~100 KB on every delta: finer cuts take it minutes.
        return [FRAGMENTATIONS[0]]
    return FRAGMENTATIONS


def _betas(scenario: str, async_client: bool) -> tuple[bool, ...]:
    """Both resources; for the ~100 KB input (seconds of SDK re-parsing each), messages in the sync
    test and beta.messages in the async one."""
    if scenario == "large_file_write":
        return (async_client,)
    return (False, True)


CASES = [
    pytest.param(scenario, sizes, seed, id=f"{scenario}-{sizes[0]}to{sizes[1]}-seed{seed}")
    for scenario in scenarios_for("anthropic")
    for sizes, seed in _fragmentations(scenario)
]


@pytest.mark.parametrize(("scenario", "sizes", "seed"), CASES)
def test_same_as_the_sdk_helper_sync(
    scenario: str, sizes: tuple[int, int], seed: int, caplog: pytest.LogCaptureFixture
) -> None:
    request = _requests(scenario)
    with StandInServer(scenario=scenario, fragment_sizes=sizes, seed=seed) as server:
        client, fast = _clients(server, async_client=False)
        with client:
            for beta in _betas(scenario, async_client=False):
                with caplog.at_level(logging.WARNING, logger="tooljson"):
                    caplog.clear()
                    sdk, ours = run_sync(client, beta, request), run_sync(fast, beta, request)
                check(scenario, sdk, ours)
                _check_warnings(scenario, ours, caplog)
        assert not server.failures


@pytest.mark.parametrize(("scenario", "sizes", "seed"), CASES)
def test_same_as_the_sdk_helper_async(
    scenario: str, sizes: tuple[int, int], seed: int, caplog: pytest.LogCaptureFixture
) -> None:
    request = _requests(scenario)

    async def main() -> None:
        async with StandInServer(scenario=scenario, fragment_sizes=sizes, seed=seed) as server:
            client, fast = _clients(server, async_client=True)
            async with client:
                for beta in _betas(scenario, async_client=True):
                    with caplog.at_level(logging.WARNING, logger="tooljson"):
                        caplog.clear()
                        sdk = await _guarded(run_async, client, beta, request)
                        ours = await _guarded(run_async, fast, beta, request)
                    check(scenario, sdk, ours)
                    _check_warnings(scenario, ours, caplog)
            assert not server.failures

    anyio.run(main)


async def _guarded(run: Callable[..., Any], client: Any, beta: bool, request: dict[str, Any]) -> StreamRun:
    try:
        result: StreamRun = await run(client, beta, request)
        return result
    except Exception as error:  # noqa: BLE001 - recorded for the comparison
        return StreamRun(error=error)


def _check_warnings(scenario: str, ours: StreamRun, caplog: pytest.LogCaptureFixture) -> None:
    """One warning per unparsable call, naming it and its verdict; none otherwise."""
    messages = [record.getMessage() for record in caplog.records if record.name == "tooljson"]
    if scenario in TRUNCATED | MALFORMED:
        calls = ours.stream.tool_calls
        assert len(messages) == len(calls)
        verdict = "cut off at max_tokens" if scenario in TRUNCATED else "malformed at position"
        for call, message in zip(calls, messages):
            assert call.id in message and verdict in message
    else:
        assert messages == []
