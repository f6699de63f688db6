"""The other providers through the command line and the views: demo, record, replay, web."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from tooljson import cli
from tooljson.accumulator import ToolCallAccumulator
from tooljson.demo.runs import demo_scenarios, run_provider_scenario
from tooljson.standin import scenarios_for
from tooljson.ui.model import CallView, RunView
from tooljson.ui.playback import play_events
from tooljson.ui.recording import RecordingError, load_events, parse_events, write_events
from tooljson.ui.web import WebServer, recording_offers

PROVIDERS = ("openai", "responses", "bedrock")


def _summary(calls: list[CallView]) -> list[tuple[Any, ...]]:
    # A broken stream is named by the client's exception live and by the missing end in a replay.
    return [
        (c.id, c.name, c.status, c.position, None if c.status == "interrupted" else c.message, c.value)
        for c in calls
    ]


def _record(provider: str, name: str, path: Path) -> RunView:
    events: list[dict[str, Any]] = []
    view = RunView()
    run_provider_scenario(provider, name, view, on_raw_event=events.append)
    with path.open("w", encoding="utf-8") as out:
        write_events(events, out)
    return view


@pytest.mark.parametrize("provider", PROVIDERS)
def test_record_then_replay_gives_the_same_calls_for_every_scenario(provider: str, tmp_path: Path) -> None:
    for name in scenarios_for(provider):
        path = tmp_path / f"{provider}-{name}.jsonl"
        recorded = _record(provider, name, path)
        replayed = RunView()
        play_events(load_events(path), replayed)
        assert replayed.calls, name
        assert _summary(replayed.calls) == _summary(recorded.calls), name
        assert replayed.final_text == recorded.final_text, name
        assert (
            (replayed.failure is None)
            == (recorded.failure is None)
            == (name not in ("stream_error", "connection_drop"))
        )


@pytest.mark.parametrize("provider", PROVIDERS)
def test_demo_with_a_provider_shows_its_scenarios_and_their_verdicts(
    provider: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["demo", "--provider", provider, "--plain"]) == 0
    out = capsys.readouterr().out
    titles = [line[3:] for line in out.splitlines() if line.startswith("== ")]
    assert titles == [f"{name} ({provider} client, stand-in)" for name in demo_scenarios(provider)]
    cut_off = {"openai": "length", "responses": "max_output_tokens", "bedrock": "max_tokens"}[provider]
    assert f"truncated at position 964 ({cut_off})" in out
    assert "malformed at position 36: invalid escape" in out


def test_the_command_line_names_what_a_provider_cannot_do() -> None:
    for arguments, says in [
        (
            ["demo", "--provider", "openai", "--scenario", "custom_tool"],
            "is not played for --provider openai",
        ),
        (["record", "--provider", "bedrock", "--live"], "--live runs the Messages API only"),
        (["watch", "--scenario", "two_choices"], "is not played for --provider anthropic"),
    ]:
        done = subprocess.run(
            [sys.executable, "-m", "tooljson", *arguments, "--plain"]
            if arguments[0] != "record"
            else [sys.executable, "-m", "tooljson", *arguments],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 2, done
        assert done.stderr.count("\n") == 1 and says in done.stderr and "Traceback" not in done.stderr


def test_record_command_then_replay_command(tmp_path: Path) -> None:
    path = tmp_path / "chat.jsonl"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "tooljson",
            "record",
            "--provider",
            "openai",
            "--scenario",
            "two_choices",
            "-o",
            str(path),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "recorded" in done.stdout and "truncated at position" in done.stdout
    assert all("choices" in json.loads(line) for line in path.read_text(encoding="utf-8").splitlines())
    done = subprocess.run(
        [sys.executable, "-m", "tooljson", "replay", str(path), "--plain"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "calls: get_weather complete, get_weather truncated at position" in done.stdout


def test_web_view_replays_a_provider_recording_parsing_each_fragment_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "bedrock.jsonl"
    _record("bedrock", "invalid_json", path)
    fragments: list[str] = []
    add_delta = ToolCallAccumulator.add_delta

    def counting(self: ToolCallAccumulator, index: Any, fragment: str) -> None:
        fragments.append(fragment)
        add_delta(self, index, fragment)

    monkeypatch.setattr(ToolCallAccumulator, "add_delta", counting)
    with (
        WebServer(recording_offers([path])) as server,
        urllib.request.urlopen(server.url + "api/run?source=file:0&speed=0", timeout=60) as response,
    ):
        body = response.read().decode()
    assert body.endswith("data: [DONE]\n\n") and "malformed" in body
    sent = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert fragments == [
        e["contentBlockDelta"]["delta"]["toolUse"]["input"]
        for e in sent
        if "toolUse" in e.get("contentBlockDelta", {}).get("delta", {})
    ]


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ('{"id": "c", "choices": 5}', "chunk.choices must be list"),
        (
            '{"id": "c", "choices": [{"index": 0, "delta": {"tool_calls": [{"index": "zero"}]}}]}',
            "tool_calls[0].index must be int",
        ),
        (
            '{"id": "c", "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": 7}}]}}]}',
            "arguments must be str",
        ),
        (
            '{"type": "response.function_call_arguments.delta", "output_index": 0, "delta": ["x"]}',
            "delta must be str",
        ),
        (
            '{"type": "response.incomplete", "response": {"incomplete_details": {"reason": 3}}}',
            "reason must be str",
        ),
        (
            '{"contentBlockDelta": {"contentBlockIndex": 1, "delta": {"toolUse": {"input": null, "x": 1}, "text": 5}}}',
            "delta.text must be str",
        ),
        (
            '{"contentBlockStart": {"contentBlockIndex": true, "start": {}}}',
            "contentBlockIndex must be int, not bool",
        ),
        ('{"messageStop": "tool_use"}', "messageStop must be dict"),
    ],
)
def test_a_bad_provider_event_in_a_recording_names_its_line(line: str, says: str) -> None:
    good = '{"messageStart": {"role": "assistant"}}'
    with pytest.raises(RecordingError) as caught:
        parse_events([good, line], source="rec.jsonl")
    assert caught.value.line == 2 and says in caught.value.problem


def test_replaying_a_recording_of_two_chat_responses_reads_each_with_its_own_reader() -> None:
    def chunk(response: str, delta: dict[str, Any], finish: str | None = None) -> str:
        return json.dumps(
            {"id": response, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
        )

    first = {
        "index": 0,
        "id": "call_a",
        "type": "function",
        "function": {"name": "f", "arguments": '{"a": 1}'},
    }
    lines = [
        chunk("one", {"tool_calls": [first]}),
        chunk("one", {}, "tool_calls"),
        chunk("two", {"tool_calls": [dict(first, id="call_b")]}),
        chunk("two", {}, "tool_calls"),
    ]
    view = RunView()
    play_events(parse_events(lines), view)
    assert [(call.turn, call.id, call.value) for call in view.calls] == [
        (1, "call_a", {"a": 1}),
        (2, "call_b", {"a": 1}),
    ]
