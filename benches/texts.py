"""The argument texts of the benchmark workloads, generated from fixed seeds.

- ``tiny``, ``nested``: a one-member object, a 1.5 KB nested query;
- ``records*``: an object holding a list of small records (names, cities and words in several
  scripts as raw UTF-8, a few notes with quoted and backslashed text), from 1 KB to 2 MB;
- ``records_escaped*``: records as another serializer writes them: about half with every non-ASCII
  character as a ``\\u00f1``-style escape (emoji as surrogate pairs), 20-digit integers;
- ``file_write``, ``code_write``: a file write whose one long string is generated Python or
  JavaScript source, full of ``\\n``, ``\\"`` and backslash escapes and non-ASCII text;
- ``prose_write``: a file write whose one long string is release notes in several scripts: about 6%
  of its characters non-ASCII (accented Latin, CJK and Hangul, emoji beyond U+FFFF), about 8%
  backslashes (``\\n`` line ends, ``\\t``, ``\\"`` quotes, Windows paths);
- ``latin_write``: a file write whose one long string is notes in French, Spanish, German and
  Portuguese: every character below U+0100 (a one-byte-a-character ``str``), about 4% of them
  accented, a ``\\n`` ending every line and ``\\"`` quotes.

Held out: texts no change was tuned on, to check that the speed holds beyond the texts above.

- ``astral_write``: a file write whose one long string is a build log from Windows runners: about
  6% of its characters non-ASCII, 1% beyond U+FFFF (emoji and other astral characters), one
  backslash per 13 bytes (Windows paths, quoted code, line ends);
- ``ascii_records``: an object holding a list of service log records, every character ASCII;
  ``ascii_records_16kb`` the same at 16 KiB, the document the cost of calling in is measured on
  (cut into 1 to 4 characters: about 6,500 deltas).

:func:`cut` cuts a text into deltas as a stream delivers them, and :func:`fresh` gives each
delta as a new ``str``, as a stream's decoder makes one.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["HELD_OUT", "argument_text", "cut", "fresh", "path_like"]

#: The held-out texts (see above).
HELD_OUT = ("astral_write", "ascii_records", "ascii_records_16kb")

_FIRST_NAMES = [
    "Ana",
    "João",
    "Zoë",
    "Łukasz",
    "Mei",
    "Omar",
    "Inès",
    "Kwame",
    "Sven",
    "Aiko",
    "Raúl",
    "Priya",
]
_LAST_NAMES = ["Silva", "Müller", "O'Brien", "Nguyễn", "Kowalski", "Haddad", "Tanaka", "García", "Smith"]
_CITIES = ["Lisbon", "São Paulo", "Zürich", "Kraków", "東京", "Reykjavík", "Nairobi", "Montréal", "Oslo"]
_TAGS = ["new", "vip", "churn-risk", "beta", "eu", "apac", "trial", "partner", "legacy", "priority"]
_PROSE_WORDS = [
    "the",
    "stream",
    "parser",
    "reads",
    "each",
    "delta",
    "as",
    "it",
    "arrives",
    "and",
    "keeps",
    "a",
    "buffer",
    "of",
    "text",
    "for",
    "release",
    "notes",
    "users",
    "in",
    "every",
    "region",
    "see",
    "with",
    "their",
    "own",
    "words",
    "value",
    "record",
    "error",
    "message",
    "shows",
    "where",
    "cut",
    "off",
    "input",
    "was",
    "config",
    "file",
]
_ACCENTED = [
    "café",
    "naïve",
    "déjà vu",
    "façade",
    "Straße",
    "smörgåsbord",
    "São Paulo",
    "Zürich",
    "Kraków",
    "mañana",
    "crème brûlée",
    "Ångström",
]
_CJK = ["日本語", "東京", "設定ファイル", "中文", "用户", "错误信息", "한국어", "서울"]
_EMOJI = ["🚀", "🎉", "😀", "✅", "🔥", "👍🏽", "📦"]
_LATIN_WORDS = [
    "élève",
    "été",
    "déjà",
    "façade",
    "garçon",
    "français",
    "crème",
    "naïve",
    "niño",
    "mañana",
    "año",
    "también",
    "está",
    "über",
    "größe",
    "Straße",
    "schön",
    "Müller",
    "ação",
    "coração",
    "São",
    "København",
    "smörgåsbord",
]
_ASTRAL = ["🚀", "🎉", "😀", "🔥", "📦", "🧪", "🐍", "𝔸", "𠀋", "🦀", "💾", "🛠"]
_CODE = [
    "x = 1",
    'print("done")',
    "path.split('\\\\')",
    're.compile(r"\\d+\\s*")',
    "os.path.join(root, name)",
    "if (!ok) return;",
]
_SERVICES = ["auth", "billing", "search", "ingest", "gateway", "scheduler", "mailer", "cache"]
_LEVELS = ["debug", "info", "info", "info", "warn", "error"]
_MESSAGES = [
    "request served",
    "cache miss for key",
    "retrying upstream call",
    "token refreshed",
    "slow query detected",
    "connection reset by peer",
    "job queued",
    "rate limit reached",
]
_WORDS = [
    "stream",
    "delta",
    "parser",
    "token",
    "buffer",
    "schema",
    "value",
    "record",
    "commit",
    "layout",
    "naïve",
    "café",
    "façade",
    "déjà",
    "Straße",
    "smörgåsbord",
    "日本語",
    "😀",
    "→",
    "—",
]


def _record(rng: random.Random, number: int) -> dict[str, Any]:
    first = rng.choice(_FIRST_NAMES)
    last = rng.choice(_LAST_NAMES)
    record: dict[str, Any] = {
        "id": number,
        "name": f"{first} {last}",
        "email": f"{first.lower()}{number}@x.io",
        "score": round(rng.uniform(-1000, 1000), rng.randint(0, 6)),
        "active": rng.random() < 0.7,
        "manager": None if rng.random() < 0.4 else rng.randint(1, 500),
        "tags": rng.sample(_TAGS, rng.randint(0, 2)),
        "address": {"city": rng.choice(_CITIES), "zip": f"{rng.randint(0, 99999):05d}"},
    }
    if rng.random() < 0.15:
        record["note"] = f'said "{rng.choice(_WORDS)}"\nthen left\\{rng.choice(_WORDS)}'
    return record


def _records_text(target_bytes: int, seed: int) -> str:
    rng = random.Random(seed)
    records: list[dict[str, Any]] = []
    size = 0
    while size < target_bytes:
        record = _record(rng, len(records) + 1)
        records.append(record)
        size += len(json.dumps(record, ensure_ascii=False).encode("utf-8")) + 2
    return json.dumps({"records": records}, ensure_ascii=False)


def _file_write_text(target_bytes: int, seed: int) -> str:
    rng = random.Random(seed)
    lines: list[str] = ['"""Generated module: quotes, backslashes and non-ASCII text throughout."""', ""]
    size = 0
    number = 0
    while size < target_bytes:
        number += 1
        word = rng.choice(_WORDS)
        block = [
            f"def handle_{word.encode('ascii', 'ignore').decode() or 'x'}_{number}(path: str) -> str:",
            f'    """Returns the {word} for "{path_like(rng)}"."""',
            f'    pattern = r"^[a-z]+\\\\d{{{rng.randint(1, 9)}}}\\s*$"  # {rng.choice(_WORDS)} — {word}',
            f"    return f\"{{path}}\\t{word}\\n\" + '{rng.choice(_CITIES)}'",
            "",
        ]
        lines.extend(block)
        size += sum(len(line.encode("utf-8")) + 1 for line in block)
    content = "\n".join(lines) + "\n"
    return json.dumps({"path": "src/handlers/generated.py", "content": content}, ensure_ascii=False)


def path_like(rng: random.Random) -> str:
    """A Windows-looking path: backslashes that the JSON text must escape."""
    return "C:\\Users\\" + rng.choice(_FIRST_NAMES) + "\\" + rng.choice(_WORDS) + ".txt"


def _escaped_record(rng: random.Random, number: int) -> dict[str, Any]:
    record = _record(rng, number)
    record["account"] = rng.randint(10**19, 10**20 - 1)
    record["bio"] = f"{rng.choice(_WORDS)} from {rng.choice(_CITIES)}, señor {rng.choice(_LAST_NAMES)}"
    return record


def _escaped_records_text(target_bytes: int, seed: int) -> str:
    """Records as another serializer writes them: about half with every non-ASCII character as a
    ``\\u00f1``-style escape (emoji as surrogate pairs), half as raw UTF-8; 20-digit integers."""
    rng = random.Random(seed)
    records: list[str] = []
    size = 0
    while size < target_bytes:
        record = json.dumps(_escaped_record(rng, len(records) + 1), ensure_ascii=rng.random() < 0.5)
        records.append(record)
        size += len(record.encode("utf-8")) + 2
    return '{"records": [' + ", ".join(records) + "]}"


def _code_write_text(target_bytes: int, seed: int) -> str:
    """A file write whose one long string is source code: every line ends in a ``\\n`` escape, string
    literals in ``\\"`` escapes, comments and literals in several scripts."""
    rng = random.Random(seed)
    lines = [
        "// Generated: quotes, escapes and non-ASCII text throughout.",
        'import { format } from "./format.js";',
        "",
    ]
    size = 0
    number = 0
    while size < target_bytes:
        number += 1
        word = rng.choice(_WORDS)
        city = rng.choice(_CITIES)
        block = [
            f"/** Greets a user in {city}: « {word} » — {rng.choice(_FIRST_NAMES)} */",
            f"export function greet{number}(user, options = {{}}) {{",
            f'  const label = "{word} "{rng.choice(_LAST_NAMES)}"";',
            f'  if (!user) throw new Error("no user for "{city}"");',
            f'  return format("{{}}: {{}}\n", label, user.name ?? "{rng.choice(_FIRST_NAMES)}");',
            "}",
            "",
        ]
        lines.extend(block)
        size += sum(len(line.encode("utf-8")) + 1 for line in block)
    content = "\n".join(lines) + "\n"
    return json.dumps({"path": "src/greetings.js", "content": content}, ensure_ascii=False)


def _words(rng: random.Random, kinds: Sequence[tuple[float, Callable[[], str]]]) -> str:
    """8 to 16 words joined by spaces: for each, a draw in [0, 1) picks the first kind whose bound
    it is under, and a plain prose word when it is under none."""
    words = []
    for _ in range(rng.randint(8, 16)):
        draw = rng.random()
        make = next((make for bound, make in kinds if draw < bound), lambda: rng.choice(_PROSE_WORDS))
        words.append(make())
    return " ".join(words)


def _prose_write_text(target_bytes: int, seed: int) -> str:
    """A file write whose one long string is prose: words of several scripts (about 6% of the
    characters non-ASCII), quoted words, Windows paths, tabbed list items, every line ending in a
    ``\\n`` escape (about 8% of the text's characters are backslashes)."""
    rng = random.Random(seed)
    lines = ["# Release notes — 多言語 🌍", ""]
    size = 0
    number = 0
    while size < target_bytes:
        number += 1
        line = _words(
            rng,
            [
                (0.09, lambda: rng.choice(_ACCENTED)),
                (0.16, lambda: rng.choice(_CJK)),
                (0.20, lambda: rng.choice(_EMOJI)),
                (0.295, lambda: f'"{rng.choice(_PROSE_WORDS)}"'),
                (0.35, lambda: f"C:\\{rng.choice(_PROSE_WORDS)}\\{rng.choice(_PROSE_WORDS)}"),
            ],
        )
        kind = rng.random()
        if kind < 0.2:
            line = f"- [{number}]\t{line}"
        elif kind < 0.3:
            line = f"## {line}"
        lines.append(line)
        if rng.random() < 0.3:
            lines.append("")
        size += len(line.encode("utf-8")) + 1
    content = "\n".join(lines) + "\n"
    return json.dumps({"path": "docs/release-notes.md", "content": content}, ensure_ascii=False)


def _latin_write_text(target_bytes: int, seed: int) -> str:
    """A file write whose one long string is notes in Latin-script languages: accented words among
    plain ones, quoted words and « » quotes, every line ending in a ``\\n`` escape."""
    rng = random.Random(seed)
    lines = ["# Notes de version, überall", ""]
    size = 0
    while size < target_bytes:
        line = _words(
            rng,
            [
                (0.14, lambda: rng.choice(_LATIN_WORDS)),
                (0.19, lambda: f'"{rng.choice(_PROSE_WORDS)}"'),
                (0.21, lambda: f"« {rng.choice(_LATIN_WORDS)} »"),
            ],
        )
        lines.append(f"- {line}" if rng.random() < 0.3 else line)
        if rng.random() < 0.25:
            lines.append("")
        size += len(line.encode("utf-8")) + 1
    content = "\n".join(lines) + "\n"
    return json.dumps({"path": "docs/notes.md", "content": content}, ensure_ascii=False)


def _astral_write_text(target_bytes: int, seed: int) -> str:
    """A file write whose one long string is a build log from Windows runners: accented, CJK and
    astral words (about 6% of the characters non-ASCII, 1% beyond U+FFFF), quoted words, Windows
    paths and quoted code, every line ending in a ``\\n`` escape (one backslash per 13 bytes)."""
    rng = random.Random(seed)
    lines = ["# Build log 🛠 — Windows runners", ""]
    size = 0
    while size < target_bytes:
        line = _words(
            rng,
            [
                (0.105, lambda: rng.choice(_ACCENTED)),
                (0.165, lambda: rng.choice(_CJK)),
                (0.23, lambda: rng.choice(_ASTRAL)),
                (0.27, lambda: f'"{rng.choice(_PROSE_WORDS)}"'),
                (0.32, lambda: f"C:\\Users\\{rng.choice(_FIRST_NAMES)}\\{rng.choice(_PROSE_WORDS)}\\x.py"),
                (0.345, lambda: f"`{rng.choice(_CODE)}`"),
            ],
        )
        lines.append(line)
        size += len(line.encode("utf-8")) + 1
    content = "\n".join(lines) + "\n"
    return json.dumps({"path": "logs\\build.md", "content": content}, ensure_ascii=False)


def _ascii_records_text(target_bytes: int, seed: int) -> str:
    """An object holding a list of service log records: timestamps, levels, short messages,
    latencies, flags and request ids, every character ASCII."""
    rng = random.Random(seed)
    records: list[dict[str, Any]] = []
    size = 0
    while size < target_bytes:
        record: dict[str, Any] = {
            "ts": f"2026-12-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:"
            f"{rng.randint(0, 59):02d}.{rng.randint(0, 999):03d}Z",
            "service": rng.choice(_SERVICES),
            "level": rng.choice(_LEVELS),
            "message": rng.choice(_MESSAGES),
            "latency_ms": round(rng.expovariate(1 / 40), 3),
            "status": rng.choice([200, 200, 200, 201, 204, 404, 429, 500]),
            "cached": rng.random() < 0.3,
            "request_id": f"{rng.getrandbits(64):016x}",
            "retries": rng.randint(0, 3) if rng.random() < 0.2 else None,
        }
        records.append(record)
        size += len(json.dumps(record).encode("utf-8")) + 2
    return json.dumps({"service_logs": records})


def cut(text: str, smallest: int, largest: int, seed: int = 0) -> tuple[str, ...]:
    """``text`` cut into deltas of ``smallest`` to ``largest`` characters, drawn from ``seed``."""
    rng = random.Random(seed)
    pieces = []
    at = 0
    while at < len(text):
        step = rng.randint(smallest, largest)
        pieces.append(text[at : at + step])
        at += step
    return tuple(pieces)


def fresh(deltas: Sequence[str]) -> list[str]:
    """The deltas as new ``str`` objects, as a stream's decoder makes them: none carries the UTF-8
    copy that CPython keeps with a ``str`` once something asked for it (a benchmark that reuses its
    deltas would otherwise time that copy's reading, not its making, from the second round on)."""
    return [delta.encode("utf-8", "surrogatepass").decode("utf-8", "surrogatepass") for delta in deltas]


def _nested_text(target_bytes: int, seed: int) -> str:
    rng = random.Random(seed)
    value: dict[str, Any] = {
        "query": "orders shipped to Zürich in the last 30 days",
        "filters": {"status": ["shipped", "delivered"], "total": {"gte": 10.5, "lt": 1e4}},
        "options": {"limit": 50, "offset": 0, "sort": [{"field": "date", "order": "desc"}]},
    }
    node = value
    depth = 0
    while len(json.dumps(value, ensure_ascii=False).encode("utf-8")) < target_bytes:
        depth += 1
        child: dict[str, Any] = {
            "level": depth,
            "label": f"{rng.choice(_WORDS)} {rng.choice(_CITIES)}",
            "weights": [round(rng.random(), 4) for _ in range(rng.randint(1, 4))],
            "enabled": rng.random() < 0.5,
            "extra": None,
        }
        node["child"] = child
        node = child
    return json.dumps(value, ensure_ascii=False)


def argument_text(name: str) -> str:
    """The argument text of the named workload, the same bytes on every run."""
    if name == "tiny":
        return '{"city": "Lisbon"}'
    if name == "nested":
        return _nested_text(1_500, seed=11)
    if name == "file_write":
        return _file_write_text(88_000, seed=12)
    if name == "code_write":
        return _code_write_text(92_000, seed=14)
    if name == "prose_write":
        return _prose_write_text(94_000, seed=16)
    if name == "latin_write":
        return _latin_write_text(94_000, seed=17)
    if name == "astral_write":
        return _astral_write_text(100_000, seed=18)
    if name == "ascii_records":
        return _ascii_records_text(100_000, seed=19)
    if name == "ascii_records_16kb":
        return _ascii_records_text(16_384, seed=20)
    if name == "records_escaped":
        return _escaped_records_text(100_000, seed=15)
    if name == "records_escaped_10kb":
        return _escaped_records_text(10_000, seed=15)
    sizes = {
        "records_1kb": 1_000,
        "records_3kb": 3_000,
        "records_10kb": 10_000,
        "records_30kb": 30_000,
        "records": 100_000,
        "records_200kb": 200_000,
        "records_1mb": 1_000_000,
        "records_2mb": 2_000_000,
    }
    if name in sizes:
        return _records_text(sizes[name], seed=13)
    raise KeyError(name)
