"""The browser view: its HTTP endpoints, then the page itself in a headless Chromium."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import tooljson
from browser import needs_browser
from tooljson.demo.runs import run_scenario, scenario_offers
from tooljson.standin.scenarios.answers import FAULT_AFTER_CHARS
from tooljson.ui.model import RunView
from tooljson.ui.recording import write_events
from tooljson.ui.web import WebServer, recording_offers


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=60) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        with error:
            return error.code, error.read().decode()


def _parts(body: str) -> list[dict[str, Any]]:
    """The parts of a UI message stream: ``data: <json>`` blocks, the last one ``data: [DONE]``."""
    blocks = body.strip().split("\n\n")
    assert blocks[-1] == "data: [DONE]"
    parts = []
    for block in blocks[:-1]:
        assert block.startswith("data: ") and "\n" not in block, block
        parts.append(json.loads(block.removeprefix("data: ")))
    return parts


def _frames(parts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [part["data"] for part in parts if part["type"] == "data-run"]


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    events: list[dict[str, Any]] = []
    run_scenario("invalid_json", RunView(), on_raw_event=events.append)
    path = tmp_path_factory.mktemp("recordings") / "invalid_json.jsonl"
    with path.open("w", encoding="utf-8") as out:
        write_events(events, out)
    return path


@pytest.fixture(scope="module")
def broken_recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("recordings") / "broken.jsonl"
    path.write_text('{"type": "ping"}\n{"type": "message_start", \n', encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def server(recording: Path, broken_recording: Path) -> Iterator[WebServer]:
    with WebServer([*scenario_offers(), *recording_offers([recording, broken_recording])]) as running:
        yield running


def test_server_binds_loopback_on_a_free_port(server: WebServer) -> None:
    assert server.url.startswith("http://127.0.0.1:")
    assert server.port > 0
    status, page = _get(server.url)
    assert status == 200
    assert '<script src="/static/app.js">' in page
    # Everything the page needs is served locally: no address outside this server.
    assert "http" not in page.replace(server.url, "")


def test_sources_list_every_scenario_and_the_files(server: WebServer) -> None:
    from tooljson.standin import scenarios_for

    status, body = _get(server.url + "api/sources")
    sources = json.loads(body)["sources"]
    assert status == 200
    scenarios = [s for s in sources if s["group"] == "Stand-in scenarios"]
    assert [s["id"] for s in scenarios] == [f"scenario:{name}" for name in scenarios_for("anthropic")]
    assert all(s["description"] for s in scenarios)
    assert [s for s in sources if s["group"] == "Recordings"] == [
        {
            "id": "file:0",
            "group": "Recordings",
            "name": "invalid_json.jsonl",
            "description": "Replay of invalid_json.jsonl",
        },
        {
            "id": "file:1",
            "group": "Recordings",
            "name": "broken.jsonl",
            "description": "Replay of broken.jsonl",
        },
    ]
    assert len(sources) == len(scenarios) + 2


def test_run_streams_the_ai_sdk_parts_and_the_views_frames(server: WebServer) -> None:
    from tooljson.standin.scenarios.answers import (
        BROKEN_ESCAPE_INPUT,
        CORRECTED_INPUTS,
        TRAILING_OBJECT_INPUT,
    )

    with urllib.request.urlopen(
        server.url + "api/run?source=scenario:invalid_json&speed=0", timeout=60
    ) as answer:
        assert answer.headers["x-vercel-ai-ui-message-stream"] == "v1"
        assert answer.headers["content-type"].startswith("text/event-stream")
        parts = _parts(answer.read().decode())
    assert parts[0]["type"] == "start" and parts[0]["messageId"]
    assert parts[-1] == {"type": "finish", "finishReason": "stop"}
    # Three responses, each one step: the malformed calls, the corrected ones, the closing text.
    kinds = [part["type"] for part in parts]
    assert kinds.count("start-step") == kinds.count("finish-step") == 3
    begun = [part["toolCallId"] for part in parts if part["type"] == "tool-input-start"]
    text = {
        id_: "".join(
            p["inputTextDelta"]
            for p in parts
            if p.get("toolCallId") == id_ and p["type"] == "tool-input-delta"
        )
        for id_ in begun
    }
    assert list(text.values()) == [BROKEN_ESCAPE_INPUT, TRAILING_OBJECT_INPUT, *CORRECTED_INPUTS]
    verdicts = [part for part in parts if part["type"] in ("tool-input-available", "tool-input-error")]
    assert [part["type"] for part in verdicts] == ["tool-input-error"] * 2 + ["tool-input-available"] * 2
    assert "(char 36): invalid escape" in verdicts[0]["errorText"]
    assert [part["input"] for part in verdicts[2:]] == [json.loads(text) for text in CORRECTED_INPUTS]
    # What the protocol has no part for comes in the view's own, marked transient.
    frames = _frames(parts)
    assert frames, "no frame was pushed"
    assert all(part["transient"] for part in parts if part["type"] == "data-run")
    final = frames[-1]
    assert final["done"] is True
    assert [call["id"] for call in final["calls"]] == begun
    assert [call["status"] for call in final["calls"]] == ["malformed", "malformed", "complete", "complete"]
    assert final["calls"][0]["excerpt"][1].startswith("qb")


def test_an_event_the_parts_cannot_read_ends_its_response_with_an_error_part() -> None:
    from tooljson.ui.parts import RunParts
    from tooljson.ui.recording import load_events

    events = load_events(Path(tooljson.__file__).parent / "data" / "demo_stream.jsonl")
    bad = {
        "type": "content_block_delta",
        "index": 0,
        "delta": {"type": "input_json_delta", "partial_json": 5},
    }
    parts: list[dict[str, Any]] = []
    run = RunParts(parts.append, interval=0)
    for event in events[:3]:
        run.tee(event)
    run.tee(bad)
    assert parts[-1]["type"] == "error" and "cannot be read" in parts[-1]["errorText"]
    read = len(parts)
    # The rest of that response is not read; the next response is.
    for event in events[3:]:
        run.tee(event)
    assert len(parts) == read
    for event in events:
        run.tee(event)
    run.close()
    assert [p["type"] for p in parts[read:]][:2] == ["start-step", "text-start"]
    assert parts[-1]["type"] == "finish-step"


def test_replayed_file_and_scenario_give_the_same_calls(server: WebServer) -> None:
    def calls(source: str) -> list[tuple[Any, ...]]:
        frames = _frames(_parts(_get(server.url + f"api/run?source={source}&speed=0")[1]))
        return [(c["id"], c["status"], c["label"], c["rows"]) for c in frames[-1]["calls"]]

    assert calls("file:0") == calls("scenario:invalid_json")


def test_bad_requests_are_refused(server: WebServer) -> None:
    assert _get(server.url + "api/run?source=scenario:nope")[0] == 400
    assert _get(server.url + "api/run?source=file:9")[0] == 400
    assert _get(server.url + "api/run?source=file:../../etc/passwd")[0] == 400
    assert _get(server.url + "api/run?source=scenario:parallel_calls&speed=fast")[0] == 400
    assert _get(server.url + "static/secret.txt")[0] == 404


def test_broken_file_reports_its_line(server: WebServer) -> None:
    parts = _parts(_get(server.url + "api/run?source=file:1&speed=0")[1])
    assert [part["type"] for part in parts] == ["start", "error", "data-run", "finish"]
    assert "broken.jsonl, line 2: not JSON" in parts[1]["errorText"]
    assert parts[-1]["finishReason"] == "error"


def test_speed_changes_while_a_run_plays(server: WebServer) -> None:
    # At one event a second, parallel_calls (26 events) would take half a minute.
    response = urllib.request.urlopen(
        server.url + "api/run?source=scenario:parallel_calls&speed=1", timeout=60
    )
    started = time.monotonic()
    with response:
        start = json.loads(response.readline().decode().removeprefix("data: "))
        assert start["type"] == "start"
        run_id = start["messageId"]
        request = urllib.request.Request(server.url + f"api/runs/{run_id}/speed?speed=0", method="POST")
        with urllib.request.urlopen(request, timeout=30) as answer:
            assert json.loads(answer.read()) == {"speed": 0.0}
        body = response.read().decode()
    assert time.monotonic() - started < 15
    assert body.rstrip().endswith('data: {"type":"finish","finishReason":"stop"}\n\ndata: [DONE]')
    missing = urllib.request.Request(server.url + f"api/runs/{run_id}/speed?speed=5", method="POST")
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(missing, timeout=30)
    caught.value.close()
    assert caught.value.code == 404


# ---------------------------------------------------------------------------------------------------
# In a real browser


def _state(driver: Any) -> str:
    return str(driver.execute_script("return document.body.dataset.state"))


def _wait_done(driver: Any, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while _state(driver) not in ("done", "error"):
        assert time.monotonic() < deadline, f"the page is still {_state(driver)!r}"
        time.sleep(0.05)


def _calls(driver: Any) -> list[dict[str, str]]:
    script = """
      return Array.from(document.querySelectorAll('section.call')).map((s) => ({
        status: s.dataset.status, label: s.querySelector('.status').textContent, text: s.innerText}));
    """
    return list(driver.execute_script(script))


def _screenshot(driver: Any, path: Path) -> None:
    driver.save_screenshot(str(path))
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(data) > 10_000


@needs_browser
def test_page_tree_fills_in_as_events_arrive(server: WebServer, browser: Any, tmp_path: Path) -> None:
    browser.get(server.url + "?source=scenario:max_tokens&speed=60&autostart")
    lengths: list[int] = []
    previews: list[str] = []
    saw_cursor = False
    deadline = time.monotonic() + 60
    probe = """
      const row = Array.from(document.querySelectorAll('section.call:first-child .row'))
        .find((r) => r.querySelector('.key') && r.querySelector('.key').textContent === '"body": ');
      const input = document.querySelector('section.call:first-child .input');
      return [row ? Number(row.dataset.length) : 0,
              document.querySelectorAll('.row.s-open').length, document.body.dataset.state,
              input ? input.textContent : ""];
    """
    while time.monotonic() < deadline:
        length, open_rows, state, preview = browser.execute_script(probe)
        saw_cursor = saw_cursor or open_rows > 0
        if preview and (not previews or preview != previews[-1]):
            previews.append(preview)
        if length and (not lengths or length != lengths[-1]):
            lengths.append(length)
        if state == "done" or len(_calls(browser)) > 1:
            break
        time.sleep(0.05)
    # The first call's body string was seen at several sizes, each longer than the one before.
    assert len(lengths) >= 3, lengths
    assert lengths == sorted(lengths)
    assert saw_cursor, "no growing string was ever shown with its cursor"
    _wait_done(browser)
    calls = _calls(browser)
    assert [c["status"] for c in calls] == ["truncated", "truncated", "complete"]
    assert calls[0]["label"].startswith("truncated at position ")
    assert '"pinned": true' in calls[2]["text"]
    # The call's input line is the stream's own: its stable previews (data-tool-input-preview) as
    # they came, then the input of tool-input-available.
    assert len(previews) >= 3, previews
    inputs = browser.execute_script(
        "return Array.from(document.querySelectorAll('section.call .input'))"
        ".map((i) => [i.dataset.final, i.textContent])"
    )
    assert [final for final, _ in inputs] == ["false", "false", "true"]
    assert '"pinned":true' in inputs[2][1]
    _screenshot(browser, tmp_path / "max_tokens.png")


@needs_browser
@pytest.mark.parametrize(
    ("scenario", "labels"),
    [
        (
            "invalid_json",
            ["malformed at position 36: invalid escape", "malformed at position 35: trailing characters"],
        ),
        ("stream_error", [f"interrupted at position {FAULT_AFTER_CHARS}: overloaded_error: Overloaded"]),
        ("connection_drop", [f"interrupted at position {FAULT_AFTER_CHARS}: RemoteProtocolError"]),
    ],
)
def test_page_shows_broken_calls_plainly(
    server: WebServer, browser: Any, tmp_path: Path, scenario: str, labels: list[str]
) -> None:
    browser.get(server.url + f"?source=scenario:{scenario}&speed=0&autostart")
    _wait_done(browser)
    calls = _calls(browser)
    for call, label in zip(calls, labels):
        assert call["label"].startswith(label)
    # Each broken call's tool-input-error says what happened, as the protocol writes it.
    verdicts = browser.execute_script(
        "return Array.from(document.querySelectorAll('section.call .verdict')).map((v) => v.textContent)"
    )
    assert len(verdicts) == len(labels) and all(verdicts), verdicts
    # Where the text broke is marked in the raw text.
    marks = browser.execute_script("return Array.from(document.querySelectorAll('.excerpt mark')).length")
    assert marks >= len(labels)
    badge = browser.execute_script("return document.getElementById('state').textContent")
    if scenario != "invalid_json":
        failure = browser.execute_script("return document.getElementById('failure').textContent")
        assert failure.startswith("StreamInterrupted")
        # A run that ended in a failure is never shown as done.
        assert (_state(browser), badge) == ("error", "failed")
    else:
        assert (_state(browser), badge) == ("done", "done")
    _screenshot(browser, tmp_path / f"{scenario}.png")


@needs_browser
def test_page_shows_repaired_and_rejected_calls_and_the_repairs_at_their_fields(
    server: WebServer, browser: Any, tmp_path: Path
) -> None:
    browser.get(server.url + "?source=scenario:schema_mismatch&speed=0&autostart")
    _wait_done(browser)
    calls = _calls(browser)
    assert [c["status"] for c in calls] == ["repaired", "rejected"]
    assert calls[0]["label"] == "repaired: /priority, /component"
    assert calls[1]["label"].startswith("rejected: the tool was not run")
    repaired = browser.execute_script(
        "return Array.from(document.querySelectorAll('.row.repaired')).map((r) => r.textContent)"
    )
    assert repaired == ['  "priority": "High" → "high"', '  "component": " auth " → "auth"']
    _screenshot(browser, tmp_path / "schema_mismatch.png")


@needs_browser
def test_page_replays_a_picked_file(server: WebServer, browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    browser.get(server.url)
    deadline = time.monotonic() + 30
    while not browser.find_elements(By.CSS_SELECTOR, "option[value='file:0']"):
        assert time.monotonic() < deadline, "the picker never listed the file"
        time.sleep(0.05)
    Select(browser.find_element(By.ID, "source")).select_by_value("file:0")
    speed = browser.find_element(By.ID, "speed")
    speed.clear()
    speed.send_keys("0")
    browser.find_element(By.ID, "start").click()
    _wait_done(browser)
    assert [c["status"] for c in _calls(browser)] == ["malformed", "malformed", "complete", "complete"]
    assert "replay of invalid_json.jsonl" in browser.find_element(By.ID, "counters").text
    _screenshot(browser, tmp_path / "replay.png")


@needs_browser
def test_page_shows_a_broken_file_error(server: WebServer, browser: Any) -> None:
    browser.get(server.url + "?source=file:1&speed=0&autostart")
    _wait_done(browser)
    assert _state(browser) == "error"
    failure = browser.execute_script("return document.getElementById('failure').textContent")
    assert "broken.jsonl, line 2: not JSON" in failure


@needs_browser
def test_page_speed_control_changes_a_running_run(server: WebServer, browser: Any) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    # At one event a second the run would last about half a minute.
    browser.get(server.url + "?source=scenario:parallel_calls&speed=1&autostart")
    deadline = time.monotonic() + 30
    while not browser.execute_script("return document.getElementById('counters').textContent"):
        assert time.monotonic() < deadline, "no frame arrived"
        time.sleep(0.05)
    assert _state(browser) == "running"
    started = time.monotonic()
    speed = browser.find_element(By.ID, "speed")
    speed.clear()
    speed.send_keys("0", Keys.TAB)
    _wait_done(browser, timeout=20)
    assert time.monotonic() - started < 15
    assert [c["status"] for c in _calls(browser)] == ["complete", "complete"]
