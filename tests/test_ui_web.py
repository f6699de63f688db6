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


def _sse(body: str) -> list[tuple[str, Any]]:
    events = []
    for block in body.strip().split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.split("\n"))
        events.append((fields["event"], json.loads(fields["data"])))
    return events


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


def test_run_streams_frames_then_done(server: WebServer) -> None:
    status, body = _get(server.url + "api/run?source=scenario:invalid_json&speed=0")
    assert status == 200
    events = _sse(body)
    assert events[-1] == ("done", None)
    assert events[0][0] == "run"
    frames = [data for kind, data in events if kind == "frame"]
    assert frames, "no frame was pushed"
    final = frames[-1]
    assert final["done"] is True
    assert [call["status"] for call in final["calls"]] == ["malformed", "malformed", "complete", "complete"]
    assert final["calls"][0]["excerpt"][1].startswith("qb")


def test_replayed_file_and_scenario_give_the_same_calls(server: WebServer) -> None:
    def calls(source: str) -> list[tuple[Any, ...]]:
        frames = [
            d for k, d in _sse(_get(server.url + f"api/run?source={source}&speed=0")[1]) if k == "frame"
        ]
        return [(c["id"], c["status"], c["label"], c["rows"]) for c in frames[-1]["calls"]]

    assert calls("file:0") == calls("scenario:invalid_json")


def test_bad_requests_are_refused(server: WebServer) -> None:
    assert _get(server.url + "api/run?source=scenario:nope")[0] == 400
    assert _get(server.url + "api/run?source=file:9")[0] == 400
    assert _get(server.url + "api/run?source=file:../../etc/passwd")[0] == 400
    assert _get(server.url + "api/run?source=scenario:parallel_calls&speed=fast")[0] == 400
    assert _get(server.url + "static/secret.txt")[0] == 404


def test_broken_file_reports_its_line(server: WebServer) -> None:
    events = _sse(_get(server.url + "api/run?source=file:1&speed=0")[1])
    assert [kind for kind, _ in events] == ["run", "failure", "done"]
    assert "broken.jsonl, line 2: not JSON" in events[1][1]


def test_speed_changes_while_a_run_plays(server: WebServer) -> None:
    # At one event a second, parallel_calls (26 events) would take half a minute.
    response = urllib.request.urlopen(
        server.url + "api/run?source=scenario:parallel_calls&speed=1", timeout=60
    )
    started = time.monotonic()
    with response:
        assert response.readline() == b"event: run\n"
        run_id = json.loads(response.readline().decode().removeprefix("data: "))["id"]
        request = urllib.request.Request(server.url + f"api/runs/{run_id}/speed?speed=0", method="POST")
        with urllib.request.urlopen(request, timeout=30) as answer:
            assert json.loads(answer.read()) == {"speed": 0.0}
        body = response.read().decode()
    assert time.monotonic() - started < 15
    assert body.rstrip().endswith("event: done\ndata: null")
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
    saw_cursor = False
    deadline = time.monotonic() + 60
    probe = """
      const row = Array.from(document.querySelectorAll('section.call:first-child .row'))
        .find((r) => r.querySelector('.key') && r.querySelector('.key').textContent === '"body": ');
      return [row ? Number(row.dataset.length) : 0,
              document.querySelectorAll('.row.s-open').length, document.body.dataset.state];
    """
    while time.monotonic() < deadline:
        length, open_rows, state = browser.execute_script(probe)
        saw_cursor = saw_cursor or open_rows > 0
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
