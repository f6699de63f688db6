"""The framework adapters on hand-made items: keys, ends, odd pieces, and every split and interleaving
of LangChain chunks, whose message must be LangChain's own merge with the strict verdict on each call
(``json.loads`` of its joined arguments)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("langchain_core")
pytest.importorskip("pydantic_ai")

import tooljson
from helpers import assert_same_json, expected_input
from langchain_core.messages.ai import AIMessageChunk, add_ai_message_chunks
from tooljson.turn import TurnReader


def _chunk(
    *pieces: dict[str, Any], reason: str | None = None, last: bool = False, content: Any = ""
) -> AIMessageChunk:
    metadata = {"finish_reason": reason} if reason else {}
    return AIMessageChunk(
        content=content,
        tool_call_chunks=[{"type": "tool_call_chunk", **piece} for piece in pieces],
        response_metadata=metadata,
        chunk_position="last" if last else None,
    )


def test_langchain_pieces_without_index_are_keyed_by_id() -> None:
    reader = TurnReader()
    reader.feed(_chunk({"name": "a", "args": '{"x": ', "id": "c1", "index": None}))
    reader.feed(_chunk({"name": "b", "args": '{"y": ', "id": "c2", "index": None}))
    reader.feed(_chunk({"name": None, "args": "2}", "id": "c2", "index": None}))
    reader.feed(_chunk({"name": None, "args": "1}", "id": "c1", "index": None}, reason="tool_calls"))
    assert [(call.id, call.name, call.input) for call in reader.calls] == [
        ("c1", "a", {"x": 1}),
        ("c2", "b", {"y": 2}),
    ]


def test_langchain_last_chunk_ends_open_calls_and_the_next_chunk_begins_a_response() -> None:
    reader = TurnReader()
    reader.feed(_chunk({"name": "a", "args": '{"x": [1', "id": "c1", "index": 0}))
    ended = reader.feed(_chunk(last=True))
    assert [reader.state(call) for call in ended] == ["incomplete"]
    assert reader.accumulator.begins_response(_chunk())
    message = reader.message()
    assert message.tool_calls == [] and message.invalid_tool_calls[0]["error"].startswith("incomplete:")
    reader.feed(_chunk({"name": "b", "args": "{}", "id": "c2", "index": 0}, reason="stop", last=True))
    assert [(call.id, reader.state(call)) for call in reader.calls] == [("c2", "complete")]
    assert [call["id"] for call in reader.message().tool_calls] == ["c2"]


def test_langchain_arguments_that_are_not_an_object_are_invalid() -> None:
    reader = TurnReader()
    reader.feed(_chunk({"name": "a", "args": "[1, 2]", "id": "c1", "index": 0}, reason="stop", last=True))
    assert reader.state(reader.calls[0]) == "complete"
    assert reader.message().invalid_tool_calls[0]["error"] == "not a JSON object: the arguments are a list"


def test_langchain_message_needs_a_langchain_stream() -> None:
    with pytest.raises(ValueError, match="stream that gathers one message"):
        TurnReader().message()
    reader = TurnReader()
    reader.feed({"type": "message_start", "message": {"id": "m", "content": [], "usage": {}}})
    with pytest.raises(ValueError, match="stream that gathers one message"):
        reader.message()


def test_langchain_message_without_langchain_core_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from tooljson.providers import source

    reader = TurnReader()
    reader.feed(_chunk({"name": "a", "args": "{}", "id": "c1", "index": 0}, reason="stop", last=True))
    # A source checks its own modules (Source.require), by the check extras.missing uses too.
    monkeypatch.setattr(source, "_installed", lambda module: module != "langchain_core")
    with pytest.raises(
        tooljson.MissingExtra, match=r"needs langchain-core: pip install 'tooljson\[langchain\]'"
    ):
        reader.message()


def test_a_tuple_that_is_not_a_langgraph_pair_is_refused() -> None:
    with pytest.raises(TypeError, match="expected a LangChain message"):
        TurnReader().accumulator.feed((object(), {}))


def test_pydantic_ai_dict_arguments_taken_whole_and_replaced_starts() -> None:
    from pydantic_ai.messages import (
        PartDeltaEvent,
        PartEndEvent,
        PartStartEvent,
        TextPart,
        ToolCallPart,
        ToolCallPartDelta,
    )

    reader = TurnReader()
    reader.feed(PartStartEvent(index=0, part=TextPart(content="hi")))
    reader.feed(PartStartEvent(index=1, part=ToolCallPart(tool_name="f", args={"a": 1}, tool_call_id="t1")))
    reader.feed(PartDeltaEvent(index=1, delta=ToolCallPartDelta(args_delta={"b": "é"})))
    reader.feed(
        PartEndEvent(index=1, part=ToolCallPart(tool_name="f", args={"a": 1, "b": "é"}, tool_call_id="t1"))
    )
    reader.feed(PartStartEvent(index=2, part=ToolCallPart(tool_name="g", args='{"x', tool_call_id="t2")))
    # A second start for the open part replaces it: the first ends where it stood.
    reader.feed(PartStartEvent(index=2, part=ToolCallPart(tool_name="g", args="", tool_call_id="t3")))
    reader.feed(PartDeltaEvent(index=2, delta=ToolCallPartDelta(tool_name_delta="h", args_delta='{"y": 2}')))
    reader.feed(PartEndEvent(index=2, part=ToolCallPart(tool_name="gh", args='{"y": 2}', tool_call_id="t3")))
    reader.feed(PartDeltaEvent(index=5, delta=ToolCallPartDelta(args_delta="1")))
    states = [(call.key, call.id, call.name, call.input, reader.state(call)) for call in reader.calls]
    assert states == [
        ((0, 1), "t1", "f", {"a": 1, "b": "é"}, "complete"),
        ((0, 2), "t2", "g", None, "incomplete"),
        ((0, 2), "t3", "gh", {"y": 2}, "complete"),
    ]
    assert reader.warnings == ["a tool call delta for part 5, which is not an open call: ignored"]
    assert reader.content[0] == {"type": "text", "text": "hi"}


def test_pydantic_ai_a_restart_of_part_indexes_is_the_next_response() -> None:
    from pydantic_ai.messages import (
        PartDeltaEvent,
        PartEndEvent,
        PartStartEvent,
        TextPart,
        ToolCallPart,
        ToolCallPartDelta,
    )

    reader = TurnReader()
    reader.feed(PartStartEvent(index=0, part=TextPart(content="calling")))
    reader.feed(PartEndEvent(index=0, part=TextPart(content="calling")))
    reader.feed(PartStartEvent(index=1, part=ToolCallPart(tool_name="f", args='{"a": ', tool_call_id="t1")))
    ended = reader.feed(PartStartEvent(index=0, part=ToolCallPart(tool_name="f", args="", tool_call_id="t2")))
    # No end event came for the first response's call: it ends, cut off, when the next response begins.
    assert [(call.key, reader.state(call)) for call in ended] == [((0, 1), "incomplete")]
    assert reader.accumulator.is_invalid(ended[0]) and not reader.accumulator.is_truncated(ended[0])
    reader.feed(PartDeltaEvent(index=0, delta=ToolCallPartDelta(args_delta="{}")))
    assert reader.blocks[-1].key == (1, 0) and reader.accumulator.text(reader.blocks[-1].index) == "{}"


def test_pydantic_ai_origins_delimit_responses_and_replaced_attempts_are_dropped() -> None:
    messages = pytest.importorskip("pydantic_ai.messages")
    if not hasattr(messages, "ModelResponseOrigin"):
        pytest.skip("this pydantic-ai stamps no origin on its events (2.78 does)")
    from pydantic_ai.messages import (
        ModelResponseOrigin,
        PartDeltaEvent,
        PartEndEvent,
        PartStartEvent,
        TextPart,
        ToolCallPart,
        ToolCallPartDelta,
    )

    first = ModelResponseOrigin(run_id="r", run_step=1)
    retried = ModelResponseOrigin(run_id="r", run_step=1, attempt=2)
    next_step = ModelResponseOrigin(run_id="r", run_step=2)
    reader = TurnReader()
    # The first attempt is abandoned with both parts open: no end event, and its part 0 never ended.
    reader.feed(PartStartEvent(index=0, part=TextPart(content="calling"), origin=first))
    reader.feed(
        PartStartEvent(
            index=1, part=ToolCallPart(tool_name="f", args='{"a": ', tool_call_id="t1"), origin=first
        )
    )
    # Its replacement starts at part 0: another origin, so the next response (index 0 is still open in
    # the first one, which alone would read as a replacement of that part).
    ended = reader.feed(
        PartStartEvent(
            index=0, part=ToolCallPart(tool_name="f", args='{"a"', tool_call_id="t2"), origin=retried
        )
    )
    assert [(call.key, reader.state(call)) for call in ended] == [((0, 1), "incomplete")]
    # A late delta and end of the replaced attempt (a durable unit still publishing) are dropped.
    assert reader.feed(PartDeltaEvent(index=0, delta=ToolCallPartDelta(args_delta="1}"), origin=first)) == []
    assert reader.feed(PartEndEvent(index=0, part=TextPart(content="calling"), origin=first)) == []
    reader.feed(PartDeltaEvent(index=0, delta=ToolCallPartDelta(args_delta=": 2}"), origin=retried))
    [call] = reader.feed(
        PartEndEvent(
            index=0, part=ToolCallPart(tool_name="f", args='{"a": 2}', tool_call_id="t2"), origin=retried
        )
    )
    assert (call.key, call.id, call.input, reader.state(call)) == ((1, 0), "t2", {"a": 2}, "complete")
    # The next request step is the next response, though its part index (1) is above the highest one.
    reader.feed(
        PartStartEvent(
            index=1, part=ToolCallPart(tool_name="g", args="{}", tool_call_id="t3"), origin=next_step
        )
    )
    [call] = reader.feed(
        PartEndEvent(
            index=1, part=ToolCallPart(tool_name="g", args="{}", tool_call_id="t3"), origin=next_step
        )
    )
    assert (call.key, call.input) == ((2, 1), {})
    assert [block.key for block in reader.blocks] == [(0, 1), (1, 0), (2, 1)]
    assert reader.warnings == []


def test_pydantic_ai_arguments_of_another_type_are_a_malformed_event() -> None:
    from pydantic_ai.messages import PartDeltaEvent, PartStartEvent, ToolCallPart, ToolCallPartDelta

    reader = TurnReader()
    reader.feed(PartStartEvent(index=0, part=ToolCallPart(tool_name="f", args="", tool_call_id="t1")))
    with pytest.raises(tooljson.MalformedEvent, match="must be str or dict, not int"):
        reader.feed(PartDeltaEvent(index=0, delta=ToolCallPartDelta(args_delta=5)))  # type: ignore[arg-type]


# --- every split, every interleaving: the message against LangChain's merge, the calls against json.loads

_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=8,
)


@st.composite
def _chunk_streams(draw: st.DrawFn) -> tuple[list[AIMessageChunk], list[str]]:
    texts = []
    for _ in range(draw(st.integers(1, 3))):
        text = json.dumps(
            draw(st.dictionaries(st.text(max_size=4), _VALUES, max_size=3)), ensure_ascii=draw(st.booleans())
        )
        cut = draw(st.sampled_from(("whole", "cut", "broken")))
        if cut == "cut":
            text = text[: draw(st.integers(0, len(text) - 1))]
        elif cut == "broken":
            at = draw(st.integers(0, len(text)))
            text = text[:at] + draw(st.sampled_from(("}", "x", '"\\q"', ","))) + text[at:]
        texts.append(text)
    pieces: list[tuple[int, str]] = []
    for number, text in enumerate(texts):
        cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=6)))
        bounds = [0, *cuts, len(text)]
        pieces += [(number, text[a:b]) for a, b in zip(bounds, bounds[1:]) if b > a]
    order = draw(st.permutations(range(len(pieces))))
    # Each call's pieces keep their order: interleave by the permutation, stably per call.
    queue = {number: [piece for n, piece in pieces if n == number] for number in range(len(texts))}
    chunks = [
        _chunk(
            {"name": f"tool{number}", "args": "", "id": f"call{number}", "index": number},
            content=draw(st.text(max_size=3)),
        )
        for number in range(len(texts))
    ]
    for position in order:
        number = pieces[position][0]
        chunks.append(_chunk({"name": None, "args": queue[number].pop(0), "id": None, "index": number}))
    chunks.append(_chunk(reason=draw(st.sampled_from(("tool_calls", "length", "stop"))), last=True))
    return chunks, texts


@settings(max_examples=150, deadline=None)
@given(_chunk_streams())
def test_message_is_langchains_merge_with_strict_verdicts(
    stream: tuple[list[AIMessageChunk], list[str]],
) -> None:
    chunks, texts = stream
    reader = TurnReader()
    for chunk in chunks:
        reader.feed(chunk)
    merged = add_ai_message_chunks(chunks[0], *chunks[1:])
    message = reader.message()
    ours, theirs = message.model_dump(), merged.model_dump()
    for field in ("tool_calls", "invalid_tool_calls"):
        ours.pop(field), theirs.pop(field)
    assert ours == theirs
    valid = {call["id"]: call["args"] for call in message.tool_calls}
    invalid = {call["id"]: call for call in message.invalid_tool_calls}
    for number, text in enumerate(texts):
        oracle = expected_input(text)
        if oracle.accepted and isinstance(oracle.value, dict):
            assert_same_json(valid[f"call{number}"], oracle.value)
        else:
            assert invalid[f"call{number}"]["args"] == text and f"call{number}" not in valid
    assert len(valid) + len(invalid) == len(texts)


#: Ways a chunk carrying an argument piece can differ from its neighbours; message() joins runs of
#: pieces before LangChain's merge, which must not change what the merge gives in any of them.
_PIECE_VARIANTS = (
    "plain",
    "plain",
    "plain",
    "named",
    "with id",
    "kwargs",
    "usage",
    "metadata",
    "other provider",
    "no provider",
    "text block",
    "string content",
)


def _anthropic_piece(number: int, args: str, variant: str) -> AIMessageChunk:
    piece: dict[str, Any] = {
        "type": "tool_call_chunk",
        "name": None,
        "args": args,
        "id": None,
        "index": number + 1,
    }
    content: Any = [{"partial_json": args, "type": "input_json_delta", "index": number + 1}]
    fields: dict[str, Any] = {"response_metadata": {"model_provider": "anthropic"}, "id": "lc_run--1"}
    if variant == "named":
        piece["name"] = f"tool{number}"
    elif variant == "with id":
        piece["id"] = f"call{number}"
    elif variant == "kwargs":
        fields["additional_kwargs"] = {"note": args}
    elif variant == "usage":
        fields["usage_metadata"] = {"input_tokens": 1, "output_tokens": 2, "total_tokens": 3}
    elif variant == "metadata":
        fields["response_metadata"] = {"model_provider": "anthropic", "model_name": "m"}
    elif variant == "other provider":
        fields["response_metadata"] = {"model_provider": "other"}
    elif variant == "no provider":
        fields["response_metadata"] = {}
    elif variant == "text block":
        content = [{"text": args, "type": "text", "index": 0}]
    elif variant == "string content":
        content = ""
    return AIMessageChunk(content=content, tool_call_chunks=[piece], **fields)


@st.composite
def _anthropic_streams(draw: st.DrawFn) -> list[AIMessageChunk]:
    # The provider is named from the first chunk on, or only by the pieces.
    provider = draw(st.sampled_from(({"model_provider": "anthropic"}, {})))
    chunks = [AIMessageChunk(content=[], response_metadata={**provider, "model_name": "m"}, id="lc_run--1")]
    for number in range(draw(st.integers(1, 2))):
        start = {
            "type": "tool_use",
            "id": f"toolu_{number}",
            "name": f"tool{number}",
            "input": {},
            "index": number + 1,
        }
        piece = {
            "type": "tool_call_chunk",
            "name": f"tool{number}",
            "args": "",
            "id": f"toolu_{number}",
            "index": number + 1,
        }
        chunks.append(AIMessageChunk(content=[start], tool_call_chunks=[piece], response_metadata=provider))
        text = json.dumps(draw(st.dictionaries(st.text(max_size=4), _VALUES, max_size=3)))
        cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=8)))
        bounds = [0, *cuts, len(text)]
        for a, b in zip(bounds, bounds[1:]):
            chunks.append(_anthropic_piece(number, text[a:b], draw(st.sampled_from(_PIECE_VARIANTS))))
    stop = {"stop_reason": "tool_use", **provider}
    usage = {"input_tokens": 0, "output_tokens": 5, "total_tokens": 5}
    chunks.append(
        AIMessageChunk(content=[], response_metadata=stop, usage_metadata=usage, chunk_position="last")
    )
    return chunks


@settings(max_examples=200, deadline=None)
@given(_anthropic_streams())
def test_message_of_anthropic_chunks_is_langchains_merge(chunks: list[AIMessageChunk]) -> None:
    _assert_message_is_langchains_merge(chunks)


def test_message_keeps_the_provider_named_by_a_piece_after_one_without() -> None:
    start = {"type": "tool_use", "id": "toolu_0", "name": "tool0", "input": {}, "index": 1}
    piece = {"type": "tool_call_chunk", "name": "tool0", "args": "", "id": "toolu_0", "index": 1}
    chunks = [
        AIMessageChunk(content=[], id="lc_run--1"),
        AIMessageChunk(content=[start], tool_call_chunks=[piece], id="lc_run--1"),
        _anthropic_piece(0, '{"a": ', "no provider"),
        _anthropic_piece(0, "1}", "plain"),
        AIMessageChunk(content=[], response_metadata={"stop_reason": "tool_use"}, chunk_position="last"),
    ]
    _assert_message_is_langchains_merge(chunks)


def _assert_message_is_langchains_merge(chunks: list[AIMessageChunk]) -> None:
    """``message()`` equals LangChain's merge of ``chunks`` but for the verdicts of the calls."""
    reader = TurnReader()
    for chunk in chunks:
        reader.feed(chunk)
    try:
        merged = add_ai_message_chunks(chunks[0], *chunks[1:])
    except TypeError as error:
        # Pieces LangChain cannot merge (a text block where the tool's block sits) fail the same way.
        with pytest.raises(TypeError, match=str(error)):
            reader.message()
        return
    ours, theirs = reader.message().model_dump(), merged.model_dump()
    for field in ("tool_calls", "invalid_tool_calls"):
        ours.pop(field), theirs.pop(field)
    assert ours == theirs


NO_FRAMEWORK_IMPORT = """
import sys, types, tooljson
reader = tooljson.TurnReader()
chunk = types.SimpleNamespace(
    type="AIMessageChunk", content="", response_metadata={"stop_reason": "tool_use"}, chunk_position="last",
    tool_call_chunks=[{"name": "f", "args": '{"a": 1}', "id": "c1", "index": 0}],
)
reader.feed(chunk)
event = types.SimpleNamespace(event_kind="final_result", tool_name=None, tool_call_id=None)
reader.accumulator.feed(event)
assert [(call.name, call.input, reader.state(call)) for call in reader.calls] == [("f", {"a": 1}, "complete")]
print(sorted(name for name in sys.modules if name.startswith(("langchain", "pydantic_ai", "langgraph"))))
"""


def test_reading_imports_no_framework_and_patches_nothing() -> None:
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", NO_FRAMEWORK_IMPORT], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"
