"""``python -m tooljson``: command-line entry points (``demo``, ``record``, ``replay``, ``web``).

``python -m tooljson demo`` needs no key and no network: it replays the bundled event stream through
the accumulator, then runs the tool loop against the stand-in server in this process, under the live
terminal view of :mod:`tooljson.ui` (``--plain`` prints a line log instead). ``--live`` runs the
same loop against the real Messages API with ``ANTHROPIC_API_KEY``. ``record``, ``replay`` and
``web`` save a stream, play a saved one, and serve the browser view (see :mod:`tooljson.ui.cli`).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Callable, Sequence
from importlib import resources
from typing import Any

import tooljson
from tooljson.logs import redirected_logs
from tooljson.stream import ToolCall
from tooljson.ui.cli import DEFAULT_SCENARIOS


class Output:
    """Prints with rich when it is installed and wanted, plainly otherwise."""

    def __init__(self, *, plain: bool) -> None:
        self._console: Any = None
        if not plain:
            try:
                from rich.console import Console
            except ImportError:
                pass
            else:
                self._console = Console(highlight=False)

    def heading(self, text: str) -> None:
        if self._console is not None:
            self._console.rule(f"[bold]{_escape(text)}")
        else:
            print(f"\n== {text}")

    def line(self, text: str, style: str = "") -> None:
        if self._console is not None:
            self._console.print(f"[{style}]{_escape(text)}[/]" if style else _escape(text))
        else:
            print(text)


def _escape(text: str) -> str:
    from rich.markup import escape

    return escape(text)


def _short(value: Any, limit: int = 110) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = text.replace("\n", "\\n")
    return text if len(text) <= limit else f"{text[: limit - 1]}… ({len(text)} chars)"


def _describe_call(call: ToolCall) -> str:
    kind = "" if call.block_type == "tool_use" else f" [{call.block_type}]"
    return f"{call.name}{kind} id={call.id}"


def replay(out: Output) -> int:
    """Feed the bundled stream to an accumulator, reporting each call as its block stops."""
    out.heading("Replaying data/demo_stream.jsonl through ToolCallAccumulator.feed")
    text = resources.files("tooljson").joinpath("data/demo_stream.jsonl").read_text(encoding="utf-8")
    accumulator = tooljson.ToolCallAccumulator()
    undecided: list[ToolCall] = []
    for line in text.splitlines():
        if not line.strip():
            continue
        event = json.loads(line)
        for call in accumulator.feed(event):
            if call.ok:
                out.line(f"✓ {_describe_call(call)} input={_short(call.input)}", "green")
            else:
                error = call.error
                out.line(
                    f"✗ {_describe_call(call)} {call.status} at pos {error.pos if error else '?'}: "
                    f"{error.msg if error else ''} (verdict waits for stop_reason)",
                    "yellow",
                )
                undecided.append(call)
        if event.get("type") == "message_delta":
            out.line(f"stop_reason: {accumulator.stop_reason}", "bold")
            for call in undecided:
                if accumulator.is_truncated(call):
                    out.line(
                        f"  {_describe_call(call)}: truncated because stop_reason is max_tokens after "
                        f"{len(call.raw_json)} chars ({_short(call.raw_json, 60)}): retry with a larger "
                        "max_tokens, never answer INVALID_JSON",
                        "yellow",
                    )
                else:
                    out.line(
                        f"  {_describe_call(call)}: invalid, answered with "
                        f"{_short(tooljson.invalid_json_result(call)['content'], 80)}",
                        "red",
                    )
            undecided.clear()
    return 0


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


def _demo_handler(name: str) -> Callable[[Any], str]:
    def handler(value: Any) -> str:
        if name == "get_weather" and isinstance(value, dict):
            return f"{value.get('city')}: 21 °C, clear"
        if name == "calculator" and isinstance(value, dict):
            return str(_arithmetic(str(value.get("expression", ""))))
        return f"{name} done ({len(json.dumps(value))} bytes of input)"

    return handler


def _watch(out: Output) -> Callable[[tooljson.LoopEvent], None]:
    def on_event(event: tooljson.LoopEvent) -> None:
        if event.kind == "request":
            out.line(f"→ request {event.turn} (max_tokens={event.data['max_tokens']})", "dim")
        elif event.kind == "tool_call" and event.call is not None:
            call = event.call
            if call.ok:
                out.line(f"  call {_describe_call(call)} input={_short(call.input)}", "cyan")
            else:
                out.line(f"  call {_describe_call(call)} {call.status}: {call.error}", "yellow")
        elif event.kind == "tool_result" and event.call is not None:
            style = "red" if event.data.get("is_error") else "green"
            label = "error" if event.data.get("is_error") else "result"
            out.line(f"  {label} for {event.call.id}: {_short(event.data['content'])}", style)
        elif event.kind == "retry":
            out.line(f"  cut off at max_tokens: retrying with max_tokens={event.data}", "yellow")
        elif event.kind == "pause":
            out.line("  pause_turn: resending", "yellow")

    return on_event


def run_scenario(out: Output, name: str, client: Any | None = None, model: str | None = None) -> int:
    """Run the loop on one scenario: against ``client`` when given, else the in-process stand-in."""
    import anthropic

    from tooljson.standin import StandInServer, get_scenario

    scenario = get_scenario(name)
    out.heading(f"run_tool_loop · {name}{' (live)' if client is not None else ''}")
    out.line(scenario.description, "dim")
    request = scenario.first_request() if model is None else scenario.first_request(model=model)
    handlers = {t["name"]: _demo_handler(t["name"]) for t in scenario.tools if "input_schema" in t}

    def loop(active: Any) -> int:
        try:
            result = tooljson.run_tool_loop(active, handlers=handlers, on_event=_watch(out), **request)
        except (tooljson.ToolLoopError, tooljson.TruncatedToolInput) as error:
            out.line(f"{type(error).__name__}: {error}", "red")
            return 0 if name in ("stream_error", "connection_drop") else 1
        out.line(f"final ({result.stop_reason}, {result.turns} requests): {result.text}", "bold")
        return 0

    if client is not None:
        return loop(client)
    with StandInServer(scenario=name, fragment_sizes=(1, 32), seed=0) as server:
        with anthropic.Anthropic(base_url=server.base_url, api_key="stand-in", max_retries=0) as local:
            return loop(local)


class _LogToOutput(logging.Handler):
    """Shows the library's log lines (repairs, rejections, retries) inline with the demo's output."""

    def __init__(self, out: Output) -> None:
        super().__init__(logging.INFO)
        self._out = out

    def emit(self, record: logging.LogRecord) -> None:
        self._out.line(f"  log {record.levelname.lower()}: {_short(record.getMessage(), 160)}", "magenta")


def demo(arguments: argparse.Namespace) -> int:
    if not arguments.plain:
        from tooljson.ui.cli import demo as live_demo

        return live_demo(arguments, _demo_handler)
    out = Output(plain=arguments.plain)
    with redirected_logs(_LogToOutput(out)):
        return _demo(arguments, out)


def _demo(arguments: argparse.Namespace, out: Output) -> int:
    if arguments.live:
        if not os.environ.get("ANTHROPIC_API_KEY"):
            print(
                "error: --live talks to the Messages API and needs ANTHROPIC_API_KEY in the "
                "environment; leave out --live to run against the local stand-in.",
                file=sys.stderr,
            )
            return 2
        import anthropic

        client = anthropic.Anthropic()
        status = 0
        for name in arguments.scenario or ["parallel_calls"]:
            status |= run_scenario(out, name, client, arguments.model)
        return status
    status = 0 if arguments.scenario else replay(out)
    for name in arguments.scenario or DEFAULT_SCENARIOS:
        status |= run_scenario(out, name)
    return status


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m tooljson", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    demo_parser = commands.add_parser(
        "demo",
        help="replay the bundled stream, then run the tool loop on stand-in scenarios, live",
        description=(
            "Replay data/demo_stream.jsonl through the accumulator, then run run_tool_loop against "
            f"the in-process stand-in on {', '.join(DEFAULT_SCENARIOS)}."
        ),
    )
    demo_parser.add_argument(
        "--scenario",
        action="append",
        metavar="NAME",
        help="run only this stand-in scenario (repeatable); see python -m tooljson.standin --list",
    )
    demo_parser.add_argument("--live", action="store_true", help="use the real API (ANTHROPIC_API_KEY)")
    demo_parser.add_argument("--model", help="model for --live (default: the scenario's)")
    demo_parser.add_argument("--plain", action="store_true", help="a plain line log instead of the live view")
    from tooljson.ui.cli import add_view_options, register

    add_view_options(demo_parser, plain=False)
    demo_parser.set_defaults(handler=demo)
    register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    arguments = _parser().parse_args(argv)
    # demo's --scenario is a list checked here; record's is one name that argparse checks itself.
    if isinstance(getattr(arguments, "scenario", None), list):
        from tooljson.standin import SCENARIOS

        unknown = [name for name in arguments.scenario if name not in SCENARIOS]
        if unknown:
            print(f"error: unknown scenario {unknown[0]!r}; known: {', '.join(SCENARIOS)}", file=sys.stderr)
            return 2
    from tooljson.ui.cli import run_handler

    return run_handler(arguments)


if __name__ == "__main__":
    sys.exit(main())
