"""The debug view's cost: replaying ``large_file_write`` (~100 KB of tool input in ~6,600 events).

Group ``ui replay: large_file_write`` compares, at full speed (no pacing), the same recorded events
played through a :class:`~tooljson.ui.model.RunView` under:

- ``plain``: the line log (:class:`~tooljson.ui.terminal.PlainView`);
- ``live``: the rich live display (:class:`~tooljson.ui.terminal.LiveView`) on a terminal console,
  throttled to 20 frames a second.

The target: ``live`` costs at most twice ``plain``. Output goes to memory, so terminal speed is not
measured, only building and rendering frames. Each benchmark checks the parsed input.
"""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from rich.console import Console
from tooljson.demo.runs import run_scenario
from tooljson.standin.scenarios.answers import LARGE_FILE_INPUT
from tooljson.ui.model import RunView
from tooljson.ui.plain import PlainView
from tooljson.ui.playback import play_events
from tooljson.ui.terminal import LiveView

EXPECTED = json.loads(LARGE_FILE_INPUT)


@pytest.fixture(scope="module")
def events() -> list[dict[str, Any]]:
    recorded: list[dict[str, Any]] = []
    run_scenario("large_file_write", RunView(), on_raw_event=recorded.append)
    return recorded


def replay_plain(events: list[dict[str, Any]]) -> RunView:
    run = RunView()
    with PlainView(io.StringIO()) as view:
        play_events(events, run, on_change=view.on_change)
        view.close(run)
    return run


def replay_live(events: list[dict[str, Any]]) -> RunView:
    run = RunView()
    console = Console(file=io.StringIO(), force_terminal=True, width=120, highlight=False)
    with LiveView(console, fps=20) as view:
        play_events(events, run, on_change=view.on_change)
        view.close(run)
    return run


@pytest.mark.parametrize("view", ["plain", "live"])
def test_ui_replay(benchmark: Any, events: list[dict[str, Any]], view: str) -> None:
    benchmark.group = "ui replay: large_file_write"
    benchmark.extra_info.update(
        workload="large_file_write", implementation=view, size_bytes=len(LARGE_FILE_INPUT.encode())
    )
    replay = replay_plain if view == "plain" else replay_live
    run = benchmark(replay, events)
    assert [call.status for call in run.calls] == ["complete"]
    assert run.calls[0].value == EXPECTED
