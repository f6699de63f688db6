"""Recorded streams: raw stream events, one JSON object per line.

The format is the one of ``tooljson/data/demo_stream.jsonl``: every line is an event exactly as the
API sent it (``message_start``, ``content_block_delta``, ...), or as the other providers' clients
yield them, as dicts (each source's events, :mod:`tooljson.providers.registry`). A
recording of a tool loop holds every turn one after the other, each starting with its
``message_start``. A stream that broke off ends with the ``error`` event it carried, or simply stops
before ``message_stop`` when the connection dropped.

Every line is checked when the file is read, by the one shape check every reader of events uses
(:mod:`tooljson.providers.anthropic.event_checks`): a malformed event fails the whole file with "FILE, line N: what is wrong"
before anything is played. Oddities a reader tolerates (an unknown event type, a delta for a block
never started) are warnings, named by their line when the recording is played.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from tooljson.providers.registry import checker
from tooljson.text import utf8_json

__all__ = [
    "Recording",
    "RecordingError",
    "event_line",
    "load_events",
    "load_recording",
    "parse_events",
    "parse_recording",
    "recording_file",
    "write_events",
]


class RecordingError(ValueError):
    """A recording that cannot be replayed; the message names the file and the line."""

    def __init__(self, source: str, line: int, problem: str) -> None:
        super().__init__(f"{source}, line {line}: {problem}")
        self.source = source
        self.line = line
        self.problem = problem


@dataclass(frozen=True)
class Recording:
    """A recording checked line by line: its events, and the line each came from (for messages)."""

    source: str
    events: list[dict[str, Any]]
    lines: list[int]

    def where(self, position: int) -> str:
        """``"FILE, line N"`` for the event at ``position``."""
        return f"{self.source}, line {self.lines[position]}"


def parse_recording(lines: Iterable[str], *, source: str = "<recording>") -> Recording:
    """The events of a recording's lines, each checked by :func:`tooljson.providers.anthropic.event_checks.event_problem`
    (the check every reader of events shares; block indices must be the positions the Messages API
    sends); blank lines are skipped. Raises :class:`RecordingError` naming the first bad line."""
    events: list[dict[str, Any]] = []
    numbers: list[int] = []
    check = checker()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except ValueError as error:
            raise RecordingError(source, number, f"not JSON ({error})") from None
        except RecursionError:
            raise RecordingError(source, number, "not JSON (nested too deep)") from None
        if not isinstance(event, dict):
            problem: str | None = f"expected a JSON object (a stream event), got {type(event).__name__}"
        else:
            # Checked by its source's own check; an event no source claims is refused.
            problem = check(event)
        if problem is not None:
            raise RecordingError(source, number, problem)
        events.append(event)
        numbers.append(number)
    if not events:
        raise RecordingError(source, 1, "the recording holds no event")
    return Recording(source, events, numbers)


def load_recording(path: str | Path) -> Recording:
    """Read and check a whole recording before anything is played, so that a bad line fails early."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        line = path.read_bytes()[: error.start].count(b"\n") + 1
        raise RecordingError(str(path), line, "not UTF-8 text") from None
    # Split at "\n" only: str.splitlines would also cut at U+2028 and friends, which JSON strings
    # written with ensure_ascii=False hold raw.
    return parse_recording(text.split("\n"), source=str(path))


def parse_events(lines: Iterable[str], *, source: str = "<recording>") -> list[dict[str, Any]]:
    """The events of :func:`parse_recording`."""
    return parse_recording(lines, source=source).events


def load_events(path: str | Path) -> list[dict[str, Any]]:
    """The events of :func:`load_recording`."""
    return load_recording(path).events


def event_line(event: dict[str, Any]) -> str:
    """One event as a recording's line (without the newline), by :func:`tooljson.text.utf8_json`."""
    return utf8_json(event)


def write_events(events: Iterable[dict[str, Any]], out: IO[str]) -> int:
    """Write events as JSON lines; returns how many were written."""
    count = 0
    for event in events:
        out.write(event_line(event) + "\n")
        count += 1
    return count


@contextlib.contextmanager
def recording_file(path: str | Path) -> Iterator[IO[str]]:
    """A recording being written to ``path`` (``"-"``: stdout): a temporary file beside it that
    becomes ``path`` only when the block ends normally, so a failed run leaves no file, empty or
    half written, behind (an existing ``path`` is kept until then)."""
    if str(path) == "-":
        yield sys.stdout
        return
    target = Path(path)
    if target.is_dir():
        raise IsADirectoryError(21, "Is a directory", str(path))
    handle = tempfile.NamedTemporaryFile(
        "w", encoding="utf-8", dir=target.parent, prefix=f".{target.name}.", suffix=".partial", delete=False
    )
    try:
        with handle:
            yield handle
        # A temporary file is private (0600); the recording gets the mode any new file would.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(handle.name, 0o666 & ~umask)
        os.replace(handle.name, target)
    except BaseException:
        Path(handle.name).unlink(missing_ok=True)
        raise
