"""tooljson's public API, fully typed: ``mypy --strict examples/typed_usage.py`` checks it.

Run it with ``python examples/typed_usage.py``: it streams one tool call's arguments, shows the
live preview, the structural events and the status as fragments arrive, then the strict result, and
the two ways a text can fail (cut off, or broken).
"""

from __future__ import annotations

import json
from typing import Any

import tooljson
from tooljson import Event, IncompleteJSONError, MalformedJSONError, Parser, ParseStatus, ToolCallAccumulator

FRAGMENTS = ['{"path": "notes/caf', "\\u00e9.md", '", "lines": [1, 2', ", 3], ", '"append": tr', "ue}"]


def stream_one_call(fragments: list[str]) -> dict[str, Any]:
    """Streams a call's arguments through the accumulator, printing what a UI would show."""
    accumulator = ToolCallAccumulator(events=True, preview_string_limit=40)
    accumulator.start(0, "write_file", "toolu_01")
    for fragment in fragments:
        accumulator.add_delta(0, fragment)
        status: ParseStatus = accumulator.status(0)
        events: list[Event] = accumulator.events(0)
        changes = ", ".join(f"{event.kind} {event.pointer or '/'}" for event in events)
        print(f"{fragment!r:24} {status.state:10} preview={accumulator.preview(0)!r}  [{changes}]")
    call: dict[str, Any] = accumulator.finish(0)
    return call


def parse_or_explain(text: str) -> str:
    """The strict verdict on a whole text, in words."""
    try:
        value: Any = tooljson.loads(text, max_depth=64, max_size=1 << 20)
    except IncompleteJSONError as error:
        return f"cut off at character {error.pos}: ask for more tokens, do not blame the model"
    except MalformedJSONError as error:
        return f"malformed at line {error.lineno}, column {error.colno}: {error.msg}"
    return f"value {json.dumps(value)}"


def fragment_by_fragment(fragments: list[str]) -> Any:
    """A ``Parser`` raises in the very fragment that breaks the text; ``finish`` is ``json.loads``."""
    seen: list[str] = []
    parser = Parser(on_event=lambda event: seen.append(event.kind))
    for fragment in fragments:
        parser.feed(fragment)
    value = parser.finish()
    print(f"{len(seen)} events; text {parser.text!r}")
    return value


def main() -> None:
    call = stream_one_call(FRAGMENTS)
    print("finished:", json.dumps(call, ensure_ascii=False))
    assert call["input"] == json.loads("".join(FRAGMENTS))
    assert fragment_by_fragment(FRAGMENTS) == call["input"]
    for text in ['{"a": [1, 2', '{"a": [1, 2}', '{"a": [1, 2]}']:
        print(f"{text!r:16} -> {parse_or_explain(text)}")


if __name__ == "__main__":
    main()
