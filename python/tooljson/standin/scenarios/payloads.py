"""The long argument texts some scenarios stream, built deterministically.

They are written as JSON text on purpose, mixing raw non-ASCII characters with ``\\uXXXX`` escapes and
escaped surrogate pairs, the way model output mixes them, so fragment cuts land inside every kind of
escape.
"""

from __future__ import annotations

import json

__all__ = ["large_file_input", "long_note_input", "nested_order_input"]


def _with_escapes(text: str) -> str:
    """Re-write some characters of a JSON text as escapes; every one of them sits inside a string."""
    return text.replace("🚀", "\\ud83d\\ude80").replace("ï", "\\u00ef").replace("€", "\\u20ac")


def large_file_input(target_bytes: int = 100_000) -> str:
    """A ``write_file`` argument text whose ``content`` is about ``target_bytes`` bytes of UTF-8."""
    lines: list[str] = []
    size = 0
    number = 0
    while size < target_bytes:
        line = (
            f'{number:05d} print("naïve café \\\\ path C:\\\\tmp\\\\{number}") '
            f"# 'quotes' \"double\" tab\there 日本語 €{number % 97}.{number % 10} 🚀 👩‍💻 é"
        )
        lines.append(line)
        size += len(line.encode("utf-8")) + 1
        number += 1
    content = "\n".join(lines) + "\n"
    return _with_escapes(json.dumps({"path": "notes/large_file.py", "content": content}, ensure_ascii=False))


def long_note_input() -> str:
    """A ``write_note`` argument text of about two thousand characters."""
    paragraphs = [
        f'Paragraph {n}: the "incremental" parser reads each fragment once; naïve re-parsing costs '
        f"O(n²). Path C:\\work\\{n} — €{n * 3}.50 🚀"
        for n in range(1, 15)
    ]
    note = {
        "title": "Streaming notes",
        "body": "\n\n".join(paragraphs),
        "tags": ["json", "streaming", "tools"],
        "priority": 3,
        "ratio": 0.125,
        "pinned": True,
    }
    return _with_escapes(json.dumps(note, ensure_ascii=False))


def nested_order_input() -> str:
    """A ``place_order`` argument text: objects in objects, arrays of objects and of arrays, every
    scalar kind, names that need quoting in a JSON path, escapes, non-ASCII and a long string."""
    lines = [
        f'Line {n}: "fragile" \\ handle with care; naïve café €{n}.50 🚀 日本語\ttab' for n in range(1, 41)
    ]
    order = {
        "order": {
            "id": "A-17",
            "customer": {
                "name": "Zoë Ødegård",
                "address": {"street": "Straße 5\n2nd floor", "city": "Zürich"},
            },
        },
        "items": [
            {"sku": "tea-01", "qty": 2, "price": 4.5, "gift": False, "note": None},
            {"sku": 'cup "large"', "qty": 1, "price": 12, "tags": ["fragile", "日本語", "🚀"]},
        ],
        "matrix": [[1, -2.5e-3], [3, [4, True, None]]],
        "gift wrap": "it's \\ red",
        "path.with.dots": "C:\\orders\\17",
        "instructions": "\n".join(lines),
    }
    # A number in exponent form, as a model may write it.
    return _with_escapes(json.dumps(order, ensure_ascii=False)).replace("-0.0025", "-2.5e-3")
