"""How long tooljson takes on hostile inputs, and how much memory, next to json.loads.

    .venv/bin/python benches/adversarial_report.py [--repeat N]

The tests in ``tests/test_adversarial.py`` check that these inputs get the right value or a clean
error; this script times them (best of N runs, wall clock) and measures the peak resident memory
each adds (Linux: the peak is reset through ``/proc/self/clear_refs`` before each run). It prints a
Markdown table; the target is that every input is answered in well under 2 seconds.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path

import tooljson

MB = 1_000_000
TARGET_SECONDS = 2.0


def peak_kib() -> int | None:
    try:
        Path("/proc/self/clear_refs").write_text("5")
        status = Path("/proc/self/status").read_text()
    except OSError:
        return None
    match = re.search(r"VmHWM:\s+(\d+) kB", status)
    return int(match.group(1)) if match else None


def peak_now() -> int | None:
    try:
        match = re.search(r"VmHWM:\s+(\d+) kB", Path("/proc/self/status").read_text())
    except OSError:
        return None
    return int(match.group(1)) if match else None


def outcome(action: Callable[[], object]) -> str:
    try:
        value = action()
    except (ValueError, RecursionError) as error:
        return type(error).__name__
    return f"value ({type(value).__name__})"


def measure(action: Callable[[], object], repeat: int) -> tuple[float, float | None, str]:
    """Best wall time in seconds, peak memory added in MiB (first run), and what came out."""
    before = peak_kib()
    result = outcome(action)
    after = peak_now()
    memory = (after - before) / 1024 if before is not None and after is not None else None
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        outcome(action)
        best = min(best, time.perf_counter() - start)
    return best, memory, result


def streamed(text: str, size: int, preview_every: int = 0) -> Callable[[], object]:
    def run() -> object:
        parser = tooljson.Parser()
        for number, start in enumerate(range(0, len(text), size)):
            parser.feed(text[start : start + size])
            if preview_every and number % preview_every == 0:
                parser.preview()
        return parser.finish()

    return run


def with_deep_recursion(action: Callable[[], object]) -> Callable[[], object]:
    def run() -> object:
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(10_000)
        try:
            return action()
        finally:
            sys.setrecursionlimit(limit)

    return run


def inputs() -> list[tuple[str, str, Callable[[], object], Callable[[], object] | None]]:
    """(name, how it is fed, tooljson's run, json.loads's run or None)."""
    openers = "[" * (10 * MB)
    objects = '{"a":' * (2 * MB)
    digits = "1" * MB
    unit = "caf\u00e9 \\n \\u00e9 \\ud83d\\ude80 \\\\ plain text "
    big_string = '{"content": "' + unit * (10 * MB // len(unit)) + '"}'
    keys = json.dumps({f"key_{n}": [n, f"v{n}"] for n in range(300_000)})
    document = json.dumps(
        {"content": "".join(f"line {n}: \u00e9\u20ac\U0001f680 \\ tab\t\n" for n in range(40_000))},
        ensure_ascii=False,
    )
    deep = "[" * 1000 + "]" * 1000
    size_limited = '"' + "x" * (50 * MB)

    def one_character_at_a_time() -> object:
        parser = tooljson.Parser()
        for position, character in enumerate(document):
            parser.feed(character)
            if position % 1000 == 999:
                parser.preview()
        return parser.finish()

    def over_the_size_limit() -> object:
        parser = tooljson.Parser(max_size=1000)
        for start in range(0, len(size_limited), MB):
            try:
                parser.feed(size_limited[start : start + MB])
            except tooljson.InputTooLargeError:
                pass
        return parser.finish()

    return [
        ("10 MB of `[`", "whole", lambda: tooljson.loads(openers), lambda: json.loads(openers)),
        ("10 MB of `[`", "64 KB fragments", streamed(openers, 65_536), None),
        ('10 MB of `{"a":`', "whole", lambda: tooljson.loads(objects), lambda: json.loads(objects)),
        ("1,000,000-digit integer", "whole", lambda: tooljson.loads(digits), lambda: json.loads(digits)),
        ("1,000,000-digit integer", "4 KB fragments", streamed(digits, 4096), None),
        (
            "10 MB string with escapes",
            "whole",
            lambda: tooljson.loads(big_string),
            lambda: json.loads(big_string),
        ),
        (
            "10 MB string with escapes",
            "4 KB fragments, preview every 256",
            streamed(big_string, 4096, 256),
            None,
        ),
        ("300,000 keys", "whole", lambda: tooljson.loads(keys), lambda: json.loads(keys)),
        ("300,000 keys", "37-character fragments", streamed(keys, 37), None),
        (
            f"{len(document) / MB:.1f} M characters",
            "1 character a fragment, preview every 1,000",
            one_character_at_a_time,
            None,
        ),
        (
            "nesting 1,000 deep",
            "whole",
            lambda: tooljson.loads(deep),
            with_deep_recursion(lambda: json.loads(deep)),
        ),
        ("50 MB past max_size=1000", "1 MB fragments", over_the_size_limit, None),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per input (best is shown)")
    options = parser.parse_args()
    print("| input | fed as | tooljson | result | peak memory added | json.loads |")
    print("| --- | --- | ---: | --- | ---: | ---: |")
    slowest = 0.0
    for name, fed, ours, reference in inputs():
        seconds, memory, result = measure(ours, options.repeat)
        slowest = max(slowest, seconds)
        memory_text = f"{memory:.1f} MiB" if memory is not None else "n/a"
        reference_text = "-"
        if reference is not None:
            reference_seconds, _, reference_result = measure(reference, options.repeat)
            reference_text = f"{reference_seconds * 1000:.0f} ms ({reference_result})"
        print(f"| {name} | {fed} | {seconds * 1000:.0f} ms | {result} | {memory_text} | {reference_text} |")
    print("\nPeak memory added is measured on the first run of each row; 0.0 MiB means the run fitted in")
    print("memory the process already held (freed by an earlier row and kept by the allocator).")
    verdict = "within" if slowest < TARGET_SECONDS else "OVER"
    print(
        f"\nSlowest: {slowest:.2f} s ({verdict} the {TARGET_SECONDS:.0f} s target); Python {sys.version.split()[0]}."
    )


if __name__ == "__main__":
    main()
