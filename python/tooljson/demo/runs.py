"""Scenario runs: a stand-in scenario played into a view, through the tool loop or an API's own client.

:func:`run_scenario` runs the tool loop on a scenario served by the stand-in on loopback;
:func:`run_live` runs it with a scenario's tools and prompt against the real Messages API;
:func:`run_provider_scenario` streams a scenario's first request through another API's real client.
Each feeds :class:`~tooljson.turn.TurnReader` s into a :class:`~tooljson.ui.model.RunView` the way
:func:`tooljson.ui.playback.play_events` does for a recording. :func:`scenario_offers` are the
scenarios the browser view may run.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from tooljson.extras import LOOP_MODULES, require
from tooljson.logs import redirected_logs
from tooljson.providers import Provider
from tooljson.standin import SCENARIOS, StandInServer, get_scenario, scenarios_for
from tooljson.standin.clients import as_dict, error_event, first_request, open_client, stream_events
from tooljson.turn import TurnReader, describe_break
from tooljson.ui.model import RunView
from tooljson.ui.playback import Cancelled, LogToView, OnChange, Pacer, ignore_change, pacer_for
from tooljson.ui.web import RunContext, RunOffer

__all__ = [
    "MissingAPIKey",
    "demo_handlers",
    "demo_scenarios",
    "run_live",
    "run_provider_scenario",
    "run_scenario",
    "scenario_offers",
]

RawEventSink = Callable[[dict[str, Any]], None]
Handlers = Mapping[str, Callable[[Any], Any]]


class MissingAPIKey(RuntimeError):
    """``--live`` was asked for without ``ANTHROPIC_API_KEY``."""

    def __init__(self) -> None:
        super().__init__(
            "--live talks to the Messages API and needs ANTHROPIC_API_KEY in the environment; "
            "leave out --live to use the local stand-in server."
        )


def _arithmetic(expression: str) -> float | int:
    """Numbers and + - * / only: the demo's calculator evaluates nothing else."""
    import ast
    import operator

    operations: dict[type, Callable[[Any, Any], Any]] = {
        ast.Add: operator.add,
        ast.Sub: operator.sub,
        ast.Mult: operator.mul,
        ast.Div: operator.truediv,
    }

    def evaluate(node: ast.AST) -> Any:
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return node.value
        if isinstance(node, ast.BinOp) and type(node.op) in operations:
            return operations[type(node.op)](evaluate(node.left), evaluate(node.right))
        raise ValueError(f"only numbers and + - * / are supported, not {ast.dump(node)}")

    result: float | int = evaluate(ast.parse(expression, mode="eval").body)
    return result


def demo_handlers(tools: Iterable[dict[str, Any]]) -> dict[str, Callable[[Any], Any]]:
    """A handler for every client tool: the weather and the calculator answer, the others report
    what they were given, so results are easy to read."""

    def make(name: str) -> Callable[[Any], str]:
        def handler(value: Any) -> str:
            if name == "get_weather" and isinstance(value, dict):
                return f"{value.get('city')}: 21 °C, clear"
            if name == "calculator" and isinstance(value, dict):
                return str(_arithmetic(str(value.get("expression", ""))))
            return f"{name} done ({len(json.dumps(value))} bytes of input)"

        return handler

    return {tool["name"]: make(tool["name"]) for tool in tools if "input_schema" in tool}


def _run_loop(
    client: Any,
    request: dict[str, Any],
    handlers: Handlers,
    view: RunView,
    *,
    speed: float | Pacer,
    on_change: OnChange,
    stop: threading.Event | None,
    on_raw_event: RawEventSink | None,
) -> None:
    import anthropic

    from tooljson.errors import StreamInterrupted, ToolLoopError, TruncatedToolInput
    from tooljson.loop import LoopEvent, run_tool_loop

    pacer = pacer_for(speed)

    def on_event(event: LoopEvent) -> None:
        if stop is not None and stop.is_set():
            raise Cancelled
        if event.kind == "stream_event":
            if on_raw_event is not None:
                on_raw_event(event.data)
            view.update()
            on_change(view)
            pacer.wait(stop)
            return
        view.loop_event(event)
        on_change(view)

    with redirected_logs(LogToView(view)):
        try:
            result = run_tool_loop(client, handlers=handlers, on_event=on_event, **request)
        except StreamInterrupted as error:
            body = getattr(error.cause, "body", None)
            if isinstance(body, dict) and body.get("type") == "error" and on_raw_event is not None:
                # The error event ends the stream: it belongs to the recording.
                on_raw_event(body)
            view.finish(failure=f"{type(error).__name__}: {error}")
        except (ToolLoopError, TruncatedToolInput, anthropic.APIError) as error:
            # A refused request (a bad key, an overloaded API) ends the run as plainly as a broken stream.
            view.finish(failure=f"{type(error).__name__}: {error}")
        else:
            view.finish(final_text=result.text)
            view.log.append(f"final ({result.stop_reason}, {result.turns} requests): {result.text}")
    on_change(view)


def run_scenario(
    name: str,
    view: RunView,
    *,
    speed: float | Pacer = 0.0,
    on_change: OnChange = ignore_change,
    stop: threading.Event | None = None,
    on_raw_event: RawEventSink | None = None,
    seed: int = 0,
    fragment_sizes: tuple[int, int] = (1, 32),
    handlers: Handlers | None = None,
) -> None:
    """Run the tool loop on a stand-in scenario, served on loopback for the length of the run.

    ``handlers`` answer the tool calls (by default :func:`demo_handlers`)."""
    require("running the tool loop on a stand-in scenario", *LOOP_MODULES)
    import anthropic

    scenario = get_scenario(name)
    with StandInServer(scenario=scenario, fragment_sizes=fragment_sizes, seed=seed) as server:
        with anthropic.Anthropic(base_url=server.base_url, api_key="stand-in", max_retries=0) as client:
            _run_loop(
                client,
                scenario.first_request(),
                demo_handlers(scenario.tools) if handlers is None else handlers,
                view,
                speed=speed,
                on_change=on_change,
                stop=stop,
                on_raw_event=on_raw_event,
            )


def run_live(
    name: str,
    view: RunView,
    *,
    model: str | None = None,
    speed: float | Pacer = 0.0,
    on_change: OnChange = ignore_change,
    stop: threading.Event | None = None,
    on_raw_event: RawEventSink | None = None,
    handlers: Handlers | None = None,
) -> None:
    """Run the tool loop with a scenario's tools and prompt against the real Messages API."""
    require("running the tool loop against the Messages API", *LOOP_MODULES)
    if not os.environ.get("ANTHROPIC_API_KEY"):
        raise MissingAPIKey
    import anthropic

    scenario = get_scenario(name)
    request = scenario.first_request() if model is None else scenario.first_request(model=model)
    with anthropic.Anthropic() as client:
        _run_loop(
            client,
            request,
            demo_handlers(scenario.tools) if handlers is None else handlers,
            view,
            speed=speed,
            on_change=on_change,
            stop=stop,
            on_raw_event=on_raw_event,
        )


def run_provider_scenario(
    provider: Provider,
    name: str,
    view: RunView,
    *,
    speed: float | Pacer = 0.0,
    on_change: OnChange = ignore_change,
    stop: threading.Event | None = None,
    on_raw_event: RawEventSink | None = None,
    seed: int = 0,
    fragment_sizes: tuple[int, int] = (1, 32),
) -> None:
    """Stream a scenario's first request through ``provider``'s real client against the stand-in,
    one :class:`TurnReader` reading what the client yields.

    The tool loop speaks the Messages API only: for the other APIs the run is that one response,
    its calls and their verdicts (the results tooljson would send are in :mod:`tooljson.results`).
    """
    scenario = get_scenario(name)
    if name not in scenarios_for(provider):
        raise ValueError(
            f"scenario {name!r} needs {', '.join(sorted(scenario.needs))}, which {provider!r} does not have"
        )
    pacer = pacer_for(speed)
    reader = TurnReader(number=view.turn + 1, timing=True)
    with StandInServer(scenario=scenario, fragment_sizes=fragment_sizes, seed=seed) as server:
        client = open_client(provider, server.base_url)
        view.add_turn(reader)
        view.log.append(f"request 1 ({provider} client, stand-in)")
        try:
            for event in stream_events(provider, client, first_request(scenario, provider)):
                if stop is not None and stop.is_set():
                    raise Cancelled
                pacer.wait()
                reader.feed(event)
                if on_raw_event is not None:
                    on_raw_event(as_dict(event, provider))
                view.update()
                on_change(view)
        except Cancelled:
            raise
        except Exception as error:  # noqa: BLE001 - the SDKs' own exceptions for a broken stream (standin.clients)
            broken = error_event(provider, error)
            if broken is not None and on_raw_event is not None:
                on_raw_event(broken)
            reader.interrupt(describe_break(error), error)
            view.finish(failure=describe_break(error))
        else:
            view.finish()
        finally:
            close = getattr(client, "close", None)
            if close is not None:
                close()
    on_change(view)


def demo_scenarios(provider: Provider) -> list[str]:
    """What ``demo --provider`` shows for an API other than the Messages API: the common scenarios,
    then those of that API alone."""
    common = ["parallel_calls", "invalid_json", "max_tokens", "whole_arguments"]
    return common + [name for name in scenarios_for(provider) if SCENARIOS[name].needs]


def scenario_offers() -> list[RunOffer]:
    """The scenarios the browser view may run: those the Messages API's tool loop plays."""

    def offer(name: str) -> RunOffer:
        def play(run: RunContext) -> None:
            # The loop's reader reads each event; the page's parts read it too (tooljson.ui.parts).
            run_scenario(
                name,
                run.view,
                speed=run.pacer,
                on_change=run.on_change,
                stop=run.stop,
                on_raw_event=run.parts.tee,
            )

        return RunOffer(
            id=f"scenario:{name}",
            group="Stand-in scenarios",
            name=name,
            description=SCENARIOS[name].description,
            title=f"{name} (stand-in)",
            play=play,
        )

    return [offer(name) for name in scenarios_for("anthropic")]
