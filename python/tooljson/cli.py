"""``python -m tooljson``: the command line (``demo``, ``watch``, ``record``, ``replay``, ``web``,
``standin``, ``proxy``).

``demo`` needs no key and no network: it replays the bundled event stream, then runs the tool loop
against the stand-in server in this process, under the live terminal view (``--plain``: a line log
drawn from the same view); with ``--provider openai|responses|bedrock`` it streams that API's real
client from the stand-in instead. ``--live`` runs the same loop against the real Messages API with
ANTHROPIC_API_KEY. ``watch`` shows stand-in scenarios through the loop; ``record``, ``replay`` and
``web`` save a stream, play a saved one, and serve the browser view; ``standin`` serves the
Messages API stand-in on its own.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from importlib import resources
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from tooljson.providers import PROVIDERS

if TYPE_CHECKING:
    from tooljson.ui.model import RunView

__all__ = ["DEFAULT_SCENARIOS", "main"]

DEFAULT_SCENARIOS = ("parallel_calls", "invalid_json", "max_tokens", "schema_mismatch")
# Scenarios whose stream breaks on purpose: their failure is the expected outcome, not an error.
BROKEN_ON_PURPOSE = frozenset({"stream_error", "connection_drop"})
# Events a second when a person watches and no --speed is given: the small scenarios then take a few
# seconds, enough to see strings grow.
WATCHING_SPEED = 60.0

Run = Callable[["RunView", Callable[["RunView"], None]], None]


def _scenario_names() -> list[str]:
    from tooljson.standin import SCENARIOS

    return list(SCENARIOS)


def _missing_key() -> int:
    from tooljson.ui.sources import MissingAPIKey

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
    from tooljson.ui.terminal import LiveView, PlainView

    view = RunView(title=title)
    if arguments.plain:
        plain = PlainView(out)
        print(f"== {title}", file=plain.out)
        with plain:
            run(view, plain.on_change)
            plain.close(view)
        return view
    from rich.console import Console

    live = LiveView(Console(file=out, highlight=False), fps=arguments.fps)
    with live:
        run(view, live.on_change)
        live.close(view)
    return view


def _provider_problem(names: Sequence[str], arguments: argparse.Namespace) -> str | None:
    """Why the scenarios cannot run for ``--provider`` (each API's stand-in plays its own list)."""
    from tooljson.standin import scenarios_for

    provider = arguments.provider
    if provider != "anthropic" and arguments.live:
        return f"--live runs the Messages API only; leave it out to stream the {provider} client against the stand-in"
    played = scenarios_for(provider)
    for name in names:
        if name not in played:
            return f"scenario {name!r} is not played for --provider {provider}; its scenarios: {', '.join(played)}"
    return None


def _scenario_run(name: str, arguments: argparse.Namespace, speed: float) -> Run:
    from tooljson.ui.sources import run_live, run_provider_scenario, run_scenario

    def run(view: RunView, on_change: Callable[[RunView], None]) -> None:
        if arguments.provider != "anthropic":
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
        if arguments.provider != "anthropic":
            title = f"{name} ({arguments.provider} client, stand-in)"
        view = _show(title, _scenario_run(name, arguments, speed), arguments)
        if view.failure and name not in BROKEN_ON_PURPOSE:
            status = 1
    return status


def _replay(path: Path, title: str, arguments: argparse.Namespace) -> int:
    from tooljson.ui.recording import RecordingError, load_events
    from tooljson.ui.sources import play_events

    try:
        events = load_events(path)
    except RecordingError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"error: cannot read {path}: {error.strerror}", file=sys.stderr)
        return 2
    speed = _speed(arguments)
    _show(title, lambda view, on_change: play_events(events, view, speed=speed, on_change=on_change), arguments)
    return 0


def demo(arguments: argparse.Namespace) -> int:
    """The bundled recording replayed, then the default scenarios (or each ``--scenario``); with
    ``--live``, the scenarios against the real API."""
    if arguments.live:
        return _run_scenarios(arguments.scenario or ["parallel_calls"], arguments)
    if arguments.scenario:
        return _run_scenarios(arguments.scenario, arguments)
    if arguments.provider != "anthropic":
        from tooljson.standin.catalog import demo_scenarios

        return _run_scenarios(demo_scenarios(arguments.provider), arguments)
    bundled = Path(str(resources.files("tooljson").joinpath("data/demo_stream.jsonl")))
    status = _replay(bundled, "replay of data/demo_stream.jsonl", arguments)
    return status or _run_scenarios(DEFAULT_SCENARIOS, arguments)


def watch(arguments: argparse.Namespace) -> int:
    """Show the tool loop on each ``--scenario`` (or the default ones) live."""
    return _run_scenarios(arguments.scenario or list(DEFAULT_SCENARIOS), arguments)


def replay(arguments: argparse.Namespace) -> int:
    """Play a recorded file through the view."""
    return _replay(Path(arguments.file), f"replay of {arguments.file}", arguments)


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

    from tooljson.ui.model import RunView
    from tooljson.ui.sources import MissingAPIKey, run_live, run_provider_scenario, run_scenario

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
        with _output(arguments.output) as out:

            def write(event: dict[str, Any]) -> None:
                nonlocal count
                out.write(json.dumps(event, ensure_ascii=False) + "\n")
                count += 1

            if arguments.provider != "anthropic":
                run_provider_scenario(arguments.provider, name, view, on_raw_event=write, seed=arguments.seed)
            elif arguments.live:
                run_live(name, view, model=arguments.model, on_raw_event=write)
            else:
                run_scenario(name, view, on_raw_event=write, seed=arguments.seed)
    except MissingAPIKey as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"error: cannot write {arguments.output}: {error.strerror}", file=sys.stderr)
        return 2
    calls = ", ".join(f"{call.name} {call.label}" for call in view.calls) or "no tool call"
    report = sys.stderr if arguments.output == "-" else sys.stdout
    print(f"recorded {count} events of {view.turn} turns to {arguments.output}: {calls}", file=report)
    if view.failure:
        print(f"the run ended with: {view.failure}", file=report)
    return 0


def _interrupt(signum: int, frame: object) -> None:
    # SIGTERM stops a server as cleanly as Ctrl-C: runs end, connections close, the port is freed.
    raise KeyboardInterrupt


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
        arguments.scenario, fragment_sizes=arguments.fragment_sizes, seed=arguments.seed, port=arguments.port,
        verbose=arguments.verbose,
    )
    # A background process may not get SIGINT at all: SIGTERM stops the server as Ctrl-C does.
    previous = signal.signal(signal.SIGTERM, _interrupt)
    server.start()
    print(server.base_url, flush=True)
    try:
        while server.running:
            time.sleep(0.5)
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
        server.stop()
    return 0


def proxy(arguments: argparse.Namespace) -> int:
    """Relay to the upstream and show every tool call that passes, until interrupted."""
    from tooljson.proxy.serve import bind, serve

    try:
        listener = bind(arguments.port)
    except OSError as error:
        print(f"error: cannot listen on 127.0.0.1:{arguments.port}: {error.strerror}", file=sys.stderr)
        return 2
    web_listener = None
    if arguments.web:
        try:
            web_listener = bind(arguments.web_port)
        except OSError as error:
            listener.close()
            print(f"error: cannot listen on 127.0.0.1:{arguments.web_port}: {error.strerror}", file=sys.stderr)
            return 2
    url = f"http://127.0.0.1:{listener.getsockname()[1]}"
    print(f"tooljson proxy on {url} -> {arguments.upstream} (Ctrl-C to stop)", flush=True)
    print(f"  point the application at it: ANTHROPIC_BASE_URL={url}", flush=True)
    if web_listener is not None:
        print(f"  browser view: http://127.0.0.1:{web_listener.getsockname()[1]}/?source=live&autostart", flush=True)
    record = Path(arguments.record) if arguments.record else None
    view = "none" if arguments.web else ("plain" if arguments.plain else "live")
    serve(arguments.upstream, listener, record=record, view=view, web_listener=web_listener, fps=arguments.fps)
    return 0


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port number, got {text!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a port is between 0 and 65535, got {port}")
    return port


def _fragment_sizes(text: str) -> tuple[int, int]:
    low, _, high = text.partition(",")
    try:
        sizes = (int(low), int(high or low))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected LOW,HIGH such as 1,32; got {text!r}") from None
    if not 1 <= sizes[0] <= sizes[1]:
        raise argparse.ArgumentTypeError(f"expected 1 <= LOW <= HIGH; got {text!r}")
    return sizes


def _view_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--speed",
        type=float,
        metavar="EVENTS_PER_S",
        help=f"pace of the stream in events a second, 0 for full speed (default: {WATCHING_SPEED:g} "
        "when the live view is on a terminal, else 0)",
    )
    parser.add_argument("--plain", action="store_true", help="a plain line log instead of the live view")
    parser.add_argument("--fps", type=float, default=20.0, help="most frames a second the live view draws")


def _source_options(parser: argparse.ArgumentParser, *, repeat: bool) -> None:
    names = _scenario_names()
    parser.add_argument(
        "--scenario",
        action="append" if repeat else "store",
        metavar="NAME",
        choices=names,
        help="stand-in scenario to run" + (" (repeatable)" if repeat else "") + f": {', '.join(names)}",
    )
    parser.add_argument("--live", action="store_true", help="the real Messages API (needs ANTHROPIC_API_KEY)")
    parser.add_argument(
        "--provider",
        choices=PROVIDERS,
        default="anthropic",
        help="whose stream: the Messages API through the tool loop (default), or one response streamed by "
        "the openai client (openai: Chat Completions, responses: Responses) or boto3 (bedrock: ConverseStream) "
        "from the stand-in",
    )
    parser.add_argument("--model", help="model for --live (default: the scenario's)")
    parser.add_argument("--seed", type=int, default=0, help="the stand-in's seed for ids and fragment cuts")


def parser(prog: str = "python -m tooljson") -> argparse.ArgumentParser:
    """The whole command line."""
    top = argparse.ArgumentParser(prog=prog, description="tooljson: streamed tool-call arguments, parsed and shown.")
    commands = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    demo_parser = commands.add_parser(
        "demo",
        help="replay the bundled stream, then run the tool loop on stand-in scenarios, live",
        description="Replay data/demo_stream.jsonl, then run run_tool_loop against the in-process stand-in "
        f"on {', '.join(DEFAULT_SCENARIOS)}.",
    )
    _source_options(demo_parser, repeat=True)
    _view_options(demo_parser)
    demo_parser.set_defaults(handler=demo)

    watch_parser = commands.add_parser("watch", help="run scenarios through the tool loop under the live view")
    _source_options(watch_parser, repeat=True)
    _view_options(watch_parser)
    watch_parser.set_defaults(handler=watch)

    record_parser = commands.add_parser(
        "record",
        help="run a scenario and save its raw stream events as JSON lines",
        description="Run the tool loop on a scenario (stand-in, or the real API with --live) and save "
        "every raw stream event, one JSON object a line, ready for replay.",
    )
    _source_options(record_parser, repeat=False)
    record_parser.add_argument("-o", "--output", default="-", metavar="FILE", help="where to write (default: stdout)")
    record_parser.set_defaults(handler=record)

    replay_parser = commands.add_parser("replay", help="play a recorded stream through the live view")
    replay_parser.add_argument("file", metavar="FILE", help="a recording: raw stream events as JSON lines")
    _view_options(replay_parser)
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

    standin_parser = commands.add_parser(
        "standin", help="serve the Messages API stand-in on 127.0.0.1", description="Serve one stand-in scenario."
    )
    standin_parser.add_argument("--scenario", choices=_scenario_names(), help="the script to play")
    standin_parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: a free one)")
    standin_parser.add_argument(
        "--fragment-sizes", type=_fragment_sizes, default=(1, 32), metavar="LOW,HIGH",
        help="bounds, in characters, of every streamed fragment (default: 1,32)",
    )
    standin_parser.add_argument("--seed", type=int, default=0, help="seed for ids and fragment cuts (default: 0)")
    standin_parser.add_argument("--list", action="store_true", help="list the scenarios and exit")
    standin_parser.add_argument("--verbose", action="store_true", help="log each request to stderr")
    standin_parser.set_defaults(handler=standin)

    from tooljson.proxy.app import DEFAULT_UPSTREAM

    proxy_parser = commands.add_parser(
        "proxy",
        help="relay an application's API traffic and show its tool calls live",
        description="A pass-through proxy on 127.0.0.1: requests and responses pass unchanged; each streamed "
        "Messages response is shown as its tool calls fill in. Credentials are forwarded, never shown or kept.",
    )
    proxy_parser.add_argument("--upstream", default=DEFAULT_UPSTREAM, metavar="URL", help=f"where to relay (default: {DEFAULT_UPSTREAM})")
    proxy_parser.add_argument("--port", type=_port, default=0, help="port on 127.0.0.1 (default: a free one, printed)")
    proxy_parser.add_argument("--record", metavar="DIR", help="save each streamed response there, ready for replay")
    shown = proxy_parser.add_mutually_exclusive_group()
    shown.add_argument("--web", action="store_true", help="show the calls in the browser view instead of the terminal")
    shown.add_argument("--plain", action="store_true", help="a plain line log instead of the live view")
    proxy_parser.add_argument("--web-port", type=_port, default=0, help="port of the browser view (default: a free one)")
    proxy_parser.add_argument("--fps", type=float, default=20.0, help="most frames a second the live view draws")
    proxy_parser.set_defaults(handler=proxy)
    return top


def main(argv: Sequence[str] | None = None, *, prog: str = "python -m tooljson") -> int:
    """Run one command; Ctrl-C ends it with the usual status 130 and no traceback."""
    arguments = parser(prog).parse_args(argv)
    handler: Callable[[argparse.Namespace], int] = arguments.handler
    try:
        return handler(arguments)
    except KeyboardInterrupt:
        # The live display and the stand-in have already closed on the way out.
        print("interrupted", file=sys.stderr)
        return 130
