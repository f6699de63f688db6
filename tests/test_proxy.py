"""The pass-through proxy: the real client through it sees exactly what it sees directly; the view
beside it sees every call with its verdict; recordings replay; secrets stay out; failures are relayed
as they happen."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from pathlib import Path
from typing import Any

import anthropic
import pytest
import tooljson
from browser import needs_browser
from tooljson import cli
from tooljson.demo.runs import demo_handlers
from tooljson.proxy.serve import ProxyServer
from tooljson.standin import StandInServer, get_scenario, scenarios_for
from tooljson.ui.model import RunView
from tooljson.ui.plain import PlainView
from tooljson.ui.playback import play_events
from tooljson.ui.recording import load_events

SECRET = "sk-ant-secret-0123456789abcdef"
STREAMED = [name for name in scenarios_for("anthropic") if name not in ("stream_error", "connection_drop")]


def _client(base_url: str) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=base_url, api_key=SECRET, max_retries=0)


def _raw_events(base_url: str, request: dict[str, Any]) -> list[dict[str, Any]]:
    with _client(base_url) as client:
        return [event.model_dump() for event in client.messages.create(stream=True, **request)]


def _loop(base_url: str, name: str) -> tuple[Any, list[Any]]:
    scenario = get_scenario(name)
    raw: list[Any] = []

    def on_event(event: tooljson.LoopEvent) -> None:
        if event.kind == "stream_event":
            raw.append(event.data)

    with _client(base_url) as client:
        try:
            result: Any = tooljson.run_tool_loop(
                client, handlers=demo_handlers(scenario.tools), on_event=on_event, **scenario.first_request()
            )
        except tooljson.ToolLoopError as error:
            result = (type(error).__name__, str(error).split(":")[0])
    return result, raw


def _settle(proxy: ProxyServer) -> None:
    # The proxy's thread reads the last chunk just after relaying it.
    proxy.settle()
    proxy.run.update()


@pytest.mark.parametrize("name", sorted(scenarios_for("anthropic")))
def test_every_scenario_through_the_proxy_is_what_it_is_directly(name: str, tmp_path: Path) -> None:
    with (
        StandInServer(scenario=name, seed=3) as upstream,
        ProxyServer(upstream.base_url, record=tmp_path) as proxy,
    ):
        direct, direct_events = _loop(upstream.base_url, name)
        through, proxy_events = _loop(proxy.url, name)
        assert proxy_events == direct_events
        if isinstance(direct, tooljson.ToolLoopResult):
            assert (through.content, through.stop_reason, through.messages, through.turns) == (
                direct.content,
                direct.stop_reason,
                direct.messages,
                direct.turns,
            )
        else:
            assert through == direct
        _settle(proxy)
        seen = [(call.name, call.status, call.position) for call in proxy.run.calls]
    # The view beside the proxy parsed each response once and reached the verdicts a replay reaches.
    replay = RunView()
    play_events(list(direct_events), replay)
    expected = [
        (call.name, "complete" if call.status == "rejected" else call.status, call.position)
        for call in replay.calls
    ]
    assert seen == expected
    # Each streamed response was recorded, and each recording replays to the same calls.
    recordings = sorted(tmp_path.glob("*.jsonl"))
    replayed: list[tuple[Any, ...]] = []
    for path in recordings:
        run = RunView()
        play_events(load_events(path), run)
        replayed += [(call.name, call.status, call.position) for call in run.calls]
        request = json.loads(path.with_suffix(".request.json").read_text())
        assert request["model"] == get_scenario(name).first_request()["model"]
        assert request["path"] == "/v1/messages"
    assert replayed == seen
    for path in tmp_path.iterdir():
        assert SECRET not in path.read_text(encoding="utf-8")


@pytest.mark.parametrize("name", STREAMED)
def test_raw_events_and_the_helper_stream_are_identical(name: str) -> None:
    request = get_scenario(name).first_request()
    with StandInServer(scenario=name, seed=1) as upstream, ProxyServer(upstream.base_url) as proxy:
        assert _raw_events(proxy.url, request) == _raw_events(upstream.base_url, request)
        outcomes: list[Any] = []
        for base in (upstream.base_url, proxy.url):
            with _client(base) as client, client.messages.stream(**request) as stream:
                types: list[str] = []
                try:
                    types.extend(event.type for event in stream)
                    outcomes.append((types, stream.get_final_message().model_dump()))
                except ValueError as error:
                    # The helper gives up on a broken escape (invalid_json) and on a lone surrogate
                    # escape (lone_surrogate): at the same event, through the proxy or not.
                    outcomes.append((types, str(error)))
        assert outcomes[0] == outcomes[1]
        assert isinstance(outcomes[0][1], str) == (name in ("invalid_json", "lone_surrogate"))


def test_async_client_through_the_proxy() -> None:
    request = get_scenario("large_file_write").first_request()

    async def events(base_url: str) -> list[dict[str, Any]]:
        async with anthropic.AsyncAnthropic(base_url=base_url, api_key=SECRET, max_retries=0) as client:
            stream = await client.messages.create(stream=True, **request)
            return [event.model_dump() async for event in stream]

    with StandInServer(scenario="large_file_write") as upstream, ProxyServer(upstream.base_url) as proxy:
        direct = asyncio.run(events(upstream.base_url))
        through = asyncio.run(events(proxy.url))
        assert through == direct
        _settle(proxy)
        [call] = proxy.run.calls
        assert call.status == "complete" and call.deltas > 1000


def test_a_whole_message_is_shown_once_complete() -> None:
    request = get_scenario("parallel_calls").first_request()
    with StandInServer(scenario="parallel_calls") as upstream, ProxyServer(upstream.base_url) as proxy:
        with _client(proxy.url) as client:
            message = client.messages.create(**request)
        _settle(proxy)
        assert [(call.name, call.status, call.value) for call in proxy.run.calls] == [
            (block.name, "complete", block.input) for block in message.content if block.type == "tool_use"
        ]


# Through the real client, each event dumped: eight 100 KB streams at once. Fifty at once, byte for
# byte, are tests/test_proxy_load.py's.
def test_concurrent_streams_through_the_client(tmp_path: Path) -> None:
    streams = 8
    request = get_scenario("large_file_write").first_request()
    with StandInServer(scenario="large_file_write") as upstream, ProxyServer(upstream.base_url) as proxy:
        direct = _raw_events(upstream.base_url, request)
        with ThreadPoolExecutor(max_workers=streams) as pool:
            results = list(pool.map(lambda _: _raw_events(proxy.url, request), range(streams)))
        assert all(result == direct for result in results)
        _settle(proxy)
        assert [call.status for call in proxy.run.calls] == ["complete"] * streams
        assert len({call.turn for call in proxy.run.calls}) == streams


def test_upstream_dropping_mid_stream_is_the_same_cut_for_the_client() -> None:
    request = get_scenario("connection_drop").first_request()

    def read(base_url: str) -> tuple[list[dict[str, Any]], str]:
        received: list[dict[str, Any]] = []
        with _client(base_url) as client:
            try:
                for event in client.messages.create(stream=True, **request):
                    received.append(event.model_dump())
            except Exception as error:  # noqa: BLE001 - the class of the failure is what is compared
                return received, type(error).__name__
        return received, "no error"

    with StandInServer(scenario="connection_drop") as upstream, ProxyServer(upstream.base_url) as proxy:
        assert read(proxy.url) == read(upstream.base_url)
        _settle(proxy)
        [call] = proxy.run.calls
        assert call.status == "interrupted" and call.message.startswith("upstream closed mid-stream")


def test_an_upstream_that_is_down_is_a_502_shaped_like_the_api() -> None:
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    with ProxyServer(f"http://127.0.0.1:{port}") as proxy, _client(proxy.url) as client:
        with pytest.raises(anthropic.InternalServerError) as raised:
            client.messages.create(**get_scenario("parallel_calls").first_request())
    assert raised.value.status_code == 502
    assert raised.value.body["type"] == "error" and raised.value.body["error"]["type"] == "api_error"


class _SlowUpstream:
    """Streams one event, then waits: tells whether the connection was closed by the other side."""

    def __init__(self) -> None:
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen()
        self.closed = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.listener.getsockname()[1]}"

    def __enter__(self) -> _SlowUpstream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.thread.join(30)
        self.listener.close()

    def _serve(self) -> None:
        connection, _ = self.listener.accept()
        with connection:
            data = b""
            while b"\r\n\r\n" not in data:
                data += connection.recv(65536)
            event = b'event: message_start\ndata: {"type": "message_start", "message": {"id": "m", "type": "message", "role": "assistant", "model": "x", "content": [], "stop_reason": null, "stop_sequence": null, "usage": {"input_tokens": 1, "output_tokens": 1}}}\n\n'
            connection.sendall(
                b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
            )
            connection.sendall(b"%x\r\n%s\r\n" % (len(event), event))
            connection.settimeout(30)
            try:
                while connection.recv(65536):
                    pass
            except OSError:
                pass
            self.closed.set()


def test_a_client_that_goes_away_closes_the_upstream_request() -> None:
    with _SlowUpstream() as upstream, ProxyServer(upstream.url) as proxy, _client(proxy.url) as client:
        stream = client.messages.create(stream=True, **get_scenario("parallel_calls").first_request())
        first = next(iter(stream))
        assert first.type == "message_start"
        stream.close()
        assert upstream.closed.wait(10), "the upstream request stayed open"
        _settle(proxy)
        assert proxy.run.turns[0].interruption == "client disconnected"


def test_the_request_goes_upstream_as_the_client_wrote_it() -> None:
    # The method, the path and query as written (nothing quoted again), every header of the client's
    # in its order (a repeated one repeated), and none of the HTTP client's own defaults (user-agent,
    # accept, accept-encoding, a content-type): only the host and the length are the proxy's to write.
    heads: list[bytes] = []
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()

        def serve() -> None:
            connection, _ = listener.accept()
            with connection:
                data = b""
                while b"\r\n\r\n" not in data:
                    data += connection.recv(65536)
                heads.append(data.partition(b"\r\n\r\n")[0])
                connection.sendall(
                    b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nx-upstream: a\r\nx-upstream: b\r\n\r\n{}"
                )

        server = threading.Thread(target=serve, daemon=True)
        server.start()
        port = listener.getsockname()[1]
        with (
            ProxyServer(f"http://127.0.0.1:{port}") as proxy,
            socket.create_connection(("127.0.0.1", int(proxy.url.rsplit(":", 1)[1]))) as client,
        ):
            client.sendall(
                b"PATCH /v1/odd%7epath/%2F/x?b=%20&a=1&a=2 HTTP/1.1\r\nhost: elsewhere\r\nx-one: 1\r\n"
                b"x-twice: first\r\nx-twice: second\r\ncontent-length: 3\r\n\r\nabc"
            )
            answer = b""
            while not answer.endswith(b"{}"):
                answer += client.recv(65536)
        server.join(10)
    [head] = heads
    request_line, *lines = head.decode("latin-1").split("\r\n")
    assert request_line == "PATCH /v1/odd%7epath/%2F/x?b=%20&a=1&a=2 HTTP/1.1"
    headers = [tuple(line.split(": ", 1)) for line in lines]
    names = [name.lower() for name, _ in headers]
    assert sorted(names) == ["content-length", "host", "x-one", "x-twice", "x-twice"]
    assert [value for name, value in headers if name.lower() == "x-twice"] == ["first", "second"]
    assert {name.lower(): value for name, value in headers}["content-length"] == "3"
    # The upstream's repeated header comes back repeated.
    assert answer.startswith(b"HTTP/1.1 200 ") and answer.count(b"x-upstream: ") == 2


def test_the_key_is_in_no_log_line_and_no_view_line(caplog: pytest.LogCaptureFixture) -> None:
    out = io.StringIO()
    with caplog.at_level(logging.DEBUG), StandInServer(scenario="invalid_json") as upstream:
        with ProxyServer(upstream.base_url) as proxy:
            _loop(proxy.url, "invalid_json")
            _settle(proxy)
            view = PlainView(out)
            view.close(proxy.run)
    assert proxy.run.calls
    assert SECRET not in out.getvalue()
    assert all(SECRET not in record.getMessage() for record in caplog.records)


def test_the_command_refuses_a_port_in_use(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert cli.main(["proxy", "--port", str(port)]) == 2
    error = capsys.readouterr().err
    assert error.startswith(f"error: cannot listen on 127.0.0.1:{port}") and error.count("\n") == 1
    with pytest.raises(SystemExit) as raised:
        cli.main(["proxy", "--port", "99999"])
    assert raised.value.code == 2


def test_the_command_relays_shows_and_stops_cleanly(tmp_path: Path) -> None:
    import re
    import signal
    import subprocess
    import sys

    with StandInServer(scenario="invalid_json") as upstream:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tooljson",
                "proxy",
                "--plain",
                "--upstream",
                upstream.base_url,
                "--record",
                str(tmp_path),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert process.stdout is not None and process.stderr is not None
            match = re.search(r"http://127\.0\.0\.1:\d+", process.stdout.readline())
            assert match
            result, _ = _loop(match.group(0), "invalid_json")
            assert result.turns == 3
            process.send_signal(signal.SIGTERM)
            out, err = process.communicate(timeout=30)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
    assert "Traceback" not in err and SECRET not in out + err
    assert "malformed at position 36: invalid escape" in out
    assert process.returncode == 0 and err == ""
    assert len(list(tmp_path.glob("*.jsonl"))) == 3


def _start_proxy(*arguments: str) -> tuple[Any, list[str]]:
    import re
    import subprocess
    import sys

    process = subprocess.Popen(
        [sys.executable, "-m", "tooljson", "proxy", *arguments],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    lines = [process.stdout.readline() for _ in range(3 if "--web" in arguments else 2)]
    return process, re.findall(r"http://127\.0\.0\.1:\d+[^\s]*", "".join(lines))


def test_the_browser_view_shows_the_proxied_calls_live() -> None:
    import signal
    import urllib.request

    with StandInServer(scenario="parallel_calls") as upstream:
        process, urls = _start_proxy("--web", "--upstream", upstream.base_url)
        try:
            proxy_url, page = urls[0], urls[-1]
            base = page.split("?")[0].rstrip("/") + "/"
            _raw_events(proxy_url, get_scenario("parallel_calls").first_request())
            with urllib.request.urlopen(base + "api/sources", timeout=30) as response:
                assert json.load(response)["live"] == f"proxy → {upstream.base_url}"
            with urllib.request.urlopen(base + "api/run?source=live", timeout=30) as response:
                frames = []
                for line in response:
                    if line.startswith(b"data: ") and b'"calls"' in line:
                        frames.append(json.loads(line[6:])["data"])
                        break
            assert [(c["name"], c["status"]) for c in frames[0]["calls"]] == [("get_weather", "complete")] * 2
            process.send_signal(signal.SIGTERM)
            out, err = process.communicate(timeout=30)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
    assert process.returncode == 0 and "Traceback" not in err


@needs_browser
def test_the_proxys_page_draws_the_proxied_calls_and_offers_nothing_else(browser: Any) -> None:
    import signal

    with StandInServer(scenario="parallel_calls") as upstream:
        process, urls = _start_proxy("--web", "--upstream", upstream.base_url)
        try:
            proxy_url, page = urls[0], urls[-1]
            _raw_events(proxy_url, get_scenario("parallel_calls").first_request())
            browser.get(page)
            drawn = (
                "return Array.from(document.querySelectorAll('section.call'))"
                ".map((s) => [s.dataset.status, s.querySelector('.name').textContent])"
            )
            deadline = time.monotonic() + 30
            while (calls := browser.execute_script(drawn)) != [["complete", "get_weather"]] * 2:
                assert time.monotonic() < deadline, calls
                time.sleep(0.05)
            # The page of the proxy offers its own traffic: no stand-in scenario, no recording.
            offered = browser.execute_script(
                "return Array.from(document.querySelectorAll('#source option')).map((o) => o.value)"
            )
            assert offered == ["live"]
            process.send_signal(signal.SIGTERM)
            _, err = process.communicate(timeout=30)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
    assert process.returncode == 0 and "Traceback" not in err


def test_the_live_view_draws_in_its_own_process_and_stops_on_ctrl_c() -> None:
    import fcntl
    import os
    import pty
    import re
    import select
    import signal
    import struct
    import subprocess
    import sys
    import termios

    with StandInServer(scenario="large_file_write") as upstream:
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 120, 0, 0))
        process = subprocess.Popen(
            [sys.executable, "-m", "tooljson", "proxy", "--upstream", upstream.base_url],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env={**os.environ, "TERM": "xterm-256color"},
            start_new_session=True,
        )
        os.close(slave)
        output = b""

        def read_for(seconds: float) -> None:
            nonlocal output
            deadline = time.monotonic() + seconds
            while time.monotonic() < deadline:
                ready, _, _ = select.select([master], [], [], 0.1)
                if ready:
                    try:
                        output += os.read(master, 65536)
                    except OSError:
                        return

        try:
            while not re.search(rb"http://127\.0\.0\.1:\d+", output):
                read_for(0.2)
            url = re.search(rb"http://127\.0\.0\.1:\d+", output).group(0).decode()  # type: ignore[union-attr]
            _raw_events(url, get_scenario("large_file_write").first_request())
            read_for(1.0)
            os.killpg(process.pid, signal.SIGINT)  # as Ctrl-C reaches every process of the terminal
            code = process.wait(timeout=30)
            read_for(0.5)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
            os.close(master)
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", output.decode("utf-8", errors="replace"))
    assert code == 0
    assert "write_file" in text and "complete" in text
    assert "Traceback" not in text and "KeyboardInterrupt" not in text


@pytest.mark.parametrize("provider", ["openai", "responses", "bedrock"])
def test_the_other_providers_streams_are_relayed_and_shown(provider: str) -> None:
    from tooljson.standin.clients import as_dict, first_request, open_client, stream_events

    request = first_request(get_scenario("parallel_calls"), provider)  # type: ignore[arg-type]
    with StandInServer(scenario="parallel_calls") as upstream, ProxyServer(upstream.base_url) as proxy:
        seen = []
        for base in (upstream.base_url, proxy.url):
            with closing(open_client(provider, base)) as client:  # type: ignore[arg-type]
                seen.append([as_dict(event) for event in stream_events(provider, client, request)])  # type: ignore[arg-type]
        assert seen[0] == seen[1]
        _settle(proxy)
        assert [(call.name, call.status) for call in proxy.run.calls] == [("get_weather", "complete")] * 2
