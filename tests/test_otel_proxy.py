"""The proxy's spans, exported over OTLP/HTTP to a real receiver on loopback (``otlp_receiver``).

One SERVER span per relayed response, its calls' spans as its children; what the option and the
OpenTelemetry environment switch on; a collector that dies, refuses or is slow never changes a byte
of the relay, says so in one warning line, holds at most the batch queue, and never holds up
stopping; SIGTERM flushes the spans.
"""

from __future__ import annotations

import signal
import time
from contextlib import closing
from typing import Any

import httpx
import pytest

pytest.importorskip("opentelemetry.sdk")
pytest.importorskip("opentelemetry.proto")

from otlp_receiver import INTERNAL, SERVER, Receiver
from proxy_upstream import SSE_HEAD, RawUpstream, chunk, proxy_process, tool_stream
from tooljson.otel import SPAN_ATTRIBUTES
from tooljson.proxy.serve import ProxyServer
from tooljson.proxy.telemetry import FLUSH_TIMEOUT, ProxyTelemetry, TelemetrySettings, settings
from tooljson.standin import StandInServer, get_scenario

REQUEST = {
    "model": "claude-test",
    "max_tokens": 10,
    "stream": True,
    "messages": [{"role": "user", "content": "go"}],
}
WARNING = b"spans could not be exported"


@pytest.mark.parametrize(
    ("option", "environment", "expected"),
    [
        (None, {}, None),
        ("http://127.0.0.1:4318", {}, TelemetrySettings("otlp", "http://127.0.0.1:4318/v1/traces")),
        (
            "http://c:4318/",
            {"OTEL_TRACES_EXPORTER": "none"},
            TelemetrySettings("otlp", "http://c:4318/v1/traces"),
        ),
        ("http://c:4318/v1/traces", {}, TelemetrySettings("otlp", "http://c:4318/v1/traces")),
        (None, {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, TelemetrySettings("otlp")),
        (None, {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318/v1/traces"}, TelemetrySettings("otlp")),
        (None, {"OTEL_TRACES_EXPORTER": "otlp"}, TelemetrySettings("otlp")),
        (None, {"OTEL_TRACES_EXPORTER": "console"}, TelemetrySettings("console")),
        (None, {"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, None),
    ],
)
def test_telemetry_follows_the_option_and_the_opentelemetry_environment(
    option: str | None, environment: dict[str, str], expected: TelemetrySettings | None
) -> None:
    assert settings(option, environment) == expected


def _server_and_calls(spans: list[Any]) -> tuple[list[Any], list[Any]]:
    return [s for s in spans if s.kind == SERVER], [s for s in spans if s.name.startswith("tool_call")]


@pytest.mark.parametrize("provider", ["anthropic", "openai", "responses", "bedrock"])
def test_each_relayed_response_is_a_server_span_with_its_calls_under_it(
    provider: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tooljson.standin.clients import as_dict, first_request, open_client, stream_events

    monkeypatch.delenv("OTEL_SERVICE_NAME", raising=False)
    monkeypatch.delenv("OTEL_RESOURCE_ATTRIBUTES", raising=False)
    request = first_request(get_scenario("parallel_calls"), provider)  # type: ignore[arg-type]
    with Receiver() as receiver, StandInServer(scenario="parallel_calls") as upstream:
        seen = []
        with ProxyServer(upstream.base_url, telemetry=ProxyTelemetry(settings(receiver.url))) as proxy:  # type: ignore[arg-type]
            for base in (upstream.base_url, proxy.url):
                with closing(open_client(provider, base)) as client:  # type: ignore[arg-type]
                    seen.append([as_dict(event) for event in stream_events(provider, client, request)])  # type: ignore[arg-type]
            proxy.settle()
        # Leaving the proxy flushed its spans.
        spans = receiver.wait_for(3, timeout=1)
    assert seen[0] == seen[1]
    [response], calls = _server_and_calls(spans)
    assert len(spans) == 3
    model = request.get("model") or request.get("modelId")
    attributes = response.attributes
    assert response.name == f"chat {model}" and attributes["gen_ai.request.model"] == model
    assert attributes["gen_ai.operation.name"] == "chat" and attributes["http.request.method"] == "POST"
    assert attributes["gen_ai.provider.name"] == {"bedrock": "aws.bedrock", "responses": "openai"}.get(
        provider, provider
    )
    finish = {
        "anthropic": "tool_use",
        "openai": "tool_calls",
        "responses": "completed",
        "bedrock": "tool_use",
    }[provider]
    assert attributes["gen_ai.response.finish_reasons"] == [finish]
    assert attributes["tooljson.calls"] == 2 and attributes["tooljson.response.state"] == "complete"
    assert response.status_code == 0 and response.resource["service.name"] == "tooljson-proxy"
    assert {
        name for span in spans for name in span.attributes if name.startswith("tooljson.")
    } <= SPAN_ATTRIBUTES
    assert [call.name for call in calls] == ["tool_call get_weather"] * 2
    for call in calls:
        assert (
            call.kind == INTERNAL
            and call.trace_id == response.trace_id
            and call.parent_span_id == response.span_id
        )
        assert (
            call.attributes["tooljson.verdict"] == "complete"
            and call.attributes["tooljson.source"] == provider
        )


def test_the_tool_loop_through_the_proxy_is_a_span_per_turn(monkeypatch: pytest.MonkeyPatch) -> None:
    import anthropic
    import tooljson
    from tooljson.demo.runs import demo_handlers

    monkeypatch.setenv("OTEL_SERVICE_NAME", "the-proxy")
    scenario = get_scenario("invalid_json")
    with Receiver() as receiver, StandInServer(scenario="invalid_json") as upstream:
        # No option: the environment names the collector, and the SDK's exporter appends the path.
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.url)
        chosen = settings(None)
        assert chosen == TelemetrySettings("otlp")
        with ProxyServer(upstream.base_url, telemetry=ProxyTelemetry(chosen)) as proxy:
            with anthropic.Anthropic(base_url=proxy.url, api_key="k", max_retries=0) as client:
                tooljson.run_tool_loop(
                    client, handlers=demo_handlers(scenario.tools), **scenario.first_request()
                )
            proxy.settle()
        spans = receiver.wait_for(1, timeout=1)
    responses, calls = _server_and_calls(spans)
    assert [r.attributes["gen_ai.response.finish_reasons"] for r in responses] == [
        ["tool_use"],
        ["tool_use"],
        ["end_turn"],
    ]
    assert {span.resource["service.name"] for span in spans} == {"the-proxy"}
    by_id = {r.span_id: index for index, r in enumerate(responses)}
    assert [(by_id[c.parent_span_id], c.attributes["tooljson.verdict"]) for c in calls] == [
        (0, "malformed"),
        (0, "malformed"),
        (1, "complete"),
        (1, "complete"),
    ]
    assert [c.status_code for c in calls] == [2, 2, 0, 0]  # STATUS_CODE_ERROR, then unset


def _streaming(events: list[bytes]) -> Any:
    async def respond(path: str, body: bytes, reader: Any, writer: Any) -> bool:
        writer.write(SSE_HEAD)
        for event in events:
            writer.write(chunk(event))
            await writer.drain()
        writer.write(b"0\r\n\r\n")
        await writer.drain()
        return True

    return respond


def _body(url: str) -> bytes:
    with httpx.Client(timeout=30) as client:
        response = client.post(url + "/v1/messages", json=REQUEST)
        assert response.status_code == 200
        return response.content


@pytest.mark.parametrize("trouble", ["dies", "refuses", "is slow"])
def test_a_collector_in_trouble_costs_spans_never_bytes(
    trouble: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    events = tool_stream(5, size=4000)
    sent = b"".join(events)
    # Spans leave every 50 ms, and an export gives up after 1 s: the trouble shows within the run.
    monkeypatch.setenv("OTEL_BSP_SCHEDULE_DELAY", "50")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "1")
    with RawUpstream(_streaming(events)) as upstream, Receiver() as receiver:
        with proxy_process(upstream.url, "--plain", "--otlp", receiver.url) as (process, url, output):
            assert _body(url) == sent
            before = receiver.wait_for(2)
            assert {span.name for span in before} == {"chat claude-test", "tool_call save"}
            if trouble == "dies":
                receiver.stop()
            elif trouble == "refuses":
                receiver.status = 400
            else:
                receiver.delay = 30.0
            started = time.monotonic()
            while time.monotonic() - started < 3:
                assert _body(url) == sent
            process.send_signal(signal.SIGTERM)
            stopping = time.monotonic()
            assert process.wait(10) == 0
            # The servers' grace, then the flush's bound at most.
            assert time.monotonic() - stopping < FLUSH_TIMEOUT + 3
        text = b"".join(output)
    assert text.count(WARNING) == 1, text[-3000:]
    assert b"Traceback" not in text and b"opentelemetry" not in text.replace(b"/v1/traces", b""), text[-3000:]
    if trouble == "refuses":
        # The refused batches were sent all the same, and refused.
        assert receiver.requests > 1 and len(receiver.spans) == 2


def test_sigterm_flushes_the_spans_not_exported_yet() -> None:
    events = tool_stream(6, size=2000)
    with RawUpstream(_streaming(events)) as upstream, Receiver() as receiver:
        # The batch processor's own schedule (5 s) has not come when the proxy is stopped.
        with proxy_process(upstream.url, "--plain", "--otlp", receiver.url) as (process, url, output):
            for _ in range(3):
                assert _body(url) == b"".join(events)
            time.sleep(0.3)
            assert receiver.spans == []
            process.send_signal(signal.SIGTERM)
            assert process.wait(10) == 0
        spans = receiver.wait_for(6, timeout=1)
    responses, calls = _server_and_calls(spans)
    assert len(responses) == 3 and len(calls) == 3
    assert WARNING not in b"".join(output)


def test_memory_is_bounded_by_the_batch_queue_while_the_collector_is_away(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OTEL_BSP_MAX_QUEUE_SIZE", "16")
    monkeypatch.setenv("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", "8")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "1")
    events = tool_stream(7, size=1000)
    with Receiver() as gone:
        away = gone.url
    telemetry = ProxyTelemetry(settings(away))
    # White-box, as no exporter can tell: the SDK's queue of spans waiting to be exported.
    [processor] = telemetry.provider._active_span_processor._span_processors
    # Where the SDK keeps it: its batch processor's (1.28 on), or the span processor's own (before).
    batching = getattr(processor, "_batch_processor", processor)
    queue = batching._queue if hasattr(batching, "_queue") else batching.queue
    with RawUpstream(_streaming(events)) as upstream, ProxyServer(upstream.url, telemetry=telemetry) as proxy:
        for _ in range(40):
            assert _body(proxy.url) == b"".join(events)
            assert len(queue) <= 16
        proxy.settle()
        assert len(queue) <= 16
