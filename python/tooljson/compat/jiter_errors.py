"""The errors of a whole-text parse with jiter's rules, with jiter's messages and positions."""

from __future__ import annotations

__all__ = ["Fault", "error", "position"]

_MESSAGES = {
    "eof_list": "EOF while parsing a list",
    "eof_object": "EOF while parsing an object",
    "eof_string": "EOF while parsing a string",
    "eof_value": "EOF while parsing a value",
    "colon": "expected `:`",
    "list_comma": "expected `,` or `]`",
    "object_comma": "expected `,` or `}`",
    "ident": "expected ident",
    "value": "expected value",
    "escape": "invalid escape",
    "number": "invalid number",
    "code_point": "invalid unicode code point",
    "control": "control character (\\u0000-\\u001F) found while parsing a string",
    "key": "key must be a string",
    "lone_surrogate": "lone leading surrogate in hex escape",
    "trailing_comma": "trailing comma",
    "trailing": "trailing characters",
    "hex_end": "unexpected end of hex escape",
    "recursion": "recursion limit exceeded",
}


class Fault(Exception):
    """A parse error: its kind (a key of ``_MESSAGES``, or a duplicate key) and byte offset."""

    def __init__(self, kind: str, index: int, key: str | None = None) -> None:
        super().__init__(kind)
        self.kind = kind
        self.index = index
        self.key = key


def position(data: bytes, index: int) -> tuple[int, int]:
    """The ``(line, column)`` jiter reports for byte ``index``."""
    if index < len(data):
        line_start = data.rfind(b"\n", 0, index + 1) + 1
        return data.count(b"\n", 0, index + 1) + 1, index + 1 - line_start
    line_start = data.rfind(b"\n") + 1
    return data.count(b"\n") + 1, max(len(data) - line_start, 0)


def error(data: bytes, fault: Fault) -> ValueError:
    if fault.kind == "duplicate":
        # The key as Rust's Debug formatting shows a str: in double quotes, with escapes.
        message = f"Detected duplicate key {_debug_str(fault.key or '')}"
    else:
        message = _MESSAGES[fault.kind]
    line, column = position(data, fault.index)
    return ValueError(f"{message} at line {line} column {column}")


def _debug_str(text: str) -> str:
    out = []
    for char in text:
        if char in '"\\':
            out.append("\\" + char)
        elif char == "\n":
            out.append("\\n")
        elif char == "\r":
            out.append("\\r")
        elif char == "\t":
            out.append("\\t")
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\u{{{ord(char):x}}}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'
