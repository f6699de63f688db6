"""Driving the SDK's streaming tool runner over the stand-in, and recording what it did.

The tools are the scenario's own definitions (``input_schema`` as the stand-in offers it) made
runnable with the SDK's ``beta_tool`` / ``beta_async_tool``: each records the input it ran with and
how many events the reader had been given when it ran (``run_tools_eagerly`` runs a call mid-stream).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import anthropic
from anthropic import beta_async_tool, beta_tool
from helper_streams import StreamRun, aconsume, consume
from tooljson.standin import Scenario, get_scenario


@dataclass
class ToolRan:
    name: str
    input: dict[str, Any]
    # How many events of the current stream the reader had received when the tool ran.
    events_seen: int


@dataclass
class RunnerRun:
    """Every stream a runner yielded (consumed to the end), the tools that ran, the run's error."""

    streams: list[StreamRun] = field(default_factory=list)
    ran: list[ToolRan] = field(default_factory=list)
    error: BaseException | None = None
    runner: Any = None

    def events_seen(self) -> int:
        return len(self.streams[-1].events) if self.streams else 0


def runnable_tools(scenario: str, run: RunnerRun, *, asynchronous: bool = False) -> list[Any]:
    """The scenario's tools, function tools made runnable; server tools stay definitions."""
    return runnable_tools_for(get_scenario(scenario), run, asynchronous=asynchronous)


def runnable_tools_for(scenario: Scenario, run: RunnerRun, *, asynchronous: bool = False) -> list[Any]:
    """:func:`runnable_tools` for a :class:`~tooljson.standin.Scenario` object."""
    tools: list[Any] = []
    for spec in scenario.tools:
        if "input_schema" not in spec:
            tools.append(dict(spec))
            continue
        name = spec["name"]
        options = {
            "name": name,
            "description": spec.get("description", name),
            "input_schema": spec["input_schema"],
        }
        if asynchronous:
            tools.append(beta_async_tool(_async_recorder(name, run), **options))
        else:
            tools.append(beta_tool(_recorder(name, run), **options))
    return tools


def _recorder(name: str, run: RunnerRun) -> Any:
    def tool(**arguments: Any) -> str:
        run.ran.append(ToolRan(name, arguments, run.events_seen()))
        return f"{name} ran with {sorted(arguments)}"

    return tool


def _async_recorder(name: str, run: RunnerRun) -> Any:
    async def tool(**arguments: Any) -> str:
        run.ran.append(ToolRan(name, arguments, run.events_seen()))
        return f"{name} ran with {sorted(arguments)}"

    return tool


def runner_request(
    scenario: str, run: RunnerRun, *, asynchronous: bool = False, **overrides: Any
) -> dict[str, Any]:
    request = get_scenario(scenario).first_request()
    request["tools"] = runnable_tools(scenario, run, asynchronous=asynchronous)
    request.update(overrides)
    return request


def drive(client: anthropic.Anthropic, scenario: str, *, eager: bool = False, **overrides: Any) -> RunnerRun:
    """Run ``client.beta.messages.tool_runner(stream=True)`` on the scenario, reading every stream."""
    run = RunnerRun()
    request = runner_request(scenario, run, **overrides)
    try:
        run.runner = client.beta.messages.tool_runner(
            **request, stream=True, run_tools_eagerly=eager, max_iterations=6
        )
        for stream in run.runner:
            run.streams.append(StreamRun(stream=stream))
            _reraise(consume(stream, run.streams[-1]))
    except Exception as error:  # noqa: BLE001 - recorded: each test says which errors it expects
        run.error = error
    return run


async def adrive(
    client: anthropic.AsyncAnthropic, scenario: str, *, eager: bool = False, **overrides: Any
) -> RunnerRun:
    """:func:`drive` for ``AsyncAnthropic``."""
    run = RunnerRun()
    request = runner_request(scenario, run, asynchronous=True, **overrides)
    try:
        run.runner = client.beta.messages.tool_runner(
            **request, stream=True, run_tools_eagerly=eager, max_iterations=6
        )
        async for stream in run.runner:
            run.streams.append(StreamRun(stream=stream))
            _reraise(await aconsume(stream, run.streams[-1]))
    except Exception as error:  # noqa: BLE001 - recorded for the comparison
        run.error = error
    return run


def _reraise(taken: StreamRun) -> None:
    """A stream's error ends the run, as it would end a loop that does not catch it."""
    if taken.error is not None:
        raise taken.error


def tool_results(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The ``tool_result`` blocks a request sends in its messages (a thread sends only the new ones)."""
    return [
        block
        for message in body["messages"]
        if message["role"] == "user" and isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]
