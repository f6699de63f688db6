"""The drop-in functions for code that re-parses a growing buffer, against what they replace.

After every delta of a stream, the buffer so far is parsed again, as the SDK helpers (jiter),
instructor (jiter, trailing strings) and LangChain (``parse_partial_json``) do:

- ``tooljson.from_json(buffer, partial_mode=True)`` against ``jiter.from_json`` on the same growing
  ``bytes`` buffer (a new ``bytes`` object per call), on the ~100 KB records and file-write streams
  and their escaped twins (1-32-character deltas);
- ``tooljson.parse_partial_json(text)`` against ``langchain_core.utils.json.parse_partial_json`` on
  the ~10 KB records streams, raw and escaped (LangChain re-parses in Python: minutes at 100 KB);
- one isolated call on the whole ~100 KB records document, ``partial_mode=True`` and strict: the
  path with nothing to resume from, against jiter's.

Each figure is a ratio from ``workloads.paired_ratios`` (CPU time, interleaved rounds). Run as a
script (``python benches/bench_compat.py [rounds]``) it prints them; ``benches/features.py`` puts them
in ``benches/REPORT.md``.
"""

from __future__ import annotations

import statistics
import sys
from collections.abc import Callable, Sequence
from typing import Any

import jiter
import tooljson
from langchain_core.utils.json import parse_partial_json as langchain_parse
from tooljson.compat.jiter_mode import CACHE
from workloads import paired_ratios, workload

#: (section, label, comparison, bound, kind), as ``features.LIMITS``.
LIMITS = [
    ("compat", "records", "jiter from_json", 50.0, "at_least"),
    ("compat", "records_escaped", "jiter from_json", 50.0, "at_least"),
    ("compat", "file_write", "jiter from_json", 10.0, "at_least"),
    ("compat", "code_write", "jiter from_json", 10.0, "at_least"),
    ("compat", "records_10kb", "langchain", 100.0, "at_least"),
    ("compat", "records_escaped_10kb", "langchain", 100.0, "at_least"),
    ("compat", "whole records, partial_mode=True", "tooljson", 1.5, "at_most"),
    ("compat", "whole records, strict", "tooljson", 1.5, "at_most"),
]

#: The ~100 KB streams of ``from_json`` against jiter: records and a file write, each as this
#: project writes them and with the escapes other serializers write (``\\u00f1``, code).
GROWING_WORKLOADS = ("records", "records_escaped", "file_write", "code_write")
#: The ~10 KB records of ``parse_partial_json`` against LangChain's, raw UTF-8 and escaped.
LANGCHAIN_WORKLOADS = ("records_10kb", "records_escaped_10kb")

DESCRIPTIONS = {
    (
        "compat",
        "jiter from_json",
    ): "from_json after every delta on the growing buffer: faster than jiter.from_json (partial_mode=True)",
    (
        "compat",
        "langchain",
    ): "parse_partial_json after every delta on the growing text: faster than LangChain's",
    (
        "compat",
        "tooljson",
    ): "one isolated from_json call on the whole 100 KB document: at most this multiple of jiter's time",
}


def growing(parse: Callable[[Any], Any], *, as_bytes: bool = True) -> Callable[[Sequence[str]], Any]:
    """Calls ``parse`` on the buffer after every delta appended to it (UTF-8 ``bytes``, or ``str``)."""

    def run(fragments: Sequence[str]) -> Any:
        CACHE.clear()
        buffer: Any = b"" if as_bytes else ""
        value = None
        for fragment in fragments:
            buffer += fragment.encode() if as_bytes else fragment
            value = parse(buffer)
        return value

    return run


def whole(parse: Callable[[bytes], Any]) -> Callable[[Sequence[str]], Any]:
    def run(fragments: Sequence[str]) -> Any:
        CACHE.clear()
        return parse(fragments[0].encode())

    return run


def measure_paired(rounds: int = 5) -> dict[str, Any]:
    """Every figure: ``{label: {comparison: [ratio per round]}}``."""
    found: dict[str, Any] = {}
    for name in GROWING_WORKLOADS:
        fragments = workload(name).fragments["random"]
        cases = {
            "tooljson": (growing(lambda data: tooljson.from_json(data, partial_mode=True)), fragments),
            "jiter from_json": (growing(lambda data: jiter.from_json(data, partial_mode=True)), fragments),
        }
        found[name] = paired_ratios(cases, "tooljson", rounds=rounds)
    for name in LANGCHAIN_WORKLOADS:
        fragments = workload(name).fragments["random"]
        cases = {
            "tooljson": (growing(tooljson.parse_partial_json, as_bytes=False), fragments),
            "langchain": (growing(langchain_parse, as_bytes=False), fragments),
        }
        found[name] = paired_ratios(cases, "tooljson", rounds=rounds)
    document = (workload("records").text,)
    for label, mode in (("whole records, partial_mode=True", True), ("whole records, strict", False)):
        cases = {
            "jiter": (whole(lambda data, mode=mode: jiter.from_json(data, partial_mode=mode)), document),
            "tooljson": (
                whole(lambda data, mode=mode: tooljson.from_json(data, partial_mode=mode)),
                document,
            ),
        }
        found[label] = paired_ratios(cases, "jiter", rounds=rounds * 3)
    return found


def main(argv: list[str]) -> int:
    rounds = int(argv[0]) if argv else 5
    for label, comparisons in measure_paired(rounds).items():
        for comparison, ratios in comparisons.items():
            if (
                ratios
                and comparison not in ("tooljson", "jiter")
                or "whole" in label
                and comparison == "tooljson"
            ):
                print(
                    f"{label}: {comparison} {statistics.median(ratios):.3g}× (rounds: {', '.join(f'{r:.3g}' for r in ratios)})"
                )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
