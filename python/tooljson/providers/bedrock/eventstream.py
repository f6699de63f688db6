"""The ``application/vnd.amazon.eventstream`` framing that Bedrock streams in, written out.

A message is a 12-byte prelude (total length and headers length, each a big-endian uint32, then the
CRC32 of those 8 bytes), the headers, the payload, and the CRC32 of everything before it. A header
is its name's length (one byte), the name, a type byte, and the value; the stand-in writes string
headers only (type 7: a big-endian uint16 length, then UTF-8), which is all Bedrock's events use:
``:message-type`` (``event`` or ``exception``), ``:event-type`` or ``:exception-type``, and
``:content-type``. The payload of an event is the JSON of the event's members.

Clients decode these frames with botocore (``botocore.eventstream.EventStreamBuffer``), which checks
both CRCs and every length; the tests hold this encoder to that decoder.
"""

from __future__ import annotations

import json
import struct
import zlib
from typing import Any

__all__ = ["MAX_HEADERS_LENGTH", "MAX_PAYLOAD_LENGTH", "encode_message", "event_message", "exception_message"]

# The limits botocore's decoder enforces (128 KiB of headers, 16 MiB of payload).
MAX_HEADERS_LENGTH = 128 * 1024
MAX_PAYLOAD_LENGTH = 16 * 1024 * 1024

_STRING = 7
_PRELUDE = struct.Struct(">II")


def _header(name: str, value: str) -> bytes:
    encoded_name = name.encode("utf-8")
    encoded_value = value.encode("utf-8")
    if not 0 < len(encoded_name) < 256:
        raise ValueError(f"a header name takes 1 to 255 bytes, not {len(encoded_name)}: {name!r}")
    if len(encoded_value) > 0xFFFF:
        raise ValueError(f"a string header value takes at most 65535 bytes, not {len(encoded_value)}")
    return (
        bytes([len(encoded_name)])
        + encoded_name
        + bytes([_STRING])
        + struct.pack(">H", len(encoded_value))
        + encoded_value
    )


def encode_message(headers: dict[str, str], payload: bytes) -> bytes:
    """One eventstream message with string ``headers`` (in the order given) and ``payload``."""
    encoded_headers = b"".join(_header(name, value) for name, value in headers.items())
    if len(encoded_headers) > MAX_HEADERS_LENGTH:
        raise ValueError(f"headers of {len(encoded_headers)} bytes exceed {MAX_HEADERS_LENGTH}")
    if len(payload) > MAX_PAYLOAD_LENGTH:
        raise ValueError(f"a payload of {len(payload)} bytes exceeds {MAX_PAYLOAD_LENGTH}")
    total = _PRELUDE.size + 4 + len(encoded_headers) + len(payload) + 4
    prelude = _PRELUDE.pack(total, len(encoded_headers))
    prelude += struct.pack(">I", zlib.crc32(prelude))
    body = prelude + encoded_headers + payload
    return body + struct.pack(">I", zlib.crc32(body))


def _json(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def event_message(event_type: str, members: dict[str, Any]) -> bytes:
    """An event (``:message-type: event``) whose payload is the JSON of ``members``."""
    headers = {":event-type": event_type, ":content-type": "application/json", ":message-type": "event"}
    return encode_message(headers, _json(members))


def exception_message(exception_type: str, members: dict[str, Any]) -> bytes:
    """An exception (``:message-type: exception``), such as ``modelStreamErrorException``: botocore
    raises it as an ``EventStreamError`` while the stream is read."""
    headers = {
        ":exception-type": exception_type,
        ":content-type": "application/json",
        ":message-type": "exception",
    }
    return encode_message(headers, _json(members))
