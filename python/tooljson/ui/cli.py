"""Command-line entry points of the debug views: ``watch``, ``record``, ``replay`` and ``web``.

``python -m tooljson.ui COMMAND`` runs them; :func:`register` adds ``record``, ``replay`` and ``web``
to another program's subcommands, and :func:`watch` is the live view a demo command can call.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
from collections.abc import Callable, Iterator, Sequence
from importlib import resources
from pathlib import Path
from typing import IO, Any

from tooljson.ui.model import Session
from tooljson.ui.recording import RecordingError, load_events
from tooljson.ui.sources import Handlers, MissingAPIKey, OnChange, play_events, run_live, run_scenario

__all__ = [
    "DEFAULT_SCENARIOS",
    "add_view_options",
    "demo",
    "main",
    "record",
    "register",
    "replay",
    "run_handler",
    "watch",
    "web",
]

DEFAULT_SCENARIOS = ("parallel_calls", "invalid_json", "max_tokens", "schema_mismatch")
# Scenarios whose stream breaks on purpose: their failure is the expected outcome, not an error.
BROKEN_ON_PURPOSE = frozenset({"stream_error", "connection_drop"})
# Events a second when a person watches and no --speed is given: the small scenarios then take a few
# seconds, enough to see strings grow.
WATCHING_SPEED = 60.0

Run = Callable[[Session, OnChange], None]


def _scenario_names() -> list[str]:
    from tooljson.standin import SCENARIOS

    return list(SCENARIOS)


def add_view_options(parser: argparse.ArgumentParser, *, plain: bool = True) -> None:
    """``--speed``, ``--plain`` (unless the parser has its own) and ``--fps``, shared by every command
    that shows a run."""
    parser.add_argument(
        "--speed",
        type=float,
        metavar="EVENTS_PER_S",
        help=f"pace of the stream in events a second, 0 for full speed (default: {WATCHING_SPEED:g} "
        "when the live view is on a terminal, else 0)",
    )
    if plain:
        parser.add_argument("--plain", action="store_true", help="a plain line log instead of the live view")
    parser.add_argument("--fps", type=float, default=20.0, help="most frames a second the live view draws")


def _add_source_options(parser: argparse.ArgumentParser, *, repeat: bool) -> None:
    parser.add_argument(
        "--scenario",
        action="append" if repeat else "store",
        metavar="NAME",
        choices=_scenario_names(),
        help="stand-in scenario to run" + (" (repeatable)" if repeat else "") + f": {', '.join(_scenario_names())}",
    )
    parser.add_argument("--live", action="store_true", help="the real Messages API (needs ANTHROPIC_API_KEY)")
    parser.add_argument("--model", help="model for --live (default: the scenario's)")
    parser.add_argument("--seed", type=int, default=0, help="the stand-in's seed for ids and fragment cuts")


def _speed(arguments: argparse.Namespace, on_terminal: bool) -> float:
    if arguments.speed is not None:
        return max(0.0, float(arguments.speed))
    return WATCHING_SPEED if on_terminal and not arguments.plain else 0.0


def _show(title: str, run: Run, arguments: argparse.Namespace, out: IO[str] | None = None) -> Session:
    """Run ``run`` under the view the arguments ask for; return the finished session."""
    from rich.console import Console

    from tooljson.ui.terminal import LiveView, PlainView

    session = Session(title=title)
    if arguments.plain:
        plain = PlainView(out)
        print(f"== {title}", file=plain.out)
        with plain:
            run(session, plain.on_change)
            plain.close(session)
        return session
    live = LiveView(Console(file=out, highlight=False), fps=arguments.fps)
    with live:
        run(session, live.on_change)
        live.close(session)
    return session


def _on_terminal(arguments: argparse.Namespace) -> bool:
    return not arguments.plain and sys.stdout.isatty()


ToolHandlerFactory = Callable[[str], Callable[[Any], Any]]


def _handlers(name: str, handler_for: ToolHandlerFactory | None) -> Handlers | None:
    if handler_for is None:
        return None
    from tooljson.standin import get_scenario

    return {tool["name"]: handler_for(tool["name"]) for tool in get_scenario(name).tools if "input_schema" in tool}


def _scenario_run(
    name: str, arguments: argparse.Namespace, speed: float, handler_for: ToolHandlerFactory | None = None
) -> Run:
    handlers = _handlers(name, handler_for)

    def run(session: Session, on_change: OnChange) -> None:
        if arguments.live:
            run_live(name, session, model=arguments.model, speed=speed, on_change=on_change, handlers=handlers)
        else:
            seed = getattr(arguments, "seed", 0)
            run_scenario(name, session, speed=speed, on_change=on_change, seed=seed, handlers=handlers)

    return run


def _run_scenarios(
    names: Sequence[str], arguments: argparse.Namespace, handler_for: ToolHandlerFactory | None = None
) -> int:
    if arguments.live and not os.environ.get("ANTHROPIC_API_KEY"):
        print(f"error: {MissingAPIKey()}", file=sys.stderr)
        return 2
    speed = _speed(arguments, _on_terminal(arguments))
    status = 0
    for name in names:
        title = f"{name} ({'live API' if arguments.live else 'stand-in'})"
        session = _show(title, _scenario_run(name, arguments, speed, handler_for), arguments)
        if session.failure and name not in BROKEN_ON_PURPOSE:
            status = 1
    return status


def watch(arguments: argparse.Namespace) -> int:
    """Show the tool loop on each ``--scenario`` (or the default ones) live."""
    return _run_scenarios(arguments.scenario or list(DEFAULT_SCENARIOS), arguments)


def demo(arguments: argparse.Namespace, handler_for: ToolHandlerFactory | None = None) -> int:
    """The demo under the live view: the bundled recording replayed, then the default scenarios (or
    each ``--scenario``); with ``--live``, the scenarios against the real API. ``handler_for`` makes
    the handler of a tool from its name (the views' own handlers by default)."""
    if arguments.live:
        return _run_scenarios(arguments.scenario or ["parallel_calls"], arguments, handler_for)
    if arguments.scenario:
        return _run_scenarios(arguments.scenario, arguments, handler_for)
    events = load_events(Path(str(resources.files("tooljson").joinpath("data/demo_stream.jsonl"))))
    speed = _speed(arguments, _on_terminal(arguments))

    def run(session: Session, on_change: OnChange) -> None:
        play_events(events, session, speed=speed, on_change=on_change)

    _show("replay of data/demo_stream.jsonl", run, arguments)
    return _run_scenarios(DEFAULT_SCENARIOS, arguments, handler_for)


def replay(arguments: argparse.Namespace) -> int:
    """Play a recorded file through the view."""
    try:
        events = load_events(arguments.file)
    except RecordingError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"error: cannot read {arguments.file}: {error.strerror}", file=sys.stderr)
        return 2
    speed = _speed(arguments, _on_terminal(arguments))

    def run(session: Session, on_change: OnChange) -> None:
        play_events(events, session, speed=speed, on_change=on_change)

    _show(f"replay of {arguments.file}", run, arguments)
    return 0


@contextlib.contextmanager
def _output(path: str) -> Iterator[IO[str]]:
    if path == "-":
        yield sys.stdout
        return
    with open(path, "w", encoding="utf-8") as handle:
        yield handle


def record(arguments: argparse.Namespace) -> int:
    """Run a scenario and save every raw stream event as a JSON line."""
    import json

    name = arguments.scenario or "parallel_calls"
    if arguments.live and not os.environ.get("ANTHROPIC_API_KEY"):
        # Checked before the output is opened, so that no empty recording is left behind.
        print(f"error: {MissingAPIKey()}", file=sys.stderr)
        return 2
    session = Session(title=name)
    count = 0
    try:
        with _output(arguments.output) as out:

            def write(event: dict[str, Any]) -> None:
                nonlocal count
                out.write(json.dumps(event, ensure_ascii=False) + "\n")
                count += 1

            if arguments.live:
                run_live(name, session, model=arguments.model, on_raw_event=write)
            else:
                run_scenario(name, session, on_raw_event=write, seed=arguments.seed)
    except MissingAPIKey as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"error: cannot write {arguments.output}: {error.strerror}", file=sys.stderr)
        return 2
    calls = ", ".join(f"{call.name} {call.label}" for call in session.calls) or "no tool call"
    report = sys.stderr if arguments.output == "-" else sys.stdout
    print(f"recorded {count} events of {session.turn} turns to {arguments.output}: {calls}", file=report)
    if session.failure:
        print(f"the run ended with: {session.failure}", file=report)
    return 0


def web(arguments: argparse.Namespace) -> int:
    """Serve the browser view until interrupted (or for ``--stop-after`` seconds)."""
    from tooljson.ui.web import WebServer

    files = [Path(path) for path in arguments.file or []]
    missing = [path for path in files if not path.is_file()]
    if missing:
        print(f"error: no such file: {missing[0]}", file=sys.stderr)
        return 2
    server = WebServer(files=files, port=arguments.port)
    server.start()
    print(f"tooljson debug view on {server.url} (Ctrl-C to stop)", flush=True)
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        server.wait(arguments.stop_after)
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
        server.stop()
    return 0


def _interrupt(signum: int, frame: object) -> None:
    # SIGTERM stops the server as cleanly as Ctrl-C: runs end, connections close, the port is freed.
    raise KeyboardInterrupt


def register(commands: Any) -> None:
    """Add ``record``, ``replay`` and ``web`` to an ``add_subparsers()`` object."""
    record_parser = commands.add_parser(
        "record",
        help="run a scenario and save its raw stream events as JSON lines",
        description="Run the tool loop on a scenario (stand-in, or the real API with --live) and save "
        "every raw stream event, one JSON object a line, ready for replay.",
    )
    _add_source_options(record_parser, repeat=False)
    record_parser.add_argument("-o", "--output", default="-", metavar="FILE", help="where to write (default: stdout)")
    record_parser.set_defaults(handler=record)

    replay_parser = commands.add_parser(
        "replay", help="play a recorded stream through the live view", description="Play a recorded stream."
    )
    replay_parser.add_argument("file", metavar="FILE", help="a recording: raw stream events as JSON lines")
    add_view_options(replay_parser)
    replay_parser.set_defaults(handler=replay)

    web_parser = commands.add_parser(
        "web",
        help="serve the browser view on 127.0.0.1",
        description="Serve a page showing tool calls arrive, for any scenario or recorded file.",
    )
    web_parser.add_argument("file", nargs="*", metavar="FILE", help="recordings to offer besides the scenarios")
    web_parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: a free one)")
    web_parser.add_argument("--stop-after", type=float, metavar="SECONDS", help="stop serving after this long")
    web_parser.set_defaults(handler=web)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m tooljson.ui", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    watch_parser = commands.add_parser("watch", help="run scenarios through the tool loop under the live view")
    _add_source_options(watch_parser, repeat=True)
    add_view_options(watch_parser)
    watch_parser.set_defaults(handler=watch)
    register(commands)
    return parser


def run_handler(arguments: argparse.Namespace) -> int:
    """Run the command argparse chose; Ctrl-C ends it with the usual status 130 and no traceback."""
    handler: Callable[[argparse.Namespace], int] = arguments.handler
    try:
        return handler(arguments)
    except KeyboardInterrupt:
        # The live display and the stand-in have already closed on the way out.
        print("interrupted", file=sys.stderr)
        return 130


def main(argv: Sequence[str] | None = None) -> int:
    return run_handler(_parser().parse_args(argv))
