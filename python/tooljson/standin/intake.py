"""How much the stand-in takes, and reading a request body within it.

A request is read within :class:`Limits`: a body over ``max_body_bytes`` is refused with 413
``request_too_large`` before it is read (the real API's limit for a Messages request is 32 MB), a
``Content-Length`` that is not one plain decimal number, a chunked body that does not follow the
format, a body that is not UTF-8 JSON (or nests deeper than ``max_depth``) with 400
``invalid_request_error``: each as a :class:`Refusal`, which the server answers in the API's error
shape. The connection-level limits (threads, backlog, timeouts, the request log) are applied by
:mod:`tooljson.standin.server`.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from email.message import Message
from typing import Any

from tooljson import _native
from tooljson.errors import JSONDecodeError

__all__ = ["Limits", "Refusal", "error_body", "error_type", "json_bytes", "parse_body", "read_body"]

# Error types by HTTP status, as the API names them.
_ERROR_TYPES = {
    404: "not_found_error",
    405: "not_found_error",
    413: "request_too_large",
    529: "overloaded_error",
}


@dataclass(frozen=True)
class Limits:
    """What the stand-in takes from its clients; the defaults serve a hundred concurrent clients."""

    # The largest request body, in bytes (the real API's limit for a Messages request).
    max_body_bytes: int = 32 * 1024 * 1024
    # Deepest nesting of a request body's JSON.
    max_depth: int = 256
    # Seconds from a request's first byte to the end of its headers, and to the end of its body.
    header_timeout: float = 10.0
    body_timeout: float = 60.0
    # Seconds an idle keep-alive connection waits for its next request.
    idle_timeout: float = 30.0
    # Connections served at once, each by a thread; more wait in the listen backlog.
    max_connections: int = 128
    backlog: int = 256
    # Requests kept in ``StandInServer.requests`` (the newest), and their bodies' total size.
    max_recorded: int = 1000
    max_recorded_bytes: int = 64 * 1024 * 1024

    def __post_init__(self) -> None:
        for name in (
            "max_body_bytes",
            "max_depth",
            "max_connections",
            "backlog",
            "max_recorded",
            "max_recorded_bytes",
        ):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        for name in ("header_timeout", "body_timeout", "idle_timeout"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be a positive number of seconds, got {getattr(self, name)}")


class Refusal(Exception):
    """A request refused before a scenario saw it: the HTTP status, then the API's error type and message.
    ``close`` asks for the connection to be closed after the answer (the body was not read)."""

    def __init__(self, status: int, message: str, *, close: bool = False) -> None:
        super().__init__(message)
        self.status = status
        self.error_type = error_type(status)
        self.message = message
        self.close = close


def error_type(status: int) -> str:
    """The API's error type for an HTTP status."""
    return _ERROR_TYPES.get(status, "api_error" if status >= 500 else "invalid_request_error")


def error_body(kind: str, message: str) -> dict[str, Any]:
    """An error answer in the API's shape."""
    return {"type": "error", "error": {"type": kind, "message": message}}


def json_bytes(payload: Any, **options: Any) -> bytes:
    """``payload`` as UTF-8 JSON; lone surrogates (which UTF-8 cannot carry) as their JSON escapes."""
    try:
        return json.dumps(payload, ensure_ascii=False, **options).encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(payload, **options).encode("ascii")


def _content_length(headers: Message) -> int | None:
    values = headers.get_all("Content-Length") or []
    if not values:
        return None
    if len(set(values)) != 1:
        raise Refusal(400, "conflicting Content-Length headers", close=True)
    text = values[0].strip()
    # Plain decimal digits only: int() would also take "-1", "+5", "1_000" and other digits than 0-9.
    if not (text.isascii() and text.isdigit()) or len(text) > 20:
        raise Refusal(400, f"Content-Length must be a number of bytes, got {text[:40]!r}", close=True)
    return int(text)


def read_body(headers: Message, rfile: io.BufferedIOBase, limits: Limits) -> bytes:
    """The request body: ``Content-Length`` bytes, or a chunked body, within ``limits``."""
    encoding = headers.get("Transfer-Encoding")
    length = _content_length(headers)
    if encoding is not None:
        if length is not None:
            raise Refusal(400, "a request cannot have both Content-Length and Transfer-Encoding", close=True)
        if encoding.strip().lower() != "chunked":
            raise Refusal(400, f"unsupported Transfer-Encoding {encoding[:40]!r}", close=True)
        return _read_chunked(rfile, limits)
    if length is None or length == 0:
        return b""
    if length > limits.max_body_bytes:
        raise Refusal(
            413, f"request body of {length} bytes exceeds the {limits.max_body_bytes}-byte limit", close=True
        )
    body = rfile.read(length)
    if len(body) < length:
        raise Refusal(400, f"the body ended after {len(body)} of {length} bytes", close=True)
    return body


def _read_chunked(rfile: io.BufferedIOBase, limits: Limits) -> bytes:
    # The server's watchdog bounds the time this takes (body_timeout): a stalled client reads as the end.
    parts: list[bytes] = []
    total = 0
    while True:
        line = rfile.readline(1026)
        size_text = line.split(b";", 1)[0].strip()
        if (
            not line.endswith(b"\n")
            or not size_text
            or not all(c in b"0123456789abcdefABCDEF" for c in size_text)
        ):
            raise Refusal(400, "malformed chunked body", close=True)
        size = int(size_text, 16)
        if size == 0:
            # Trailers, up to the blank line that ends the body.
            while rfile.readline(1026) not in (b"\r\n", b"\n", b""):
                pass
            return b"".join(parts)
        total += size
        if total > limits.max_body_bytes:
            raise Refusal(413, f"request body exceeds the {limits.max_body_bytes}-byte limit", close=True)
        chunk = rfile.read(size)
        if len(chunk) < size or rfile.readline(3) not in (b"\r\n", b"\n"):
            raise Refusal(400, "malformed chunked body", close=True)
        parts.append(chunk)


def parse_body(raw: bytes, limits: Limits) -> Any:
    """The body as JSON (``None`` for no body), parsed by tooljson with a depth limit."""
    if not raw:
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise Refusal(400, f"the request body is not UTF-8 (byte {error.start})") from None
    try:
        return _native.loads(text, max_depth=limits.max_depth)
    except JSONDecodeError as error:
        raise Refusal(
            400,
            f"the request body is not valid JSON: {error.msg} at line {error.lineno} column {error.colno}",
        ) from None
    except ValueError as error:
        # json.loads' own limit: an integer of more digits than sys.get_int_max_str_digits().
        raise Refusal(400, f"the request body is not valid JSON: {error}") from None
