"""What tooljson's OpenTelemetry spans cost: one call read by a turn reader, with and without them.

Each workload's argument text is streamed as Messages events (``message_start``, the tool block's
start, one ``input_json_delta`` per fragment of 1 to 32 characters, its stop, ``message_delta``,
``message_stop``) and read by a new :class:`tooljson.TurnReader`. In groups ``otel: <workload>``:

- ``uninstrumented``: nothing watches the reader;
- ``instrumented``: :class:`tooljson.otel.ToolJSONInstrumentor` is on, the SDK's tracer provider
  with a ``BatchSpanProcessor`` in front of an exporter that drops what it is given (the export's
  own cost is the collector's business, on the processor's thread);
- ``instrumented-arguments``: the same with ``capture_arguments`` (the text cut at 8 KB).

The span is made per call, never per fragment: ``test_paired_cpu`` (under ``make bench``) times the
three in interleaved rounds (``workloads.paired_ratios``: CPU time, shuffled order, the ratio within
each round) and asserts that reading a 100 KB call instrumented costs at most 1.05× reading it
uninstrumented. ``python benches/bench_otel.py [ROUNDS]`` prints the ratios; ``measure_paired``
gives them to ``benches/features.py``, which judges them against :data:`LIMITS` (without
OpenTelemetry, it says so and measures nothing).
"""

from __future__ import annotations

import statistics
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import command_line
import tooljson
from tooljson.watch import CALL_WATCHERS
from workloads import NOT_MEASURED, paired_ratios, workload

try:
    from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult
    from tooljson.otel import ToolJSONInstrumentor
except ImportError as error:
    # The targets below stay importable for the report, which says why the figures are missing:
    # no opentelemetry, or tooljson.otel's own words on the extra it needs.
    MISSING: str | None = str(error)
    SpanExporter = object  # type: ignore[misc,assignment]
else:
    MISSING = None

pytestmark = pytest.mark.skipif(MISSING is not None, reason=str(MISSING))

WORKLOADS = ("records", "file_write", "tiny")
# The workloads the 1.05× bound is for: a 100 KB call.
BOUNDED = ("records", "file_write")
IMPLEMENTATIONS = ("uninstrumented", "instrumented", "instrumented-arguments")
MAX_RATIO = 1.05
# The file write's own cost of the spans is about 3% (mostly the SDK's price of a span): the median of
# fewer rounds wanders by more than the 2% left.
ROUNDS = 101

#: The targets, in ``features.py``'s shape: (section, label, comparison, bound, kind).
LIMITS = [("otel", name, "instrumented", MAX_RATIO, "at_most") for name in BOUNDED]
DESCRIPTIONS = {
    ("otel", "instrumented"): "one 100 KB call read by a TurnReader with ToolJSONInstrumentor on (the SDK's "
    "tracer provider, a batch processor), CPU time at most this multiple of reading it uninstrumented",
}


class _Dropped(SpanExporter):
    """Takes every batch and keeps nothing."""

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        return SpanExportResult.SUCCESS


def events(name: str) -> list[dict[str, Any]]:
    """The Messages events of one response holding one call with the workload's text."""
    fragments = workload(name).fragments["random"]
    block = {"type": "tool_use", "id": "toolu_1", "name": "write", "input": {}}
    return [
        {"type": "message_start", "message": {"id": "msg_1", "content": [], "usage": {}}},
        {"type": "content_block_start", "index": 0, "content_block": block},
        *(
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "input_json_delta", "partial_json": f},
            }
            for f in fragments
        ),
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {}},
        {"type": "message_stop"},
    ]


class Readers:
    """Reads a response with the instrumentation on or off: the instrumentor is on throughout, and a
    reader made "uninstrumented" is made while its factories are set aside (both sides do the same
    list work, so only the spans differ)."""

    def __init__(self) -> None:
        self.provider = TracerProvider()
        self.processor = BatchSpanProcessor(_Dropped())
        self.provider.add_span_processor(self.processor)
        self.instrumentor = ToolJSONInstrumentor()
        self.plain: list[Any] = []
        self.capturing: list[Any] = []

    def __enter__(self) -> Readers:
        self.instrumentor.instrument(tracer_provider=self.provider, capture_arguments=True)
        self.capturing = list(CALL_WATCHERS)
        self.instrumentor.uninstrument()
        self.instrumentor.instrument(tracer_provider=self.provider, capture_arguments=False)
        self.plain = list(CALL_WATCHERS)
        return self

    def __exit__(self, *exc: object) -> None:
        self.instrumentor.uninstrument()
        self.provider.shutdown()

    def reader(self, implementation: str) -> Callable[[Sequence[Any]], Any]:
        watchers = {
            "uninstrumented": [],
            "instrumented": self.plain,
            "instrumented-arguments": self.capturing,
        }[implementation]

        def read(stream: Sequence[Any]) -> Any:
            saved = CALL_WATCHERS[:]
            CALL_WATCHERS[:] = watchers
            reader = tooljson.TurnReader()
            CALL_WATCHERS[:] = saved
            feed = reader.feed
            for event in stream:
                feed(event)
            return reader.calls[0].input

        return read


@pytest.fixture(scope="module")
def readers() -> Iterator[Readers]:
    with Readers() as made:
        yield made


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
@pytest.mark.parametrize("name", WORKLOADS)
def test_read_one_call(benchmark: Any, readers: Readers, name: str, implementation: str) -> None:
    stream = events(name)
    benchmark.group = f"otel: {name}"
    benchmark.extra_info.update(workload=name, implementation=implementation, size_bytes=workload(name).size)
    assert benchmark(readers.reader(implementation), stream) == workload(name).expected()


def measure(
    readers: Readers, rounds: int, names: Sequence[str] = WORKLOADS
) -> dict[str, dict[str, list[float]]]:
    """Per workload, each implementation's CPU time over the uninstrumented reader's, per round (sorted)."""
    found = {}
    for name in names:
        stream = events(name)
        cases = {label: (readers.reader(label), stream) for label in IMPLEMENTATIONS}
        found[name] = paired_ratios(cases, "uninstrumented", rounds=rounds)
    return found


def measure_paired(rounds: int = ROUNDS) -> dict[str, Any]:
    """The report's figures (``features.measure``), keyed as :data:`LIMITS` keys them; without
    OpenTelemetry, only why they are missing."""
    if MISSING is not None:
        return {NOT_MEASURED: MISSING}
    with Readers() as made:
        return measure(made, rounds)


def describe_found(found: dict[str, dict[str, list[float]]]) -> list[str]:
    """The report's lines on the figures without a bound: the tiny call's, whose span costs about
    as much as reading it."""
    lines = []
    for name, ratios in found.items():
        if name in BOUNDED:
            continue
        values = ratios["instrumented"]
        lines.append(
            f"- reported: the {name} call ({workload(name).size} bytes) read with ToolJSONInstrumentor on, "
            f"÷ uninstrumented: {statistics.median(values):.3g}× (median of {len(values)} rounds, "
            f"range {values[0]:.3g}–{values[-1]:.3g}); with the arguments captured "
            f"{statistics.median(ratios['instrumented-arguments']):.3g}×"
        )
    return lines


def table(found: dict[str, dict[str, list[float]]]) -> list[str]:
    lines = [
        "| workload | instrumented ÷ uninstrumented | with arguments ÷ uninstrumented |",
        "|---|---:|---:|",
    ]
    for name, ratios in found.items():
        cells = [_median_quartiles(ratios[label]) for label in IMPLEMENTATIONS[1:]]
        bound = f" (≤ {MAX_RATIO}×)" if name in BOUNDED else ""
        lines.append(f"| {name} ({workload(name).size // 1000} KB) | {cells[0]}{bound} | {cells[1]} |")
    return lines


def _median_quartiles(values: list[float]) -> str:
    return f"{statistics.median(values):.3f}× [{values[len(values) // 4]:.3f}–{values[3 * len(values) // 4]:.3f}]"


def test_paired_cpu(
    request: pytest.FixtureRequest, capsys: pytest.CaptureFixture[str], readers: Readers
) -> None:
    # make bench passes --benchmark-enable after the default options' --benchmark-disable: both are set.
    if request.config.getoption("benchmark_disable") and not request.config.getoption("benchmark_enable"):
        pytest.skip("timed only with the benchmarks on (make bench)")
    rounds = ROUNDS
    found = measure(readers, rounds)
    with capsys.disabled():
        print(f"\nCPU time per response read, paired rounds ({rounds}): median [quartiles]")
        print("\n".join(table(found)))
    for name in BOUNDED:
        assert statistics.median(found[name]["instrumented"]) <= MAX_RATIO


if __name__ == "__main__":
    rounds = command_line.rounds(ROUNDS, __doc__).rounds
    with Readers() as made:
        measured = measure(made, rounds)
    print(f"CPU time per response read, paired rounds ({rounds}): median [quartiles]\n")
    print("\n".join(table(measured)))
