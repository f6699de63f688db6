"""The stand-in's eventstream encoder, held to botocore's decoder (the one boto3 reads Bedrock with)."""

from __future__ import annotations

import json

import pytest
from botocore.eventstream import ChecksumMismatch, EventStreamBuffer
from hypothesis import given, settings
from hypothesis import strategies as st
from tooljson.providers.bedrock.eventstream import encode_message, event_message, exception_message

HEADER_NAMES = st.text(st.characters(codec="utf-8"), min_size=1, max_size=20).filter(
    lambda name: len(name.encode()) < 256
)
HEADERS = st.dictionaries(HEADER_NAMES, st.text(st.characters(codec="utf-8"), max_size=40), max_size=5)
MESSAGES = st.lists(st.tuples(HEADERS, st.binary(max_size=300)), min_size=1, max_size=4)


def _decode(data: bytes, cuts: list[int]) -> list[tuple[dict[str, str], bytes]]:
    buffer = EventStreamBuffer()
    out = []
    points = [0, *sorted(cuts), len(data)]
    for start, end in zip(points, points[1:]):
        buffer.add_data(data[start:end])
        out += [(message.headers, message.payload) for message in buffer]
    return out


@settings(max_examples=200)
@given(messages=MESSAGES, data=st.data())
def test_botocore_decodes_what_was_encoded_however_the_bytes_arrive(
    messages: list[tuple[dict[str, str], bytes]], data: st.DataObject
) -> None:
    encoded = b"".join(encode_message(headers, payload) for headers, payload in messages)
    cuts = data.draw(st.lists(st.integers(0, len(encoded)), max_size=8))
    assert _decode(encoded, cuts) == messages


def test_every_split_point_of_a_bedrock_event() -> None:
    frame = event_message(
        "contentBlockDelta", {"contentBlockIndex": 1, "delta": {"toolUse": {"input": '{"city": "S\\u00e3o'}}}
    )
    for cut in range(len(frame) + 1):
        ((headers, payload),) = _decode(frame, [cut])
        assert headers == {
            ":event-type": "contentBlockDelta",
            ":content-type": "application/json",
            ":message-type": "event",
        }
        assert json.loads(payload)["delta"]["toolUse"]["input"] == '{"city": "S\\u00e3o'


def test_an_exception_frame_parses_as_botocore_raises_it() -> None:
    ((headers, payload),) = _decode(
        exception_message("modelStreamErrorException", {"message": "Overloaded"}), []
    )
    assert headers[":message-type"] == "exception"
    assert headers[":exception-type"] == "modelStreamErrorException"
    assert json.loads(payload) == {"message": "Overloaded"}


@pytest.mark.parametrize("where", ["prelude", "headers", "payload", "message crc"])
def test_a_flipped_bit_anywhere_fails_a_checksum(where: str) -> None:
    frame = bytearray(event_message("messageStop", {"stopReason": "tool_use"}))
    position = {"prelude": 3, "headers": 14, "payload": len(frame) - 8, "message crc": len(frame) - 1}[where]
    frame[position] ^= 0x10
    with pytest.raises(ChecksumMismatch):
        _decode(bytes(frame), [])


def test_limits_are_refused_before_anything_is_sent() -> None:
    with pytest.raises(ValueError, match="header name"):
        encode_message({"x" * 256: "v"}, b"")
    with pytest.raises(ValueError, match="65535"):
        encode_message({"n": "v" * 70_000}, b"")
    with pytest.raises(ValueError, match="payload"):
        encode_message({}, b"\0" * (16 * 1024 * 1024 + 1))
