"""Recording and replaying streams: the same calls come back, and bad files name their line."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from tooljson import cli
from tooljson.demo.runs import run_scenario
from tooljson.ui.model import CallView, RunView
from tooljson.ui.playback import play_events
from tooljson.ui.recording import RecordingError, load_events, write_events


def _summary(calls: list[CallView]) -> list[tuple[Any, ...]]:
    # A dropped connection leaves no trace in the recording but its missing end: the replay says
    # "ended before message_stop" where the run named the network error, so that message is left out.
    return [
        (
            c.turn,
            c.index,
            c.id,
            c.name,
            c.status,
            c.position,
            None if c.status == "interrupted" else c.message,
            c.value,
        )
        for c in calls
    ]


@pytest.mark.parametrize(
    "name", ["parallel_calls", "max_tokens", "invalid_json", "stream_error", "connection_drop"]
)
def test_record_then_replay_gives_the_same_calls(name: str, tmp_path: Path) -> None:
    events: list[dict[str, Any]] = []
    recorded = RunView()
    run_scenario(name, recorded, on_raw_event=events.append)
    path = tmp_path / f"{name}.jsonl"
    with path.open("w", encoding="utf-8") as out:
        assert write_events(events, out) == len(events)
    replayed = RunView()
    play_events(load_events(path), replayed)
    assert replayed.calls, "the replay shows no call"
    assert _summary(replayed.calls) == _summary(recorded.calls)
    assert replayed.turn == recorded.turn
    # Replay has the streams only: the final text is the last turn's text in both.
    assert replayed.text == recorded.text


def test_record_and_replay_commands_agree(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "invalid.jsonl"
    assert cli.main(["record", "--scenario", "invalid_json", "-o", str(path)]) == 0
    recorded = capsys.readouterr().out
    assert recorded.startswith(f"recorded {len(path.read_text().splitlines())} events of 3 turns to {path}")
    assert cli.main(["replay", str(path), "--plain"]) == 0
    replayed = capsys.readouterr().out
    calls_line = next(line for line in replayed.splitlines() if line.startswith("calls: "))
    # record's report lists the same calls with the same verdicts as the replay's summary.
    assert recorded.split(": ", 1)[1].strip() == calls_line.removeprefix("calls: ")
    assert "malformed at position 36: invalid escape" in calls_line


def test_recording_is_raw_events_one_per_line(tmp_path: Path) -> None:
    path = tmp_path / "parallel.jsonl"
    assert cli.main(["record", "--scenario", "parallel_calls", "-o", str(path)]) == 0
    lines = path.read_text(encoding="utf-8").split("\n")
    assert lines[-1] == ""
    events = [json.loads(line) for line in lines[:-1]]
    assert [e["type"] for e in events].count("message_start") == 2
    assert events[0]["type"] == "message_start" and events[-1]["type"] == "message_stop"
    fragments = "".join(
        e["delta"]["partial_json"]
        for e in events
        if e["type"] == "content_block_delta" and e["delta"]["type"] == "input_json_delta"
    )
    assert '"city": "Paris"' in fragments


def test_bundled_demo_stream_replays() -> None:
    path = Path(str(resources.files("tooljson").joinpath("data/demo_stream.jsonl")))
    view = RunView()
    play_events(load_events(path), view)
    assert [call.status for call in view.calls] == ["complete", "complete", "complete", "truncated"]
    assert view.calls[2].value == {}
    assert view.stop_reason == "max_tokens"


MALFORMED = [
    ('{"type": "ping"}\n{"type": "message_start", "message": {}\n', 2, "not JSON"),
    ('{"type": "ping"}\n\n[1, 2]\n', 3, "expected a JSON object"),
    ('{"type": "ping"}\n{"type": "ping"}\n{"type": "ping"}\n{"kind": "ping"}\n', 4, 'no "type"'),
    ('{"type": "content_block_delta", "delta": {"type": "text_delta", "text": "x"}}\n', 1, 'integer "index"'),
    ('{"type": "content_block_delta", "index": 0, "delta": "x"}\n', 1, 'object for "delta"'),
    ("\n\n", 1, "no event"),
]


@pytest.mark.parametrize(("text", "line", "problem"), MALFORMED)
def test_malformed_recording_names_the_line(text: str, line: int, problem: str, tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RecordingError) as caught:
        load_events(path)
    assert caught.value.line == line
    assert f"line {line}:" in str(caught.value)
    assert problem in str(caught.value)


def test_non_utf8_recording_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(b'{"type": "ping"}\n{"type": "ping"}\n{"type": "\xff"}\n')
    with pytest.raises(RecordingError, match="line 3: not UTF-8"):
        load_events(path)


def test_line_separator_inside_a_string_is_not_a_line_break(tmp_path: Path) -> None:
    event = {
        "type": "content_block_delta",
        "index": 0,
        "delta": {"type": "text_delta", "text": "a\u2028b\u0085c"},
    }
    path = tmp_path / "separators.jsonl"
    with path.open("w", encoding="utf-8") as out:
        write_events([event, {"type": "ping"}], out)
    assert load_events(path) == [event, {"type": "ping"}]


def test_replay_command_reports_a_bad_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"type": "ping"}\n{"type": "ping"}\nnot json\n', encoding="utf-8")
    assert cli.main(["replay", str(path)]) == 2
    error = capsys.readouterr().err
    assert error.startswith(f"error: {path}, line 3: not JSON")
    assert cli.main(["replay", str(tmp_path / "missing.jsonl")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_live_without_a_key_is_a_clear_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    path = tmp_path / "live.jsonl"
    assert cli.main(["record", "--live", "--scenario", "parallel_calls", "-o", str(path)]) == 2
    assert "needs ANTHROPIC_API_KEY" in capsys.readouterr().err
    assert not path.exists()
    assert cli.main(["watch", "--live", "--plain", "--scenario", "parallel_calls"]) == 2
    assert "needs ANTHROPIC_API_KEY" in capsys.readouterr().err


def test_replay_of_a_cut_recording_shows_the_call_interrupted(tmp_path: Path) -> None:
    events: list[dict[str, Any]] = []
    run_scenario("parallel_calls", RunView(), on_raw_event=events.append)
    # Cut in the middle of the first call's input, as a dropped connection leaves a recording.
    first_delta = next(
        i
        for i, e in enumerate(events)
        if e["type"] == "content_block_delta" and e["delta"]["type"] == "input_json_delta"
    )
    view = RunView()
    play_events(events[: first_delta + 1], view)
    assert [call.status for call in view.calls] == ["interrupted"]
    assert view.calls[0].message == "the stream ended before message_stop"
    assert view.calls[0].position == len(events[first_delta]["delta"]["partial_json"])


def test_a_stream_cut_after_the_text_broke_shows_the_break() -> None:
    events: list[dict[str, Any]] = []
    run_scenario("invalid_json", RunView(), on_raw_event=events.append)
    first_stop = next(
        i for i, e in enumerate(events) if e["type"] == "content_block_stop" and e["index"] == 1
    )
    # Everything of the first call but its content_block_stop: its text is already malformed.
    view = RunView()
    play_events(events[:first_stop], view)
    call = view.calls[0]
    assert call.status == "malformed"
    assert (call.position, call.message) == (36, "invalid escape")
