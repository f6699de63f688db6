"""tooljson against every peer a user could pick, on text the project's own tuning never saw.

What is compared (``peers.py`` says what each peer is and which of its calls is timed):

- *live*: a value after every delta, the final value at the end, ÷ tooljson's ``preview``;
- *final*: the value at the end only, ÷ tooljson's ``add_delta`` + ``finish``;
- *loads*: the whole text parsed once, ÷ ``json.loads``;
- *per chunk*: the cost of calling in, on a 16 KiB document cut into 5,000 chunks of 1 to 4
  characters: ``add_delta`` per chunk beside a native method that does nothing with its one ``str``
  (``CallFloor.take``) and ``list.append``.

The streams (:func:`streams`): the held-out ~100 KB texts of ``HELD_OUT`` cut into deltas of 1 to
32 characters, as the API cuts them, and the 16 KiB document cut into 5,000 chunks.

Every figure is a paired ratio (:func:`paired_fresh`): every round times each side once, in a
shuffled order, on new objects made before its turn and not timed (a new ``str`` per delta, a new
``str`` per whole text), and the ratio is taken within the round; the table gives the median and the
quartiles over the rounds. A peer whose final value is not ``json.loads``' is shown as wrong and not
timed. A peer that re-parses everything received after every delta costs the square of the text:
it is timed in ``QUADRATIC_ROUNDS`` rounds, on the longest run of leading deltas whose re-parsed
bytes stay within its ``REPARSE_BUDGET`` (the table says how far that reaches), and tooljson beside
it on the same deltas.

``python benches/report.py`` puts the tables in ``benches/REPORT.md``; ``python benches/bench_peers.py``
prints them. Under plain ``pytest`` the tests below run every peer once on small inputs and check
its value, so that a peer missing from the environment fails ``make test`` at import.
"""

from __future__ import annotations

import gc
import importlib.util
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest
import tooljson
from peers import (
    FINAL,
    LIVE,
    LOADS,
    WHAT,
    Peer,
    difference,
    fresh_text,
    native_backend,
    tooljson_previews,
)
from summary import format_size
from texts import fresh
from tooljson._native import CallFloor
from workloads import CALL_WORKLOAD, HELD_OUT_WORKLOADS, workload

#: The held-out texts (``workloads.HELD_OUT_WORKLOADS``), each ~100 KB, cut into deltas of 1 to 32
#: characters; and the escaped records (not held out: this project's own), whose 20-digit integers
#: show which peers read them exactly.
HELD_OUT = (*HELD_OUT_WORKLOADS, "records_escaped")
#: The per-chunk stream: the 16 KiB document cut into this many chunks of 1 to 4 characters.
CHUNKED_PIECES = 5_000
CHUNKED = "chunked_16kib"

#: Rounds of each comparison, within the 20 minutes make bench-report is to take on this project's
#: 2-core machine: a round of the live peers on a 100 KB text takes about a second of CPU (jsonriver
#: most of it), a round of a re-parser about as much by its budget below.
LIVE_ROUNDS = 9
FINAL_ROUNDS = 11
QUADRATIC_ROUNDS = 3
LOADS_ROUNDS = 51
CHUNK_ROUNDS = 101
#: How many bytes a re-parsing peer may re-parse in one run (the sum over its deltas of the text so
#: far): about a second of its time per run on this project's machine. Deterministic, so that every
#: run times the same prefix; ``None``: the whole stream.
REPARSE_BUDGET: dict[str, int | None] = {
    "jiter partial_mode=True": None,
    "jiter trailing-strings": None,
    "partial-json-parser": 10_000_000,
    "json-repair stream_stable": 2_500_000,
}
#: Each turn is at least this long (calls repeated within it), so the clock's cost does not count.
TURN_SECONDS = 2e-3


# ------------------------------------------------------------------------------------------------
# The streams


@dataclass(frozen=True)
class Stream:
    """An argument text and the deltas it arrives in."""

    name: str
    text: str
    fragments: tuple[str, ...]

    @property
    def size(self) -> int:
        return len(self.text.encode("utf-8"))

    @property
    def title(self) -> str:
        if self.name == CHUNKED:
            return f"{format_size(self.size)} in {len(self.fragments):,} chunks"
        return f"{self.name} ({format_size(self.size)})"


def cut_into(text: str, pieces: int, seed: int, longest: int = 4) -> tuple[str, ...]:
    """``text`` cut into exactly ``pieces`` pieces of 1 to ``longest`` characters, at random."""
    if not pieces <= len(text) <= pieces * longest:
        raise ValueError(f"{len(text)} characters do not make {pieces} pieces of 1 to {longest}")
    rng = random.Random(seed)
    sizes = [1] * pieces
    rest = len(text) - pieces
    while rest:
        at = rng.randrange(pieces)
        if sizes[at] < longest:
            sizes[at] += 1
            rest -= 1
    cut = []
    at = 0
    for size in sizes:
        cut.append(text[at : at + size])
        at += size
    return tuple(cut)


def chunked_stream() -> Stream:
    """The 16 KiB document of the cost of calling in (``workloads.CALL_WORKLOAD``) cut into 5,000 chunks."""
    text = workload(CALL_WORKLOAD).text
    return Stream(CHUNKED, text, cut_into(text, CHUNKED_PIECES, seed=len(text)))


def streams(names: Sequence[str] = HELD_OUT) -> list[Stream]:
    found = [Stream(name, workload(name).text, workload(name).fragments["random"]) for name in names]
    return [*found, chunked_stream()]


def reparse_prefix(fragments: Sequence[str], budget: int | None) -> tuple[str, ...]:
    """The longest run of leading deltas whose re-parsed bytes (the text so far, summed over the
    deltas) stay within ``budget``."""
    if budget is None:
        return tuple(fragments)
    total = 0
    size = 0
    for count, piece in enumerate(fragments):
        size += len(piece.encode("utf-8"))
        total += size
        if total > budget:
            return tuple(fragments[:count])
    return tuple(fragments)


# ------------------------------------------------------------------------------------------------
# Paired timing on new objects

#: A case of :func:`paired_fresh`: what is timed, and what makes its argument (not timed).
Case = tuple[Callable[[Any], Any], Callable[[], Any]]


def paired_fresh(cases: dict[str, Case], baseline: str, rounds: int, seed: int = 0) -> dict[str, list[float]]:
    """For each case, its CPU time over the baseline's in each round, sorted.

    Each turn makes its arguments first (a new one per call, not timed), empties the young
    generation of the garbage collector (``workloads.paired_ratios`` says why), then times its calls
    back to back. A case that takes less than ``TURN_SECONDS`` is called several times per turn.
    """
    rng = random.Random(seed)
    repeats = {}
    for label, (run, make) in cases.items():
        argument = make()
        start = time.process_time()
        run(argument)
        elapsed = time.process_time() - start
        repeats[label] = max(1, min(1000, int(TURN_SECONDS / elapsed))) if elapsed > 0 else 1000
    ratios: dict[str, list[float]] = {label: [] for label in cases}
    for _ in range(rounds):
        order = list(cases)
        rng.shuffle(order)
        times = {}
        for label in order:
            run, make = cases[label]
            arguments = [make() for _ in range(repeats[label])]
            gc.collect(0)
            start = time.process_time()
            for argument in arguments:
                run(argument)
            times[label] = (time.process_time() - start) / repeats[label]
            del arguments
        for label in cases:
            ratios[label].append(times[label] / times[baseline])
    return {label: sorted(values) for label, values in ratios.items()}


def _deltas(fragments: Sequence[str]) -> Callable[[], list[str]]:
    return lambda: fresh(fragments)


# ------------------------------------------------------------------------------------------------
# Measuring


def check(peer: Peer, fragments: Sequence[str], expected: Any) -> str | None:
    """What is wrong or of another type in ``peer``'s final value (``peers.difference``), or what it
    raised; ``None`` when it is ``json.loads``'."""
    try:
        value = peer.run(fresh(fragments))
    except Exception as error:  # noqa: BLE001 - a peer that fails on valid JSON is reported, not timed
        return f"wrong: raised {type(error).__name__}: {error}"[:160]
    return difference(value, expected)


def measure_mode(
    peers: Sequence[Peer], stream: Stream, rounds: int, budgets: dict[str, int | None] = REPARSE_BUDGET
) -> dict[str, Any]:
    """One mode (live or final) on one stream: ``{label: {"ratios": [...], "note": ..., "prefix": bytes}}``."""
    expected = json.loads(stream.text)
    baseline = peers[0]
    found: dict[str, Any] = {}
    fast: dict[str, Case] = {baseline.label: (baseline.run, _deltas(stream.fragments))}
    for peer in peers[1:]:
        # A re-parser's value after the last delta is its parse of the whole text: checked on that one
        # call (its run over every delta costs minutes at 100 KB).
        note = check(peer, (stream.text,) if peer.quadratic else stream.fragments, expected)
        found[peer.label] = {"note": note}
        if note and note.startswith("wrong"):
            continue
        if peer.quadratic:
            prefix = reparse_prefix(stream.fragments, budgets[peer.label])
            # The re-parsers stop at the prefix too: tooljson beside them shows the value after every
            # delta of it, without the finish that an unfinished text would fail.
            pair: dict[str, Case] = {
                baseline.label: (tooljson_previews, _deltas(prefix)),
                peer.label: (peer.run, _deltas(prefix)),
            }
            found[peer.label]["ratios"] = paired_fresh(pair, baseline.label, QUADRATIC_ROUNDS)[peer.label]
            found[peer.label]["prefix"] = len("".join(prefix).encode("utf-8"))
        else:
            fast[peer.label] = (peer.run, _deltas(stream.fragments))
    ratios = paired_fresh(fast, baseline.label, rounds)
    for label, values in ratios.items():
        if label != baseline.label:
            found[label]["ratios"] = values
    return found


def measure_loads(stream: Stream, rounds: int = LOADS_ROUNDS) -> dict[str, Any]:
    """Every whole-text parser on a new ``str`` (or new ``bytes``) per call, ÷ ``json.loads``."""
    text = stream.text
    expected = json.loads(text)
    cases: dict[str, Case] = {}
    found: dict[str, Any] = {}
    for label, (_package, _api, parse, takes_bytes) in LOADS.items():
        make = (lambda: text.encode("utf-8")) if takes_bytes else (lambda: fresh_text(text))
        note = difference(parse(make()), expected)
        found[label] = {"note": note}
        if not (note and note.startswith("wrong")):
            cases[label] = (parse, make)
    for label, values in paired_fresh(cases, "json.loads", rounds).items():
        found[label]["ratios"] = values
    return found


def _take_all(arguments: tuple[Any, list[str]]) -> None:
    floor, chunks = arguments
    take = floor.take
    for chunk in chunks:
        take(chunk)


def _append_all(arguments: tuple[list[str], list[str]]) -> None:
    kept, chunks = arguments
    append = kept.append
    for chunk in chunks:
        append(chunk)


def _add_all(arguments: tuple[Any, list[str]]) -> None:
    accumulator, chunks = arguments
    add_delta = accumulator.add_delta
    for chunk in chunks:
        add_delta(0, chunk)


def _started() -> Any:
    accumulator = tooljson.ToolCallAccumulator()
    accumulator.start(0, "write_file", "toolu_01")
    return accumulator


def measure_chunks(stream: Stream, rounds: int = CHUNK_ROUNDS) -> dict[str, Any]:
    """The cost of calling in, per chunk: ``{label: {"ratios": [...]}}`` ÷ the first row."""
    chunks = stream.fragments
    cases: dict[str, Case] = {"CallFloor.take": (_take_all, lambda: (CallFloor(), fresh(chunks)))}
    cases["list.append"] = (_append_all, lambda: ([], fresh(chunks)))
    cases["add_delta"] = (_add_all, lambda: (_started(), fresh(chunks)))
    cases["add_delta + finish"] = (FINAL[0].run, _deltas(chunks))
    cases["append + join + json.loads"] = (FINAL[1].run, _deltas(chunks))
    baseline = next(iter(cases))
    found: dict[str, Any] = {"baseline": baseline}
    found["rows"] = {
        label: {"ratios": values} for label, values in paired_fresh(cases, baseline, rounds).items()
    }
    return found


def measure(names: Sequence[str] = HELD_OUT) -> dict[str, Any]:
    """Every figure of the report's peer section, as plain data (saved beside the benchmark JSON)."""
    started, cpu = time.monotonic(), _cpu_seconds()
    found: dict[str, Any] = {"streams": {}, "versions": versions(), "native_backend": native_backend()}
    found["load"] = [os.getloadavg()[0]]
    for stream in streams(names):
        found["streams"][stream.name] = {
            "title": stream.title,
            "live": measure_mode(LIVE, stream, LIVE_ROUNDS),
            "final": measure_mode(FINAL, stream, FINAL_ROUNDS),
            "loads": measure_loads(stream),
        }
        if stream.name == CHUNKED:
            found["chunks"] = {"title": stream.title, **measure_chunks(stream)}
    for name, modes in measure_pure_streaming(names).items():
        for mode, entry in modes.items():
            found["streams"][name][mode][PURE_STREAMING] = entry
    found["seconds"] = time.monotonic() - started
    found["cpu_seconds"] = _cpu_seconds() - cpu
    found["load"].append(os.getloadavg()[0])
    return found


def _cpu_seconds() -> float:
    """CPU time of this process and of the processes it has waited for."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


#: The row of streaming-json-parser without its native backend: the package alone, as a user who
#: installs only it gets it. Measured in a process where the backend cannot be imported.
PURE_STREAMING = "streaming-json-parser (pure Python)"


def measure_pure_streaming(names: Sequence[str], rounds: int | None = None) -> dict[str, dict[str, Any]]:
    """streaming-json-parser's rows again, in a new interpreter in which its native backend cannot
    be imported: ``{stream: {"live": entry, "final": entry}}`` (``rounds`` of each, if given)."""
    code = (
        "import sys, runpy; sys.modules['streaming_json_parser_native'] = None; "
        f"sys.path.insert(0, {str(Path(__file__).resolve().parent)!r}); "
        f"sys.argv = ['bench_peers.py', '--pure-streaming', '{rounds or 0}', *{list(names)!r}]; "
        f"runpy.run_path({str(Path(__file__).resolve())!r}, run_name='__main__')"
    )
    completed = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    found: dict[str, dict[str, Any]] = json.loads(completed.stdout)
    return found


def _pure_streaming_rows(names: Sequence[str], rounds: int = 0) -> dict[str, dict[str, Any]]:
    """In the process :func:`measure_pure_streaming` starts: streaming-json-parser beside tooljson."""
    if native_backend():
        raise RuntimeError("the native backend is loaded: this must run where it cannot be imported")
    found: dict[str, dict[str, Any]] = {}
    for stream in streams(names):
        live = [LIVE[0], next(peer for peer in LIVE if peer.package == "streaming-json-parser")]
        final = [FINAL[0], next(peer for peer in FINAL if peer.package == "streaming-json-parser")]
        found[stream.name] = {
            "live": measure_mode(live, stream, rounds or LIVE_ROUNDS)[live[1].label],
            "final": measure_mode(final, stream, rounds or FINAL_ROUNDS)[final[1].label],
        }
    return found


def versions() -> dict[str, str]:
    packages = {peer.package for peer in (*LIVE, *FINAL)} | {package for package, *_ in LOADS.values()}
    packages |= {"streaming-json-parser-native"}
    found = {}
    for package in sorted(packages):
        try:
            found[package] = sys.version.split()[0] if package == "python" else metadata.version(package)
        except metadata.PackageNotFoundError:
            found[package] = "not installed"
    return found


# ------------------------------------------------------------------------------------------------
# The report's section


def _cell(entry: dict[str, Any], footnotes: list[str]) -> str:
    note = entry.get("note")
    mark = ""
    if note:
        if note not in footnotes:
            footnotes.append(note)
        mark = f" ({footnotes.index(note) + 1})"
    if note and note.startswith("wrong"):
        return f"**wrong**{mark}"
    values = entry.get("ratios")
    if not values:
        return "n/a"
    middle = statistics.median(values)
    quartiles = (
        f"{values[len(values) // 4]:{_format(middle)}}–{values[3 * len(values) // 4]:{_format(middle)}}"
    )
    prefix = entry.get("prefix")
    reach = f", first {format_size(prefix)}" if prefix else ""
    return f"{middle:{_format(middle)}}× ({quartiles}{reach}){mark}"


def _format(value: float) -> str:
    return ".2f" if value < 10 else ".1f" if value < 100 else ",.0f"


def _table(
    heading: str, rows: Sequence[str], columns: dict[str, dict[str, Any]], footnotes: list[str]
) -> list[str]:
    lines = [f"| {heading} | " + " | ".join(columns) + " |", "|---|" + "---:|" * len(columns)]
    for row in rows:
        cells = [_cell(column[row], footnotes) if row in column else "" for column in columns.values()]
        lines.append(f"| {row} | " + " | ".join(cells) + " |")
    return lines


def _marked(name: str, lines: list[str]) -> list[str]:
    """``lines`` between the markers by which ``docs/performance.md`` includes them (snippets)."""
    return [f"<!-- --8<-- [start:{name}] -->", *lines, f"<!-- --8<-- [end:{name}] -->"]


def _footnoted(lines: list[str], footnotes: list[str]) -> list[str]:
    if not footnotes:
        return lines
    return [*lines, "", *(f"({number}) {text}  " for number, text in enumerate(footnotes, 1))]


def _with_pure_streaming(rows: list[str]) -> list[str]:
    at = rows.index("streaming-json-parser") + 1
    return [*rows[:at], PURE_STREAMING, *rows[at:]]


def markdown(found: dict[str, Any]) -> list[str]:
    """The section of ``benches/REPORT.md`` on the peers."""
    streams_found = found["streams"]
    version = found["versions"]
    lines = [
        "## Against every peer",
        "",
        "Each figure is the peer's CPU time ÷ the baseline's named in the table, timed side by side in "
        "paired rounds (median, and the quartiles in brackets): every round runs each side once in a "
        "shuffled order, each on new objects made before its turn (a new `str` per delta, a new `str` "
        "per whole text), and the ratio is taken within the round. A peer whose final value is not "
        "`json.loads`' is shown as wrong and not timed; one whose value is equal under `==` but of "
        "another type is timed and marked. The held-out texts are cut into deltas of 1 to 32 "
        f"characters; the {found['streams'].get(CHUNKED, {}).get('title', 'chunked document')} are of "
        "1 to 4 characters."
        + (
            f" Measured in {found['seconds'] / 60:.1f} min ({found['cpu_seconds'] / 60:.1f} min of CPU time), load "
            f"average (1 min) {found['load'][0]:.1f} before and {found['load'][-1]:.1f} after."
            if "load" in found
            else ""
        ),
        "",
        "| peer | version | what it is | live: timed | final: timed |",
        "|---|---|---|---|---|",
    ]
    finals: dict[str, Peer] = {}
    for peer in FINAL:
        finals.setdefault(peer.package, peer)
    for peer in LIVE:
        final = finals.get(peer.package) if peer.package != "jiter" or peer.label.endswith("True") else None
        lines.append(
            f"| {peer.label} | {version.get(peer.package, '?')} | {WHAT[peer.package]} | {peer.api} | "
            f"{final.api if final else '(above)'} |"
        )
    lines.append(
        f"| pure accumulator | {version.get('tooljson', '?')} | `tooljson.pure`, the reference in Python | | "
        f"{FINAL[1].api} |"
    )
    lines.append(
        f"| {PURE_STREAMING} | {version.get('streaming-json-parser', '?')} | streaming-json-parser alone | as "
        "streaming-json-parser, in a process where its native backend cannot be imported | (same) |"
    )
    listed = {peer.package for peer in LIVE}
    for label, (package, _api, _parse, _bytes) in LOADS.items():
        if package not in listed:
            listed.add(package)
            lines.append(f"| {label.partition(' ')[0]} | {version.get(package, '?')} | {WHAT[package]} | | |")
    backend = (
        f"streaming-json-parser-native {version.get('streaming-json-parser-native', '?')} installed: "
        "`StreamingJsonParser()` hands out its `IncrementalJsonParser`"
        if found.get("native_backend")
        else "its pure-Python parser (streaming-json-parser-native not installed)"
    )
    lines += [
        "",
        f"streaming-json-parser was timed with {backend}. The re-parsers (jiter, partial-json-parser, "
        "json-repair live) parse everything received so far after every delta: their cost grows with the "
        f"square of the text, so they ran {QUADRATIC_ROUNDS} rounds each, on the deltas shown ("
        '"first N KB": the leading deltas whose re-parsed bytes stay within a fixed budget, the same '
        "every run), with tooljson beside them on the same deltas.",
    ]
    live_rows = _with_pure_streaming([peer.label for peer in LIVE[1:]])
    final_rows = _with_pure_streaming([peer.label for peer in FINAL[1:]])
    footnotes: list[str] = []
    table = _table(
        "live: a value after every delta, ÷ tooljson (`preview`)",
        live_rows,
        {entry["title"]: entry["live"] for entry in streams_found.values()},
        footnotes,
    )
    lines += ["", "### A value after every delta", "", *_marked("peers-live", _footnoted(table, footnotes))]
    footnotes = []
    table = _table(
        "final value only, ÷ tooljson (`add_delta` + `finish`)",
        final_rows,
        {entry["title"]: entry["final"] for entry in streams_found.values()},
        footnotes,
    )
    lines += ["", "### The value at the end only", "", *_marked("peers-final", _footnoted(table, footnotes))]
    footnotes = []
    table = _table(
        "whole text, ÷ `json.loads`",
        [label for label in LOADS if label != "json.loads"],
        {entry["title"]: entry["loads"] for entry in streams_found.values()},
        footnotes,
    )
    apis = "; ".join(f"{label}: {api}" for label, (_p, api, _f, _b) in LOADS.items())
    lines += [
        "",
        "### The whole text at once",
        "",
        f"A new `str` per call (for `orjson (bytes)`, new UTF-8 `bytes`). Timed: {apis}.",
        "",
        *_marked("peers-loads", _footnoted(table, footnotes)),
    ]
    chunks = found.get("chunks")
    if chunks:
        baseline = chunks["baseline"]
        footnotes = []
        rows = chunks["rows"]
        table = [
            f"| per chunk, {chunks['title']} | ÷ {baseline} |",
            "|---|---:|",
            *(f"| {label} | {_cell(entry, footnotes)} |" for label, entry in rows.items()),
        ]
        floor_note = (
            "`CallFloor.take`: a native method of the extension (PyO3, not public) that takes one `str` and does "
            "nothing with it, the cost of calling in."
        )
        lines += [
            "",
            "### The cost of calling in",
            "",
            f"Each row loops over the chunks, a new `str` each. {floor_note} `add_delta`: into a started call "
            "(not finished); `add_delta + finish` and `append + join + json.loads` (the pure accumulator) make the "
            "value.",
            "",
            *_marked("peers-chunks", table),
        ]
    return lines


# ------------------------------------------------------------------------------------------------
# Tests: each peer once, on small inputs (plain pytest, make test)

#: Small texts for the tests: records, and records with 20-digit integers (which only the quick
#: peers meet: a re-parser takes seconds per run on 10 KB).
SMALL = ("records_3kb", "records_escaped_10kb")


@pytest.mark.parametrize(
    ("name", "peer"),
    [(name, peer) for peer in (*LIVE, *FINAL) for name in SMALL if name == SMALL[0] or not peer.quadratic],
    ids=lambda item: item if isinstance(item, str) else item.run.__name__,
)
def test_peer_value(name: str, peer: Peer) -> None:
    """Every peer's value is checked: json.loads' or a difference the report shows."""
    data = workload(name)
    note = check(peer, data.fragments["random"], json.loads(data.text))
    if peer.label == "jsonriver":
        # jsonriver reads every number as a float: equal to the int under == up to 2**53 only.
        assert note is not None
        assert note.startswith("wrong" if name == SMALL[1] else "type")
    else:
        assert note is None, note


def test_difference() -> None:
    assert difference({"a": [1, 2.5]}, {"a": [1, 2.5]}) is None
    assert difference({"a": [1.0]}, {"a": [1]}) == "type: $.a[0] is 1.0 (float), not 1 (int)"
    assert difference({"a": 2**64 * 1.0}, {"a": 2**64 + 1}) == (
        "wrong: $.a is 1.8446744073709552e+19 (float), not 18446744073709551617 (int)"
    )
    assert difference({"a": 1}, {"a": 1, "b": 2}) == "wrong: $.b missing"


def test_native_backend_installed() -> None:
    """streaming-json-parser-native is pinned beside streaming-json-parser: its rows time it."""
    assert importlib.util.find_spec("streaming_json_parser_native") is not None
    assert native_backend()


def test_pure_streaming_rows() -> None:
    """The pure-Python streaming-json-parser, in a process of its own, on a small text."""
    found = measure_pure_streaming(["records_3kb"], rounds=1)
    assert set(found) == {"records_3kb", CHUNKED}
    for modes in found.values():
        assert modes["live"]["note"] is None
        assert len(modes["live"]["ratios"]) == 1


def test_fresh_objects() -> None:
    # (A one-character str below U+0100 is one of CPython's cached singletons, new or not.)
    pieces = ("ab", "ñx", "😀")
    copied = [fresh_text(piece) for piece in pieces]
    assert copied == list(pieces)
    assert all(new is not old for new, old in zip(copied, pieces, strict=True))


def test_cut_into() -> None:
    text = chunked_stream().text
    assert abs(len(text.encode("utf-8")) - 16 * 1024) < 1024
    pieces = cut_into(text, CHUNKED_PIECES, seed=1)
    assert len(pieces) == CHUNKED_PIECES
    assert "".join(pieces) == text
    assert {len(piece) for piece in pieces} <= {1, 2, 3, 4}
    with pytest.raises(ValueError, match="do not make"):
        cut_into("abc", 5, seed=1)


def test_reparse_prefix() -> None:
    assert reparse_prefix(("ab", "cd", "ef"), None) == ("ab", "cd", "ef")
    assert reparse_prefix(("ab", "cd", "ef"), 6) == ("ab", "cd")
    assert reparse_prefix(("ab", "cd", "ef"), 5) == ("ab",)


PARTIAL_JSON_PARSER = next(peer for peer in LIVE if peer.label == "partial-json-parser")


def test_measure_and_markdown() -> None:
    """The whole section from one quick pass (one round each) on the small records."""
    data = workload("records_escaped_10kb")
    stream = Stream(data.name, data.text, data.fragments["random"])
    found = {
        "streams": {
            stream.name: {
                "title": stream.title,
                "live": measure_mode(
                    [*LIVE[:4], PARTIAL_JSON_PARSER], stream, 1, {PARTIAL_JSON_PARSER.label: 100_000}
                ),
                "final": measure_mode(FINAL, stream, 1),
                "loads": measure_loads(stream, 1),
            }
        },
        "chunks": {"title": "test", **measure_chunks(chunked_stream(), 1)},
        "versions": versions(),
        "native_backend": native_backend(),
    }
    assert found["streams"][stream.name]["live"]["jsonriver"]["note"].startswith("wrong")
    assert "ratios" not in found["streams"][stream.name]["live"]["jsonriver"]
    assert len(found["streams"][stream.name]["final"]["jsonmend"]["ratios"]) == 1
    assert 0 < found["streams"][stream.name]["live"][PARTIAL_JSON_PARSER.label]["prefix"] < stream.size // 2
    text = "\n".join(markdown(found))
    assert "**wrong** (1)" in text
    assert "<!-- --8<-- [start:peers-live] -->" in text
    assert "| ssrjson |" in text


def main(argv: Sequence[str]) -> int:
    """``bench_peers.py [--json PATH] [WORKLOAD ...]``: measure, then print the section (and save
    the figures to PATH, as ``report.py`` has it do)."""
    arguments = list(argv)
    if arguments[:1] == ["--pure-streaming"]:
        print(json.dumps(_pure_streaming_rows(tuple(arguments[2:]) or HELD_OUT, int(arguments[1]))))
        return 0
    path = None
    if arguments[:1] == ["--json"] and len(arguments) >= 2:
        path = arguments[1]
        del arguments[:2]
    found = measure(tuple(arguments) or HELD_OUT)
    if path:
        with open(path, "w", encoding="utf-8") as file:
            json.dump(found, file, indent=1)
    print("\n".join(markdown(found)))
    print(f"\n(measured in {found['seconds']:.0f} s, {found['cpu_seconds']:.0f} s of CPU time)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
