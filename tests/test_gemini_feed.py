"""What is Gemini's own in reading its chunks through ToolCallAccumulator.feed and TurnReader.

The chunks are built here, as wire dicts and as google-genai's objects: whole ``functionCall`` parts
and their minted ids; streamed ``partialArgs`` against the values they stream (hypothesis, every split
of a string piece, numbers as doubles, typed partials, the text fed linear in the pieces); the events'
JSON pointers; Gemini's finish reasons (``MAX_TOKENS`` with a call open, ``MALFORMED_FUNCTION_CALL``,
``UNEXPECTED_TOOL_CALL``), candidates, response ids, the history in ``content`` and the
``functionResponse`` results; recognition, the recording check, API errors; and the bad paths, pieces
and chunks the reader refuses (``json_path``, ``arguments_text``).

The behaviours every source shares run over the registry in tests/test_sources_shared.py. Gemini's
wire carries values at JSON paths, not text, so only the shared tests that do not need arguments cut
as text run for it there (values and no arguments, the cut-off call, growing previews, SDK objects as
dicts, the proxy, record and replay); the tests here hold the rest for Gemini.
"""

from __future__ import annotations

import ast
import copy
import json
import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import tooljson
from helper_streams import assert_grows
from helpers import assert_same_json
from hypothesis import given, settings
from hypothesis import strategies as st
from tooljson.providers import gemini
from tooljson.providers.gemini import arguments_text, json_path
from tooljson.providers.registry import recognise

types = pytest.importorskip("google.genai.types")

# Text as the wire carries it: any Unicode scalar (a proto string is valid UTF-8: no lone surrogates).
TEXT = st.text(st.characters(codec="utf-8"), max_size=12)
NUMBERS = st.integers(-(2**53) + 1, 2**53 - 1) | st.floats(allow_nan=False, allow_infinity=False)
SCALARS = st.none() | st.booleans() | NUMBERS | TEXT
# No piece carries an empty object or array: the values a stream can make have none below the top.
VALUES = st.recursive(
    SCALARS,
    lambda children: (
        st.lists(children, min_size=1, max_size=4) | st.dictionaries(TEXT, children, min_size=1, max_size=4)
    ),
    max_leaves=24,
)
ARGUMENTS = st.dictionaries(TEXT, VALUES, max_size=5)
SHORTHAND = re.compile(r"[A-Za-z_\u0080-\U0010ffff][A-Za-z0-9_\u0080-\U0010ffff]*")


def normalised(value: Any) -> Any:
    """What a value reads as once streamed: a whole double below 2**53 is an integer (the module's rule)."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    if isinstance(value, dict):
        return {key: normalised(item) for key, item in value.items()}
    if isinstance(value, list):
        return [normalised(item) for item in value]
    return value


def path_of(steps: tuple[Any, ...], style: int) -> str:
    """An RFC 9535 path for ``steps``: shorthand where it can (style 0), single (1) or double (2) quotes."""
    text = "$"
    for step in steps:
        if isinstance(step, int):
            text += f"[{step}]" if style != 2 else f"[ {step} ]"
        elif style == 0 and SHORTHAND.fullmatch(step):
            text += "." + step
        else:
            quote = "'" if style != 2 else '"'
            escaped = "".join(
                "\\" + char if char in (quote, "\\") else f"\\u{ord(char):04x}" if char < " " else char
                for char in step
            )
            text += f"[{quote}{escaped}{quote}]"
    return text


def partial_args(
    value: dict[str, Any],
    cuts: Callable[[int], list[int]],
    *,
    style: int = 0,
    close: Callable[[], bool] = lambda: True,
) -> list[dict[str, Any]]:
    """The partialArgs a model streams ``value`` as: each string cut where ``cuts`` says, its last
    piece ending it (or, where ``close`` says no, left to the next path or the call's end)."""
    out: list[dict[str, Any]] = []

    def walk(item: Any, steps: tuple[Any, ...]) -> None:
        if isinstance(item, dict):
            for key, child in item.items():
                walk(child, (*steps, key))
        elif isinstance(item, list):
            for position, child in enumerate(item):
                walk(child, (*steps, position))
        else:
            path = path_of(steps, style)
            if isinstance(item, str):
                bounds = [0, *cuts(len(item)), len(item)]
                last = len(bounds) - 2
                for number in range(last + 1):
                    piece = {
                        "jsonPath": path,
                        "stringValue": item[bounds[number] : bounds[number + 1]],
                        "willContinue": True,
                    }
                    if number == last and close():
                        piece["willContinue"] = False
                    out.append(piece)
            elif isinstance(item, bool):
                out.append({"jsonPath": path, "boolValue": item})
            elif item is None:
                out.append({"jsonPath": path, "nullValue": "NULL_VALUE"})
            else:
                out.append({"jsonPath": path, "numberValue": item})

    walk(value, ())
    return out


def chunk(
    parts: list[dict[str, Any]],
    *,
    reason: str | None = None,
    message: str | None = None,
    candidate: int = 0,
    response_id: str = "resp-1",
) -> dict[str, Any]:
    """One wire chunk holding ``parts`` for one candidate."""
    body: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": candidate}
    if reason is not None:
        body["finishReason"] = reason
    if message is not None:
        body["finishMessage"] = message
    return {
        "candidates": [body],
        "responseId": response_id,
        "modelVersion": "gemini-3-pro-preview",
        "usageMetadata": {"promptTokenCount": 12, "totalTokenCount": 12},
    }


def streamed_call(
    pieces: list[dict[str, Any]],
    groups: list[int],
    *,
    name: str = "write",
    call_id: str | None = None,
    empty_end: bool = True,
    reason: str | None = "STOP",
) -> list[dict[str, Any]]:
    """The chunks of one streamed call: the opening part, ``pieces`` in chunks of ``groups`` sizes,
    the end (an empty functionCall, or the last chunk without willContinue) and the finish."""
    opening: dict[str, Any] = {"name": name, "willContinue": True}
    if call_id is not None:
        opening["id"] = call_id
    chunks = [chunk([{"functionCall": opening}])]
    at = 0
    sizes = iter(groups)
    while at < len(pieces):
        size = max(1, next(sizes, 1))
        chunks.append(
            chunk([{"functionCall": {"partialArgs": pieces[at : at + size], "willContinue": True}}])
        )
        at += size
    if empty_end or len(chunks) == 1:
        chunks.append(chunk([{"functionCall": {}}]))
    else:
        del chunks[-1]["candidates"][0]["content"]["parts"][0]["functionCall"]["willContinue"]
    if reason is not None:
        chunks.append(chunk([], reason=reason))
    return chunks


def sdk(event: dict[str, Any]) -> Any:
    """The same chunk as google-genai's own object."""
    return types.GenerateContentResponse.model_validate(event)


def resolve(value: Any, pointer: str) -> Any:
    """RFC 6901: the part of ``value`` that ``pointer`` names."""
    if pointer == "":
        return value
    for token in pointer[1:].split("/"):
        token = token.replace("~1", "/").replace("~0", "~")
        value = value[int(token)] if isinstance(value, list) else value[token]
    return value


def read(
    chunks: list[dict[str, Any]], *, objects: bool, **options: Any
) -> tuple[tooljson.TurnReader, list[Any]]:
    """Feed ``chunks`` (as dicts or SDK objects) to a reader; also return the call's preview after each."""
    reader = tooljson.TurnReader(**options)
    previews = []
    for event in chunks:
        reader.feed(sdk(event) if objects else event)
        for block in reader.blocks:
            if block.call is None:
                previews.append(copy.deepcopy(reader.accumulator.preview(block.index)))
    return reader, previews


# --- whole calls


@given(st.lists(ARGUMENTS, min_size=1, max_size=3), st.booleans())
@settings(max_examples=80)
def test_whole_calls_have_their_args_as_input_and_minted_ids_stable_and_unique(
    calls: list[Any], objects: bool
) -> None:
    parts = [{"functionCall": {"name": f"tool_{number}", "args": args}} for number, args in enumerate(calls)]
    chunks = [chunk(parts[:1]), chunk(parts[1:], reason="STOP")]
    first, _ = read(chunks, objects=objects)
    again, _ = read(chunks, objects=objects)
    assert first.provider == "gemini" and first.stopped and first.stop_reason == "STOP"
    assert [call.name for call in first.calls] == [f"tool_{number}" for number in range(len(calls))]
    for call, args in zip(first.calls, calls):
        # The SDK keeps args as the wire's JSON values, so both ways in give exactly the args.
        expected = (
            sdk(chunk([{"functionCall": {"name": "x", "args": args}}]))
            .candidates[0]
            .content.parts[0]
            .function_call.args
            if objects
            else args
        )
        assert_same_json(call.input, expected)
        assert first.state(call) == "complete" and call.key == (0, call.key[1])
        assert json.loads(call.raw_json) == expected
    ids = [call.id for call in first.calls]
    assert len(set(ids)) == len(ids) and ids == [call.id for call in again.calls]
    assert all(identity.startswith("gemini-resp-1-0-") for identity in ids)


def test_a_models_id_is_kept_and_one_arriving_later_replaces_the_minted_one() -> None:
    given_id = [chunk([{"functionCall": {"name": "f", "id": "call-abc", "args": {"a": 1}}}], reason="STOP")]
    reader, _ = read(given_id, objects=False)
    assert reader.calls[0].id == "call-abc"
    late = streamed_call([{"jsonPath": "$.a", "numberValue": 1}], [1], reason=None)
    late[-1]["candidates"][0]["content"]["parts"][0]["functionCall"]["id"] = "call-late"
    reader, _ = read(late, objects=False)
    assert reader.blocks[0].call is not None and reader.calls[0].id == "call-late"


def test_no_response_id_mints_ids_by_candidate_and_ordinal() -> None:
    event = chunk(
        [{"functionCall": {"name": "f"}}, {"functionCall": {"name": "g", "args": {}}}], reason="STOP"
    )
    del event["responseId"]
    accumulator = tooljson.ToolCallAccumulator()
    calls = accumulator.feed(event)
    assert [(call.id, call.key, call.input) for call in calls] == [
        ("gemini-0-0", (0, 0), {}),
        ("gemini-0-1", (0, 1), {}),
    ]


# --- streamed arguments


def _cuts(data: st.DataObject) -> Callable[[int], list[int]]:
    def cut(length: int) -> list[int]:
        return sorted(data.draw(st.lists(st.integers(0, length), max_size=4), label="cuts"))

    return cut


@given(ARGUMENTS, st.data(), st.sampled_from([0, 1, 2]), st.booleans(), st.booleans())
@settings(max_examples=150)
def test_streamed_arguments_are_exactly_the_value_with_a_growing_preview(
    value: dict[str, Any], data: st.DataObject, style: int, empty_end: bool, objects: bool
) -> None:
    pieces = partial_args(
        value, _cuts(data), style=style, close=lambda: data.draw(st.booleans(), label="close")
    )
    groups = data.draw(st.lists(st.integers(1, 4), max_size=len(pieces)), label="groups")
    chunks = streamed_call(pieces, groups, empty_end=empty_end)
    reader, previews = read(chunks, objects=objects, events=True)
    (call,) = reader.calls
    expected = normalised(value)
    assert_same_json(call.input, expected)
    assert (
        reader.state(call) == "complete" and call.provider == "gemini" and call.block_type == "functionCall"
    )
    assert_same_json(json.loads(call.raw_json), expected)
    # The preview only grows: a string only lengthens, no key vanishes, no value changes type.
    for before, after in zip(previews, previews[1:]):
        assert_grows(before, after, whole_strings=False)
    for preview in previews:
        assert_grows(preview, expected, whole_strings=False)


@given(ARGUMENTS, st.data())
@settings(max_examples=100)
def test_structural_events_name_their_place_with_json_pointers(
    value: dict[str, Any], data: st.DataObject
) -> None:
    pieces = partial_args(value, _cuts(data))
    events: list[Any] = []
    accumulator = tooljson.ToolCallAccumulator(
        events=True, on_event=lambda index, event: events.append(event)
    )
    for event in streamed_call(pieces, [2] * len(pieces)):
        accumulator.feed(event)
    expected = normalised(value)
    completes = [event for event in events if event.kind == "complete"]
    assert completes and completes[-1].pointer == ""
    for event in completes:
        assert_same_json(resolve(expected, event.pointer), event.value)
    # The appends of each string add up to it.
    appended: dict[str, str] = {}
    for event in events:
        if event.kind == "append":
            appended[event.pointer] = appended.get(event.pointer, "") + event.value
    for pointer, text in appended.items():
        assert resolve(expected, pointer) == text


DOCUMENT = {
    "path": "notes/été.md",
    "body": 'line "one"\n\ttab \\ back \u2028 \U0001f600 \x00 end',
    "items": [{"x": 1.5, "label": "a/b~c"}, {"x": -3, "tags": ["p", "", "q"]}],
    "flags": {"deep": {"er": [True, None, False]}},
    "odd key/~'\"": "v",
}


@pytest.mark.parametrize("objects", [False, True], ids=["dict", "sdk"])
def test_every_split_of_a_string_piece_gives_the_same_arguments(objects: bool) -> None:
    body = DOCUMENT["body"]
    assert isinstance(body, str)
    expected = normalised(DOCUMENT)
    for at in range(len(body) + 1):

        def cut(length: int, at: int = at) -> list[int]:
            return [at] if length == len(body) else []

        pieces = partial_args(DOCUMENT, cut, style=1)
        reader, previews = read(streamed_call(pieces, [1] * len(pieces)), objects=objects)
        assert_same_json(reader.calls[0].input, expected)
        for before, after in zip(previews, previews[1:]):
            assert_grows(before, after, whole_strings=False)


def test_every_two_way_split_of_every_string_one_piece_at_a_time() -> None:
    strings = ["", "a", 'é"\\', "\U0001f600\n"]
    for text in strings:
        for first in range(len(text) + 1):
            for second in range(first, len(text) + 1):
                value = {"s": text, "t": [text]}
                pieces = partial_args(value, lambda length, a=first, b=second: [a, b])
                reader, _ = read(streamed_call(pieces, [1] * len(pieces)), objects=False)
                assert reader.calls[0].input == value


def test_numbers_whole_doubles_read_as_integers_and_others_exactly() -> None:
    values = [3.0, -0.0, 0.1, 1e300, -2.5e-308, 2.0**53, 2.0**53 - 1, 12345678901234567, 5e-324]
    for objects in (False, True):
        pieces = [
            {"jsonPath": f"$.n[{position}]", "numberValue": number} for position, number in enumerate(values)
        ]
        reader, _ = read(streamed_call(pieces, [3, 3, 3]), objects=objects)
        read_back = reader.calls[0].input["n"]
        for number, got in zip(values, read_back):
            as_double = float(number)
            if as_double.is_integer() and abs(as_double) < 2**53:
                assert type(got) is int and got == as_double
            else:
                assert (
                    type(got) is float
                    and got == as_double
                    and math.copysign(1, got) == math.copysign(1, as_double)
                )


def test_typed_partial_values_come_from_the_pieces() -> None:
    pydantic = pytest.importorskip("pydantic")

    class Item(pydantic.BaseModel):
        x: float
        label: str = ""

    class Write(pydantic.BaseModel):
        path: str
        items: list[Item]

    value = {"path": "a.txt", "items": [{"x": 1.5, "label": "first"}, {"x": 2.5}]}
    pieces = partial_args(value, lambda length: [length // 2])
    accumulator = tooljson.ToolCallAccumulator(models={"write": Write})
    shown = []
    for event in streamed_call(pieces, [1] * len(pieces)):
        accumulator.feed(event)
        open_blocks = [block for block in accumulator.blocks if block.call is None]
        if open_blocks:
            # The typed partial is one object that fills in: keep what it showed then.
            shown.append(repr(accumulator.partial(open_blocks[0].index)))
    assert shown[:2] == ["PartialWrite(path=None, items=None)", "PartialWrite(path='a.', items=None)"]
    assert "PartialWrite(path='a.txt', items=[PartialItem(x=1.5, label='fi')])" in shown
    assert accumulator.calls[0].parsed == Write.model_validate(value)


def test_the_text_fed_is_linear_in_the_pieces_and_each_path_is_parsed_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    parsed: list[str] = []
    real = arguments_text.parse_path

    def counting(path: str) -> tuple[Any, ...]:
        parsed.append(path)
        return real(path)

    monkeypatch.setattr(arguments_text, "parse_path", counting)
    fed = {}
    for size in (100_000, 1_000_000):
        text = ('abcd\u00e9"\\\n' * (size // 8))[:size]
        pieces = partial_args({"content": text, "path": "x"}, lambda length: list(range(17, length, 17)))
        parsed.clear()
        accumulator = tooljson.ToolCallAccumulator()
        for event in streamed_call(pieces, [1] * len(pieces), reason=None):
            accumulator.feed(event)
        (call,) = accumulator.calls
        (block,) = accumulator.blocks
        assert call.input == {"content": text, "path": "x"}
        # One fragment per chunk; the characters fed are the arguments' text, each piece escaped once.
        assert block.deltas == len(pieces) + 2 and block.chars == len(call.raw_json)
        assert len(call.raw_json) <= len(json.dumps(text, ensure_ascii=False)) + 40
        # A string's later pieces take the fast path: its path is parsed once.
        assert parsed == ["$.content", "$.path"]
        fed[size] = block.chars
    assert fed[1_000_000] <= 10.01 * fed[100_000]


# --- verdicts


@pytest.mark.parametrize("objects", [False, True], ids=["dict", "sdk"])
def test_max_tokens_with_a_call_open_is_truncated_never_complete(objects: bool) -> None:
    # The pieces so far would close into valid JSON: the call is still not complete.
    pieces = [{"jsonPath": "$.a", "stringValue": "whole", "willContinue": False}]
    reader, _ = read(
        streamed_call(pieces, [1], reason=None)[:-1] + [chunk([], reason="MAX_TOKENS")], objects=objects
    )
    (call,) = reader.calls
    assert reader.stop_reason == "MAX_TOKENS" and type(reader.stop_reason) is str
    assert reader.state(call) == "truncated" and reader.accumulator.is_truncated(call)
    assert not reader.accumulator.is_invalid(call) and call.input is None and call.preview == {"a": "whole"}
    # A call that ended before the limit was reached is whole.
    ended, _ = read(streamed_call(pieces, [1], reason="MAX_TOKENS"), objects=objects)
    assert ended.state(ended.calls[0]) == "complete"


def test_a_call_left_open_at_stop_is_incomplete() -> None:
    chunks = streamed_call([{"jsonPath": "$.a", "numberValue": 1}], [1], reason=None)[:-1] + [
        chunk([], reason="STOP")
    ]
    reader, _ = read(chunks, objects=False)
    assert reader.state(reader.calls[0]) == "incomplete" and reader.accumulator.is_invalid(reader.calls[0])


@pytest.mark.parametrize("reason", ["MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL"])
@pytest.mark.parametrize("objects", [False, True], ids=["dict", "sdk"])
def test_malformed_and_unexpected_calls_keep_the_reason_and_the_finish_message(
    reason: str, objects: bool
) -> None:
    message = 'Malformed function call: print(default_api.write(path="a)'
    reader, _ = read([chunk([{"text": "Sure."}]), chunk([], reason=reason, message=message)], objects=objects)
    assert reader.calls == [] and reader.stop_reason == reason and reader.stopped
    assert isinstance(reader.assembler, gemini.GeminiAssembler) and reader.assembler.stop_message == message
    assert reason in gemini.SOURCE.refused and not gemini.SOURCE.is_cut_off(reason)
    assert gemini.SOURCE.is_cut_off("MAX_TOKENS")


def test_a_broken_stream_leaves_the_open_call_interrupted() -> None:
    reader, _ = read(
        streamed_call([{"jsonPath": "$.a", "stringValue": "x", "willContinue": True}], [1], reason=None)[:-1],
        objects=False,
    )
    reader.interrupt("connection reset")
    assert not reader.stopped and reader.state(reader.blocks[0]) == "interrupted"


# --- candidates, responses, content, results


def test_candidates_keep_their_own_calls_and_finish_reasons() -> None:
    events = [
        chunk([{"functionCall": {"name": "a", "willContinue": True}}], candidate=0),
        chunk([{"functionCall": {"name": "b", "willContinue": True}}], candidate=1),
        chunk(
            [
                {
                    "functionCall": {
                        "partialArgs": [{"jsonPath": "$.v", "stringValue": "one", "willContinue": True}],
                        "willContinue": True,
                    }
                }
            ],
            candidate=1,
        ),
        chunk(
            [
                {
                    "functionCall": {
                        "partialArgs": [{"jsonPath": "$.v", "stringValue": "zero", "willContinue": True}],
                        "willContinue": True,
                    }
                }
            ],
            candidate=0,
        ),
        chunk([{"functionCall": {}}], candidate=1, reason="STOP"),
        chunk([], candidate=0, reason="MAX_TOKENS"),
    ]
    reader, _ = read(events, objects=True)
    by_key = {call.key: call for call in reader.calls}
    assert by_key[(1, 0)].input == {"v": "one"} and reader.state(by_key[(1, 0)]) == "complete"
    assert reader.state(by_key[(0, 0)]) == "truncated" and by_key[(0, 0)].preview == {"v": "zero"}
    assert reader.accumulator.stop_reason_for(by_key[(1, 0)]) == "STOP" and reader.stopped
    # A call that did not parse goes into the history with empty args, as its result will say why.
    assert [content["parts"] for content in reader.content] == [
        [{"functionCall": {"name": "a", "args": {}, "id": by_key[(0, 0)].id}}],
        [{"functionCall": {"name": "b", "args": {"v": "one"}, "id": by_key[(1, 0)].id}}],
    ]


def test_a_new_response_id_begins_a_new_response() -> None:
    first = chunk([{"functionCall": {"name": "a", "args": {"n": 1}}}], reason="STOP", response_id="r1")
    second = chunk([{"functionCall": {"name": "b", "willContinue": True}}], response_id="r2")
    reader = tooljson.TurnReader()
    reader.feed(first)
    assert not reader.begins_another(chunk([], response_id="r1")) and reader.begins_another(second)
    accumulator = tooljson.ToolCallAccumulator()
    accumulator.feed(first)
    accumulator.feed(second)
    assert accumulator.calls == [] and [block.name for block in accumulator.blocks] == ["b"]
    assert accumulator.blocks[0].id == "gemini-r2-0-0" and accumulator.stop_reason is None


def test_content_is_geminis_history_with_thoughts_text_calls_and_signatures() -> None:
    signature = b"\x00\x01signature\xff"
    events = [
        {
            "candidates": [
                {"content": {"role": "model", "parts": [{"text": "Planning", "thought": True}]}, "index": 0}
            ],
            "responseId": "resp-1",
            "modelVersion": "m",
        },
        chunk([{"text": " more", "thought": True}, {"text": "", "thoughtSignature": "c2ln"}]),
        chunk([{"text": "I will "}, {"text": "write."}]),
        chunk([{"functionCall": {"name": "write", "willContinue": True}, "thoughtSignature": "AAEC"}]),
        chunk([{"functionCall": {"partialArgs": [{"jsonPath": "$.path", "stringValue": "a"}]}}]),
        chunk([{"functionCall": {"name": "read", "args": {"path": "b"}}}, {"text": "Done."}], reason="STOP"),
    ]
    reader, _ = read(events, objects=False)
    first, second = reader.calls
    assert reader.content == [
        {
            "role": "model",
            "parts": [
                # The signature came on an empty text part of its own: the text after it joins that part.
                {"text": "Planning more", "thought": True},
                {"text": "I will write.", "thoughtSignature": "c2ln"},
                {
                    "functionCall": {"name": "write", "args": {"path": "a"}, "id": first.id},
                    "thoughtSignature": "AAEC",
                },
                {"functionCall": {"name": "read", "args": {"path": "b"}, "id": second.id}},
                {"text": "Done."},
            ],
        }
    ]
    assert reader.assembler.text == "I will write.Done." and reader.assembler.thinking_chars == len(
        "Planning more"
    )
    assert reader.assembler.usage == {"promptTokenCount": 12, "totalTokenCount": 12}
    # The SDK takes the history back as it is, and the signatures are the bytes that came.
    content = types.Content.model_validate(reader.content[0])
    assert content.parts[2].thought_signature == b"\x00\x01\x02"
    objects, _ = read(events, objects=True)
    assert objects.content == reader.content and objects.assembler.usage == reader.assembler.usage
    events[3]["candidates"][0]["content"]["parts"][0]["thoughtSignature"] = (
        __import__("base64").b64encode(signature).decode()
    )
    assert (
        types.Content.model_validate(read(events, objects=True)[0].content[0]).parts[2].thought_signature
        == signature
    )


def test_results_are_function_response_parts_that_name_the_call_and_carry_its_id() -> None:
    reader, _ = read(
        [chunk([{"functionCall": {"name": "lookup", "args": {"q": "x"}}}], reason="STOP")], objects=False
    )
    call = reader.calls[0]
    invalid = tooljson.invalid_json_result(call)
    assert invalid == {
        "functionResponse": {"id": call.id, "name": "lookup", "response": {"INVALID_JSON": call.raw_json}}
    }
    assert tooljson.results.success_result(call, {"rows": [1, 2]})["functionResponse"]["response"] == {
        "output": {"rows": [1, 2]}
    }
    assert tooljson.results.success_result(call, "plain")["functionResponse"]["response"] == {
        "output": "plain"
    }
    failed = tooljson.results.handler_error_result(call, RuntimeError("boom"))
    assert failed["functionResponse"]["response"] == {"error": "The tool raised RuntimeError: boom"}
    for result in (invalid, failed):
        part = types.Part.model_validate(result)
        assert part.function_response is not None and part.function_response.id == call.id
        assert isinstance(part.function_response.response, dict)


# --- recognition, recordings, errors


def test_recognised_by_shape_and_never_imported() -> None:
    assert gemini.recognise({"candidates": []}) and gemini.recognise({"usageMetadata": {}})
    assert not gemini.recognise({"choices": [], "candidates": []}) and not gemini.recognise(
        {"type": "message_start"}
    )
    assert gemini.recognise(sdk(chunk([]))) and not gemini.recognise(types.Candidate())
    assert recognise(sdk(chunk([]))) is gemini.SOURCE and recognise(chunk([])) is gemini.SOURCE
    for module in (gemini, arguments_text, json_path):
        tree = ast.parse(Path(module.__file__ or "").read_text(encoding="utf-8"))
        imported = [node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)]
        imported += [
            alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names
        ]
        assert not [name for name in imported if name.startswith("google")]


def test_the_recording_check_names_the_field() -> None:
    assert gemini.check(chunk([{"functionCall": {"name": "a", "args": {}}}], reason="STOP")) is None
    bad = chunk([{"functionCall": {"partialArgs": [{"jsonPath": 3}]}}])
    assert (
        gemini.check(bad)
        == "chunk.candidates[0].content.parts[0].functionCall.partialArgs[0].jsonPath must be str, not int"
    )
    assert gemini.check({"candidates": "x"}) == "chunk.candidates must be list, not str"
    with pytest.raises(tooljson.MalformedEvent, match="candidates must be list"):
        tooljson.ToolCallAccumulator().feed({"candidates": "x"})


def test_describe_error_states_the_apis_error_in_a_line() -> None:
    errors = pytest.importorskip("google.genai.errors")
    error = errors.ClientError(
        429, {"error": {"code": 429, "message": "Resource exhausted", "status": "RESOURCE_EXHAUSTED"}}
    )
    assert gemini.describe_error(error) == "RESOURCE_EXHAUSTED: Resource exhausted"
    assert gemini.describe_error(ValueError("x")) is None


def test_an_error_line_of_a_recording_interrupts_the_reader() -> None:
    reader = tooljson.TurnReader()
    reader.feed(streamed_call([], [], reason=None)[0])
    reader.feed({"error": {"code": 500, "message": "Internal error", "status": "INTERNAL"}})
    assert (
        reader.interruption == "INTERNAL: Internal error" and reader.state(reader.blocks[0]) == "interrupted"
    )


# --- bad input: a clear MalformedEvent, and the call's text stays a valid prefix


def _opened(*pieces: dict[str, Any]) -> tooljson.ToolCallAccumulator:
    accumulator = tooljson.ToolCallAccumulator()
    accumulator.feed(chunk([{"functionCall": {"name": "f", "willContinue": True}}]))
    for piece in pieces:
        accumulator.feed(chunk([{"functionCall": {"partialArgs": [piece], "willContinue": True}}]))
    return accumulator


BAD_PIECES = [
    ({"jsonPath": "a.b", "numberValue": 1}, r"jsonPath 'a\.b' at character 0: a JSON path starts with '\$'"),
    ({"jsonPath": "$.a[", "numberValue": 1}, r"at character 4: only a quoted name or an index"),
    ({"jsonPath": "$..a", "numberValue": 1}, r"at character 1: '\.\.' selects descendants"),
    ({"jsonPath": "$.a[*]", "numberValue": 1}, r"at character 4: only a quoted name or an index"),
    ({"jsonPath": "$['a", "numberValue": 1}, r"at character 4: the quoted name does not end"),
    ({"jsonPath": "$.a[-1]", "numberValue": 1}, r"at character 4: a negative index"),
    ({"jsonPath": "$", "numberValue": 1}, r"the arguments are an object"),
    ({"jsonPath": "$[0]", "numberValue": 1}, r"\$ is an object: it has no element \[0\]"),
    ({"jsonPath": "$.a", "numberValue": float("nan")}, r"not a JSON number"),
    ({"jsonPath": "$.a", "numberValue": float("-inf")}, r"not a JSON number"),
    (
        {"jsonPath": "$.a", "stringValue": "x", "numberValue": 1},
        r"one value per piece, not string and number",
    ),
    ({"jsonPath": "$.a"}, r"no value"),
]
# A wire dict of the wrong types is refused by the recording check, naming the field.
WRONG_TYPES = [
    ({"jsonPath": "$.a", "numberValue": "1"}, "numberValue must be int or float, not str"),
    ({"jsonPath": "$.a", "numberValue": True}, "numberValue must be int or float, not bool"),
    ({"jsonPath": "$.a", "stringValue": 1}, "stringValue must be str, not int"),
    ({"jsonPath": "$.a", "boolValue": "yes"}, "boolValue must be bool, not str"),
    ({"jsonPath": 7, "numberValue": 1}, "jsonPath must be str, not int"),
    ({"numberValue": 1}, "jsonPath is required"),
    ({"jsonPath": "$.a", "numberValue": 1, "willContinue": "no"}, "willContinue must be bool, not str"),
]


@pytest.mark.parametrize(("piece", "message"), BAD_PIECES, ids=[str(piece) for piece, _ in BAD_PIECES])
def test_a_bad_piece_is_a_malformed_event_that_says_where(piece: dict[str, Any], message: str) -> None:
    accumulator = _opened({"jsonPath": "$.ok", "numberValue": 1})
    with pytest.raises(
        tooljson.MalformedEvent, match=r"candidate 0, call 'f' \(gemini-resp-1-0-0\): .*" + message
    ):
        accumulator.feed(chunk([{"functionCall": {"partialArgs": [piece], "willContinue": True}}]))
    (block,) = accumulator.blocks
    assert accumulator.received(block) == '{"ok":1' and accumulator.status(block.index).state == "incomplete"


ORDER_FAULTS = [
    # A path that goes back to an earlier sibling, or to a value already given.
    ([("$.a", 1), ("$.b", 2)], ("$.a", 3), r"goes back to \$\['a'\], which already has its value"),
    ([("$.x[0]", 1), ("$.x[1]", 2)], ("$.x[0]", 3), r"goes back to \$\['x'\]\[0\]"),
    (
        [("$.o.p", 1), ("$.q", 2)],
        ("$.o.r", 3),
        r"\$\['o'\] already has its value: it cannot also hold \$\['o'\]\['r'\]",
    ),
    # A type clash: a string (or a number) at $.a, then $.a.b; an object, then an element.
    ([("$.a", "text")], ("$.a.b", 1), r"\$\['a'\] already has its value: it cannot also hold"),
    ([("$.a.b", 1)], ("$.a[0]", 1), r"\$\['a'\] is an object: it has no element \[0\]"),
    ([("$.a[0]", 1)], ("$.a.b", 1), r"\$\['a'\] is an array: it has no member 'b'"),
    # An array whose elements skip a position.
    ([("$.a[0]", 1)], ("$.a[2]", 1), r"skips \$\['a'\]\[1\]"),
    ([], ("$.a[1]", 1), r"is a new array: its first element is \[0\], not \[1\]"),
]


def _value_piece(path: str, value: Any) -> dict[str, Any]:
    if isinstance(value, str):
        return {"jsonPath": path, "stringValue": value, "willContinue": False}
    return {"jsonPath": path, "numberValue": value}


@pytest.mark.parametrize(("piece", "message"), WRONG_TYPES, ids=[str(piece) for piece, _ in WRONG_TYPES])
def test_a_piece_of_the_wrong_types_is_refused_naming_the_field(piece: dict[str, Any], message: str) -> None:
    accumulator = _opened({"jsonPath": "$.ok", "numberValue": 1})
    problem = f"chunk.candidates[0].content.parts[0].functionCall.partialArgs[0].{message}"
    with pytest.raises(tooljson.MalformedEvent, match=re.escape(problem)):
        accumulator.feed(chunk([{"functionCall": {"partialArgs": [piece], "willContinue": True}}]))
    assert accumulator.received(accumulator.blocks[0]) == '{"ok":1'


@pytest.mark.parametrize(
    ("before", "piece", "message"),
    ORDER_FAULTS,
    ids=[fault[1][0] + " after " + str(fault[0]) for fault in ORDER_FAULTS],
)
def test_a_piece_out_of_order_or_of_another_kind_is_refused(
    before: list[tuple[str, Any]], piece: tuple[str, Any], message: str
) -> None:
    accumulator = _opened(*[_value_piece(path, value) for path, value in before])
    text_before = accumulator.received(accumulator.blocks[0])
    with pytest.raises(tooljson.MalformedEvent, match=message):
        accumulator.feed(
            chunk([{"functionCall": {"partialArgs": [_value_piece(*piece)], "willContinue": True}}])
        )
    # Nothing of the refused piece was written: the text is what it was, a valid prefix.
    assert accumulator.received(accumulator.blocks[0]) == text_before
    assert accumulator.status(accumulator.blocks[0].index).state == "incomplete"


def test_a_string_that_ended_cannot_be_continued_and_an_open_one_takes_no_number() -> None:
    ended = _opened({"jsonPath": "$.s", "stringValue": "ab", "willContinue": False})
    with pytest.raises(tooljson.MalformedEvent, match="goes back to"):
        ended.feed(
            chunk(
                [
                    {
                        "functionCall": {
                            "partialArgs": [{"jsonPath": "$.s", "stringValue": "c"}],
                            "willContinue": True,
                        }
                    }
                ]
            )
        )
    still_open = _opened({"jsonPath": "$.s", "stringValue": "ab", "willContinue": True})
    with pytest.raises(
        tooljson.MalformedEvent, match="a number value at a path whose string is still being written"
    ):
        still_open.feed(
            chunk(
                [
                    {
                        "functionCall": {
                            "partialArgs": [{"jsonPath": "$.s", "numberValue": 1}],
                            "willContinue": True,
                        }
                    }
                ]
            )
        )


def test_a_piece_for_a_call_never_opened_is_refused_and_a_stray_end_noted() -> None:
    accumulator = tooljson.ToolCallAccumulator()
    with pytest.raises(
        tooljson.MalformedEvent, match="a functionCall with partialArgs for a call that was never opened"
    ):
        accumulator.feed(
            chunk(
                [
                    {
                        "functionCall": {
                            "partialArgs": [{"jsonPath": "$.a", "numberValue": 1}],
                            "willContinue": True,
                        }
                    }
                ]
            )
        )
    with pytest.raises(tooljson.MalformedEvent, match="with args for a call that was never opened"):
        accumulator.feed(chunk([{"functionCall": {"args": {"a": 1}}}]))
    accumulator.feed(chunk([{"functionCall": {}}]))
    assert accumulator.blocks == [] and accumulator.warnings == [
        "candidate 0: an empty functionCall while no call is open: ignored"
    ]


def test_a_new_call_while_one_streams_ends_the_open_one_where_it_stands() -> None:
    accumulator = _opened({"jsonPath": "$.a", "stringValue": "par", "willContinue": True})
    done = accumulator.feed(chunk([{"functionCall": {"name": "g", "args": {"b": 2}}}]))
    assert [(call.name, call.status, call.raw_json) for call in done] == [
        ("f", "incomplete", '{"a":"par'),
        ("g", "complete", '{"b": 2}'),
    ]
    assert "began while call 0 was still streaming" in accumulator.warnings[0]


def test_sdk_objects_refuse_the_same_bad_paths() -> None:
    accumulator = tooljson.ToolCallAccumulator()
    accumulator.feed(sdk(chunk([{"functionCall": {"name": "f", "willContinue": True}}])))
    bad = sdk(
        chunk(
            [
                {
                    "functionCall": {
                        "partialArgs": [{"jsonPath": "$.a..b", "numberValue": 1}],
                        "willContinue": True,
                    }
                }
            ]
        )
    )
    with pytest.raises(tooljson.MalformedEvent, match=r"jsonPath '\$\.a\.\.b' at character 3"):
        accumulator.feed(bad)


@given(st.text(max_size=12))
@settings(max_examples=300)
def test_any_path_text_parses_or_is_refused_with_a_position(path: str) -> None:
    try:
        steps = json_path.parse_path(path)
    except json_path.ArgumentsError as error:
        assert error.position is not None and 0 <= error.position <= len(path)
    else:
        # What parses names the same place once written back in normal form.
        assert json_path.parse_path(json_path.path_text(steps)) == steps


# Paths from a few names and positions, so that random sequences meet, clash and go back often.
STEPS = st.sampled_from(["a", "b", "odd key", 0, 1, 2])
RANDOM_PIECES = st.lists(
    st.tuples(
        st.lists(STEPS, min_size=0, max_size=3),
        st.sampled_from(["stringValue", "numberValue", "boolValue", "nullValue", None]),
        st.booleans(),
    ),
    max_size=12,
)


@given(RANDOM_PIECES, st.booleans())
@settings(max_examples=300)
def test_random_pieces_are_taken_or_refused_and_the_text_is_always_a_valid_prefix(
    sequence: list[tuple[list[Any], str | None, bool]], objects: bool
) -> None:
    values = {"stringValue": 'x"é', "numberValue": 2.5, "boolValue": False, "nullValue": "NULL_VALUE"}
    accumulator = tooljson.ToolCallAccumulator()
    accumulator.feed(chunk([{"functionCall": {"name": "f", "willContinue": True}}]))
    (block,) = accumulator.blocks
    previews = [copy.deepcopy(accumulator.preview(block.index))]
    for steps, field, will_continue in sequence:
        piece: dict[str, Any] = {"jsonPath": path_of(tuple(steps), 1), "willContinue": will_continue}
        if field is not None:
            piece[field] = values[field]
        event = chunk([{"functionCall": {"partialArgs": [piece], "willContinue": True}}])
        before = accumulator.received(block)
        try:
            accumulator.feed(sdk(event) if objects else event)
        except tooljson.MalformedEvent:
            assert accumulator.received(block) == before
        assert accumulator.status(block.index).state == "incomplete"
        previews.append(copy.deepcopy(accumulator.preview(block.index)))
    (call,) = accumulator.feed(chunk([{"functionCall": {}}]))
    assert call.status == "complete" and json.loads(call.raw_json) == call.input
    for before_preview, after_preview in zip(previews, previews[1:]):
        assert_grows(before_preview, after_preview, whole_strings=False)
    assert_grows(previews[-1], call.input, whole_strings=False)


ANY_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=4),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=4), children, max_size=3)
    ),
    max_leaves=6,
)


def _shaped(draw: Callable[[Any], Any]) -> dict[str, Any]:
    """A chunk in Gemini's shape with any JSON value, of any type, in any of its fields."""

    def field(usual: Any) -> Any:
        return usual if draw(st.integers(0, 5)) else draw(ANY_JSON)

    piece = {
        name: field(value)
        for name, value in (
            ("jsonPath", draw(st.sampled_from(["$.a", "$.a[0]", "$['b']", "$"]))),
            ("stringValue", "x"),
            ("willContinue", True),
        )
    }
    call = {
        name: field(value)
        for name, value in (
            ("name", "f"),
            ("partialArgs", [piece]),
            ("willContinue", True),
            ("args", {"a": 1}),
        )
    }
    call = {name: value for name, value in call.items() if draw(st.booleans())}
    part = {
        name: field(value)
        for name, value in (("functionCall", call), ("text", "t"), ("thoughtSignature", "AA=="))
    }
    part = {name: value for name, value in part.items() if draw(st.booleans())}
    candidate = {
        "content": field({"role": "model", "parts": field([part])}),
        "index": field(0),
        "finishReason": field("STOP"),
    }
    candidate = {name: value for name, value in candidate.items() if draw(st.booleans())}
    return {"candidates": field([candidate]), "responseId": field("r"), "usageMetadata": field({})}


@given(st.data())
@settings(max_examples=200)
def test_any_chunk_of_the_wrong_shape_is_read_or_refused_as_a_malformed_event(data: st.DataObject) -> None:
    reader = tooljson.TurnReader()
    for _ in range(data.draw(st.integers(1, 4))):
        try:
            reader.feed(_shaped(data.draw))
        except tooljson.MalformedEvent:
            pass
    # Whatever was taken is a valid prefix, or whole arguments.
    for block in reader.blocks:
        state = block.call.status if block.call is not None else reader.accumulator.status(block.index).state
        assert state != "malformed"
    # And what the reader assembled can be read.
    assert (
        isinstance(reader.content, list)
        and isinstance(reader.assembler.usage, dict)
        and isinstance(reader.assembler.text, str)
    )
