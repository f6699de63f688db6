"""instructor's partial streaming, plain and accelerated, on one ~50 KB structured output.

Group ``instructor partial``: a catalog of products (nested models, lists of models, lists of
strings, optional fields), about 50 KB of JSON, cut into pieces of 1 to 32 characters as the APIs
cut them, delivered as openai Chat Completions chunks of a tool call (``Mode.TOOLS``). Both sides
start from the same chunk objects and go through instructor's own ``from_streaming_response`` with
its own JSON extractor; what differs is what instructor does with each piece:

- ``instructor``: instructor 1.17's ``Partial[Catalog]`` (the whole text re-parsed three times and
  the partial rebuilt, complete nested models validated again, on every piece);
- ``tooljson``: the class ``tooljson.accelerate(client)`` hands instructor instead (each piece read
  once, each complete value built once), yielding equal partials.

HTTP and the SDK's decoding of each chunk cost both sides the same and are left out. Run as a
script (``python benches/bench_instructor.py [rounds] [--json]``, in the environment of ``make
test-instructor``) it prints the CPU time of each, measured in interleaved rounds, and their ratio;
then the same end to end: ``create_partial`` of the plain and the accelerated client through the
real openai client, the stand-in serving the catalog from another process, client CPU time. With
``--json`` it prints the ratios per round as one JSON object instead.

instructor pins an older jiter than the other benchmarks' environment has, so ``benches/report.py``
(in ``.venv``) gets the figures from :func:`measure_paired`, which runs this file with ``--json`` in
``.venv-instructor`` (or says that it is missing), and judges them against :data:`LIMITS`.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Optional

import pytest
from pydantic import BaseModel

try:
    import instructor
    from instructor import Mode, Partial
    from instructor.v2.core.providers import Provider
    from instructor.v2.core.registry import mode_registry
    from openai.types.chat import ChatCompletionChunk
    from tooljson.acceleration.instructor import accelerated_partial
except ImportError:
    # In .venv: the targets and measure_paired below stay importable for the report.
    instructor = None

pytestmark = pytest.mark.skipif(
    instructor is None, reason="instructor is not installed here (make test-instructor)"
)

ROOT = Path(__file__).resolve().parent.parent
#: The environment of ``make test-instructor`` (instructor 1.17 and the openai it allows).
INSTRUCTOR_PYTHON = ROOT / ".venv-instructor" / "bin" / "python"
#: The report's rounds: one is about 20 s of CPU (the plain side re-parses 50 KB at every piece).
REPORT_ROUNDS = 3

#: The targets, in ``features.py``'s shape: (section, label, comparison, bound, kind).
LIMITS = [("instructor", "end to end", "accelerated", 1 / 20, "at_most")]
DESCRIPTIONS = {
    (
        "instructor",
        "accelerated",
    ): "tooljson.accelerate(instructor client).create_partial(...) of a ~50 KB catalog "
    "through the openai client (stand-in in another process), client CPU time: at most 1/20 of the plain "
    "instructor client's",
}


class Dimensions(BaseModel):
    width: float
    height: float
    unit: str


class Product(BaseModel):
    id: int
    name: str
    price: float
    in_stock: bool
    tags: list[str]
    dimensions: Dimensions
    note: Optional[str] = None  # noqa: UP045 - the way most models spell it


class Catalog(BaseModel):
    title: str
    currency: str
    products: list[Product]


def catalog_text(products: int) -> str:
    """A catalog as a model writes it: non-ASCII and escapes in the strings, numbers, literals."""
    rows = random.Random(7)
    return json.dumps(
        {
            "title": "Spring catalogue \u00e9t\u00e9",
            "currency": "EUR",
            "products": [
                {
                    "id": n,
                    "name": f'Caf\u00e9 table "{n}" \u2014 oak',
                    "price": round(rows.uniform(5, 900), 2),
                    "in_stock": n % 3 != 0,
                    "tags": ["furniture", "oak", f"line {n % 7}"],
                    "dimensions": {"width": rows.randint(30, 200) / 2, "height": 75.0, "unit": "cm"},
                    "note": None if n % 4 else "Assembly\nrequired",
                }
                for n in range(products)
            ],
        },
        ensure_ascii=False,
    )


def fragments(text: str, seed: int = 0) -> list[str]:
    """``text`` cut into pieces of 1 to 32 characters."""
    cuts = random.Random(seed)
    pieces, start = [], 0
    while start < len(text):
        end = min(len(text), start + cuts.randint(1, 32))
        pieces.append(text[start:end])
        start = end
    return pieces


def chunks(pieces: Sequence[str]) -> list[ChatCompletionChunk]:
    """The Chat Completions chunks of one streamed tool call carrying ``pieces``."""
    made = []
    for index, piece in enumerate(pieces):
        call: dict[str, Any] = {"index": 0, "function": {"arguments": piece}}
        if index == 0:
            call.update(id="call_1", type="function", function={"name": "Catalog", "arguments": piece})
        made.append({"choices": [{"index": 0, "delta": {"tool_calls": [call]}, "finish_reason": None}]})
    made.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
    return [
        ChatCompletionChunk.model_validate(
            {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m", **chunk}
        )
        for chunk in made
    ]


EXTRACTOR = (
    mode_registry.get_handlers(Provider.OPENAI, Mode.TOOLS).response_parser.__self__.extract_streaming_json
    if instructor is not None
    else None
)


def plain_instructor(stream: Sequence[ChatCompletionChunk]) -> Any:
    last = None
    for last in Partial[Catalog].from_streaming_response(iter(stream), stream_extractor=EXTRACTOR):  # noqa: B007
        pass
    return last


def tooljson_accelerated(stream: Sequence[ChatCompletionChunk]) -> Any:
    last = None
    for last in accelerated_partial(Partial[Catalog]).from_streaming_response(  # noqa: B007 - the last one
        iter(stream), stream_extractor=EXTRACTOR
    ):
        pass
    return last


IMPLEMENTATIONS: dict[str, Callable[[Sequence[ChatCompletionChunk]], Any]] = {
    "instructor": plain_instructor,
    "tooljson": tooljson_accelerated,
}
# About 50 KB; a 10 KB catalog keeps the untimed run of the plain side (make test-instructor) short.
SIZES = {"catalog_50kb": 250, "catalog_10kb": 50}


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("implementation", list(IMPLEMENTATIONS))
def test_instructor_partial(benchmark: Any, implementation: str, size: str) -> None:
    if implementation == "instructor" and size == "catalog_50kb" and benchmark.disabled:
        pytest.skip("instructor's own partials of 50 KB take minutes of CPU; run untimed at 10 KB")
    text = catalog_text(SIZES[size])
    stream = chunks(fragments(text))
    benchmark.group = f"instructor partial: {size}"
    benchmark.extra_info.update(characters=len(text), pieces=len(stream) - 1)
    final = benchmark(IMPLEMENTATIONS[implementation], stream)
    assert final == Catalog.model_validate_json(text)


def _serve(text: str, connection: Any) -> None:
    """The stand-in answering every request with one streamed ``Catalog`` tool call of ``text``."""
    from tooljson.standin import StandInServer
    from tooljson.standin.reply import Reply, ToolUse
    from tooljson.standin.scenario import Scenario

    reply = Reply(blocks=(ToolUse("Catalog", text),), stop_reason="tool_use")
    scenario = Scenario("catalog", "A structured output.", "Go.", [], lambda body, turn: reply)
    with StandInServer(scenario, fragment_sizes=(1, 32)) as server:
        connection.send(server.base_url)
        connection.recv()


def _end_to_end(text: str, rounds: int) -> dict[str, list[float]]:
    """Client CPU time of ``create_partial`` through the real openai client, plain and accelerated,
    the stand-in in another process (its work is not the client's)."""
    import multiprocessing

    import openai
    import tooljson

    context = multiprocessing.get_context("fork")
    ours, theirs = context.Pipe()
    server = context.Process(target=_serve, args=(text, theirs), daemon=True)
    server.start()
    times: dict[str, list[float]] = {"instructor": [], "tooljson": []}
    try:
        url = ours.recv()
        with openai.OpenAI(base_url=url + "/v1", api_key="k", max_retries=0) as sdk:
            plain = instructor.from_openai(sdk, mode=Mode.TOOLS)
            clients = {"instructor": plain, "tooljson": tooljson.accelerate(plain)}
            request = {
                "model": "m",
                "max_tokens": 32_000,
                "messages": [{"role": "user", "content": "Go."}],
                "max_retries": 0,
            }
            for _ in range(rounds):
                for name, client in clients.items():
                    start = time.process_time()
                    last = None
                    for last in client.create_partial(response_model=Catalog, **request):  # noqa: B007
                        pass
                    times[name].append(time.process_time() - start)
                    assert last == Catalog.model_validate_json(text)
    finally:
        ours.send("stop")
        server.join(10)
    return times


def _partial_streaming(text: str, rounds: int) -> dict[str, list[float]]:
    """CPU time of each implementation's partials over the chunk objects built beforehand, in
    interleaved rounds."""
    stream = chunks(fragments(text))
    times: dict[str, list[float]] = {name: [] for name in IMPLEMENTATIONS}
    for _ in range(rounds):
        for name, run in IMPLEMENTATIONS.items():
            start = time.process_time()
            final = run(stream)
            times[name].append(time.process_time() - start)
            assert final == Catalog.model_validate_json(text)
    return times


def _ratios(times: dict[str, list[float]]) -> dict[str, list[float]]:
    """The accelerated side's CPU time over the plain side's within each round, sorted (as
    ``features.py`` reads paired figures)."""
    return {
        "accelerated": sorted(ours / theirs for ours, theirs in zip(times["tooljson"], times["instructor"]))
    }


def _report(times: dict[str, list[float]], rounds: int) -> None:
    for name, spent in times.items():
        print(
            f"  {name}: {statistics.median(spent):.3f} s CPU (median of {rounds}: {', '.join(f'{t:.3f}' for t in spent)})"
        )
    ratio = statistics.median(times["instructor"]) / statistics.median(times["tooljson"])
    print(f"  tooljson's CPU time is 1/{ratio:.0f} of instructor's")


def measure_paired(rounds: int = REPORT_ROUNDS, python: Path = INSTRUCTOR_PYTHON) -> dict[str, Any]:
    """The report's figures (``features.measure``), keyed as :data:`LIMITS` keys them: this file run
    with ``--json`` by ``python`` (``.venv-instructor``'s), or why they are missing."""
    from workloads import NOT_MEASURED

    if not python.exists():
        return {NOT_MEASURED: f"{python.parent.parent.name} missing (make test-instructor builds it)"}
    # The tree's tooljson, the build the rest of the report measures, ahead of the wheel that make
    # test-instructor installed into the environment (it may be older).
    paths = [str(ROOT / "python"), *filter(None, [os.environ.get("PYTHONPATH")])]
    done = subprocess.run(
        [str(python), str(Path(__file__).resolve()), str(rounds), "--json"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(paths)},
    )
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        return {
            NOT_MEASURED: f"bench_instructor.py --json failed under {python} (exit {done.returncode}): {last}"
        }
    # The last line: the figures, after whatever else the run wrote.
    found: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


def describe_found(found: dict[str, dict[str, list[float]]]) -> list[str]:
    """The report's line on the figure without a bound: the partial streaming alone."""
    values = found.get("partial streaming", {}).get("accelerated")
    if not values:
        return []
    median = statistics.median(values)
    return [
        f"- reported: instructor's partial streaming alone (the ~50 KB catalog's chunk objects built beforehand, "
        f"no HTTP), accelerated ÷ plain: {median:.3g}× (1/{1 / median:.0f}; median of {len(values)} rounds, "
        f"range {values[0]:.3g}–{values[-1]:.3g})"
    ]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("rounds", nargs="?", type=int, default=3, help="interleaved rounds (default: 3)")
    parser.add_argument(
        "--json", action="store_true", help="print the ratios per round as JSON, nothing else"
    )
    arguments = parser.parse_args(argv)
    rounds = arguments.rounds
    text = catalog_text(SIZES["catalog_50kb"])
    partial = _partial_streaming(text, rounds)
    if not arguments.json:
        print(
            f"{len(text)} characters in {len(fragments(text))} pieces, openai Chat Completions chunks, Mode.TOOLS"
        )
        _report(partial, rounds)
        print(
            "end to end: create_partial through the openai client, the stand-in in another process (1-32 characters a chunk)"
        )
    end_to_end = _end_to_end(text, rounds)
    if arguments.json:
        print(json.dumps({"partial streaming": _ratios(partial), "end to end": _ratios(end_to_end)}))
    else:
        _report(end_to_end, rounds)


if __name__ == "__main__":
    main()
