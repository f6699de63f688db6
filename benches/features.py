"""The features around the parser, measured in pairs and judged for ``benches/REPORT.md``.

Each figure is a ratio of the two sides timed in interleaved rounds (``workloads.paired_ratios``), or,
for the proxy, the client's own clock across processes:

- typed partial values (``bench_typed``): ``Parser(model=...)``'s ``partial()`` after every delta
  against re-validating the joined text with pydantic's partial mode, and against a jiter partial
  parse plus ``model_validate`` of the partial model; its growth from 100 KB to 1 MB;
- other providers (``bench_providers``): the preview after every Chat Completions chunk against the
  openai chat helper's re-parse of the whole arguments string;
- ``accelerate(client)`` (``bench_accelerate``): client CPU time of the accelerated helper stream
  against the SDK's own, over loopback; and of the SDK's tool runner through it against the plain
  runner (``bench_runner``);
- the proxy (``bench_proxy``): the client's time to the last event through it against directly, and
  the delay it adds to each event, with the live view drawing; under load (``bench_proxy_load``): the
  per-stream wall time through it against directly at 1, 50 and 200 concurrent streams (with a lean
  client and with httpx), and its memory;
- the drop-in functions (``bench_compat``), when present;
- the frameworks (``bench_frameworks``), when they are installed: following one ~100 KB tool input
  through LangChain's stream and pydantic-ai's events with tooljson against iterating them alone;
- the benchmarks of :data:`OWN_TARGETS`, each with its targets (``LIMITS``, ``DESCRIPTIONS``), its
  figures (``measure_paired()``, in the rounds its figure needs) and, if it has any, its lines on the
  figures without a bound (``describe_found``). What one cannot measure here (a library or an
  environment missing) it says under ``workloads.NOT_MEASURED``, and its targets read "not
  measured" with the reason: Gemini's stream (``bench_gemini``: ``TurnReader.feed`` of every chunk
  on google-genai's own stream against the stream alone, and its growth from 100 KB to 1 MB),
  Cohere's stream (``bench_cohere``: ``TurnReader.feed`` of every event on cohere's own
  ``chat_stream`` against the stream alone),
  OpenTelemetry (``bench_otel``: one call read with ``ToolJSONInstrumentor`` on against off) and
  instructor (``bench_instructor``, run in ``.venv-instructor``: the accelerated client's partial
  streaming against the plain client's, end to end and alone).
"""

from __future__ import annotations

import contextlib
import importlib
import statistics
from typing import Any

from workloads import NOT_MEASURED, paired_ratios, workload

#: (section, label, comparison, bound, kind): kind "at_least" or "at_most".
Limit = tuple[str, str, str, float, str]

LIMITS: list[Limit] = [
    ("typed", "records", "pydantic-partial", 20.0, "at_least"),
    ("typed", "records", "jiter+validate", 20.0, "at_least"),
    ("typed", "growth", "1 MB", 12.0, "at_most"),
    ("providers", "records", "sdk-approach", 100.0, "at_least"),
    ("providers", "file_write", "sdk-approach", 20.0, "at_least"),
    ("accelerate", "large_file_write", "accelerated", 0.35, "at_most"),
    ("accelerate", "records", "accelerated", 0.12, "at_most"),
    ("runner", "large_file_write", "accelerated", 0.35, "at_most"),
    ("accelerate_openai", "records", "accelerated", 0.25, "at_most"),
    ("accelerate_openai", "records_content", "accelerated", 0.3, "at_most"),
    ("proxy", "time to the last event", "ratio", 1.2, "at_most"),
    ("proxy", "added delay per event, p99 (ms)", "added_p99_ms", 5.0, "at_most"),
    ("proxy_load", "200 streams, lean client", "median", 1.2, "at_most"),
    ("proxy_load", "200 streams, lean client", "p99", 1.5, "at_most"),
    ("proxy_load", "200 streams, httpx client", "median", 1.2, "at_most"),
    ("proxy_load", "200 streams, httpx client", "p99", 1.5, "at_most"),
]

#: The benchmarks that carry their own targets and are judged whether or not they could measure:
#: (section, module).
OWN_TARGETS = (
    ("gemini", "bench_gemini"),
    ("cohere", "bench_cohere"),
    ("otel", "bench_otel"),
    ("instructor", "bench_instructor"),
)

DESCRIPTIONS = {
    (
        "typed",
        "pydantic-partial",
    ): "typed partial value after every delta, 100 KB records: ≥ 20× faster than re-validating the joined text (pydantic, experimental_allow_partial)",
    (
        "typed",
        "jiter+validate",
    ): "typed partial value after every delta, 100 KB records: ≥ 20× faster than a jiter partial parse + model_validate of the partial model",
    ("typed", "1 MB"): "typed partial values, 100 KB to 1 MB (size 10×): time grows ≤ 12×",
    (
        "providers",
        "sdk-approach",
    ): "preview after every Chat Completions chunk: faster than the openai chat helper's re-parse",
    (
        "accelerate",
        "accelerated",
    ): "accelerate(client).messages.stream(...), client CPU over loopback: at most this share of the SDK helper's",
    (
        "runner",
        "accelerated",
    ): "accelerate(client).beta.messages.tool_runner(stream=True), every stream consumed, client CPU over loopback: at most this share of the plain runner's",
    (
        "accelerate_openai",
        "accelerated",
    ): "accelerate(openai client).chat.completions.stream(...), 100 KB strict arguments (records) or structured output (records_content), client CPU over loopback: at most this share of the SDK helper's",
    (
        "proxy",
        "ratio",
    ): "through the proxy (live view drawing): the client's time to the last event ≤ 1.2× directly",
    ("proxy", "added_p99_ms"): "through the proxy (live view drawing): delay added to each event, p99 ≤ 5 ms",
    (
        "proxy_load",
        "median",
    ): "200 concurrent streams through the proxy (live view drawing): per-stream wall time ≤ 1.2× directly at the median",
    (
        "proxy_load",
        "p99",
    ): "200 concurrent streams through the proxy (live view drawing): per-stream wall time ≤ 1.5× directly at p99",
}


def measure(rounds: int = 5) -> dict[str, Any]:
    """Every figure, as plain data (saved beside the benchmark JSON)."""
    found: dict[str, Any] = {}
    typed = importlib.import_module("bench_typed")
    records = workload("records").fragments["random"]
    cases = {label: (function, records) for label, function in typed.IMPLEMENTATIONS.items()}
    found["typed"] = {"records": paired_ratios(cases, "tooljson", rounds=rounds)}
    big = workload("records_1mb").fragments["random"]
    growth = {"100 KB": (typed.tooljson_partial, records), "1 MB": (typed.tooljson_partial, big)}
    found["typed"]["growth"] = paired_ratios(growth, "100 KB", rounds=rounds)
    providers = importlib.import_module("bench_providers")
    found["providers"] = {}
    for name in providers.PREVIEW_WORKLOADS:
        chunks = providers.events_of("chat-sdk", name)
        cases = {
            "tooljson": (providers.tooljson_feed_preview, chunks),
            "sdk-approach": (providers.sdk_approach, chunks),
        }
        found["providers"][name] = paired_ratios(cases, "tooljson", rounds=rounds)
    accelerate = importlib.import_module("bench_accelerate")
    with (
        accelerate.served(accelerate.WORKLOADS[0]) as first,
        accelerate.served(accelerate.WORKLOADS[1]) as second,
    ):
        endpoints = {
            accelerate.WORKLOADS[0]: accelerate.Endpoint(accelerate.WORKLOADS[0], first),
            accelerate.WORKLOADS[1]: accelerate.Endpoint(accelerate.WORKLOADS[1], second),
        }
        found["accelerate"] = accelerate.measure(endpoints, rounds + 2)
    runner = importlib.import_module("bench_runner")
    with runner.served(runner.WORKLOAD) as base_url:
        endpoint = runner.Endpoint(base_url)
        found["runner"] = {runner.WORKLOAD: runner.measure(endpoint, rounds + 2)}
        endpoint.client.close()
    accelerate_openai = importlib.import_module("bench_accelerate_openai")
    with contextlib.ExitStack() as stack:
        openai_endpoints = {
            name: accelerate_openai.Endpoint(name, stack.enter_context(accelerate.served(name)))
            for name in accelerate_openai.WORKLOADS
        }
        found["accelerate_openai"] = accelerate_openai.measure(openai_endpoints, rounds + 2)
    proxy = importlib.import_module("bench_proxy")
    figures = proxy.measure(rounds)
    found["proxy"] = {
        "time to the last event": {"ratio": [figures["ratio"]]},
        "added delay per event, p99 (ms)": {"added_p99_ms": [figures["added_p99_ms"]]},
        "added delay per event, median (ms)": {"added_median_ms": [figures["added_median_ms"]]},
    }
    found["proxy_load"] = importlib.import_module("bench_proxy_load").measure_clients(rounds=rounds)
    try:
        compat = importlib.import_module("bench_compat")
    except ModuleNotFoundError:
        compat = None
    if compat is not None and hasattr(compat, "measure_paired"):
        found["compat"] = compat.measure_paired(rounds)
        LIMITS.extend(compat.LIMITS)
        DESCRIPTIONS.update(compat.DESCRIPTIONS)
    frameworks = importlib.import_module("bench_frameworks")
    if frameworks.installed():
        found["frameworks"] = frameworks.measure_paired(rounds)
    for section, module in OWN_TARGETS:
        found[section] = importlib.import_module(module).measure_paired()
    return found


def judge(found: dict[str, Any], sections: tuple[str, ...] | None = None) -> list[str]:
    """The verdict lines of the features, in the report's wording (of ``sections`` only, if given:
    a benchmark run alone rewrites its own lines of the report)."""
    lines: list[str] = []
    limits = [limit for limit in LIMITS if sections is None or limit[0] in sections]
    descriptions = dict(DESCRIPTIONS)
    for section, module in (("compat", "bench_compat"), ("frameworks", "bench_frameworks")):
        if section in found:
            extra = importlib.import_module(module)
            limits += [limit for limit in extra.LIMITS if limit not in limits]
            descriptions.update(extra.DESCRIPTIONS)
    own = {
        section: importlib.import_module(module)
        for section, module in OWN_TARGETS
        if sections is None or section in sections
    }
    for bench in own.values():
        limits += bench.LIMITS
        descriptions.update(bench.DESCRIPTIONS)
    for section, label, comparison, bound, kind in limits:
        values = found.get(section, {}).get(label, {}).get(comparison)
        text = descriptions.get((section, comparison), f"{section} {comparison}")
        if not values:
            reason = found.get(section, {}).get(NOT_MEASURED)
            lines.append(f"- not measured: {text} ({label})" + (f": {reason}" if reason else ""))
            continue
        median = statistics.median(values)
        met = median >= bound if kind == "at_least" else median <= bound
        verdict = "met" if met else "**not met**"
        shown = f"{median:.3g}" + ("" if "(ms)" in label else "×")
        spread = (
            f" (median of {len(values)} rounds, range {min(values):.3g}–{max(values):.3g})"
            if len(values) > 1
            else ""
        )
        sign = "≥" if kind == "at_least" else "≤"
        lines.append(f"- {verdict}: {text} — {label}: {shown}{spread}, target {sign} {bound:g}")
    for section, what, baseline, floor in (
        ("accelerate", "stream", "helper", "sdk-raw-events"),
        ("runner", "runner", "plain runner", "sdk-raw-events"),
        ("accelerate_openai", "stream", "helper", "sdk-raw-chunks"),
    ):
        for name, ratios in found.get(section, {}).items():
            over_raw = sorted(a / r for a, r in zip(ratios["accelerated"], ratios[floor]))
            lines.append(
                f"- reported: {section} on {name}: the SDK's raw {floor.rpartition('-')[2]} alone (the floor) are "
                f"{statistics.median(ratios[floor]):.3g}× the {baseline}; the accelerated {what} is "
                f"{statistics.median(over_raw):.3g}× that floor"
            )
    for section, bench in own.items():
        if found.get(section) and NOT_MEASURED not in found[section] and hasattr(bench, "describe_found"):
            lines += bench.describe_found(found[section])
    median_added = found.get("proxy", {}).get("added delay per event, median (ms)", {}).get("added_median_ms")
    if median_added:
        lines.append(f"- reported: delay the proxy adds to each event, median {median_added[0]:.2f} ms")
    if found.get("proxy_load"):
        lines += importlib.import_module("bench_proxy_load").describe_found(found["proxy_load"])
    return lines
