"""What each command of ``python -m tooljson`` does (:mod:`tooljson.cli` defines the command line).

The views, the stand-in and the demo's runs are imported by the command that uses them, never before."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time
from collections.abc import Callable, Sequence
from importlib import resources
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from tooljson.cli.arguments import LOOP_PROVIDER, WATCHING_SPEED, cannot_listen
from tooljson.errors import MalformedEvent, MissingExtra

if TYPE_CHECKING:
    from tooljson.ui.model import RunView

__all__ = ["DEFAULT_SCENARIOS", "demo", "proxy", "record", "replay", "standin", "watch", "web"]

DEFAULT_SCENARIOS = ("parallel_calls", "invalid_json", "max_tokens", "schema_mismatch")
"""The scenarios ``demo`` and ``watch`` run through the tool loop unless told others."""
# Scenarios whose stream breaks on purpose: their failure is the expected outcome, not an error.
BROKEN_ON_PURPOSE = frozenset({"stream_error", "connection_drop"})

Run = Callable[["RunView", Callable[["RunView"], None]], None]


def _missing_key() -> int:
    from tooljson.demo.runs import MissingAPIKey

    print(f"error: {MissingAPIKey()}", file=sys.stderr)
    return 2


def _speed(arguments: argparse.Namespace) -> float:
    if arguments.speed is not None:
        return max(0.0, float(arguments.speed))
    on_terminal = not arguments.plain and sys.stdout.isatty()
    return WATCHING_SPEED if on_terminal else 0.0


def _show(title: str, run: Run, arguments: argparse.Namespace, out: IO[str] | None = None) -> RunView:
    """Run ``run`` under the view the arguments ask for; return the finished run."""
    from tooljson.ui.model import RunView
    from tooljson.ui.plain import PlainView

    view = RunView(title=title)
    if arguments.plain:
        plain = PlainView(out)
        print(f"== {title}", file=plain.out)
        with plain:
            run(view, plain.on_change)
            plain.close(view)
        return view
    from rich.console import Console

    from tooljson.ui.terminal import LiveView

    live = LiveView(Console(file=out, highlight=False), fps=arguments.fps)
    with live:
        run(view, live.on_change)
        live.close(view)
    return view


def _provider_problem(names: Sequence[str], arguments: argparse.Namespace) -> str | None:
    """Why the scenarios cannot run for ``--provider`` (each API's stand-in plays its own list)."""
    from tooljson.standin import scenarios_for

    provider = arguments.provider
    if provider != LOOP_PROVIDER and arguments.live:
        return f"--live runs the Messages API only; leave it out to stream the {provider} client against the stand-in"
    played = scenarios_for(provider)
    for name in names:
        if name not in played:
            return f"scenario {name!r} is not played for --provider {provider}; its scenarios: {', '.join(played)}"
    return None


def _scenario_run(name: str, arguments: argparse.Namespace, speed: float) -> Run:
    from tooljson.demo.runs import run_live, run_provider_scenario, run_scenario

    def run(view: RunView, on_change: Callable[[RunView], None]) -> None:
        if arguments.provider != LOOP_PROVIDER:
            seed = getattr(arguments, "seed", 0)
            run_provider_scenario(arguments.provider, name, view, speed=speed, on_change=on_change, seed=seed)
        elif arguments.live:
            run_live(name, view, model=arguments.model, speed=speed, on_change=on_change)
        else:
            run_scenario(name, view, speed=speed, on_change=on_change, seed=getattr(arguments, "seed", 0))

    return run


def _run_scenarios(names: Sequence[str], arguments: argparse.Namespace) -> int:
    problem = _provider_problem(names, arguments)
    if problem is not None:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    if arguments.live and not os.environ.get("ANTHROPIC_API_KEY"):
        return _missing_key()
    speed = _speed(arguments)
    status = 0
    for name in names:
        title = f"{name} ({'live API' if arguments.live else 'stand-in'})"
        if arguments.provider != LOOP_PROVIDER:
            title = f"{name} ({arguments.provider} client, stand-in)"
        view = _show(title, _scenario_run(name, arguments, speed), arguments)
        if view.failure and name not in BROKEN_ON_PURPOSE:
            status = 1
    return status


def _warn(line: str) -> None:
    print(line, file=sys.stderr)


def _replay(path: Path, title: str, arguments: argparse.Namespace) -> int:
    """Play a recording; a bad file fails naming its line, an oddity is a warning naming its line."""
    from tooljson.ui.playback import play_events
    from tooljson.ui.recording import RecordingError, load_recording

    try:
        recording = load_recording(path)
    except RecordingError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"error: cannot read {path}: {error.strerror}", file=sys.stderr)
        return 2
    speed = _speed(arguments)

    def run(view: RunView, on_change: Callable[[RunView], None]) -> None:
        play_events(recording, view, speed=speed, on_change=on_change, on_warning=_warn)

    try:
        _show(title, run, arguments)
    except MalformedEvent as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


def demo(arguments: argparse.Namespace) -> int:
    """The bundled recording replayed, the default scenarios through tooljson's loop, then the SDK's
    own tool runner through ``accelerate`` (or each ``--scenario``); with ``--live``, the scenarios
    against the real API."""
    if arguments.live:
        return _run_scenarios(arguments.scenario or ["parallel_calls"], arguments)
    if arguments.scenario:
        return _run_scenarios(arguments.scenario, arguments)
    if arguments.provider != LOOP_PROVIDER:
        from tooljson.demo.openai_helper import HELPER_PROVIDERS, HELPER_SCENARIOS, show_accelerated_helper
        from tooljson.demo.runs import demo_scenarios

        status = _run_scenarios(demo_scenarios(arguments.provider), arguments)

        if arguments.provider in HELPER_PROVIDERS:
            for name in HELPER_SCENARIOS:
                show_accelerated_helper(arguments.provider, name, sys.stdout)
        return status
    bundled = Path(str(resources.files("tooljson").joinpath("data/demo_stream.jsonl")))
    status = _replay(bundled, "replay of data/demo_stream.jsonl", arguments)
    status = status or _run_scenarios(DEFAULT_SCENARIOS, arguments)
    return status or _sdk_runner(arguments)


def _sdk_runner(arguments: argparse.Namespace) -> int:
    """The SDK's own tool runner through ``tooljson.accelerate``, in the same view."""
    from tooljson.demo.sdk_runner import SDK_RUNNER_SCENARIO, run_sdk_runner

    speed = _speed(arguments)

    def run(view: RunView, on_change: Callable[[RunView], None]) -> None:
        run_sdk_runner(
            SDK_RUNNER_SCENARIO, view, speed=speed, on_change=on_change, seed=getattr(arguments, "seed", 0)
        )

    title = f"{SDK_RUNNER_SCENARIO} (SDK tool_runner, accelerated)"
    return 1 if _show(title, run, arguments).failure else 0


def watch(arguments: argparse.Namespace) -> int:
    """Show the tool loop on each ``--scenario`` (or the default ones) live."""
    return _run_scenarios(arguments.scenario or list(DEFAULT_SCENARIOS), arguments)


def replay(arguments: argparse.Namespace) -> int:
    """Play a recorded file through the view."""
    return _replay(Path(arguments.file), f"replay of {arguments.file}", arguments)


class _NothingRecorded(Exception):
    pass


def record(arguments: argparse.Namespace) -> int:
    """Run a scenario and save every raw stream event as a JSON line."""
    from tooljson.demo.runs import MissingAPIKey, run_live, run_provider_scenario, run_scenario
    from tooljson.ui.model import RunView
    from tooljson.ui.recording import event_line, recording_file

    name = arguments.scenario or "parallel_calls"
    problem = _provider_problem([name], arguments)
    if problem is not None:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    if arguments.live and not os.environ.get("ANTHROPIC_API_KEY"):
        # Checked before the output is opened, so that no empty recording is left behind.
        return _missing_key()
    view = RunView(title=name)
    count = 0
    try:
        with recording_file(arguments.output) as out:

            def write(event: dict[str, Any]) -> None:
                nonlocal count
                out.write(event_line(event) + "\n")
                count += 1

            if arguments.provider != LOOP_PROVIDER:
                run_provider_scenario(arguments.provider, name, view, on_raw_event=write, seed=arguments.seed)
            elif arguments.live:
                run_live(name, view, model=arguments.model, on_raw_event=write)
            else:
                run_scenario(name, view, on_raw_event=write, seed=arguments.seed)
            if not count:
                raise _NothingRecorded
    except MissingAPIKey as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"error: cannot write {arguments.output}: {error.strerror}", file=sys.stderr)
        return 2
    except _NothingRecorded:
        print(
            f"error: nothing was recorded ({view.failure or 'the run sent no event'}); no file written",
            file=sys.stderr,
        )
        return 1
    calls = ", ".join(f"{call.name} {call.label}" for call in view.calls) or "no tool call"
    report = sys.stderr if arguments.output == "-" else sys.stdout
    print(f"recorded {count} events of {view.turn} turns to {arguments.output}: {calls}", file=report)
    if view.failure:
        print(f"the run ended with: {view.failure}", file=report)
    return 0


def _interrupt(signum: int, frame: object) -> None:
    # SIGTERM stops a server as cleanly as Ctrl-C: runs end, connections close, the port is freed.
    raise KeyboardInterrupt


def _serve(
    start: Callable[[], object],
    address: Callable[[], str],
    wait: Callable[[], None],
    stop: Callable[[], None],
    port: int,
) -> int:
    """Start a server, print its address, serve until ``wait`` returns or Ctrl-C / SIGTERM, stop."""
    # A background process may not get SIGINT at all: SIGTERM stops the server as Ctrl-C does.
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        try:
            start()
        except OSError as error:
            return cannot_listen(port, error)
        print(address(), flush=True)
        wait()
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
        stop()
    return 0


def web(arguments: argparse.Namespace) -> int:
    """Serve the browser view until interrupted (or for ``--stop-after`` seconds)."""
    from tooljson.demo.runs import scenario_offers
    from tooljson.ui.web import WebServer, recording_offers

    files = [Path(path) for path in arguments.file or []]
    missing = [path for path in files if not path.is_file()]
    if missing:
        print(f"error: no such file: {missing[0]}", file=sys.stderr)
        return 2
    try:
        server = WebServer([*scenario_offers(), *recording_offers(files)], port=arguments.port)
    except OSError as error:
        return cannot_listen(arguments.port, error)
    return _serve(
        server.start,
        lambda: f"tooljson debug view on {server.url} (Ctrl-C to stop)",
        lambda: server.wait(arguments.stop_after),
        server.stop,
        arguments.port,
    )


def standin(arguments: argparse.Namespace) -> int:
    """Serve the Messages API stand-in in the foreground until interrupted."""
    from tooljson.standin import SCENARIOS, StandInServer

    if arguments.list:
        width = max(len(name) for name in SCENARIOS)
        for name, scenario in SCENARIOS.items():
            print(f"{name:<{width}}  {scenario.description}")
        return 0
    if arguments.scenario is None:
        print("error: --scenario is required (or --list)", file=sys.stderr)
        return 2
    server = StandInServer(
        arguments.scenario,
        fragment_sizes=arguments.fragment_sizes,
        seed=arguments.seed,
        port=arguments.port,
        verbose=arguments.verbose,
    )

    def wait() -> None:
        while server.running:
            time.sleep(0.5)

    return _serve(server.start, lambda: server.base_url, wait, server.stop, arguments.port)


def proxy(arguments: argparse.Namespace) -> int:
    """Relay to the upstream and show every tool call that passes, until interrupted."""
    from tooljson.proxy.serve import serve
    from tooljson.proxy.telemetry import ProxyTelemetry, settings
    from tooljson.ui.listen import bind

    record = Path(arguments.record) if arguments.record else None
    if record is not None:
        try:
            record.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            print(f"error: cannot record into {record}: {error.strerror or error}", file=sys.stderr)
            return 2
    try:
        listener = bind(arguments.port)
    except OSError as error:
        return cannot_listen(arguments.port, error)
    web_listener = None
    if arguments.web:
        try:
            web_listener = bind(arguments.web_port)
        except OSError as error:
            listener.close()
            return cannot_listen(arguments.web_port, error)
    chosen = settings(arguments.otlp)
    telemetry = None
    if chosen is not None:
        try:
            telemetry = ProxyTelemetry(chosen)
        except MissingExtra as error:
            # Asked for by the environment (OTEL_EXPORTER_OTLP_ENDPOINT...), not by an option.
            listener.close()
            if web_listener is not None:
                web_listener.close()
            print(f"error: {error}", file=sys.stderr)
            return 2
    url = f"http://127.0.0.1:{listener.getsockname()[1]}"
    print(f"tooljson proxy on {url} -> {arguments.upstream} (Ctrl-C to stop)", flush=True)
    print(f"  point the application at it: ANTHROPIC_BASE_URL={url}", flush=True)
    if web_listener is not None:
        print(
            f"  browser view: http://127.0.0.1:{web_listener.getsockname()[1]}/?source=live&autostart",
            flush=True,
        )
    if telemetry is not None:
        print(f"  spans: to {telemetry.endpoint}", flush=True)
    view = "none" if arguments.web else ("plain" if arguments.plain else "live")
    serve(
        arguments.upstream,
        listener,
        record=record,
        view=view,
        web_listener=web_listener,
        fps=arguments.fps,
        idle_timeout=arguments.idle_timeout,
        telemetry=telemetry,
    )
    return 0
