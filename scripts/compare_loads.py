"""`loads` of whole texts against `json.loads`, for tooljson and the whole-text peers.

Each round makes a new `str` for every call (so no library reads a UTF-8 copy a previous call left on
it), times each library once in an order that alternates from round to round, and divides by the
`json.loads` time of the same round. Prints, per workload and library, the median ratio and its
quartiles.

    .venv/bin/python scripts/compare_loads.py [--rounds 201] [--only tooljson,ssrjson]

The texts are made here, from a seed, and are none of the benchmark texts the code was tuned on:
ASCII records, a 16 KiB tool-call document, and a file write with 6% non-ASCII characters (about
1% of them astral, such as emoji) and about 77 backslashes per KB.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

_FIRST = ["Ada", "Brook", "Cyril", "Dana", "Elio", "Fern", "Gus", "Hale", "Ines", "Jory"]
_LAST = ["Abbott", "Byrne", "Castro", "Dolan", "Engel", "Foster", "Grant", "Hughes"]
_WORDS = ["alpha", "vector", "cache", "signal", "ledger", "harbor", "quartz", "meadow", "pixel"]
_WIDE = ["é", "ñ", "ü", "ø", "—", "→", "中", "文", "字", "Ж", "λ", "ß"]
_ASTRAL = ["😀", "🚀", "🎉", "📦", "🔥", "𝔘"]


def ascii_records(target: int, seed: int) -> str:
    rng = random.Random(seed)
    records: list[dict[str, Any]] = []
    size = 0
    while size < target:
        first, last = rng.choice(_FIRST), rng.choice(_LAST)
        record = {
            "uid": 10_000 + len(records),
            "full_name": f"{first} {last}",
            "mail": f"{first.lower()}.{last.lower()}@example.org",
            "balance": round(rng.uniform(-5000, 5000), rng.randint(0, 5)),
            "verified": rng.random() < 0.5,
            "parent": None if rng.random() < 0.3 else rng.randint(1, 900),
            "labels": rng.sample(_WORDS, rng.randint(0, 3)),
            "location": {"town": rng.choice(_WORDS).title(), "code": f"{rng.randint(0, 9999):04d}"},
        }
        records.append(record)
        size += len(json.dumps(record)) + 2
    return json.dumps({"items": records})


def document_16k(seed: int) -> str:
    rng = random.Random(seed)
    value: dict[str, Any] = {"action": "update_plan", "steps": [], "notes": ""}
    while len(json.dumps(value, ensure_ascii=False).encode()) < 16 * 1024:
        value["steps"].append(
            {
                "title": " ".join(rng.choice(_WORDS) for _ in range(rng.randint(2, 6))),
                "weight": round(rng.random(), 3),
                "done": rng.random() < 0.5,
                "refs": [rng.randint(0, 10**6) for _ in range(rng.randint(0, 4))],
                "detail": 'line one\nline "two"\t' + rng.choice(_WORDS) + " café",
            }
        )
    return json.dumps(value, ensure_ascii=False)


def file_write(target: int, seed: int) -> str:
    """About 6% non-ASCII characters (one in six of them astral), about 77 backslashes per KB."""
    rng = random.Random(seed)
    characters: list[str] = []
    words = ""
    while len(characters) < target:
        roll = rng.random()
        if roll < 0.05:
            characters.append(rng.choice(_WIDE))
        elif roll < 0.06:
            characters.append(rng.choice(_ASTRAL))
        elif roll < 0.13:
            characters.append(rng.choice(["\n", "\n", "\t", '"', "\\"]))
        else:
            if not words:
                words = rng.choice(_WORDS) + rng.choice([" ", " ", " ", "_", "/"])
            characters.append(words[0])
            words = words[1:]
    content = "".join(characters)
    return json.dumps({"path": "notes/draft.md", "content": content}, ensure_ascii=False)


def _libraries(only: set[str] | None) -> dict[str, Callable[[str], Any]]:
    import tooljson

    found: dict[str, Callable[[str], Any]] = {"json": json.loads, "tooljson": tooljson.loads}
    for name in ("ssrjson", "orjson", "msgspec"):
        try:
            module = __import__(name)
        except ImportError:
            continue
        found[name] = module.json.decode if name == "msgspec" else module.loads
    if only:
        found = {name: loads for name, loads in found.items() if name == "json" or name in only}
    return found


def measure(text: str, libraries: dict[str, Callable[[str], Any]], rounds: int) -> dict[str, list[float]]:
    expected = json.loads(text)
    for name, loads in libraries.items():
        if loads(text) != expected:
            print(f"  {name} returns another value")
    names = list(libraries)
    ratios: dict[str, list[float]] = {name: [] for name in names if name != "json"}
    for round_number in range(rounds):
        order = names if round_number % 2 == 0 else names[::-1]
        times: dict[str, float] = {}
        for name in order:
            fresh = text[:-1] + text[-1]
            loads = libraries[name]
            start = time.perf_counter()
            loads(fresh)
            times[name] = time.perf_counter() - start
        for name in ratios:
            ratios[name].append(times[name] / times["json"])
    return ratios


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=201)
    parser.add_argument("--only", default="")
    parser.add_argument("--workloads", default="")
    parser.add_argument("--baseline", default="", help="another build's _native library, timed as 'baseline'")
    arguments = parser.parse_args()
    workloads = {
        "ascii records": ascii_records(100_000, seed=101),
        "16 KiB document": document_16k(seed=102),
        "non-ASCII file write": file_write(100_000, seed=103),
    }
    try:
        import benches.texts as texts

        workloads["records (bench)"] = texts.argument_text("records")
    except ImportError:
        pass
    if arguments.workloads:
        wanted = set(arguments.workloads.split(","))
        workloads = {name: text for name, text in workloads.items() if name in wanted}
    libraries = _libraries(set(arguments.only.split(",")) if arguments.only else None)
    if arguments.baseline:
        spec = importlib.util.spec_from_file_location("baseline._native", arguments.baseline)
        assert spec is not None and spec.loader is not None
        baseline = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(baseline)
        libraries["baseline"] = baseline.loads
    for name, text in workloads.items():
        wide = sum(ord(character) > 127 for character in text) / len(text)
        astral = sum(ord(character) > 0xFFFF for character in text) / len(text)
        backslashes = text.count("\\") / (len(text.encode()) / 1024)
        print(
            f"{name}: {len(text.encode())} bytes, {wide:.1%} non-ASCII, {astral:.2%} astral, "
            f"{backslashes:.0f} backslashes/KB"
        )
        ratios = measure(text, libraries, arguments.rounds)
        for other in ("ssrjson", "baseline"):
            if other in ratios:
                ratios[f"tooljson/{other}"] = [
                    ours / theirs for ours, theirs in zip(ratios["tooljson"], ratios[other], strict=True)
                ]
        for library, values in ratios.items():
            low, median, high = statistics.quantiles(values, n=4)
            print(f"  {library:17} {median:.3f}  [{low:.3f}, {high:.3f}]")


if __name__ == "__main__":
    main()
