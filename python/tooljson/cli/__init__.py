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
import sys
from collections.abc import Callable, Sequence

from tooljson.cli.arguments import (
    LOOP_PROVIDER,
    Names,
    OneLineErrorParser,
    fragment_sizes,
    number,
    port,
    port_option,
    scenario_option,
    version_option,
    view_options,
)
from tooljson.cli.commands import DEFAULT_SCENARIOS, demo, proxy, record, replay, standin, watch, web
from tooljson.errors import MissingExtra
from tooljson.extras import LOOP_MODULES, require
from tooljson.providers.registry import SPOKEN

__all__ = [
    "DEFAULT_SCENARIOS",
    "demo",
    "main",
    "parser",
    "proxy",
    "record",
    "replay",
    "standin",
    "watch",
    "web",
]


def _scenario_names() -> list[str]:
    from tooljson.standin.scenarios import SCENARIOS

    return list(SCENARIOS)


# Looked up when an argument is checked or the help is shown, never when the command line is built:
# a command that takes no scenario loads no stand-in module.
_SCENARIOS = Names(_scenario_names)


def _source_options(parser: argparse.ArgumentParser, *, repeat: bool) -> None:
    scenario_option(parser, _SCENARIOS, repeat=repeat, what="stand-in scenario to run")
    parser.add_argument("--live", action="store_true", help="the real Messages API (needs ANTHROPIC_API_KEY)")
    parser.add_argument(
        "--provider",
        choices=SPOKEN,
        default=LOOP_PROVIDER,
        metavar="NAME",
        help=f"whose stream: the Messages API through the tool loop (default: {LOOP_PROVIDER}), or one "
        "response streamed from the stand-in by that API's own client: %(choices)s",
    )
    parser.add_argument("--model", help="model for --live (default: the scenario's)")
    parser.add_argument(
        "--seed", type=int, default=0, help="the stand-in's seed for ids and fragment cuts (default: 0)"
    )


def _sourced(arguments: argparse.Namespace) -> tuple[str, ...]:
    # The Messages API runs through the tool loop; another provider's stream through its own client.
    provider = getattr(arguments, "provider", LOOP_PROVIDER)
    if provider == LOOP_PROVIDER:
        return LOOP_MODULES
    from tooljson.standin.wire import wire

    return (*LOOP_MODULES, *wire(provider).modules)


def _viewed(arguments: argparse.Namespace) -> tuple[str, ...]:
    # The live view draws with rich; the plain view needs nothing.
    return () if arguments.plain else ("rich",)


_EPILOG = """\
examples:
  python -m tooljson demo                       the bundled stream, then the loop on stand-in scenarios
  python -m tooljson record --scenario max_tokens -o run.jsonl
  python -m tooljson replay run.jsonl --plain   a saved stream as a line log
  python -m tooljson web run.jsonl              the browser view, on 127.0.0.1

The tool loop needs the 'stream' extra and the live and browser views the 'ui' extra:
pip install 'tooljson[all]' brings both ('replay --plain' and 'standin' need neither).
"""


def parser(prog: str = "python -m tooljson") -> argparse.ArgumentParser:
    """The whole command line."""
    top = OneLineErrorParser(
        prog=prog,
        description="tooljson: streamed tool-call arguments, parsed and shown.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    version_option(top)
    commands = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    demo_parser = commands.add_parser(
        "demo",
        help="replay the bundled stream, then run the tool loop on stand-in scenarios, live",
        description="Replay data/demo_stream.jsonl, then run the tool loop against the in-process stand-in "
        f"on {', '.join(DEFAULT_SCENARIOS)}.",
    )
    _source_options(demo_parser, repeat=True)
    view_options(demo_parser)
    demo_parser.set_defaults(handler=demo, needs=lambda a: (*_sourced(a), *_viewed(a)))

    watch_parser = commands.add_parser(
        "watch",
        help="run scenarios through the tool loop under the live view",
        description="Run the tool loop on stand-in scenarios (or the real API with --live) under the live view.",
    )
    _source_options(watch_parser, repeat=True)
    view_options(watch_parser)
    watch_parser.set_defaults(handler=watch, needs=lambda a: (*_sourced(a), *_viewed(a)))

    record_parser = commands.add_parser(
        "record",
        help="run a scenario and save its raw stream events as JSON lines",
        description="Run the tool loop on a scenario (stand-in, or the real API with --live) and save "
        "every raw stream event, one JSON object a line, ready for replay. The file is written only "
        "when the run recorded something.",
    )
    _source_options(record_parser, repeat=False)
    record_parser.add_argument(
        "-o", "--output", default="-", metavar="FILE", help="where to write (default: stdout)"
    )
    record_parser.set_defaults(handler=record, needs=_sourced)

    replay_parser = commands.add_parser(
        "replay",
        help="play a recorded stream through the live view",
        description="Play a recording through the live view (or --plain, a line log). A malformed event "
        "fails naming its line; an oddity (an unknown event type, a delta for a block never started) "
        "is a warning naming its line, on stderr.",
    )
    replay_parser.add_argument("file", metavar="FILE", help="a recording: raw stream events as JSON lines")
    view_options(replay_parser)
    replay_parser.set_defaults(handler=replay, needs=_viewed)

    web_parser = commands.add_parser(
        "web",
        help="serve the browser view on 127.0.0.1",
        description="Serve a page showing tool calls arrive, for any scenario or recorded file, on 127.0.0.1 "
        "only (see the README for its security model).",
    )
    web_parser.add_argument(
        "file", nargs="*", metavar="FILE", help="recordings to offer besides the scenarios"
    )
    port_option(web_parser)
    web_parser.add_argument(
        "--stop-after", type=number(), metavar="SECONDS", help="stop serving after this long (default: never)"
    )
    web_parser.set_defaults(handler=web, needs=lambda a: ("starlette", "uvicorn", *LOOP_MODULES))

    standin_parser = commands.add_parser(
        "standin",
        help="serve the Messages API stand-in on 127.0.0.1",
        description="Serve one stand-in scenario as a local Messages API; prints its base URL, serves until "
        "interrupted.",
    )
    scenario_option(standin_parser, _SCENARIOS, repeat=False, what="the scenario to serve")
    port_option(standin_parser)
    standin_parser.add_argument(
        "--fragment-sizes",
        type=fragment_sizes,
        default=(1, 32),
        metavar="LOW,HIGH",
        help="bounds, in characters, of every streamed fragment (default: 1,32)",
    )
    standin_parser.add_argument(
        "--seed", type=int, default=0, help="seed for ids and fragment cuts (default: 0)"
    )
    standin_parser.add_argument("--list", action="store_true", help="list the scenarios and exit")
    standin_parser.add_argument("--verbose", action="store_true", help="log each request to stderr")
    standin_parser.set_defaults(handler=standin, needs=lambda a: ())

    from tooljson.proxy.app import DEFAULT_IDLE_TIMEOUT, DEFAULT_UPSTREAM
    from tooljson.proxy.telemetry import OTEL_MODULES

    proxy_parser = commands.add_parser(
        "proxy",
        help="relay an application's API traffic and show its tool calls live",
        description="A pass-through proxy on 127.0.0.1: requests and responses pass unchanged; each streamed "
        "Messages response is shown as its tool calls fill in. Credentials are forwarded, never shown or kept.",
    )
    proxy_parser.add_argument(
        "--upstream",
        default=DEFAULT_UPSTREAM,
        metavar="URL",
        help=f"where to relay (default: {DEFAULT_UPSTREAM})",
    )
    proxy_parser.add_argument(
        "--port", type=port, default=0, help="port on 127.0.0.1 (default: a free one, printed)"
    )
    proxy_parser.add_argument(
        "--record", metavar="DIR", help="save each streamed response there, ready for replay"
    )
    shown = proxy_parser.add_mutually_exclusive_group()
    shown.add_argument(
        "--web", action="store_true", help="show the calls in the browser view instead of the terminal"
    )
    shown.add_argument("--plain", action="store_true", help="a plain line log instead of the live view")
    proxy_parser.add_argument(
        "--web-port", type=port, default=0, help="port of the browser view (default: a free one)"
    )
    proxy_parser.add_argument(
        "--fps", type=number(positive=True), default=20.0, help="most frames a second the live view draws"
    )
    proxy_parser.add_argument(
        "--idle-timeout",
        type=number(positive=True),
        default=DEFAULT_IDLE_TIMEOUT,
        metavar="SECONDS",
        help=f"cut a response whose upstream sends nothing for this long (default: {DEFAULT_IDLE_TIMEOUT:g})",
    )
    proxy_parser.add_argument(
        "--otlp",
        metavar="URL",
        default=None,
        help="export a span per response and per tool call to this OpenTelemetry collector (OTLP/HTTP, e.g. "
        "http://127.0.0.1:4318; default: as OTEL_EXPORTER_OTLP_ENDPOINT and OTEL_TRACES_EXPORTER say, else none)",
    )
    proxy_parser.set_defaults(
        handler=proxy,
        needs=lambda a: (
            "aiohttp",
            "uvicorn",
            *(("starlette",) if a.web else () if a.plain else ("rich",)),
            *(OTEL_MODULES if a.otlp else ()),
        ),
    )
    return top


def main(argv: Sequence[str] | None = None, *, prog: str = "python -m tooljson") -> int:
    """Run one command; Ctrl-C ends it with the usual status 130 and no traceback."""
    arguments = parser(prog).parse_args(argv)
    handler: Callable[[argparse.Namespace], int] = arguments.handler
    try:
        # Before anything is done: a missing extra is one line naming what to install.
        require(f"{prog} {arguments.command}", *arguments.needs(arguments))
    except MissingExtra as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    try:
        return handler(arguments)
    except KeyboardInterrupt:
        # The live display and the stand-in have already closed on the way out.
        print("interrupted", file=sys.stderr)
        return 130
