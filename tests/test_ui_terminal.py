"""The terminal views: final frames of every scenario, the growing-string cursor, throttling, plain log."""

from __future__ import annotations

import io
import json
import time

import pytest
from rich.console import Console
from tooljson.demo.runs import run_scenario
from tooljson.standin import scenarios_for
from tooljson.standin.scenarios.answers import BROKEN_ESCAPE_INPUT, FAULT_AFTER_CHARS, TRAILING_OBJECT_INPUT
from tooljson.turn import TurnReader
from tooljson.ui.model import RunView
from tooljson.ui.plain import PlainView
from tooljson.ui.playback import play_events
from tooljson.ui.terminal import LiveView

_BROKEN_ESCAPE_AT = BROKEN_ESCAPE_INPUT.index("\\q") + 1
_TRAILING_AT = TRAILING_OBJECT_INPUT.index("}{") + 1

# Per scenario: the status label of every call in order, and text the final frame must show.
EXPECTED: dict[str, tuple[list[str], list[str]]] = {
    "parallel_calls": (
        ["complete", "complete"],
        ['"city": "Paris" ✓', '"city": "São Paulo" ✓', "result: Paris: 21 °C"],
    ),
    "empty_input": (["complete", "complete"], ["get_time", "get_uptime", "{} ✓"]),
    "max_tokens": (
        ["truncated", "truncated", "complete"],
        ['"pinned": true ✓', '"tags": [', '"title": "Streaming notes" ✓', "result: write_note done"],
    ),
    "invalid_json": (
        ["malformed", "malformed", "complete", "complete"],
        [
            f"malformed at position {_BROKEN_ESCAPE_AT}: invalid escape",
            f"malformed at position {_TRAILING_AT}: trailing characters",
            'error: {"INVALID_JSON"',
            '"note": "columns: a\\tb" ✓',
        ],
    ),
    "schema_mismatch": (
        ["repaired", "rejected"],
        [
            # The repaired fields show what the model sent and what the handler got, at the field.
            '"priority": "High" → "high" ✎ repaired',
            '"component": " auth " → "auth" ✎ repaired',
            "✎ repaired: /priority, /component",
            "⊘ rejected: the tool was not run",
            "error: Invalid input for tool 'create_ticket'",
            '"estimate_hours": "three" ✓',
        ],
    ),
    "unknown_tool": (["rejected"], ['"symbol": "ACME" ✓', "error: No tool named 'get_stock_price'"]),
    "pause_turn": (["complete"], ["web_search [server_tool_use]", '"query": "incremental JSON parsing']),
    "thinking": (["complete"], ["calculator [tool_use]", '"expression":']),
    "large_file_write": (
        ["complete"],
        ['"path": "notes/large_file.py" ✓', ' chars) "…', "result: write_file done"],
    ),
    "whole_arguments": (
        ["complete", "complete"],
        ['"city": "Lisboa" ✓', '"city": "東京" ✓', "result: Lisboa: 21 °C"],
    ),
    "lone_surrogate": (
        ["complete"],
        [
            # Lone surrogates are shown as their JSON escapes, and the view says so.
            '"text": "a\\ud800b" ✓',
            '"key \\udfff": "pair 🚀 kept" ✓',
            "2 lone surrogates shown as \\uXXXX escapes",
            "Echoed input:",
        ],
    ),
    "stream_error": (
        ["interrupted"],
        [f"interrupted at position {FAULT_AFTER_CHARS}: overloaded_error: Overloaded", '"city": "Reykjav'],
    ),
    "connection_drop": (
        ["interrupted"],
        [f"interrupted at position {FAULT_AFTER_CHARS}: RemoteProtocolError"],
    ),
}


def _console(*, terminal: bool, width: int = 150) -> Console:
    return Console(file=io.StringIO(), record=True, force_terminal=terminal, width=width, color_system=None)


def test_every_scenario_has_expectations() -> None:
    assert set(EXPECTED) == set(scenarios_for("anthropic"))


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_final_frame_shows_statuses_and_arguments(name: str) -> None:
    statuses, texts = EXPECTED[name]
    run = RunView(title=name)
    console = _console(terminal=True)
    with LiveView(console, fps=20) as view:
        run_scenario(name, run, on_change=view.on_change)
        view.close(run)
    assert [call.status for call in run.calls] == statuses
    # The last frame the live display drew is what stays on screen: render it on its own to read it.
    final = _console(terminal=False)
    final.print(view.render(run))
    shown = final.export_text()
    for text in texts:
        assert text in shown, f"{text!r} not in the final frame of {name}:\n{shown}"
    assert "final text:" in shown
    assert run.final_text
    assert run.final_text[:40] in shown


def test_not_a_terminal_prints_the_final_frame_once() -> None:
    run = RunView(title="once-only-title")
    console = _console(terminal=False)
    with LiveView(console) as view:
        run_scenario("parallel_calls", run, on_change=view.on_change)
        view.close(run)
    text = console.export_text()
    assert text.count("once-only-title") == 1
    assert text.count("✓ complete") == 2
    # No cursor movement or colour when the output is a file.
    file = console.file
    assert isinstance(file, io.StringIO)
    assert "\x1b[" not in file.getvalue()


def _recorded(name: str) -> list[dict[str, object]]:
    events: list[dict[str, object]] = []
    run_scenario(name, RunView(), on_raw_event=events.append)
    return events


def test_growing_string_shows_a_cursor_at_its_tail_and_completed_fields_marked() -> None:
    events = _recorded("max_tokens")
    run, reader = RunView(), TurnReader()
    run.add_turn(reader)
    # Play until the body string of the first call has grown past 300 characters.
    for event in events:
        reader.feed(event)
        if run.calls and run.calls[0].open_path == ("body",):
            if len(reader.accumulator.preview(run.calls[0].index).get("body", "")) > 300:
                break
    frame = run.frame(tail=40)
    call = frame["calls"][0]
    assert call["status"] == "streaming"
    # Object keys come as JSON text, as the views show them.
    rows = {json.loads(row["k"]): row for row in call["rows"] if isinstance(row["k"], str)}
    assert rows["title"]["s"] == "done"
    assert rows["body"]["s"] == "open"
    body = reader.accumulator.preview(run.calls[0].index)["body"]
    # Only the tail is shown, with the full length beside it.
    assert rows["body"]["t"].startswith(f'({len(body):,} chars) "…')
    assert json.dumps(body[-40:], ensure_ascii=False)[1:-1] in rows["body"]["t"]
    console = _console(terminal=False, width=200)
    console.print(LiveView(console, tail=40).render(run))
    text = console.export_text()
    assert "▌" in text
    assert '"title": "Streaming notes" ✓' in text
    assert "streaming" in text


def test_live_view_draws_at_most_its_frame_rate() -> None:
    events = _recorded("large_file_write")
    run = RunView()
    console = _console(terminal=True)
    fps = 10.0
    with LiveView(console, fps=fps) as view:
        started = time.perf_counter()
        play_events(events, run, speed=3000, on_change=view.on_change)
        elapsed = time.perf_counter() - started
        view.close(run)
    # One frame per interval at most, plus the first, the one at the end of the run and close's.
    assert view.frames <= elapsed * fps + 3
    # Paced at 3000 events a second, the run lasts long enough for several frames.
    assert view.frames >= 5


def test_plain_view_logs_each_step_and_a_summary() -> None:
    out = io.StringIO()
    run = RunView()
    with PlainView(out) as view:
        run_scenario("invalid_json", run, on_change=view.on_change)
        view.close(run)
    lines = out.getvalue().splitlines()
    assert "request 1 (max_tokens=4096)" in lines
    assert any(line.endswith(f"malformed at position {_BROKEN_ESCAPE_AT}: invalid escape") for line in lines)
    assert any(line.startswith("error for save_record") and "INVALID_JSON" in line for line in lines)
    assert any(line.startswith("final (end_turn, 3 requests)") for line in lines)
    assert lines[-1].startswith(f"{run.events} events, {run.deltas} deltas, {run.chars} chars")
    assert "\x1b[" not in out.getvalue()


def test_counters_add_up_the_raw_events() -> None:
    events = _recorded("parallel_calls")
    run = RunView()
    play_events(events, run)
    fragments = [
        e["delta"]["partial_json"]  # type: ignore[index]
        for e in events
        if e["type"] == "content_block_delta" and e["delta"]["type"] == "input_json_delta"  # type: ignore[index]
    ]
    assert run.events == len(events)
    assert run.deltas == len(fragments) == sum(call.deltas for call in run.calls)
    assert run.chars == sum(len(f) for f in fragments)
    assert run.parse_seconds > 0


def test_thinking_is_counted_not_shown() -> None:
    from tooljson.standin.scenarios.answers import THINKING_TEXT

    events = _recorded("thinking")
    run, reader = RunView(), TurnReader()
    run.add_turn(reader)
    for event in events:
        reader.feed(event)
        if event["type"] == "content_block_start" and event["content_block"]["type"] == "tool_use":  # type: ignore[index]
            break
    assert run.frame()["thinking_chars"] == len(THINKING_TEXT)
    console = _console(terminal=False)
    console.print(LiveView(console).render(run))
    text = console.export_text()
    assert f"thinking: {len(THINKING_TEXT):,} characters" in text
    assert THINKING_TEXT[:30] not in text


def test_a_handler_that_raised_shows_failed_not_complete() -> None:
    def failing(value: object) -> str:
        raise ValueError("no station")

    run = RunView(title="failing")
    run_scenario("parallel_calls", run, handlers={"get_weather": failing})
    assert [call.status for call in run.calls] == ["failed", "failed"]
    console = _console(terminal=False)
    console.print(LiveView(console).render(run))
    shown = console.export_text()
    assert shown.count("✗ failed: the tool raised") == 2
    assert "✓ complete" not in shown
    assert "error: The tool raised ValueError: no station" in shown
