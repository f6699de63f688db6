"""One parse per fragment: whatever shows a stream (a replay, the browser view, the tool loop with
either decoding), each fragment reaches the parser exactly once, through one accumulator per response."""

from __future__ import annotations

import urllib.request
from pathlib import Path
from typing import Any

import anthropic
import pytest
import tooljson
from tooljson import cli
from tooljson.accumulator import ToolCallAccumulator
from tooljson.demo.runs import demo_handlers, run_scenario
from tooljson.standin import StandInServer, get_scenario
from tooljson.ui.model import RunView
from tooljson.ui.recording import write_events
from tooljson.ui.web import WebServer, recording_offers

PACKAGE = Path(tooljson.__file__).resolve().parent


class Counts:
    def __init__(self) -> None:
        self.fragments: list[str] = []
        self.accumulators = 0


@pytest.fixture
def counts(monkeypatch: pytest.MonkeyPatch) -> Counts:
    """Counts every fragment handed to an accumulator and every accumulator made."""
    seen = Counts()
    add_delta = ToolCallAccumulator.add_delta
    init = ToolCallAccumulator.__init__

    def counting_add_delta(self: ToolCallAccumulator, index: Any, fragment: str) -> None:
        seen.fragments.append(fragment)
        add_delta(self, index, fragment)

    def counting_init(self: ToolCallAccumulator, **options: Any) -> None:
        seen.accumulators += 1
        init(self, **options)

    monkeypatch.setattr(ToolCallAccumulator, "add_delta", counting_add_delta)
    monkeypatch.setattr(ToolCallAccumulator, "__init__", counting_init)
    return seen


def _fragments(events: list[dict[str, Any]]) -> list[str]:
    return [
        event["delta"]["partial_json"]
        for event in events
        if event["type"] == "content_block_delta" and event["delta"]["type"] == "input_json_delta"
    ]


def _recording(tmp_path: Path, scenario: str) -> tuple[Path, list[dict[str, Any]]]:
    events: list[dict[str, Any]] = []
    run_scenario(scenario, RunView(), on_raw_event=events.append)
    path = tmp_path / f"{scenario}.jsonl"
    with path.open("w", encoding="utf-8") as out:
        write_events(events, out)
    return path, events


@pytest.mark.parametrize("scenario", ["invalid_json", "max_tokens", "large_file_write"])
def test_replay_command_parses_each_fragment_once(
    scenario: str, tmp_path: Path, counts: Counts, capsys: pytest.CaptureFixture[str]
) -> None:
    path, events = _recording(tmp_path, scenario)
    counts.fragments.clear()
    counts.accumulators = 0
    assert cli.main(["replay", str(path), "--plain"]) == 0
    assert "calls: " in capsys.readouterr().out
    assert counts.fragments == _fragments(events)
    assert counts.accumulators == sum(event["type"] == "message_start" for event in events)


def test_web_view_parses_each_fragment_once(tmp_path: Path, counts: Counts) -> None:
    path, events = _recording(tmp_path, "invalid_json")
    counts.fragments.clear()
    counts.accumulators = 0
    with (
        WebServer(recording_offers([path])) as server,
        urllib.request.urlopen(server.url + "api/run?source=file:0&speed=0", timeout=60) as response,
    ):
        body = response.read().decode()
    assert body.endswith("data: [DONE]\n\n")
    assert counts.fragments == _fragments(events)
    assert counts.accumulators == sum(event["type"] == "message_start" for event in events)


@pytest.mark.parametrize("decode", ["json", "sdk"])
def test_loop_parses_each_fragment_once_and_the_view_reads_it_either_way(decode: str, counts: Counts) -> None:
    scenario = get_scenario("invalid_json")
    view = RunView()
    raw: list[Any] = []

    def on_event(event: tooljson.LoopEvent) -> None:
        if event.kind == "stream_event":
            raw.append(event.data)
        view.loop_event(event)
        view.update()

    with StandInServer(scenario=scenario) as server:
        with anthropic.Anthropic(base_url=server.base_url, api_key="stand-in", max_retries=0) as client:
            tooljson.run_tool_loop(
                client,
                handlers=demo_handlers(scenario.tools),
                on_event=on_event,
                decode=decode,  # type: ignore[arg-type]
                **scenario.first_request(),
            )
    as_dicts = [event if isinstance(event, dict) else event.to_dict() for event in raw]
    assert counts.fragments == _fragments(as_dicts)
    assert counts.accumulators == 3
    assert [(call.status, call.position) for call in view.calls] == [
        ("malformed", 36),
        ("malformed", 35),
        ("complete", None),
        ("complete", None),
    ]


def test_the_views_make_no_accumulator_of_their_own() -> None:
    for path in (PACKAGE / "ui").rglob("*.py"):
        assert "ToolCallAccumulator" not in path.read_text(encoding="utf-8"), path
