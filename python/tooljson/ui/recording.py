"""Recorded streams: raw stream events, one JSON object per line.

The format is the one of ``tooljson/data/demo_stream.jsonl``: every line is an event exactly as the
API sent it (``message_start``, ``content_block_delta``, ...), or as the other providers' clients
yield them, as dicts (Chat Completions chunks, Responses events, Bedrock ConverseStream events). A
recording of a tool loop holds every turn one after the other, each starting with its
``message_start``. A stream that broke off ends with the ``error`` event it carried, or simply stops
before ``message_stop`` when the connection dropped.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Any

from tooljson.providers import detect
from tooljson.providers.shapes import shape_problem

__all__ = ["RecordingError", "load_events", "parse_events", "write_events"]


class RecordingError(ValueError):
    """A recording that cannot be replayed; the message names the file and the line."""

    def __init__(self, source: str, line: int, problem: str) -> None:
        super().__init__(f"{source}, line {line}: {problem}")
        self.source = source
        self.line = line
        self.problem = problem


def parse_events(lines: Iterable[str], *, source: str = "<recording>") -> list[dict[str, Any]]:
    """The events of a recording's lines; blank lines are skipped. Raises :class:`RecordingError`."""
    events: list[dict[str, Any]] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except ValueError as error:
            raise RecordingError(source, number, f"not JSON ({error})") from None
        if not isinstance(event, dict):
            raise RecordingError(source, number, f"expected a JSON object (a stream event), got {type(event).__name__}")
        provider = detect(event)
        if provider is not None and provider != "anthropic":
            # Another API's event (Chat Completions, Responses, Bedrock): checked by tooljson.providers.
            problem = shape_problem(event, provider)
            if problem is not None:
                raise RecordingError(source, number, problem)
            events.append(event)
            continue
        kind = event.get("type")
        if not isinstance(kind, str):
            raise RecordingError(source, number, 'the event has no "type" string')
        if kind == "content_block_delta" and not isinstance(event.get("delta"), dict):
            raise RecordingError(source, number, 'a content_block_delta needs a "delta" object')
        if kind in ("content_block_start", "content_block_delta", "content_block_stop") and not isinstance(
            event.get("index"), int
        ):
            raise RecordingError(source, number, f'a {kind} needs an integer "index"')
        events.append(event)
    if not events:
        raise RecordingError(source, 1, "the recording holds no event")
    return events


def load_events(path: str | Path) -> list[dict[str, Any]]:
    """Read and check a whole recording before anything is played, so that a bad line fails early."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        line = path.read_bytes()[: error.start].count(b"\n") + 1
        raise RecordingError(str(path), line, "not UTF-8 text") from None
    # Split at "\n" only: str.splitlines would also cut at U+2028 and friends, which JSON strings
    # written with ensure_ascii=False hold raw.
    return parse_events(text.split("\n"), source=str(path))


def write_events(events: Iterable[dict[str, Any]], out: IO[str]) -> int:
    """Write events as JSON lines; returns how many were written."""
    count = 0
    for event in events:
        out.write(json.dumps(event, ensure_ascii=False) + "\n")
        count += 1
    return count
