"""Malformed and odd stream events: one line naming what is wrong (and, in a recording, its line),
never a traceback; tolerated oddities are warnings, never silently dropped."""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tooljson import MalformedEvent, ToolCallAccumulator, TurnReader, _native, cli
from tooljson.ui.model import RunView
from tooljson.ui.plain import PlainView
from tooljson.ui.playback import play_events
from tooljson.ui.recording import RecordingError, load_recording, parse_recording

START = {
    "type": "message_start",
    "message": {
        "id": "m",
        "type": "message",
        "role": "assistant",
        "model": "x",
        "content": [],
        "stop_reason": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    },
}
TOOL = {
    "type": "content_block_start",
    "index": 0,
    "content_block": {"type": "tool_use", "id": "t1", "name": "f", "input": {}},
}
TEXT = {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}


def _delta(index: Any, **delta: Any) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": index, "delta": delta}


def _end(*indices: int) -> list[dict[str, Any]]:
    stops = [{"type": "content_block_stop", "index": index} for index in indices]
    return [
        *stops,
        {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 5}},
        {"type": "message_stop"},
    ]


def _native_takes_any_index() -> bool:
    try:
        _native.ToolCallAccumulator().start(("choice", 0), "name", "id")
    except (TypeError, OverflowError):
        return False
    return True


# The native accumulator keys blocks by any hashable value once it takes them as the pure one does;
# until then it refuses what is not a machine integer, and says so.
NATIVE_TAKES_ANY_INDEX = _native_takes_any_index()
_NATIVE_INDEX_ERRORS = () if NATIVE_TAKES_ANY_INDEX else (TypeError, OverflowError)


def _write(tmp_path: Path, events: list[Any]) -> Path:
    path = tmp_path / "recording.jsonl"
    path.write_text("".join(json.dumps(event) + "\n" for event in events), encoding="utf-8")
    return path


# Each malformed event named in the issue (and a few more), at line 3 of a recording, and what the
# one line says about it.
MALFORMED: list[tuple[str, Any, str]] = [
    (
        "input_json_delta without partial_json",
        _delta(0, type="input_json_delta"),
        'string for input_json_delta "partial_json"',
    ),
    ("partial_json 5", _delta(0, type="input_json_delta", partial_json=5), "got int 5"),
    ("partial_json null", _delta(0, type="input_json_delta", partial_json=None), "null or nothing"),
    ("index 1e29", {**TOOL, "index": 1e29}, 'non-negative integer "index"'),
    ("index 10**29", {**TOOL, "index": 10**29}, 'non-negative integer "index"'),
    ("index -1", {**TOOL, "index": -1}, 'non-negative integer "index"'),
    ("index true", {**TOOL, "index": True}, 'non-negative integer "index"'),
    ("index a string", _delta("0", type="text_delta", text="x"), 'non-negative integer "index"'),
    ("content_block a string", {**TOOL, "content_block": "tool_use"}, 'object for "content_block"'),
    ("tool block without id", {**TOOL, "content_block": {"type": "tool_use", "name": "f"}}, 'tool_use "id"'),
    (
        "message_delta with a string delta",
        {"type": "message_delta", "delta": "end_turn"},
        'object for "delta"',
    ),
    ("stop_reason a number", {"type": "message_delta", "delta": {"stop_reason": 3}}, '"stop_reason"'),
    ("error event with a string error", {"type": "error", "error": "boom"}, 'object for "error"'),
    (
        "thinking_delta with thinking null",
        _delta(0, type="thinking_delta", thinking=None),
        'thinking_delta "thinking"',
    ),
    ("text_delta with a list", _delta(0, type="text_delta", text=["x"]), 'text_delta "text"'),
    ("delta a string", _delta(0) | {"delta": "x"}, 'object for "delta"'),
    ("delta without type", _delta(0, text="x"), 'delta "type"'),
    ("delta type a list", _delta(0, type=[], text="x"), 'delta "type"'),
    ("event type a list", {"type": ["ping"]}, 'no "type" string'),
    ("message_start without message", {"type": "message_start"}, 'object for "message"'),
    ("usage a string", {"type": "message_delta", "delta": {}, "usage": "many"}, '"usage"'),
    ("no type", {"kind": "ping"}, 'no "type" string'),
    ("not an object", [1, 2], "expected a JSON object"),
]


@pytest.mark.parametrize(("name", "event", "problem"), MALFORMED, ids=[m[0] for m in MALFORMED])
def test_a_malformed_event_fails_the_replay_in_one_line_naming_its_line(
    name: str, event: Any, problem: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, [START, TOOL, event, *_end(0)])
    assert cli.main(["replay", str(path), "--plain"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"error: {path}, line 3: ")
    assert problem in lines[0]


@pytest.mark.parametrize(("name", "event", "problem"), MALFORMED, ids=[m[0] for m in MALFORMED])
def test_the_reader_raises_malformed_event_for_the_same_events(name: str, event: Any, problem: str) -> None:
    # The tool loop's path: a turn reader fed the stream, where the event follows a tool block's start.
    reader = TurnReader()
    reader.feed(START)
    reader.feed(TOOL)
    if not isinstance(event, dict):
        with pytest.raises(TypeError, match="expected a stream event"):
            reader.feed(event)
    elif name.startswith("index"):
        # A live reader keys blocks by any hashable index (other providers' keys are not positions):
        # only a recording of the Messages API's stream insists on block positions.
        try:
            reader.feed(event)
        except _NATIVE_INDEX_ERRORS as error:
            assert "while processing 'index'" in getattr(error, "__notes__", []), error
    else:
        # An event without a "type" string is no source's: refused, naming what it looked like,
        # rather than read as a Messages event with no calls in it.
        with pytest.raises(MalformedEvent) as caught:
            reader.feed(event)
        assert problem in caught.value.problem


def test_the_loaders_check_is_the_readers_check() -> None:
    # Every event the loader accepts, the reader takes without raising, and the other way round.
    for _, event, _ in MALFORMED:
        try:
            parse_recording([json.dumps(START), json.dumps(TOOL), json.dumps(event)])
        except RecordingError:
            continue
        raise AssertionError(f"the loader accepted {event!r}")


# Oddities a reader can live with: a warning line naming the line, and the replay goes on (exit 0).
ODD: list[tuple[str, list[Any], str]] = [
    (
        "an unknown event type",
        [START, {"type": "weird_new_event"}, TOOL],
        "line 2: warning: unknown event type 'weird_new_event'",
    ),
    (
        "an unknown delta type",
        [START, TOOL, _delta(0, type="hologram_delta", beam=1)],
        "line 3: warning: unknown delta type 'hologram_delta'",
    ),
    (
        "tool input for a block never started",
        [START, TOOL, _delta(7, type="input_json_delta", partial_json="{}")],
        "line 3: warning: tool input for block 7, which is not an open tool block",
    ),
    (
        "text for a block never started",
        [START, TOOL, _delta(5, type="text_delta", text="hi")],
        "line 3: warning: text_delta for block 5, which is not open",
    ),
    (
        "tool input for a text block",
        [START, TEXT, _delta(0, type="input_json_delta", partial_json="{}")],
        "line 3: warning: tool input for block 0, which is not an open tool block",
    ),
    (
        "a stop for a block never started",
        [START, TOOL, {"type": "content_block_stop", "index": 4}],
        "line 3: warning: content_block_stop for block 4, which is not open",
    ),
    (
        "text for a tool block",
        [START, TOOL, _delta(0, type="text_delta", text="x")],
        "line 3: warning: text_delta for block 0, a tool_use block: ignored",
    ),
]


@pytest.mark.parametrize(("name", "events", "warning"), ODD, ids=[o[0] for o in ODD])
def test_an_oddity_is_a_warning_naming_its_line(
    name: str, events: list[Any], warning: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, [*events, *_end(0)])
    assert cli.main(["replay", str(path), "--plain"]) == 0
    captured = capsys.readouterr()
    assert f"{path}, {warning}" in captured.err.splitlines()[0]
    # The view's log says it too.
    assert f"{path}, {warning}" in captured.out


def test_a_second_start_for_an_open_block_ends_the_first_instead_of_leaving_it_streaming(
    tmp_path: Path,
) -> None:
    first = _delta(0, type="input_json_delta", partial_json='{"city": "Par')
    second = {**TOOL, "content_block": {"type": "tool_use", "id": "t2", "name": "g", "input": {}}}
    events = [
        START,
        TOOL,
        first,
        second,
        _delta(0, type="input_json_delta", partial_json='{"n": 1}'),
        *_end(0),
    ]
    recording = load_recording(_write(tmp_path, events))
    view = RunView()
    warnings: list[str] = []
    play_events(recording, view, on_warning=warnings.append)
    assert [(call.id, call.status, call.value) for call in view.calls] == [
        ("t1", "incomplete", {"city": "Par"}),
        ("t2", "complete", {"n": 1}),
    ]
    assert warnings == [
        f"{recording.source}, line 4: warning: a second content_block_start for block 0, "
        "still open: the first ends where it stopped"
    ]


def test_feed_refuses_what_is_not_an_event() -> None:
    accumulator = ToolCallAccumulator()
    reader = TurnReader()
    for thing in (None, 5, "message_stop", b"{}", [TOOL], 2.5):
        with pytest.raises(TypeError, match="expected a stream event"):
            accumulator.feed(thing)
        with pytest.raises(TypeError, match="expected a stream event"):
            reader.feed(thing)
    # An object with a type is an event (an SDK event); a dict is one too, whatever it holds.
    assert accumulator.feed({"type": "ping"}) == []


# --- no mutation of a real recording makes the replay or the reader fail with anything else

_VALUES = st.sampled_from([None, 5, -1, 1e29, 10**30, True, "x", "", [], {}, [1], {"type": 3}, "\ud800"])


def _mutate(events: list[dict[str, Any]], data: st.DataObject) -> list[dict[str, Any]]:
    events = copy.deepcopy(events)
    event = events[data.draw(st.integers(0, len(events) - 1))]
    # Walk down to a dict inside the event, then drop or replace one of its keys.
    target: dict[str, Any] = event
    while True:
        children = [key for key, value in target.items() if isinstance(value, dict)]
        if not children or data.draw(st.booleans()):
            break
        target = target[data.draw(st.sampled_from(children))]
    if not target:
        return events
    key = data.draw(st.sampled_from(sorted(target)))
    if data.draw(st.booleans()):
        del target[key]
    else:
        target[key] = data.draw(_VALUES)
    return events


@pytest.fixture(
    scope="module", params=["parallel_calls", "thinking", "pause_turn", "invalid_json", "stream_error"]
)
def recorded(request: pytest.FixtureRequest) -> list[dict[str, Any]]:
    from tooljson.demo.runs import run_scenario

    events: list[dict[str, Any]] = []
    run_scenario(request.param, RunView(), on_raw_event=events.append)
    return events


@settings(max_examples=150)
@given(data=st.data())
def test_no_mutated_recording_fails_the_replay_otherwise(
    recorded: list[dict[str, Any]], data: st.DataObject
) -> None:
    events = _mutate(recorded, data)
    lines = [json.dumps(event) for event in events]
    try:
        recording = parse_recording(lines, source="mutated.jsonl")
    except RecordingError as error:
        assert str(error).startswith("mutated.jsonl, line ")
        assert "\n" not in str(error)
    else:
        view = RunView()
        with PlainView(io.StringIO()) as plain:
            play_events(recording, view, on_change=plain.on_change)
            plain.close(view)
    # The loop's path, without the loader: only MalformedEvent, never anything else (but the native
    # accumulator's refusal of an index that is not a machine integer, until it takes any).
    reader = TurnReader()
    for event in events:
        try:
            reader.feed(event)
        except MalformedEvent as error:
            assert error.problem and "\n" not in error.problem
            break
        except _NATIVE_INDEX_ERRORS as error:
            assert "while processing 'index'" in getattr(error, "__notes__", []), error
            break
    [reader.state(block) for block in reader.blocks]
    reader.content  # noqa: B018 - reading the content must not raise either
