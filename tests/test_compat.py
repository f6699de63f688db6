"""``tooljson.from_json`` against the installed jiter, ``tooljson.parse_partial_json`` against the
installed langchain-core: the same value (or exception class and message) for every prefix of the
JSONTestSuite files, of generated documents and of large tool inputs, called as a growing buffer
(which resumes) and on isolated inputs (which do not)."""

from __future__ import annotations

import json
import math
import random
import threading
from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Any

import jiter
import pytest
import tooljson
from helpers import CORPUS
from hypothesis import given
from hypothesis import strategies as st
from langchain_core.utils.json import parse_partial_json as langchain_parse
from tooljson.compat.jiter_mode import CACHE
from tooljson.compat.resume import ResumeCache

MODES = (False, True, "trailing-strings")

Outcome = tuple[str, Any]


def outcome(call: Callable[[], Any]) -> Outcome:
    """The value as ``repr`` (which tells ``1`` from ``1.0`` and shows nan), or the error."""
    try:
        return ("value", _canonical(call()))
    except RecursionError:
        # json.loads names the container where Python's stack ran out, which depends on how deep the
        # caller already was: only the class is compared.
        return ("RecursionError", "")
    except Exception as error:  # noqa: BLE001 - the class is what is compared
        return (type(error).__name__, str(error))


def _canonical(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return "nan"
    if isinstance(value, dict):
        return ("dict", [(key, _canonical(item)) for key, item in value.items()])
    if isinstance(value, list):
        return ("list", [_canonical(item) for item in value])
    return (type(value).__name__, repr(value))


def same_as_jiter(data: bytes, mode: Any, **options: Any) -> None:
    expected = outcome(lambda: jiter.from_json(data, partial_mode=mode, **options))
    for given_data in (data, bytearray(data)):
        got = outcome(lambda: tooljson.from_json(given_data, partial_mode=mode, **options))
        assert got == expected, (data, mode, options)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return
    assert outcome(lambda: tooljson.from_json(text, partial_mode=mode, **options)) == expected, (
        text,
        mode,
    )


def same_as_langchain(text: str, strict: bool = False) -> None:
    expected = outcome(lambda: langchain_parse(text, strict=strict))
    assert outcome(lambda: tooljson.parse_partial_json(text, strict=strict)) == expected, text


def prefixes(size: int) -> Iterator[int]:
    """Every prefix length of a small file; of the three over 600 bytes (the deep-nesting files, each
    one bracket or pair repeated, past the depth where the modes fall back to a whole-text parse per
    call), the first and last 150 and 150 between."""
    if size <= 600:
        yield from range(size + 1)
        return
    chosen = set(range(151)) | set(range(max(0, size - 150), size + 1))
    chosen |= {size * step // 150 for step in range(150)}
    yield from sorted(chosen)


CORPUS_FILES = sorted(CORPUS.glob("*.json"))


@pytest.mark.parametrize("path", CORPUS_FILES, ids=lambda path: path.name)
def test_corpus_every_prefix_as_a_growing_buffer(path: Any) -> None:
    data = path.read_bytes()
    CACHE.clear()
    for mode in MODES:
        for end in prefixes(len(data)):
            same_as_jiter(data[:end], mode)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return
    for end in prefixes(len(text)):
        same_as_langchain(text[:end])


@pytest.mark.parametrize("path", CORPUS_FILES[::7], ids=lambda path: path.name)
def test_corpus_prefixes_as_isolated_calls(path: Any) -> None:
    data = path.read_bytes()
    for end in list(prefixes(len(data)))[::-1][:200]:
        CACHE.clear()
        same_as_jiter(data[:end], True)
        CACHE.clear()
        same_as_jiter(data[:end], "trailing-strings")


# -- generated documents ------------------------------------------------------------------------

texts = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12) | st.sampled_from(
    ["\\", '"', "\n", "\u00e9", "\U0001f600", "a\\u", "\t"]
)
scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(10**20), 10**20)
    | st.floats(allow_nan=False, allow_infinity=False)
    | texts
)
documents = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts, inner, max_size=4),
    max_leaves=20,
)


@st.composite
def json_texts(draw: st.DrawFn) -> str:
    text = json.dumps(
        draw(documents),
        ensure_ascii=draw(st.booleans()),
        indent=draw(st.sampled_from([None, 1])),
    )
    if draw(st.booleans()):
        # A few edits outside what json.dumps writes: the partial modes' rules on malformed text.
        for _ in range(draw(st.integers(1, 2))):
            at = draw(st.integers(0, len(text)))
            text = text[:at] + draw(st.sampled_from([" ", ",", "]", "}", "1", '"', "x", "\\u"])) + text[at:]
    return text


@given(json_texts())
def test_generated_documents_every_prefix(text: str) -> None:
    data = text.encode("utf-8")
    for mode in MODES:
        for end in range(len(data) + 1):
            same_as_jiter(data[:end], mode)
    for end in range(len(text) + 1):
        same_as_langchain(text[:end])


@given(json_texts(), st.lists(st.integers(1, 12), min_size=1, max_size=40))
def test_generated_documents_in_deltas_with_partial_parser(text: str, sizes: list[int]) -> None:
    modes: dict[str, Callable[[str], Any]] = {
        "on": lambda prefix: jiter.from_json(prefix.encode(), partial_mode=True),
        "trailing-strings": lambda prefix: jiter.from_json(prefix.encode(), partial_mode="trailing-strings"),
        "langchain": langchain_parse,
    }
    for mode, reference in modes.items():
        parser = tooljson.PartialParser(mode)  # type: ignore[arg-type]
        start = 0
        for size in sizes * (len(text) // max(sum(sizes), 1) + 1):
            if start >= len(text):
                break
            parser.feed(text[start : start + size])
            start += size
            assert outcome(parser.value) == outcome(lambda: reference(text[:start])), (mode, text[:start])


# -- the kept state never changes a result --------------------------------------------------------


def _records(count: int) -> str:
    rng = random.Random(count)
    return json.dumps(
        {
            "records": [
                {
                    "id": i,
                    "title": f"item \\ {i} \u00e9",
                    "score": rng.random() * 100,
                    "tags": ["a", "b"][: i % 3],
                }
                for i in range(count)
            ]
        }
    )


def test_interleaved_unrelated_buffers() -> None:
    first, second = _records(30).encode(), json.dumps({"content": "x" * 500, "n": [1, 2, 3]}).encode()
    CACHE.clear()
    for end in range(0, max(len(first), len(second)) + 1, 7):
        for data in (first[:end], second[:end]):
            same_as_jiter(data, True)


def test_shrinking_and_diverging_buffers() -> None:
    base = _records(10)
    diverged = base[:150] + '9999, "other": [true, false, {"k": "v"}]}'
    CACHE.clear()
    for end in [*range(0, len(base), 5), *range(len(base), 0, -9), *range(0, len(diverged), 3)]:
        for text in (base[:end], diverged[:end]):
            same_as_jiter(text.encode(), "trailing-strings")
            same_as_langchain(text)


def test_a_bytearray_changed_in_place_is_read_again() -> None:
    buffer = bytearray(b'{"a": [1, 2, 3], "b": "xyz')
    CACHE.clear()
    assert tooljson.from_json(buffer, partial_mode="trailing-strings") == {"a": [1, 2, 3], "b": "xyz"}
    buffer[7] = ord("7")  # same length, different content
    buffer += b'q", "c": 4'
    assert tooljson.from_json(buffer, partial_mode="trailing-strings") == {
        "a": [7, 2, 3],
        "b": "xyzq",
        "c": 4,
    }
    buffer[:] = b"[1, 2"
    assert tooljson.from_json(buffer, partial_mode=True) == [1, 2]


def test_results_handed_out_do_not_change_afterwards() -> None:
    text = _records(5)
    CACHE.clear()
    results = [
        (end, tooljson.from_json(text[:end], partial_mode="trailing-strings"))
        for end in range(1, len(text) + 1)
    ]
    for end, result in results:
        assert outcome(lambda result=result: result) == outcome(
            lambda end=end: jiter.from_json(text[:end].encode(), partial_mode="trailing-strings")
        )


def test_threads_calling_on_their_own_buffers() -> None:
    texts = [_records(20 + n) for n in range(4)]
    failures: list[str] = []

    def work(text: str) -> None:
        for end in range(0, len(text) + 1, 3):
            expected = outcome(lambda: jiter.from_json(text[:end].encode(), partial_mode=True))
            if outcome(lambda: tooljson.from_json(text[:end], partial_mode=True)) != expected:
                failures.append(text[:end])

    threads = [threading.Thread(target=work, args=(text,)) for text in texts * 2]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []


def test_a_finalizer_set_off_by_the_cache_may_call_in_again() -> None:
    """An entry the cache drops releases the values it shares with results handed out, and a
    finalizer a caller hung on one of them may call ``from_json``, which uses the same cache: the
    call neither waits for the cache (a deadlock: the cache is busy on its own thread) nor fails."""
    seen: list[Any] = []

    class CallsIn:
        def __del__(self) -> None:
            seen.append(tooljson.from_json(b"[1, 2", partial_mode=True))

    def work() -> None:
        CACHE.clear()
        value = tooljson.from_json(b'{"a": {"b": 1}, "c": [', partial_mode=True)
        value["a"]["x"] = CallsIn()  # the complete "a" is shared with the kept parse
        del value
        CACHE.clear()

    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    thread.join(30)
    assert not thread.is_alive(), "the cache's lock was held while releasing an entry"
    assert seen == [jiter.from_json(b"[1, 2", partial_mode=True)]


def test_a_str_subclass_is_read_as_a_str_and_its_methods_are_not_called() -> None:
    class Text(str):
        def startswith(self, *args: Any) -> bool:  # type: ignore[override]
            raise AssertionError("called")

    CACHE.clear()
    text = '{"a": [1, 2], "b": "xy'
    for end in range(len(text) + 1):
        assert outcome(
            lambda end=end: tooljson.from_json(Text(text[:end]), partial_mode="trailing-strings")
        ) == outcome(lambda end=end: jiter.from_json(text[:end].encode(), partial_mode="trailing-strings"))


def test_the_cache_stays_within_its_bounds() -> None:
    cache = ResumeCache(max_depth=200, max_entries=3, max_chars=1000)
    for n in range(10):
        cache.give(cache.read(json.dumps({"n": n, "pad": "x" * 100})[:-2], strings=True))
    assert len(cache) == 3
    cache.give(cache.read("[" + "1, " * 600, strings=False))  # over the byte budget alone
    assert len(cache) == 3
    assert 0 < cache.chars <= 1000


def test_large_tool_inputs_in_deltas() -> None:
    rng = random.Random(7)
    for text in (_records(600), json.dumps({"path": "a.py", "content": 'line "q" \\ \u00e9\n' * 3000})):
        data = text.encode()
        CACHE.clear()
        end = 0
        while end < len(data):
            end = min(len(data), end + rng.randint(1, 32))
            if rng.random() < 0.05 or end == len(data):
                for mode in (True, "trailing-strings"):
                    assert outcome(
                        lambda mode=mode: tooljson.from_json(data[:end], partial_mode=mode)
                    ) == outcome(lambda mode=mode: jiter.from_json(data[:end], partial_mode=mode))
                assert outcome(
                    lambda: tooljson.parse_partial_json(text[: len(data[:end].decode(errors="ignore"))])
                ) == outcome(lambda: langchain_parse(text[: len(data[:end].decode(errors="ignore"))]))
            else:
                tooljson.from_json(data[:end], partial_mode=True)


@pytest.mark.parametrize(
    "text",
    [
        r'{"a": ["x\ud83d\ude00y", "\ud83d", "z"], "k\ud83d\ude00": "\udc00", "b": "\ud83d\u0041"}',
        r'["\ud83d\ud83d\ude00", "\\ud83d", {"\ud800": 1}]',
        r'{"a": "\u00f1\ud83d\ude00\u00e9", "b": "\ud83d\n"}',
    ],
)
def test_surrogate_escapes_at_every_cut_of_a_growing_buffer(text: str) -> None:
    """The native parser says when a lone surrogate escape (which jiter refuses) has been read; a
    high one at the end still waiting for its pair does not count, as jiter leaves it out."""
    data = text.encode()
    for mode in (True, "trailing-strings"):
        CACHE.clear()
        for end in range(len(data) + 1):
            same_as_jiter(data[:end], mode)
    CACHE.clear()
    for end in range(len(text) + 1):
        same_as_langchain(text[:end])


# -- options and arguments ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "options"),
    [
        (b"[NaN, Infinity, -Infinity]", {"allow_inf_nan": False}),
        (b'{"a": 1, "b": [Infinity', {"allow_inf_nan": False}),
        (b'{"\xc3\xa9N": "In", "b": [1, -Infinity', {"allow_inf_nan": False}),
        (b'{"a": 1.5, "b": [2, 2.50e3', {"float_mode": "decimal"}),
        (b'{"a": 1, "a": 2}', {"catch_duplicate_keys": True}),
        (b'{"a": 1, "b": {"a": 2}}', {"catch_duplicate_keys": True}),
        (b'{"k\\n\\"": 1, "k\\n\\"": 2}', {"catch_duplicate_keys": True}),
        (b'["x", "\\ud800"]', {}),
        (b'["x", "\\ud83d\\ude00", "\\udc00"]', {}),
        (b"[" * 201 + b"]" * 201, {}),
        (b"[" * 200 + b"1" + b"]" * 200, {}),
        (b"[" * 202, {}),
        (b"\xef\xbb\xbf[1]", {}),
        (b'["\xff"]', {}),
        (b'["a", "\xe2\x82', {}),
    ],
)
def test_options_and_edges(data: bytes, options: dict[str, Any]) -> None:
    for mode in MODES:
        for end in range(len(data) + 1):
            same_as_jiter(data[:end], mode, **options)


@pytest.mark.parametrize("text", ['"a\ud800"', '["a\ud800', '{"k": "\udc00x"}', '["\ud83d", 1]'])
def test_a_str_with_a_lone_surrogate_gives_what_its_bytes_give(text: str) -> None:
    # Such a str has no UTF-8 form; its nearest bytes (surrogatepass) are what jiter is given.
    for mode in MODES:
        CACHE.clear()
        for end in range(len(text) + 1):
            expected = outcome(
                lambda: jiter.from_json(text[:end].encode("utf-8", "surrogatepass"), partial_mode=mode)
            )
            assert outcome(lambda: tooljson.from_json(text[:end], partial_mode=mode)) == expected, (
                text[:end],
                mode,
            )


def test_lossless_floats_keep_their_text() -> None:
    value = tooljson.from_json(b"[1.50, 2, -0.0e1]", float_mode="lossless-float")
    expected = jiter.from_json(b"[1.50, 2, -0.0e1]", float_mode="lossless-float")
    assert [repr(item) for item in value] == [repr(item) for item in expected]
    assert [float(item) for item in value] == [float(item) for item in expected]
    assert value[0].as_decimal() == Decimal("1.50")
    assert bytes(value[0]) == b"1.50"


@pytest.mark.parametrize(
    "options",
    [
        {"partial_mode": "maybe"},
        {"partial_mode": 1},
        {"partial_mode": None},
        {"cache_mode": "some"},
        {"cache_mode": 0},
        {"float_mode": "double"},
        {"float_mode": None},
    ],
)
def test_bad_options_raise_what_jiter_raises(options: dict[str, Any]) -> None:
    assert outcome(lambda: tooljson.from_json(b"[1]", **options)) == outcome(
        lambda: jiter.from_json(b"[1]", **options)
    )


@pytest.mark.parametrize("cache_mode", [True, False, "all", "keys", "none"])
def test_cache_mode_changes_nothing(cache_mode: Any) -> None:
    assert tooljson.from_json(b'{"a": ["b"]}', cache_mode=cache_mode) == {"a": ["b"]}


@pytest.mark.parametrize("data", [1, None, memoryview(b"[1]"), ["[1]"]])
def test_other_types_are_refused(data: Any) -> None:
    with pytest.raises(TypeError, match="bytes, bytearray or str"):
        tooljson.from_json(data)
    with pytest.raises(TypeError, match="takes a str"):
        tooljson.parse_partial_json(data)


def test_partial_parser_refuses_what_it_cannot_do() -> None:
    with pytest.raises(ValueError, match="needs a partial mode"):
        tooljson.PartialParser(False)
    parser = tooljson.PartialParser("on")
    parser.feed(b"[1, ")
    with pytest.raises(TypeError, match="every fragment as str"):
        parser.feed("2]")
    assert parser.value() == [1]
    with pytest.raises(TypeError, match="str fragments"):
        tooljson.PartialParser("langchain").feed(b"[1")


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize(
    "text",
    [
        "",
        " ",
        '{"a": "line\nbreak", "b": [1, 2',
        '{"a": "tab\there',
        "[1, 2]]",
        '{"a": [1}',
        '{"a": "x\\u12',
        '{"a": "x\\ud83d',
        '{"a": "x\\ud83d\\',
        '{"a": "x\\ud83d\\ud83d\\ude00\\u00e9", "b\\u00e9": ["\\u00f1", "\\\\u00", "\\\\\\u00f1"]}',
        '{"a": 1, "a": "\\u00e9", "a": {"\\u00e9\\ud83d\\ude00": [["\\ud800\\u0041"]]}}',
        '"\\u00e9\\ud83d',
        '["a\\',
        '{"a": 1} trailing',
        "[1.",
        "-",
        "12",
        "1e",
        '"abc',
    ],
)
def test_langchain_quirks(text: str, strict: bool) -> None:
    for end in range(len(text) + 1):
        same_as_langchain(text[:end], strict)


# -- the README's recipes ---------------------------------------------------------------------------


def test_the_anthropic_helper_pointed_at_from_json_builds_the_same_snapshots() -> None:
    from unittest import mock

    from anthropic.lib.streaming._messages import accumulate_event
    from helper_streams import copy_json, response_events

    text = _records(40)
    events = response_events(
        [{"type": "tool_use", "id": "toolu_1", "name": "save", "text": text}],
        "tool_use",
        rng=random.Random(3),
    )

    def snapshots() -> list[Any]:
        snapshot, buffers, seen = None, {}, []
        for event in events:
            snapshot = accumulate_event(event=event, current_snapshot=snapshot, json_bufs=buffers)
            if event.type == "content_block_delta":
                seen.append(copy_json(snapshot.content[event.index].input))
        return seen

    plain = snapshots()
    with mock.patch("jiter.from_json", tooljson.from_json):
        patched = snapshots()
    assert [_canonical(value) for value in patched] == [_canonical(value) for value in plain]
    assert plain[-1] == json.loads(text)


def test_langchain_message_chunks_pointed_at_parse_partial_json_give_the_same_tool_calls() -> None:
    from unittest import mock

    from langchain_core.messages import AIMessageChunk

    text = _records(20)
    pieces = [text[at : at + 7] for at in range(0, len(text), 7)]

    def tool_calls() -> list[Any]:
        merged, seen = None, []
        for number, piece in enumerate(pieces):
            chunk = AIMessageChunk(
                content="",
                tool_call_chunks=[
                    {
                        "name": "save" if number == 0 else None,
                        "args": piece,
                        "id": "c1" if number == 0 else None,
                        "index": 0,
                    }
                ],
            )
            merged = chunk if merged is None else merged + chunk
            seen.append(merged.tool_calls)
        return seen

    plain = tool_calls()
    with mock.patch("langchain_core.messages.ai.parse_partial_json", tooljson.parse_partial_json):
        patched = tool_calls()
    assert patched == plain
    assert plain[-1][0]["args"] == json.loads(text)
