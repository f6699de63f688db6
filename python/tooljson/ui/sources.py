"""Where a run comes from: the tool loop against the stand-in or the real API, another API's client
against the stand-in, or a recording.

Every driver feeds :class:`~tooljson.turn.TurnReader` s (the loop makes its own, a replay makes one
per recorded response), hands each to a :class:`~tooljson.ui.model.RunView`, and calls
``on_change(view)`` after each event, which is where a view decides whether to draw. ``speed`` paces stream events so that a person
can follow them (events per second; 0 plays at full speed). ``stop``, when set from another thread,
ends the run at the next event.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from tooljson.errors import MalformedEvent
from tooljson.extras import LOOP_MODULES, require
from tooljson.logs import redirected_logs
from tooljson.providers import Provider
from tooljson.turn import TurnReader, describe_break
from tooljson.ui.model import RunView
from tooljson.ui.recording import Recording

__all__ = [
    "Cancelled",
    "MissingAPIKey",
    "Pacer",
    "LogToView",
    "demo_handlers",
    "ignore_change",
    "pacer_for",
    "play_events",
    "run_live",
    "run_provider_scenario",
    "run_scenario",
]

OnChange = Callable[[RunView], None]
RawEventSink = Callable[[dict[str, Any]], None]
Handlers = Mapping[str, Callable[[Any], Any]]


class Cancelled(Exception):
    """The run was stopped from outside (a browser tab closed, say)."""


class MissingAPIKey(RuntimeError):
    """``--live`` was asked for without ``ANTHROPIC_API_KEY``."""

    def __init__(self) -> None:
        super().__init__(
            "--live talks to the Messages API and needs ANTHROPIC_API_KEY in the environment; "
            "leave out --live to use the local stand-in server."
        )


class Pacer:
    """Spaces events ``1 / speed`` seconds apart, measured from the start so that slow frames
    do not add up into drift. ``speed <= 0`` never waits."""

    def __init__(self, speed: float) -> None:
        self.interval = 0.0
        self._next = time.perf_counter()
        self.set_speed(speed)

    def set_speed(self, speed: float) -> None:
        """Change the pace from now on (from any thread: the next wait reads it)."""
        self.interval = 1.0 / speed if speed > 0 else 0.0
        self._next = time.perf_counter()

    def wait(self, stop: threading.Event | None = None) -> None:
        """Until the next event is due; ``stop`` being set ends the wait at once."""
        if not self.interval:
            return
        self._next += self.interval
        delay = self._next - time.perf_counter()
        if delay > 0:
            if stop is None:
                time.sleep(delay)
            else:
                stop.wait(delay)
        else:
            # Behind schedule (a slow frame, a slow network): catch up without bursting later.
            self._next = time.perf_counter()


def ignore_change(_: RunView) -> None:
    """The ``on_change`` of a run nobody draws."""
    return None


def pacer_for(speed: float | Pacer) -> Pacer:
    # A Pacer given by the caller lets it change the pace while the run goes on.
    return speed if isinstance(speed, Pacer) else Pacer(speed)


def play_events(
    events: Recording | Iterable[dict[str, Any]],
    view: RunView,
    *,
    speed: float | Pacer = 0.0,
    on_change: OnChange = ignore_change,
    stop: threading.Event | None = None,
    on_warning: Callable[[str], None] | None = None,
) -> None:
    """Replay recorded events, one :class:`TurnReader` per response (each starts at its
    ``message_start``, or the event that opens a response of another provider), then close the view.

    Each oddity a reader tolerates becomes a warning line naming where it is (``"FILE, line N:
    warning: ..."`` for a :class:`Recording`, ``"event N: ..."`` otherwise): it goes to the view's log
    and to ``on_warning``. An event the reader cannot read raises
    :class:`~tooljson.MalformedEvent`, its message naming where it is too.
    """
    pacer = pacer_for(speed)
    recording = events if isinstance(events, Recording) else None
    played: Iterable[dict[str, Any]] = events.events if isinstance(events, Recording) else events
    reader: TurnReader | None = None
    for position, event in enumerate(played):
        if stop is not None and stop.is_set():
            raise Cancelled
        if event.get("type") != "ping":
            pacer.wait(stop)
        if reader is None or reader.begins_another(event):
            reader = TurnReader(number=view.turn + 1, timing=True)
            view.add_turn(reader)
        warned = len(reader.warnings)
        where = recording.where(position) if recording is not None else f"event {position + 1}"
        try:
            reader.feed(event)
        except MalformedEvent as error:
            raise MalformedEvent(f"{where}: {error.problem}") from error
        for warning in reader.warnings[warned:]:
            line = f"{where}: warning: {warning}"
            view.log.append(line)
            if on_warning is not None:
                on_warning(line)
        view.update()
        on_change(view)
    view.finish()
    on_change(view)


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


class LogToView(logging.Handler):
    """Puts the library's log lines (repairs, rejections, retries) in the view's log, where the
    views show them, instead of letting them cross a live display on stderr."""

    def __init__(self, view: RunView) -> None:
        super().__init__(logging.INFO)
        self.view = view

    def emit(self, record: logging.LogRecord) -> None:
        self.view.update()
        line = record.getMessage().replace("\n", " ")
        self.view.log.append(f"log {record.levelname.lower()}: {line[:300]}")


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

    from tooljson.standin import StandInServer, get_scenario

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

    from tooljson.standin import get_scenario

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
    from tooljson.standin import StandInServer, get_scenario, scenarios_for
    from tooljson.standin.clients import as_dict, error_event, first_request, open_client, stream_events

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
        except Exception as error:  # noqa: BLE001 - the SDKs' own exceptions for a broken stream (see standin.clients)
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
