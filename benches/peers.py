"""Every parser a user could pick instead of tooljson, and how each is timed against it.

The peers, by the question a user asks:

- a value after every delta (*live*): tooljson's ``ToolCallAccumulator.preview`` after each
  ``add_delta``; streaming-json-parser's ``StreamingJsonParser.feed(delta).value`` (its native
  backend, streaming-json-parser-native, installed beside it: the parser the package then hands
  out); jsonmend's ``Mender.feed``; jsonriver's async ``parse`` over the deltas; and the
  re-parsers, which parse everything received so far after every delta: json-repair's
  ``repair_json(text, return_objects=True, stream_stable=True)``, partial-json-parser's ``loads``,
  and jiter's ``from_json(buffer, partial_mode=...)`` on a growing ``bytes`` buffer (the SDKs'
  way: ``True`` in Anthropic's and OpenAI's stream helpers, ``"trailing-strings"`` in instructor's);
- the value at the end only (*final*): tooljson's ``add_delta`` then ``finish``; the pure-Python
  accumulator (append, then join and ``json.loads``); streaming-json-parser's ``consume`` then
  ``finish().value``; jsonmend's ``Mender.feed`` then ``close`` (it has no call that skips the
  value); jsonriver's ``parse`` to its last value (likewise); and for the re-parsers, the one call
  their users make on the joined text: json-repair's ``repair_json(..., return_objects=True)``,
  partial-json-parser's ``loads``, jiter's ``from_json`` of the UTF-8 bytes;
- the whole text at once (*loads*): ``json.loads``, ``tooljson.loads``, ssrjson's ``loads``,
  orjson's ``loads`` (of the ``str``, and of UTF-8 ``bytes`` already at hand), msgspec's
  ``json.decode`` and jiter's ``from_json`` (of the ``str`` encoded, as a caller holding a ``str``
  must).

Every call is given new objects: a new ``str`` per delta (``texts.fresh``, as a stream delivers
them) and a new ``str`` per whole text (:func:`fresh_text`). CPython keeps the UTF-8 form of a ``str`` once something asks for it, so a
reused ``str`` flatters every library that reads UTF-8 from its second call on.

Every peer's final value is checked against ``json.loads`` of the joined text before it is timed:
a value that differs is reported as wrong, not timed (jsonriver reads every number as a float, which
equals the integer under ``==`` up to 2**53 and differs beyond it). A value that is equal under
``==`` but of another type (a float for an integer) is timed and marked.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import jiter
import json_repair
import jsonmend
import jsonriver
import msgspec
import orjson
import partial_json_parser
import ssrjson
import streaming_json_parser
import tooljson
import tooljson.pure

__all__ = [
    "FINAL",
    "LIVE",
    "LOADS",
    "WHAT",
    "Peer",
    "difference",
    "native_backend",
    "fresh_text",
]

#: What a value's check found: ``None`` (the same value, of the same types), or what differs.
Difference = str | None


# ------------------------------------------------------------------------------------------------
# New objects per call


def fresh_text(text: str) -> str:
    """A new ``str`` holding ``text``, whose UTF-8 form nothing has asked for."""
    return text.encode("utf-8", "surrogatepass").decode("utf-8", "surrogatepass")


# ------------------------------------------------------------------------------------------------
# Checking a value


def difference(value: Any, expected: Any, path: str = "$") -> Difference:
    """Where ``value`` first differs from ``expected``: a different value (``"wrong: ..."``), or an
    equal value of another type (``"type: ..."``); ``None`` when they are the same."""
    if value != expected:
        return f"wrong: {_first_unequal(value, expected, path)}"
    return _first_other_type(value, expected, path)


def _first_unequal(value: Any, expected: Any, path: str) -> str:
    if isinstance(expected, dict) and isinstance(value, dict):
        for key, item in expected.items():
            if key not in value:
                return f"{path}.{key} missing"
            if value[key] != item:
                return _first_unequal(value[key], item, f"{path}.{key}")
        return f"{path} has other keys"
    if isinstance(expected, list) and isinstance(value, list):
        for at, (got, item) in enumerate(zip(value, expected, strict=False)):
            if got != item:
                return _first_unequal(got, item, f"{path}[{at}]")
        return f"{path} has {len(value)} items, not {len(expected)}"
    return f"{path} is {_short(value)}, not {_short(expected)}"


def _first_other_type(value: Any, expected: Any, path: str) -> Difference:
    if type(value) is not type(expected):
        return f"type: {path} is {_short(value)}, not {_short(expected)}"
    if isinstance(expected, dict):
        for key, item in expected.items():
            found = _first_other_type(value[key], item, f"{path}.{key}")
            if found:
                return found
    elif isinstance(expected, list):
        for at, (got, item) in enumerate(zip(value, expected, strict=True)):
            found = _first_other_type(got, item, f"{path}[{at}]")
            if found:
                return found
    return None


def _short(value: Any) -> str:
    text = repr(value)
    return (text if len(text) <= 40 else text[:37] + "...") + f" ({type(value).__name__})"


# ------------------------------------------------------------------------------------------------
# The live value: a value after every delta, the final value at the end


def tooljson_live(fragments: Sequence[str]) -> Any:
    """``preview(index)`` after every ``add_delta``; ``finish`` at the end."""
    accumulator = tooljson.ToolCallAccumulator()
    accumulator.start(0, "write_file", "toolu_01")
    add_delta = accumulator.add_delta
    preview = accumulator.preview
    for piece in fragments:
        add_delta(0, piece)
        preview(0)
    return accumulator.finish(0)["input"]


def tooljson_previews(fragments: Sequence[str]) -> Any:
    """``preview(index)`` after every ``add_delta``, no ``finish``: the last value shown (the side
    the re-parsers are paired with on a prefix of a stream, which ``finish`` would refuse)."""
    accumulator = tooljson.ToolCallAccumulator()
    accumulator.start(0, "write_file", "toolu_01")
    add_delta = accumulator.add_delta
    preview = accumulator.preview
    value = None
    for piece in fragments:
        add_delta(0, piece)
        value = preview(0)
    return value


def streaming_json_parser_live(fragments: Sequence[str]) -> Any:
    """``feed(delta).value`` after every delta; ``finish().value`` at the end."""
    parser = streaming_json_parser.StreamingJsonParser()
    feed = parser.feed
    for piece in fragments:
        feed(piece).value  # noqa: B018 - the value is what a live view reads
    return parser.finish().value


def jsonmend_live(fragments: Sequence[str]) -> Any:
    """``Mender.feed(delta)`` (which returns the value so far) after every delta; ``close`` at the end."""
    mender = jsonmend.Mender()
    feed = mender.feed
    for piece in fragments:
        feed(piece)
    return mender.close()


def jsonriver_values(fragments: Sequence[str]) -> Any:
    """jsonriver's ``parse``: an async iterator of ever more complete values over an async iterator
    of the deltas; the last value.

    Nothing in it waits, so the coroutine is run to its end by one ``send`` rather than by an event
    loop, whose own cost would be counted against it.
    """

    async def deltas() -> Any:
        for piece in fragments:
            yield piece

    async def last_value() -> Any:
        value: Any = None
        async for value in jsonriver.parse(deltas()):  # noqa: B007 - the last one is kept
            pass
        return value

    coroutine = last_value()
    try:
        coroutine.send(None)
    except StopIteration as stop:
        return stop.value
    coroutine.close()
    raise RuntimeError("jsonriver waited on something")


def json_repair_live(fragments: Sequence[str]) -> Any:
    """``repair_json(text, return_objects=True, stream_stable=True)`` on the joined text after every delta."""
    repair = json_repair.repair_json
    text = ""
    value: Any = None
    for piece in fragments:
        text += piece
        value = repair(text, return_objects=True, stream_stable=True)
    return value


def partial_json_parser_live(fragments: Sequence[str]) -> Any:
    """``partial_json_parser.loads`` on the joined text after every delta."""
    loads = partial_json_parser.loads
    text = ""
    value: Any = None
    for piece in fragments:
        text += piece
        value = loads(text)
    return value


def _jiter_live(fragments: Sequence[str], mode: Any) -> Any:
    from_json = jiter.from_json
    buffer = b""
    value: Any = None
    for piece in fragments:
        buffer += piece.encode("utf-8")
        value = from_json(buffer, partial_mode=mode)
    return value


def jiter_partial_live(fragments: Sequence[str]) -> Any:
    """The SDK stream helpers' way: append to a ``bytes`` buffer, ``from_json(buffer, partial_mode=True)``."""
    return _jiter_live(fragments, True)


def jiter_trailing_live(fragments: Sequence[str]) -> Any:
    """instructor's way: the same with ``partial_mode="trailing-strings"`` (open strings shown)."""
    return _jiter_live(fragments, "trailing-strings")


# ------------------------------------------------------------------------------------------------
# The final value only


def tooljson_final(fragments: Sequence[str]) -> Any:
    """Every ``add_delta``, then ``finish``."""
    accumulator = tooljson.ToolCallAccumulator()
    accumulator.start(0, "write_file", "toolu_01")
    add_delta = accumulator.add_delta
    for piece in fragments:
        add_delta(0, piece)
    return accumulator.finish(0)["input"]


def pure_final(fragments: Sequence[str]) -> Any:
    """The pure-Python accumulator: a list append per delta, join and ``json.loads`` at ``finish``."""
    accumulator = tooljson.pure.ToolCallAccumulator()
    accumulator.start(0, "write_file", "toolu_01")
    add_delta = accumulator.add_delta
    for piece in fragments:
        add_delta(0, piece)
    return accumulator.finish(0)["input"]


def streaming_json_parser_final(fragments: Sequence[str]) -> Any:
    """``consume(delta)`` (no result made) for every delta, then ``finish().value``."""
    parser = streaming_json_parser.StreamingJsonParser()
    consume = parser.consume
    for piece in fragments:
        consume(piece)
    return parser.finish().value


def json_repair_final(fragments: Sequence[str]) -> Any:
    """Join, then ``repair_json(text, return_objects=True)`` (``json.loads`` first, as it does)."""
    return json_repair.repair_json("".join(fragments), return_objects=True)


def partial_json_parser_final(fragments: Sequence[str]) -> Any:
    """Join, then ``partial_json_parser.loads``."""
    return partial_json_parser.loads("".join(fragments))


def jiter_final(fragments: Sequence[str]) -> Any:
    """Join, encode, then ``jiter.from_json``."""
    return jiter.from_json("".join(fragments).encode("utf-8"))


# ------------------------------------------------------------------------------------------------
# The peers


@dataclass(frozen=True)
class Peer:
    """One way to get a value, as a user of ``package`` would call it."""

    label: str
    #: The distribution a user installs (for the version in the report).
    package: str
    #: What is timed, in the report's words.
    api: str
    run: Callable[[Sequence[str]], Any]
    #: Whether its cost grows with the square of the text (it parses everything so far per delta):
    #: timed in fewer rounds, and on a prefix of the deltas (``bench_peers.REPARSE_BUDGET``).
    quadratic: bool = False


#: What each distribution is, in the report's words.
WHAT = {
    "tooljson": "this project: a Rust core (PyO3) that parses each delta as it arrives",
    "streaming-json-parser": (
        "an incremental parser with explicit parse states, in Python; with streaming-json-parser-native "
        "installed, its parser is that package's (Rust)"
    ),
    "jsonmend": "a repairer of LLM JSON in pure Python, with an incremental `Mender`",
    "jsonriver": "an incremental parser in pure Python yielding ever more complete values (a port of the TypeScript one)",
    "jiter": "pydantic's JSON parser in Rust, with a partial mode; the SDKs' stream helpers re-parse with it",
    "partial-json-parser": "completes a truncated JSON text and parses it, in pure Python",
    "json-repair": "repairs broken JSON in pure Python; `stream_stable` keeps the repair of a growing text stable",
    "ssrjson": "a JSON library in C with SIMD, which reads a `str` in its own width",
    "orjson": "a JSON library in Rust",
    "msgspec": "a serialization library in C (its `json.decode`)",
    "python": "the standard library's `json`",
}

#: A value after every delta; the first is the baseline.
LIVE = (
    Peer(
        "tooljson",
        "tooljson",
        "`ToolCallAccumulator.add_delta` + `preview` per delta, `finish`",
        tooljson_live,
    ),
    Peer(
        "streaming-json-parser",
        "streaming-json-parser",
        "`StreamingJsonParser().feed(delta).value` per delta, `finish().value` (native backend)",
        streaming_json_parser_live,
    ),
    Peer("jsonmend", "jsonmend", "`Mender().feed(delta)` per delta, `close()`", jsonmend_live),
    Peer("jsonriver", "jsonriver", "`async for value in jsonriver.parse(deltas)`", jsonriver_values),
    Peer(
        "jiter partial_mode=True",
        "jiter",
        "`jiter.from_json(buffer, partial_mode=True)` on the growing `bytes` per delta",
        jiter_partial_live,
        quadratic=True,
    ),
    Peer(
        "jiter trailing-strings",
        "jiter",
        '`jiter.from_json(buffer, partial_mode="trailing-strings")` on the growing `bytes` per delta',
        jiter_trailing_live,
        quadratic=True,
    ),
    Peer(
        "partial-json-parser",
        "partial-json-parser",
        "`partial_json_parser.loads(text)` on the joined text per delta",
        partial_json_parser_live,
        quadratic=True,
    ),
    Peer(
        "json-repair stream_stable",
        "json-repair",
        "`repair_json(text, return_objects=True, stream_stable=True)` on the joined text per delta",
        json_repair_live,
        quadratic=True,
    ),
)

#: The value at the end only; the first is the baseline.
FINAL = (
    Peer("tooljson", "tooljson", "`ToolCallAccumulator.add_delta` per delta, `finish`", tooljson_final),
    Peer(
        "pure accumulator",
        "tooljson",
        "`tooljson.pure.ToolCallAccumulator`: append, join + `json.loads`",
        pure_final,
    ),
    Peer(
        "streaming-json-parser",
        "streaming-json-parser",
        "`StreamingJsonParser().consume(delta)` per delta, `finish().value` (native backend)",
        streaming_json_parser_final,
    ),
    Peer("jsonmend", "jsonmend", "`Mender().feed(delta)` per delta, `close()`", jsonmend_live),
    Peer("jsonriver", "jsonriver", "`jsonriver.parse(deltas)` to its last value", jsonriver_values),
    Peer("jiter", "jiter", "join, `jiter.from_json(text.encode())`", jiter_final),
    Peer(
        "partial-json-parser",
        "partial-json-parser",
        "join, `partial_json_parser.loads`",
        partial_json_parser_final,
    ),
    Peer("json-repair", "json-repair", "join, `repair_json(text, return_objects=True)`", json_repair_final),
)

#: The whole text at once: label -> (distribution, what is timed, parse, whether it takes UTF-8
#: bytes made beforehand rather than the ``str``). The first is the baseline.
LOADS: dict[str, tuple[str, str, Callable[[Any], Any], bool]] = {
    "json.loads": ("python", "`json.loads(text)`", json.loads, False),
    "tooljson.loads": ("tooljson", "`tooljson.loads(text)`", tooljson.loads, False),
    "ssrjson": ("ssrjson", "`ssrjson.loads(text)`", ssrjson.loads, False),
    "orjson (str)": ("orjson", "`orjson.loads(text)`", orjson.loads, False),
    "orjson (bytes)": ("orjson", "`orjson.loads(data)`, the UTF-8 bytes already at hand", orjson.loads, True),
    "msgspec": ("msgspec", "`msgspec.json.decode(text)`", msgspec.json.decode, False),
    "jiter": (
        "jiter",
        "`jiter.from_json(text.encode())`",
        lambda text: jiter.from_json(text.encode("utf-8")),
        False,
    ),
}


def native_backend() -> bool:
    """Whether ``StreamingJsonParser()`` hands out the parser of streaming-json-parser-native (its
    Rust backend, used when installed beside it), which the rows above then time, rather than the
    package's pure-Python one."""
    backend = sys.modules.get("streaming_json_parser_native")
    parser_type = getattr(backend, "IncrementalJsonParser", None)
    return parser_type is not None and isinstance(streaming_json_parser.StreamingJsonParser(), parser_type)
