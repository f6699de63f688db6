"""The browser view against hostile and careless requests: hosts, origins, runs at once, headers,
malformed queries, script injection. Driven by a real HTTP client, then by headless Chromium."""

from __future__ import annotations

import http.server
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import psutil
import pytest
from browser import REBOUND_HOST, needs_browser
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tooljson.demo.runs import scenario_offers
from tooljson.ui.recording import write_events
from tooljson.ui.web import WebServer, recording_offers
from tooljson.ui.web_guard import ALLOWED_HOSTS, SECURITY_HEADERS

HOSTILE_NAME = '<img src=x onerror="window.pwned=1">'
HOSTILE_KEY = "</script><script>window.pwned=2</script>"
HOSTILE_VALUE = '"><svg onload="window.pwned=3"><b>bold</b>'


def _hostile_events() -> list[dict[str, Any]]:
    """One response whose tool name, key and value are each markup meant to run a script."""
    start = {
        "id": "m",
        "type": "message",
        "role": "assistant",
        "model": "x",
        "content": [],
        "stop_reason": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }
    text = json.dumps({HOSTILE_KEY: HOSTILE_VALUE, "nested": {HOSTILE_NAME: [HOSTILE_VALUE]}})
    block = {"type": "tool_use", "id": "toolu_<b>x</b>", "name": HOSTILE_NAME, "input": {}}
    return [
        {"type": "message_start", "message": start},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": HOSTILE_VALUE}},
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1, "content_block": block},
        *(
            {
                "type": "content_block_delta",
                "index": 1,
                "delta": {"type": "input_json_delta", "partial_json": text[i : i + 7]},
            }
            for i in range(0, len(text), 7)
        ),
        {"type": "content_block_stop", "index": 1},
        {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 9}},
        {"type": "message_stop"},
    ]


@pytest.fixture(scope="module")
def hostile_recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("recordings") / "hostile.jsonl"
    with path.open("w", encoding="utf-8") as out:
        write_events(_hostile_events(), out)
    return path


@pytest.fixture(scope="module")
def server(hostile_recording: Path) -> Iterator[WebServer]:
    with WebServer([*scenario_offers(), *recording_offers([hostile_recording])], max_runs=2) as running:
        yield running


@pytest.fixture
def client(server: WebServer) -> Iterator[httpx2.Client]:
    with httpx2.Client(base_url=server.url, timeout=60) as http:
        yield http


def _started(server: WebServer) -> int:
    return int(server.app.state.runs.started)


def _wait_until_idle(server: WebServer, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while len(server.app.state.runs):
        assert time.monotonic() < deadline, "runs are still in progress"
        time.sleep(0.05)


# --- hosts: a page that rebinds its own name to 127.0.0.1 gets nothing


@pytest.mark.parametrize("path", ["/", "/api/sources", "/static/app.js", "/api/run?source=file:0&speed=0"])
def test_a_foreign_host_name_gets_a_400_and_nothing_else(
    server: WebServer, client: httpx2.Client, path: str
) -> None:
    before = _started(server)
    for host in (f"{REBOUND_HOST}:{server.port}", "attacker.example", f"127.0.0.1.nip.io:{server.port}", ""):
        response = client.get(path, headers={"Host": host})
        assert response.status_code == 400, (host, response.status_code)
        assert "hostile" not in response.text and "scenario" not in response.text
    assert _started(server) == before


@pytest.mark.parametrize("host", ALLOWED_HOSTS)
def test_the_bound_address_and_localhost_are_served(
    server: WebServer, client: httpx2.Client, host: str
) -> None:
    response = client.get("/api/sources", headers={"Host": f"{host}:{server.port}"})
    assert response.status_code == 200
    recordings = [s for s in response.json()["sources"] if s["group"] == "Recordings"]
    assert [(s["id"], s["name"]) for s in recordings] == [("file:0", "hostile.jsonl")]


# --- origins: only the page itself starts or steers a run


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "http://attacker.example"},
        {"Origin": "null"},
        {"Origin": "http://127.0.0.1:1"},
        {"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors"},
        {"Sec-Fetch-Site": "same-site", "Sec-Fetch-Mode": "no-cors"},
    ],
)
def test_a_cross_site_request_starts_no_run(
    server: WebServer, client: httpx2.Client, headers: dict[str, str]
) -> None:
    before = _started(server)
    response = client.get("/api/run?source=scenario:parallel_calls&speed=0", headers=headers)
    assert response.status_code == 403
    assert "may not start or steer a run" in response.json()["error"]
    steer = client.post("/api/runs/0123456789abcdef/speed?speed=0", headers=headers)
    assert steer.status_code == 403
    assert _started(server) == before


def test_the_page_itself_starts_runs(server: WebServer, client: httpx2.Client) -> None:
    own = {"Origin": server.url.rstrip("/"), "Sec-Fetch-Site": "same-origin"}
    response = client.get("/api/run?source=file:0&speed=0", headers=own)
    assert response.status_code == 200
    assert response.text.endswith("data: [DONE]\n\n")


# --- a bounded number of runs


def test_runs_at_once_are_bounded_and_the_rest_get_429(server: WebServer) -> None:
    _wait_until_idle(server)
    process = psutil.Process()
    threads_before = process.num_threads()
    # At the slowest pace a run lasts minutes: none ends by itself while this test runs.
    url = server.url + "api/run?source=scenario:parallel_calls&speed=0.1"
    with httpx2.Client(timeout=60) as http:
        streams = [http.stream("GET", url) for _ in range(2)]
        responses = [stream.__enter__() for stream in streams]
        try:
            assert [r.status_code for r in responses] == [200, 200]
            # The run starts when its stream is read. The line iterators are kept: one dropped would
            # close its connection, and the server would end that run (its page went away).
            lines = [response.iter_lines() for response in responses]
            assert [json.loads(next(line).removeprefix("data: "))["type"] for line in lines] == [
                "start",
                "start",
            ]
            assert len(server.app.state.runs) == 2
            refused = [http.get(url) for _ in range(40)]
            assert {r.status_code for r in refused} == {429}
            assert "runs are in progress" in refused[0].json()["error"]
            assert refused[0].headers["retry-after"] == "5"
            # Two runs each hold a worker and a stand-in server's threads; forty refusals hold none.
            assert process.num_threads() - threads_before < 20
        finally:
            for stream in streams:
                stream.__exit__(None, None, None)
    # Once their pages are gone, the runs end and their places are free again.
    _wait_until_idle(server)
    with httpx2.Client(timeout=60) as http:
        assert http.get(server.url + "api/run?source=file:0&speed=0").status_code == 200


# --- headers and malformed queries


@pytest.mark.parametrize(
    "path", ["/", "/static/app.js", "/api/sources", "/api/run?source=nope", "/nowhere", "/static/x.txt"]
)
def test_every_answer_carries_the_security_headers(client: httpx2.Client, path: str) -> None:
    response = client.get(path)
    for name, value in SECURITY_HEADERS:
        assert response.headers[name.decode()] == value.decode(), name
    assert "frame-ancestors 'none'" in response.headers["content-security-policy"]


@pytest.mark.parametrize(
    "query",
    [
        "source=file:%C2%B2",  # "²" is a digit to str.isdigit(), not to int()
        "source=file:" + "9" * 5000,
        "source=file:-1",
        "source=file:0x0",
        "source=file:%ff",
        "source=scenario:%00",
        "source=",
        "",
        "source=file:0&speed=nan",
        "source=file:0&speed=inf",
        "source=file:0&speed=-1",
        "source=file:0&speed=1e-9",
        "source=file:0&speed=1e400",
        "source=file:0&speed=",
        "source=file:0&speed=%E2%91%A0",
    ],
)
def test_a_malformed_query_gets_a_400_with_a_json_error(client: httpx2.Client, query: str) -> None:
    response = client.get("/api/run?" + query)
    assert response.status_code == 400, response.text
    assert response.json()["error"]


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.text(max_size=40),
    st.text(max_size=12),
    st.sampled_from(["/api/run", "/api/runs/x/speed", "/api/sources"]),
)
def test_no_query_makes_the_server_fail(client: httpx2.Client, source: str, speed: str, path: str) -> None:
    params = {"source": source, "speed": speed}
    if path == "/api/run":
        # Never a valid source ("file:" then anything ending in "x"), so that nothing plays.
        params["source"] = f"file:{source}x"
    response = client.request("POST" if path.endswith("speed") else "GET", path, params=params)
    assert response.status_code < 500, (path, params, response.text)
    assert response.status_code in ((400, 404) if path != "/api/sources" else (200,)), response.text


# --- in a real browser


def _serve_attack_page(html: str) -> tuple[http.server.ThreadingHTTPServer, str]:
    body = html.encode()

    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            return None

    attacker = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=attacker.serve_forever, daemon=True).start()
    return attacker, f"http://localhost:{attacker.server_address[1]}/"


@needs_browser
def test_another_page_cannot_start_a_run_or_frame_the_view(server: WebServer, browser: Any) -> None:
    _wait_until_idle(server)
    before = _started(server)
    run = server.url + "api/run?source=scenario:parallel_calls&speed=0"
    attacker, url = _serve_attack_page(f"""<!doctype html><body>
      <img src="{run}">
      <iframe id="frame" src="{server.url}"></iframe>
      <script>
        fetch("{run}", {{mode: "no-cors"}}).catch(() => null);
        fetch("{server.url}api/runs/0123456789abcdef/speed?speed=0", {{method: "POST", mode: "no-cors"}})
          .catch(() => null);
        window.sourcesRead = "pending";
        fetch("{server.url}api/sources").then((r) => r.text()).then((t) => {{ window.sourcesRead = t; }})
          .catch(() => {{ window.sourcesRead = "blocked"; }});
      </script></body>""")
    try:
        browser.get(url)
        deadline = time.monotonic() + 20
        while browser.execute_script("return window.sourcesRead") == "pending":
            assert time.monotonic() < deadline
            time.sleep(0.1)
        # The same-origin policy keeps the recordings' names from the other page.
        assert browser.execute_script("return window.sourcesRead") == "blocked"
        # The view refuses to be framed: the frame shows the browser's error page, not the view.
        browser.switch_to.frame("frame")
        framed = browser.page_source
        browser.switch_to.default_content()
        assert "tool calls as they stream" not in framed
        time.sleep(1)
        assert _started(server) == before, "a request from another page started a run"
    finally:
        attacker.shutdown()
        attacker.server_close()


@needs_browser
def test_a_rebound_host_name_gets_nothing_in_the_browser(server: WebServer, browser: Any) -> None:
    browser.get(f"http://{REBOUND_HOST}:{server.port}/api/sources")
    assert "Invalid host header" in browser.page_source
    assert "hostile.jsonl" not in browser.page_source


@needs_browser
def test_names_keys_and_values_are_shown_as_text_never_run(server: WebServer, browser: Any) -> None:
    _wait_until_idle(server)
    browser.get(server.url + "?source=file:0&speed=0&autostart")
    deadline = time.monotonic() + 60
    while browser.execute_script("return document.body.dataset.state") not in ("done", "error"):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert browser.execute_script("return window.pwned") is None
    # No element came from the stream: the markup is text.
    assert (
        browser.execute_script("return document.querySelectorAll('#calls img, #calls svg, #calls b').length")
        == 0
    )
    call = browser.execute_script("return document.querySelector('section.call').innerText")
    assert HOSTILE_NAME in call
    assert json.dumps(HOSTILE_KEY) in call
    assert json.dumps(HOSTILE_VALUE) in call
    assert HOSTILE_VALUE in browser.execute_script("return document.getElementById('text').textContent")
