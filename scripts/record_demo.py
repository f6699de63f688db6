"""Record the bundled demo stream again: ``python scripts/record_demo.py [--output PATH]``.

A developer's script, kept out of the installed package; the tests check the bundled file against it.

The demo response holds, in one message, a text block, two parallel ``get_weather`` calls, a
``get_time`` call with no arguments (no delta at all) and a ``write_note`` call cut off inside an
escaped surrogate pair, with stop_reason ``max_tokens``. The events are read off the wire from a
running stand-in server and written one JSON object per line, pings included, exactly as sent.
"""

from __future__ import annotations

import argparse
import http.client
import json
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from tooljson.standin.render import estimate_tokens
from tooljson.standin.reply import Reply, Text, ToolUse
from tooljson.standin.scenario import DEFAULT_MODEL, Scenario
from tooljson.standin.scenarios.payloads import long_note_input
from tooljson.standin.server import StandInServer

__all__ = ["DEFAULT_OUTPUT", "DEMO_SCENARIO", "demo_events", "main", "read_sse"]

DEFAULT_OUTPUT = Path(__file__).resolve().parent.parent / "python" / "tooljson" / "data" / "demo_stream.jsonl"
DEMO_SEED = 0
DEMO_FRAGMENT_SIZES = (1, 32)
_NOTE = long_note_input()
# Four characters into the third escaped surrogate pair: the budget ran out mid-escape.
_NOTE_CUT = _NOTE.index("\\ud83d", _NOTE.index("\\ud83d", _NOTE.index("\\ud83d") + 1) + 1) + 4
_TEXT = "Checking both cities, the time, and saving your note."
_INPUTS = (
    '{"city": "Paris", "unit": "celsius"}',
    '{"city": "S\\u00e3o Paulo", "unit": "celsius"}',
    "",
    _NOTE[:_NOTE_CUT],
)
# The request's budget is exactly what the response spends (the text, each call's overhead, the inputs).
DEMO_MAX_TOKENS = estimate_tokens(_TEXT) + sum(8 + estimate_tokens(text) for text in _INPUTS)


def _demo_reply(body: dict[str, Any], turn: int) -> Reply:
    return Reply(
        blocks=(
            Text(_TEXT),
            ToolUse("get_weather", _INPUTS[0]),
            ToolUse("get_weather", _INPUTS[1]),
            ToolUse("get_time", _INPUTS[2]),
            ToolUse("write_note", _INPUTS[3]),
        ),
        stop_reason="max_tokens",
        output_tokens=DEMO_MAX_TOKENS,
    )


def _schema(*names: str) -> dict[str, Any]:
    return {"type": "object", "properties": {name: {"type": "string"} for name in names}}


DEMO_SCENARIO = Scenario(
    name="demo",
    description="Two parallel calls, an argument-less call and a call cut off at max_tokens, in one turn.",
    prompt="Weather in Paris and São Paulo, the time, and save my streaming notes.",
    tools=[
        {"name": "get_weather", "input_schema": _schema("city")},
        {"name": "get_time", "input_schema": _schema()},
        {"name": "write_note", "input_schema": _schema("title", "body")},
    ],
    respond=_demo_reply,
    first_max_tokens=DEMO_MAX_TOKENS,
)


def read_sse(body: str) -> list[dict[str, Any]]:
    """The ``data`` objects of a server-sent event stream, checking each matches its ``event:`` line."""
    events: list[dict[str, Any]] = []
    for chunk in body.split("\n\n"):
        if not chunk.strip():
            continue
        fields = dict(line.split(": ", 1) for line in chunk.split("\n"))
        data = json.loads(fields["data"])
        if data.get("type") != fields.get("event"):
            raise ValueError(f"event {fields.get('event')!r} carries data of type {data.get('type')!r}")
        events.append(data)
    return events


def demo_events() -> list[dict[str, Any]]:
    """Run a stand-in server for the demo and return the raw events of its streamed answer."""
    with StandInServer(DEMO_SCENARIO, fragment_sizes=DEMO_FRAGMENT_SIZES, seed=DEMO_SEED) as server:
        url = urlsplit(server.base_url)
        connection = http.client.HTTPConnection(url.hostname or "127.0.0.1", url.port, timeout=10)
        try:
            body = json.dumps({**DEMO_SCENARIO.first_request(model=DEFAULT_MODEL), "stream": True})
            headers = {"content-type": "application/json"}
            connection.request("POST", "/v1/messages", body=body, headers=headers)
            response = connection.getresponse()
            if response.status != 200:
                raise RuntimeError(f"the stand-in answered HTTP {response.status}: {response.read()!r}")
            return read_sse(response.read().decode("utf-8"))
        finally:
            connection.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python scripts/record_demo.py", description=__doc__)
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    args = parser.parse_args(argv)
    events = demo_events()
    args.output.parent.mkdir(parents=True, exist_ok=True)
    with args.output.open("w", encoding="utf-8") as out:
        for event in events:
            out.write(json.dumps(event, ensure_ascii=False) + "\n")
    print(f"wrote {len(events)} events to {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
