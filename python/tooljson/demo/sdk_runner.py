"""A run of the anthropic SDK's own tool runner through :func:`tooljson.accelerate`, for the views.

``client.beta.messages.tool_runner(..., stream=True)`` of an accelerated client against a stand-in
scenario: each stream the runner yields carries its :class:`~tooljson.TurnReader` (``stream.turn``),
which the view follows exactly as it follows the readers of tooljson's own loop. On ``invalid_json``
the view shows both malformed calls answered with ``INVALID_JSON`` (never run) and the run going on
to the model's corrected calls.
"""

from __future__ import annotations

import threading
from typing import Any

from tooljson.demo.runs import demo_handlers
from tooljson.extras import require
from tooljson.logs import redirected_logs
from tooljson.standin import StandInServer, get_scenario
from tooljson.ui.model import RunView
from tooljson.ui.playback import Cancelled, LogToView, OnChange, Pacer, ignore_change, pacer_for

__all__ = ["SDK_RUNNER_SCENARIO", "run_sdk_runner"]

SDK_RUNNER_SCENARIO = "invalid_json"
"""The scenario the demo plays with the SDK's runner: malformed input, answered, and the run goes on."""


def _runnable_tools(scenario_tools: list[dict[str, Any]]) -> list[Any]:
    """The scenario's function tools as the SDK's ``beta_tool`` s (the demo's handlers behind them);
    server tools stay definitions."""
    from anthropic import beta_tool

    handlers = demo_handlers(scenario_tools)
    tools: list[Any] = []
    for spec in scenario_tools:
        handler = handlers.get(spec["name"])
        if handler is None:
            tools.append(dict(spec))
            continue
        function = _taking_keywords(handler)
        tools.append(
            beta_tool(
                function,
                name=spec["name"],
                description=spec.get("description", ""),
                input_schema=spec["input_schema"],
            )
        )
    return tools


def _taking_keywords(handler: Any) -> Any:
    """A demo handler (which takes the input dict) as a function of the input's keywords, the way the
    SDK calls a tool."""

    def function(**arguments: Any) -> Any:
        return handler(arguments)

    return function


def run_sdk_runner(
    name: str,
    view: RunView,
    *,
    speed: float | Pacer = 0.0,
    on_change: OnChange = ignore_change,
    stop: threading.Event | None = None,
    seed: int = 0,
) -> None:
    """Run the SDK's streaming tool runner, accelerated, on a stand-in scenario served on loopback."""
    require("running the SDK's tool runner on a stand-in scenario", "anthropic")
    import anthropic

    import tooljson

    scenario = get_scenario(name)
    pacer = pacer_for(speed)
    request = {**scenario.first_request(), "tools": _runnable_tools(scenario.tools)}
    with StandInServer(scenario=scenario, seed=seed) as server, redirected_logs(LogToView(view)):
        with anthropic.Anthropic(base_url=server.base_url, api_key="stand-in", max_retries=0) as client:
            runner = tooljson.accelerate(client).beta.messages.tool_runner(
                **request, stream=True, max_iterations=8
            )
            try:
                for number, stream in enumerate(runner, start=1):
                    view.log.append(
                        f"request {number}: the SDK's runner (max_tokens={request['max_tokens']})"
                    )
                    stream.turn.number = number
                    view.add_turn(stream.turn)
                    for _ in stream:
                        if stop is not None and stop.is_set():
                            raise Cancelled
                        view.update()
                        on_change(view)
                        pacer.wait(stop)
                final = runner.until_done()
            except (anthropic.APIError, tooljson.TruncatedToolInput) as error:
                view.finish(failure=f"{type(error).__name__}: {error}")
            else:
                text = "".join(block.text for block in final.content if block.type == "text")
                view.finish(final_text=text)
                view.log.append(f"final ({final.stop_reason}): {text}")
    on_change(view)
