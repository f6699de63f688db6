"""tooljson.otel: one span per tool call any turn reader reads, one per call the loop answers.

The spans go to the SDK's ``InMemorySpanExporter``. The verdict, fragment count, size and error
position a span carries are checked against what the reader says of the same call once the stream
is over, over every provider's stream shape, random cuts, stop reasons and break-off points: a span
that ended before its verdict was final would disagree.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic
import pytest
import tomllib
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("opentelemetry.sdk")

import tooljson
from helper_streams import response_events
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode
from test_loop import run_loop
from tooljson.otel import MAX_ARGUMENT_BYTES, SPAN_ATTRIBUTES, ToolJSONInstrumentor
from tooljson.providers import registry
from tooljson.standin import StandInServer, get_scenario
from tooljson.turn import TurnReader

ROOT = Path(__file__).resolve().parent.parent
PYTHON = ROOT / "python"

# Argument texts: whole, cut off, malformed, empty, with characters of two to four UTF-8 bytes.
TEXTS = (
    '{"city": "Paris", "days": [1, 2, 3]}',
    '{"note": "h\u00e9llo \u4e16\u754c \U0001f600", "n": -1.5e3}',
    '{"a": [1, 2',
    '{"a": tru',
    '{"a": 1}}',
    '{"a": x}',
    "",
)
ERRORS = {"malformed", "incomplete", "truncated", "interrupted", "rejected", "failed"}


@pytest.fixture
def provider() -> Iterator[TracerProvider]:
    """A tracer provider whose spans are kept in memory (``provider.exporter``), with tooljson
    instrumented on it for the test."""
    exporter = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer_provider.exporter = exporter  # type: ignore[attr-defined]
    instrumentor = ToolJSONInstrumentor()
    instrumentor.instrument(tracer_provider=tracer_provider)
    try:
        yield tracer_provider
    finally:
        instrumentor.uninstrument()
        tracer_provider.shutdown()


def finished(provider: TracerProvider, prefix: str = "tool_call") -> list[ReadableSpan]:
    return [span for span in provider.exporter.get_finished_spans() if span.name.startswith(prefix)]  # type: ignore[attr-defined]


def events_of(source: str, texts: list[list[str]], cut_off: bool) -> list[Any]:
    """The events of one response of ``source`` holding ``texts``, by its package's builders."""
    made = registry.source(source).streams
    assert made is not None
    events: list[Any] = importlib.import_module(made).events(texts, cut_off=cut_off)
    return events


# Every registered source whose builders stream argument text cut anywhere and say how the response
# stopped (a call cut off is then ended by the stop), as the spans count them.
TEXT_SOURCES = [
    each.name
    for each in registry.SOURCES
    if each.streams is not None
    and importlib.import_module(each.streams).ARGUMENT_TEXT
    and importlib.import_module(each.streams).NORMAL_STOP is not None
]


def expected_position(text: str, state: str) -> int:
    """Where a call went wrong by json's own reading (the first offending character), or where its
    text stops."""
    if state == "malformed":
        with pytest.raises(json.JSONDecodeError) as caught:
            json.loads(text)
        return caught.value.pos
    return len(text)


@st.composite
def streams(draw: st.DrawFn) -> tuple[str, list[list[str]], bool, int | None]:
    source = draw(st.sampled_from(TEXT_SOURCES))
    calls = []
    for text in draw(st.lists(st.sampled_from(TEXTS), min_size=1, max_size=3)):
        cuts = (
            sorted(draw(st.sets(st.integers(1, max(1, len(text) - 1)), max_size=6))) if len(text) > 1 else []
        )
        bounds = [0, *cuts, len(text)]
        calls.append([text[a:b] for a, b in zip(bounds, bounds[1:], strict=False) if b > a])
    cut_off = draw(st.booleans())
    events = len(events_of(source, calls, cut_off))
    interrupt_at = draw(st.none() | st.integers(0, events - 1))
    return source, calls, cut_off, interrupt_at


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=streams())
def test_each_call_has_one_span_with_the_readers_final_verdict(provider: TracerProvider, case: Any) -> None:
    source, calls, cut_off, interrupt_at = case
    provider.exporter.clear()  # type: ignore[attr-defined]
    events = events_of(source, calls, cut_off)
    reader = TurnReader()
    for event in events if interrupt_at is None else events[:interrupt_at]:
        reader.feed(event)
    if interrupt_at is not None:
        reader.interrupt("the connection dropped")
    spans = {span.attributes["gen_ai.tool.call.id"]: span for span in finished(provider)}
    assert len(spans) == len(finished(provider)) == len(reader.blocks)
    for block in reader.blocks:
        span = spans[block.id]
        state = reader.state(block)
        text = block.call.raw_json if block.call is not None else reader.accumulator.received(block)
        attributes = dict(span.attributes or {})
        assert span.name == f"tool_call {block.name}" and span.kind is SpanKind.INTERNAL
        assert attributes["gen_ai.tool.name"] == block.name
        assert attributes["tooljson.verdict"] == state
        assert attributes["tooljson.source"] == source
        # A framework's stream does not say who served it: no provider name then.
        assert attributes.get("gen_ai.provider.name") == registry.source(source).telemetry_name
        assert attributes["tooljson.fragments"] == block.deltas
        if interrupt_at is None:
            assert block.deltas == len(calls[int(block.name.removeprefix("tool_"))])
        assert attributes["tooljson.bytes"] == len(text.encode())
        assert "gen_ai.tool.call.arguments" not in attributes
        assert {name for name in attributes if name.startswith("tooljson.")} <= SPAN_ATTRIBUTES
        if state in ERRORS:
            assert span.status.status_code is StatusCode.ERROR
            assert attributes["error.type"] == state
            assert attributes["tooljson.error.position"] == expected_position(text, state)
        else:
            assert span.status.status_code is StatusCode.UNSET
            assert "error.type" not in attributes and "tooljson.error.position" not in attributes


def test_a_span_runs_from_the_calls_first_event_to_its_verdict_under_the_span_current_then(
    provider: TracerProvider,
) -> None:
    tracer = trace.get_tracer("test", tracer_provider=provider)
    events = response_events(
        [{"type": "tool_use", "id": "toolu_1", "name": "f", "fragments": ['{"a": [1', ", 2"]}], "max_tokens"
    )
    start, first_delta, second_delta, stop, message_delta, message_stop = events[1:]
    reader = TurnReader()
    reader.feed(events[0])
    with tracer.start_as_current_span("begins") as begins:
        before = time.time_ns()
        reader.feed(start)
    with tracer.start_as_current_span("streams"):
        reader.feed(first_delta)
        reader.feed(second_delta)
        reader.feed(stop)
        # Cut off, but the stop reason is not known yet: truncated or only incomplete is undecided.
        assert finished(provider) == []
        decided = time.time_ns()
        reader.feed(message_delta)
        after = time.time_ns()
    reader.feed(message_stop)
    [span] = finished(provider)
    assert span.parent is not None and span.parent.span_id == begins.get_span_context().span_id
    assert span.context.trace_id == begins.get_span_context().trace_id
    assert before <= span.start_time <= decided <= span.end_time <= after  # type: ignore[operator]
    assert span.attributes["tooljson.verdict"] == "truncated"  # type: ignore[index]
    assert span.status.description == "cut off at the token limit (max_tokens)"


def test_a_chat_choice_that_stops_ends_its_own_calls_only(provider: TracerProvider) -> None:
    from tooljson.providers.chat.streams import chat_chunks

    first = chat_chunks([['{"a": ', "1"]], "length", choice=0)
    second = chat_chunks([['{"b": 2}']], "tool_calls", choice=1)
    reader = TurnReader()
    for chunk in first[:-1] + second[:-1] + first[-1:]:
        reader.feed(chunk)
    assert [span.attributes["tooljson.verdict"] for span in finished(provider)] == ["truncated"]  # type: ignore[index]
    reader.feed(second[-1])
    assert [span.attributes["tooljson.verdict"] for span in finished(provider)] == ["truncated", "complete"]  # type: ignore[index]


def test_a_frameworks_calls_have_no_provider_name(provider: TracerProvider) -> None:
    from langchain_core.messages.ai import AIMessageChunk

    reader = TurnReader()
    reader.feed(
        AIMessageChunk(
            content="",
            tool_call_chunks=[
                {"type": "tool_call_chunk", "name": "f", "args": '{"x": ', "id": "c1", "index": 0}
            ],
        )
    )
    reader.feed(
        AIMessageChunk(
            content="",
            tool_call_chunks=[{"type": "tool_call_chunk", "args": "1}", "index": 0}],
            response_metadata={"finish_reason": "tool_calls"},
            chunk_position="last",
        )
    )
    [span] = finished(provider)
    assert span.attributes["tooljson.source"] == "langchain" and "gen_ai.provider.name" not in span.attributes  # type: ignore[index, operator]
    assert span.attributes["tooljson.verdict"] == "complete"  # type: ignore[index]


def _one_call(text: str) -> TurnReader:
    reader = TurnReader()
    for event in response_events(
        [{"type": "tool_use", "id": "toolu_1", "name": "f", "text": text}], "tool_use"
    ):
        reader.feed(event)
    return reader


def test_arguments_are_captured_only_when_asked_and_cut_at_8_kb(monkeypatch: pytest.MonkeyPatch) -> None:
    exporter = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    instrumentor = ToolJSONInstrumentor()
    short = '{"a": "\u00e9"}'
    # Two- and three-byte characters so that 8 KB falls inside one of them.
    long = json.dumps({"text": "\u00e9\u4e16" * 3000}, ensure_ascii=False)
    cases = [
        ({}, None, False),
        ({"capture_arguments": True}, None, True),
        ({}, "true", True),
        ({"capture_arguments": False}, "true", False),
        ({}, "false", False),
    ]
    for options, environment, captured in cases:
        if environment is None:
            monkeypatch.delenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", raising=False)
        else:
            monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", environment)
        instrumentor.instrument(tracer_provider=tracer_provider, **options)
        try:
            exporter.clear()
            _one_call(short)
            _one_call(long)
        finally:
            instrumentor.uninstrument()
        whole, cut = (dict(span.attributes or {}) for span in exporter.get_finished_spans())
        if not captured:
            assert "gen_ai.tool.call.arguments" not in whole and "gen_ai.tool.call.arguments" not in cut
            continue
        assert whole["gen_ai.tool.call.arguments"] == short and "tooljson.arguments.truncated" not in whole
        kept = cut["gen_ai.tool.call.arguments"]
        assert long.startswith(kept) and MAX_ARGUMENT_BYTES - 3 < len(kept.encode()) <= MAX_ARGUMENT_BYTES
        assert cut["tooljson.arguments.truncated"] is True


def test_uninstrument_stops_the_spans_of_new_readers(provider: TracerProvider) -> None:
    ToolJSONInstrumentor().uninstrument()
    _one_call('{"a": 1}')
    assert finished(provider) == []
    assert TurnReader().watcher is None
    ToolJSONInstrumentor().instrument(tracer_provider=provider)
    _one_call('{"a": 1}')
    assert len(finished(provider)) == 1


def test_importing_tooljson_and_reading_a_stream_imports_no_opentelemetry() -> None:
    code = textwrap.dedent(
        """
        import sys
        import tooljson, tooljson.loop, tooljson.watch
        reader = tooljson.TurnReader()
        for event in [
            {"type": "message_start", "message": {"id": "m", "content": [], "usage": {}}},
            {"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "t", "name": "f", "input": {}}},
            {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": '{"a": 1}'}},
            {"type": "content_block_stop", "index": 0},
            {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {}},
            {"type": "message_stop"},
        ]:
            reader.feed(event)
        assert reader.calls[0].input == {"a": 1}
        print(sorted(name for name in sys.modules if name.startswith("opentelemetry")))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "PYTHONPATH": str(PYTHON)},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "[]\n"


# --- the tool loop: execute_tool spans


def test_the_loop_runs_each_handler_in_an_execute_tool_span(provider: TracerProvider) -> None:
    tracer = trace.get_tracer("test", tracer_provider=provider)
    inner: list[Any] = []

    def get_weather(value: Any) -> str:
        # Spans the handler makes are children of its execute_tool span.
        with tracer.start_as_current_span("inside") as span:
            inner.append(span)
        if value["city"] != "Paris":
            raise ValueError("no station")
        return "sunny"

    with tracer.start_as_current_span("app") as app:
        run = run_loop("parallel_calls", "sync", handlers={"get_weather": get_weather})
    assert run.error is None
    runs = finished(provider, "execute_tool")
    calls = {span.attributes["gen_ai.tool.call.id"]: span for span in finished(provider)}  # type: ignore[index]
    assert [span.name for span in runs] == ["execute_tool get_weather"] * 2
    paris, other = runs
    for span, answered in zip(runs, run.calls, strict=True):
        attributes = dict(span.attributes or {})
        assert (
            attributes["gen_ai.operation.name"] == "execute_tool"
            and attributes["gen_ai.tool.name"] == "get_weather"
        )
        assert (
            attributes["gen_ai.tool.call.id"] == answered.id
            and attributes["gen_ai.provider.name"] == "anthropic"
        )
        assert span.parent is not None and span.parent.span_id == app.get_span_context().span_id
        # The call's own span ended before its handler ran.
        assert calls[answered.id].end_time <= span.start_time  # type: ignore[operator]
    assert [span.parent.span_id for span in inner] == [span.context.span_id for span in runs]  # type: ignore[union-attr]
    assert paris.attributes["tooljson.verdict"] == "complete" and paris.status.status_code is StatusCode.UNSET  # type: ignore[index]
    assert other.attributes["tooljson.verdict"] == "failed" and other.attributes["error.type"] == "ValueError"  # type: ignore[index]
    assert other.status.status_code is StatusCode.ERROR and [e.name for e in other.events] == ["exception"]
    # The spans end when their handler returns, not when the results are sent.
    assert paris.end_time <= other.start_time  # type: ignore[operator]


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_calls_the_loop_refuses_are_marked(provider: TracerProvider, mode: str) -> None:
    unknown = run_loop("unknown_tool", mode)
    assert unknown.error is None
    [refused] = finished(provider, "execute_tool")
    assert (
        refused.attributes["tooljson.verdict"] == "rejected"
        and refused.attributes["error.type"] == "rejected"
    )  # type: ignore[index]
    assert refused.status.status_code is StatusCode.ERROR
    provider.exporter.clear()  # type: ignore[attr-defined]
    invalid = run_loop("invalid_json", mode)
    assert invalid.error is None
    verdicts = [span.attributes["tooljson.verdict"] for span in finished(provider, "execute_tool")]  # type: ignore[index]
    assert verdicts == ["malformed", "malformed", "complete", "complete"]
    assert [span.attributes["tooljson.verdict"] for span in finished(provider)][:2] == [
        "malformed",
        "malformed",
    ]  # type: ignore[index]


# --- accelerate: the helper streams' readers make the same spans


@pytest.mark.parametrize("scenario", ["parallel_calls", "max_tokens", "invalid_json"])
def test_accelerated_streams_make_a_span_per_call(provider: TracerProvider, scenario: str) -> None:
    tracer = trace.get_tracer("test", tracer_provider=provider)
    request = get_scenario(scenario).first_request()
    with StandInServer(scenario=scenario, fragment_sizes=(1, 8), seed=0) as server:
        client = tooljson.accelerate(
            anthropic.Anthropic(base_url=server.base_url, api_key="stand-in", max_retries=0)
        )
        with client, tracer.start_as_current_span("app") as app:
            with client.messages.stream(**request) as stream:
                for _ in stream:
                    pass
                turn = stream.turn
    spans = finished(provider)
    assert [span.attributes["gen_ai.tool.call.id"] for span in spans] == [call.id for call in turn.calls]  # type: ignore[index]
    assert [span.attributes["tooljson.verdict"] for span in spans] == [
        turn.state(call) for call in turn.calls
    ]  # type: ignore[index]
    assert all(
        span.parent is not None and span.parent.span_id == app.get_span_context().span_id for span in spans
    )
    assert {"parallel_calls": {"complete"}, "max_tokens": {"truncated"}, "invalid_json": {"malformed"}}[
        scenario
    ] == {
        span.attributes["tooljson.verdict"]
        for span in spans  # type: ignore[index]
    }


# --- opentelemetry-instrument finds the instrumentor by its entry point


APP = """
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
import tooljson
exporter = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(exporter))
trace.set_tracer_provider(provider)
reader = tooljson.TurnReader()
for event in [
    {"type": "message_start", "message": {"id": "m", "content": [], "usage": {}}},
    {"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "t", "name": "f", "input": {}}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": '{"a": '}},
    {"type": "content_block_stop", "index": 0},
    {"type": "message_delta", "delta": {"stop_reason": "max_tokens"}, "usage": {}},
]:
    reader.feed(event)
print([(span.name, span.attributes["tooljson.verdict"]) for span in exporter.get_finished_spans()])
"""


def test_opentelemetry_instrument_finds_the_instrumentor_by_its_entry_point(tmp_path: Path) -> None:
    # The entry point as pyproject.toml declares it, in the metadata of a distribution on the path.
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = project["entry-points"]["opentelemetry_instrumentor"]
    assert declared == {"tooljson": "tooljson.otel:ToolJSONInstrumentor"}
    # The loader of opentelemetry-instrumentation before 0.5x asks the distribution for its
    # "instruments" extra, which the metadata declares as pyproject.toml does.
    assert project["optional-dependencies"]["instruments"] == []
    info = tmp_path / "tooljson_entry_point-0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: tooljson-entry-point\nVersion: 0\nProvides-Extra: instruments\n"
    )
    (info / "entry_points.txt").write_text(
        "[opentelemetry_instrumentor]\n" + "".join(f"{k} = {v}\n" for k, v in declared.items())
    )
    (tmp_path / "app.py").write_text(APP)
    instrument = Path(sys.executable).parent / "opentelemetry-instrument"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(tmp_path), str(PYTHON)]),
        "OTEL_TRACES_EXPORTER": "none",
        "OTEL_METRICS_EXPORTER": "none",
        "OTEL_LOGS_EXPORTER": "none",
    }
    done = subprocess.run(
        [str(instrument), sys.executable, str(tmp_path / "app.py")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=env,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "[('tool_call f', 'truncated')]\n", done.stderr


# --- without the otel extra: one line naming it

WITHOUT_OPENTELEMETRY = "import sys\nsys.modules['opentelemetry'] = None  # as if it were not installed\n"


def _without_opentelemetry(code: str, **environment: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", WITHOUT_OPENTELEMETRY + textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "PYTHONPATH": str(PYTHON), **environment},
    )


def test_without_the_extra_the_instrumentor_and_the_proxy_name_it() -> None:
    instrumentor = _without_opentelemetry(
        """
        import tooljson
        try:
            import tooljson.otel
        except tooljson.MissingExtra as error:
            print(error)
        """
    )
    assert instrumentor.stdout == (
        "tooljson.otel needs opentelemetry-api and opentelemetry-instrumentation: pip install 'tooljson[otel]'\n"
    ), instrumentor.stderr
    needs = (
        "needs opentelemetry-sdk, opentelemetry-exporter-otlp-proto-http and opentelemetry-instrumentation"
    )
    proxy = "from tooljson import cli\nsys.exit(cli.main(['proxy', '--plain', '--upstream', 'http://127.0.0.1:9'{}]))"
    asked = _without_opentelemetry(proxy.format(", '--otlp', 'http://127.0.0.1:4318'"))
    assert asked.returncode == 2 and asked.stdout == ""
    assert asked.stderr == f"error: python -m tooljson proxy {needs}: pip install 'tooljson[otel]'\n"
    by_environment = _without_opentelemetry(
        proxy.format(""), OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:4318"
    )
    assert by_environment.returncode == 2 and by_environment.stdout == ""
    assert (
        by_environment.stderr == f"error: exporting the proxy's spans {needs}: pip install 'tooljson[otel]'\n"
    )


def test_a_call_left_open_when_a_new_response_begins_ends_interrupted(provider: TracerProvider) -> None:
    first = response_events(
        [{"type": "tool_use", "id": "toolu_1", "name": "f", "fragments": ['{"a": ', "1"]}], "tool_use"
    )
    second = response_events(
        [{"type": "tool_use", "id": "toolu_2", "name": "g", "fragments": ['{"b": 2}']}], "tool_use"
    )
    reader = TurnReader()
    # The first response breaks off inside its call; the next response comes in the same reader.
    for event in first[:4] + second:
        reader.feed(event)
    dropped, whole = finished(provider)
    assert (dropped.attributes["gen_ai.tool.call.id"], dropped.attributes["tooljson.verdict"]) == (
        "toolu_1",
        "interrupted",
    )  # type: ignore[index]
    assert dropped.attributes["tooljson.error.position"] == len('{"a": 1')  # type: ignore[index]
    assert (whole.attributes["gen_ai.tool.call.id"], whole.attributes["tooljson.verdict"]) == (
        "toolu_2",
        "complete",
    )  # type: ignore[index]


def test_trace_reader_sends_one_readers_spans_elsewhere_and_only_there(provider: TracerProvider) -> None:
    from tooljson.otel import trace_reader

    exporter = InMemorySpanExporter()
    own = TracerProvider()
    own.add_span_processor(SimpleSpanProcessor(exporter))
    reader = TurnReader()
    trace_reader(reader, own.get_tracer("test"))
    for event in response_events(
        [{"type": "tool_use", "id": "toolu_1", "name": "f", "text": '{"a": 1}'}], "tool_use"
    ):
        reader.feed(event)
    assert [span.name for span in exporter.get_finished_spans()] == ["tool_call f"]
    assert finished(provider) == []


def test_a_failing_span_never_breaks_the_reading(
    provider: TracerProvider, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import tooljson.otel

    def broken(*arguments: Any, **options: Any) -> None:
        raise RuntimeError("the exporter's bug")

    monkeypatch.setattr(tooljson.otel._CallSpans, "_end", broken)
    blocks = [{"type": "tool_use", "id": f"toolu_{n}", "name": "f", "text": '{"a": 1}'} for n in range(2)]
    reader = TurnReader()
    with caplog.at_level("WARNING", logger="tooljson"):
        for event in response_events(blocks, "tool_use"):
            reader.feed(event)
        reader.interrupt("then the connection dropped")
    assert [call.input for call in reader.calls] == [{"a": 1}, {"a": 1}]
    assert [record.getMessage() for record in caplog.records] == [
        "telemetry: the spans of turn 1 stop here (RuntimeError: the exporter's bug)"
    ]
