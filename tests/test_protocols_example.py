"""examples/ui_message_stream_app.py over HTTP: the stand-in through the real anthropic, openai and
google-genai clients, the app served by uvicorn, read with httpx as a browser would read it."""

from __future__ import annotations

import importlib.util
import json
import socket
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
uvicorn = pytest.importorskip("uvicorn")
httpx = pytest.importorskip("httpx")
anthropic = pytest.importorskip("anthropic")
pytest.importorskip("openai")
pytest.importorskip("google.genai")

from helpers import assert_same_json  # noqa: E402
from tooljson.providers.gemini.wire.client import first_request as gemini_request  # noqa: E402
from tooljson.standin import StandInServer, get_scenario  # noqa: E402
from tooljson.standin.clients import first_request  # noqa: E402

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "ui_message_stream_app.py"
PROVIDERS = ("anthropic", "openai", "gemini")


def _example() -> Any:
    spec = importlib.util.spec_from_file_location("ui_message_stream_app", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


example = _example()


class Served:
    """The example app on a loopback port, in a thread."""

    def __init__(self, upstream: str) -> None:
        self.socket = socket.socket()
        self.socket.bind(("127.0.0.1", 0))
        self.port = self.socket.getsockname()[1]
        config = uvicorn.Config(
            example.create_app(upstream), log_level="warning", lifespan="off", access_log=False
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.socket]}, daemon=True)

    def __enter__(self) -> Served:
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            assert self.thread.is_alive() and time.monotonic() < deadline, "the app did not start"
            time.sleep(0.01)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(10)
        self.socket.close()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


def request_for(provider: str, scenario: str) -> dict[str, Any]:
    if provider == "gemini":
        return gemini_request(get_scenario(scenario), stream_arguments=True)
    return first_request(get_scenario(scenario), provider)


def frames(url: str, provider: str, body: dict[str, Any]) -> Iterator[str]:
    """The data of each server-sent event, as the browser's reader splits them."""
    with (
        httpx.Client(timeout=30) as client,
        client.stream("POST", f"{url}/api/chat/{provider}", json=body) as reply,
    ):
        assert reply.status_code == 200
        assert reply.headers["x-vercel-ai-ui-message-stream"] == "v1"
        assert reply.headers["content-type"].startswith("text/event-stream")
        buffer = ""
        for text in reply.iter_text():
            buffer += text
            while "\n\n" in buffer:
                event, buffer = buffer.split("\n\n", 1)
                assert event.startswith("data: "), event
                yield event[len("data: ") :]
        assert buffer == ""


def parts_over_http(provider: str, scenario: str, **server_options: Any) -> list[dict[str, Any]]:
    with StandInServer(scenario, **server_options) as upstream, Served(upstream.base_url) as app:
        data = list(frames(app.url, provider, request_for(provider, scenario)))
    assert data[-1] == "[DONE]"
    return [json.loads(item) for item in data[:-1]]


def finals(parts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [p for p in parts if p["type"] in ("tool-input-available", "tool-input-error")]


def check_calls(parts: list[dict[str, Any]]) -> None:
    """Every call: started, its deltas joining to a text whose json.loads is the available input."""
    kinds = [p["type"] for p in parts]
    assert kinds[:2] == ["start", "start-step"]
    assert kinds[-2:] == ["finish-step", "finish"] or kinds[-3:] == ["finish-step", "error", "finish"]
    for final in finals(parts):
        call_id = final["toolCallId"]
        own = [p for p in parts if p.get("toolCallId") == call_id or p.get("id") == call_id]
        assert own[0]["type"] == "tool-input-start" and own[-1] is final
        text = "".join(p["inputTextDelta"] for p in own if p["type"] == "tool-input-delta")
        if final["type"] == "tool-input-available":
            assert_same_json(final["input"], json.loads(text) if text else {})
        else:
            assert final["input"] == text


@pytest.mark.parametrize("provider", PROVIDERS)
def test_parallel_calls(provider: str) -> None:
    parts = parts_over_http(provider, "parallel_calls", fragment_sizes=(1, 4))
    check_calls(parts)
    available = [p for p in finals(parts) if p["type"] == "tool-input-available"]
    assert [p["input"]["city"] for p in available] == ["Paris", "São Paulo"]
    assert parts[-1] == {"type": "finish", "finishReason": "tool-calls"}
    assert any(p["type"] == "data-tool-input-preview" for p in parts)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_cut_off_at_the_token_limit(provider: str) -> None:
    parts = parts_over_http(provider, "max_tokens")
    check_calls(parts)
    (error,) = [p for p in finals(parts) if p["type"] == "tool-input-error"]
    assert "token limit" in error["errorText"]
    assert parts[-1] == {"type": "finish", "finishReason": "length"}


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_malformed_names_where(provider: str) -> None:
    parts = parts_over_http(provider, "invalid_json")
    check_calls(parts)
    errors = [p for p in finals(parts) if p["type"] == "tool-input-error"]
    assert errors and all("malformed JSON at line 1 column" in p["errorText"] for p in errors)


def test_gemini_malformed_function_call_ends_with_an_error_part_that_says_so() -> None:
    parts = parts_over_http("gemini", "invalid_json")
    check_calls(parts)
    (error,) = [p for p in parts if p["type"] == "error"]
    assert "MALFORMED_FUNCTION_CALL" in error["errorText"]
    assert parts[-1] == {"type": "finish", "finishReason": "error"}


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_broken_upstream_ends_with_an_error_part(provider: str) -> None:
    parts = parts_over_http(provider, "connection_drop")
    check_calls(parts)
    assert [p["type"] for p in parts][-2:] == ["error", "finish"]
    assert parts[-1]["finishReason"] == "error"


def test_a_client_that_goes_away_closes_the_upstream(monkeypatch: pytest.MonkeyPatch) -> None:
    closed = threading.Event()
    close = anthropic.AsyncStream.close

    async def recording_close(self: Any) -> None:
        await close(self)
        closed.set()

    monkeypatch.setattr(anthropic.AsyncStream, "close", recording_close)
    with (
        StandInServer("large_file_write", fragment_sizes=(1, 2)) as upstream,
        Served(upstream.base_url) as app,
    ):
        body = request_for("anthropic", "large_file_write")
        read = frames(app.url, "anthropic", body)
        for _ in range(5):
            next(read)
        read.close()
        assert closed.wait(10), "the upstream stream was not closed"
        # Nothing of the request keeps running in the app: its server has no connection left.
        deadline = time.monotonic() + 10
        while app.server.server_state.connections and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not app.server.server_state.connections
