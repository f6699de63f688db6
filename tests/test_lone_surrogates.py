"""Lone surrogates (valid JSON escapes that json.loads keeps and no UTF-8 encoder takes) through the
one helper that makes text encodable, the replay command, the web view and its page."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from browser import needs_browser
from hypothesis import given
from hypothesis import strategies as st
from tooljson.demo.runs import run_scenario, scenario_offers
from tooljson.standin.scenarios.answers import LONE_SURROGATE_INPUT
from tooljson.text import encodable
from tooljson.ui.model import RunView
from tooljson.ui.recording import load_events, write_events
from tooljson.ui.web import WebServer, recording_offers

# Any text, lone surrogates included (hypothesis draws them from the whole code point range).
TEXT = st.text(st.characters(codec=None, min_codepoint=0), max_size=20)
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | TEXT,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(TEXT, children, max_size=4),
    max_leaves=20,
)


def _surrogates(value: Any) -> int:
    return sum(1 for char in json.dumps(value, ensure_ascii=False) if "\ud800" <= char <= "\udfff")


@given(JSON_VALUES)
def test_replacing_makes_any_value_encodable_and_counts_what_it_replaced(value: Any) -> None:
    replaced, count = encodable(value)
    json.dumps(replaced, ensure_ascii=False).encode("utf-8")
    assert count == _surrogates(value)
    if count == 0:
        assert replaced is value


@given(JSON_VALUES)
def test_escaping_json_text_keeps_the_exact_value(value: Any) -> None:
    # What the views do to the JSON text they show: the escapes are that text's exact value.
    text = json.dumps(value, ensure_ascii=False)
    shown, count = encodable(text, escape=True)
    shown.encode("utf-8")
    assert count == _surrogates(value)
    assert json.loads(shown) == value


def test_deep_values_need_no_recursion() -> None:
    deep: Any = "\ud800"
    for _ in range(100_000):
        deep = [deep]
    replaced, count = encodable(deep)
    assert count == 1
    for _ in range(100_000):
        replaced = replaced[0]
    assert replaced == "\ufffd"


def test_keys_are_made_encodable_and_tuples_come_back_as_lists() -> None:
    assert encodable({"k\udc00": ("a\ud800", 1)}) == ({"k\ufffd": ["a\ufffd", 1]}, 2)
    assert encodable({"k\udc00": ("a\ud800", 1)}, escape=True) == ({"k\\udc00": ["a\\ud800", 1]}, 2)


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    events: list[dict[str, Any]] = []
    run_scenario("lone_surrogate", RunView(), on_raw_event=events.append)
    path = tmp_path_factory.mktemp("recordings") / "lone_surrogate.jsonl"
    with path.open("w", encoding="utf-8") as out:
        write_events(events, out)
    assert load_events(path) == events
    return path


@pytest.mark.parametrize("view", ["live", "plain"])
def test_replay_shows_them_escaped_and_says_so(recording: Path, view: str) -> None:
    # A real process: its stdout is strict UTF-8, as a terminal or a pipe is.
    command = [
        sys.executable,
        "-m",
        "tooljson",
        "replay",
        str(recording),
        *(["--plain"] if view == "plain" else []),
    ]
    done = subprocess.run(command, capture_output=True, timeout=120, check=False)
    out = done.stdout.decode("utf-8")
    assert done.returncode == 0, done.stderr.decode()
    assert done.stderr == b""
    assert '"text": "a\\ud800b"' in out
    assert '"key \\udfff": "pair \U0001f680 kept"' in out
    assert "lone surrogates shown as \\uXXXX escapes" in out


def _frames(url: str) -> list[dict[str, Any]]:
    with urllib.request.urlopen(url, timeout=60) as response:
        body = response.read().decode("utf-8")
    frames = []
    blocks = body.strip().split("\n\n")
    assert blocks[-1] == "data: [DONE]"
    for block in blocks[:-1]:
        part = json.loads(block.removeprefix("data: "))
        if part["type"] == "data-run":
            frames.append(part["data"])
        assert part["type"] != "error", part
    return frames


@pytest.fixture(scope="module")
def server(recording: Path) -> Any:
    with WebServer([*scenario_offers(), *recording_offers([recording])]) as running:
        yield running


@pytest.mark.parametrize("source", ["file:0", "scenario:lone_surrogate"])
def test_web_view_streams_them_escaped(server: WebServer, source: str) -> None:
    final = _frames(server.url + f"api/run?source={source}&speed=0")[-1]
    assert final["done"] and final["failure"] is None
    [call] = final["calls"]
    rows = {row["k"]: row["t"] for row in call["rows"] if row["k"] is not None}
    assert rows['"text"'] == '"a\\ud800b"'
    assert rows['"key \\udfff"'] == '"pair \U0001f680 kept"'
    assert call["escaped"] == "2 lone surrogates shown as \\uXXXX escapes"
    # The escapes in the JSON text are the exact value.
    assert json.loads("{" + ", ".join(f"{k}: {t}" for k, t in rows.items()) + "}") == json.loads(
        LONE_SURROGATE_INPUT
    )


@needs_browser
def test_the_page_shows_them_and_ends_done(server: WebServer, browser: Any) -> None:
    browser.get(server.url + "?source=scenario:lone_surrogate&speed=0&autostart")
    deadline = time.monotonic() + 60
    while browser.execute_script("return document.body.dataset.state") not in ("done", "error"):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert browser.execute_script("return document.body.dataset.state") == "done"
    call = browser.execute_script("return document.querySelector('section.call').innerText")
    assert '"text": "a\\ud800b"' in call
    assert "2 lone surrogates shown as \\uXXXX escapes" in call
