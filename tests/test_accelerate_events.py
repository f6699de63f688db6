"""The accelerated helper streams fed raw events in process, against the SDK's helper on the same events.

Generated documents under generated cuts (hypothesis), every split point of a text full of escapes
and numbers, every block type the helper derives events from, the JSONTestSuite corpus as tool input,
and the documented differences: numbers only complete, the live snapshot, the options.
"""

from __future__ import annotations

import copy
import json
import logging
import random
from typing import Any

import anyio
import pytest
from anthropic import NOT_GIVEN
from anthropic.lib.streaming import AsyncMessageStream, BetaMessageStream, MessageStream
from helper_streams import (
    AsyncListStream,
    ListStream,
    StreamRun,
    aconsume,
    assert_same_events,
    assert_snapshots_grow,
    consume,
    pieces,
    response_events,
    without_tool_inputs,
)
from helpers import assert_same_json, corpus_texts, has_duplicate_keys, json_outcome, same_json
from hypothesis import given, settings
from hypothesis import strategies as st
from test_differential import DOCUMENTS, fragmentations
from tooljson.acceleration.streams import (
    AcceleratedAsyncMessageStream,
    AcceleratedBetaMessageStream,
    AcceleratedMessageStream,
    StreamOptions,
)

CITATION = {
    "type": "char_location",
    "cited_text": "Lisbon is sunny",
    "document_index": 0,
    "document_title": "Notes",
    "start_char_index": 0,
    "end_char_index": 15,
    "file_id": None,
}
TEXT = {"type": "text", "text": "Looking it up: caf\u00e9 \U0001f680.", "citations": [CITATION, CITATION]}
THINKING = {
    "type": "thinking",
    "thinking": "The user wants the weather; call the tool.",
    "signature": "c2lnbmF0dXJl",
}
SEARCH_RESULT = {
    "type": "web_search_tool_result",
    "tool_use_id": "srvtoolu_1",
    "content": [
        {
            "type": "web_search_result",
            "title": "T",
            "url": "https://example.com",
            "encrypted_content": "e",
            "page_age": None,
        }
    ],
}
# Escapes cut anywhere, surrogate pairs, numbers that a cut could show half of, literals, nesting.
MIXED_INPUT = (
    '{"n": -12.5e3, "ok": true, "none": null, "big": 123456789012345678901234567890, '
    '"list": [1, [2, {"k": "v\\u00e9"}], false], "emoji": "\\ud83d\\ude80 caf\\u00e9", "path": "C:\\\\tmp\\n"}'
)


def tool(
    text: str, *, fragments: list[str] | None = None, kind: str = "tool_use", tool_id: str = "toolu_1"
) -> dict[str, Any]:
    name = "web_search" if kind == "server_tool_use" else "get_weather"
    return {"type": kind, "id": tool_id, "name": name, "text": text, "fragments": fragments}


def run_both(
    blocks: list[dict[str, Any]],
    stop_reason: str = "tool_use",
    *,
    beta: bool = False,
    options: StreamOptions | None = None,
    headers: dict[str, str] | None = None,
    seed: int = 0,
) -> tuple[StreamRun, StreamRun]:
    """The SDK's helper and the accelerated one, each on its own copy of the same raw events."""
    sdk_class, our_class = (
        (BetaMessageStream, AcceleratedBetaMessageStream)
        if beta
        else (MessageStream, AcceleratedMessageStream)
    )

    def events() -> ListStream:
        return ListStream(response_events(blocks, stop_reason, rng=random.Random(seed), beta=beta), headers)

    sdk = consume(sdk_class(events(), output_format=NOT_GIVEN))
    ours = consume(our_class(events(), NOT_GIVEN, options=options or StreamOptions()))
    return sdk, ours


def tool_input(run: StreamRun, index: int) -> Any:
    return run.final.content[index].input


def check_document(text: str, sdk: StreamRun, ours: StreamRun, index: int) -> None:
    """Whatever the text, the accelerated stream completes; its call is what json.loads says."""
    assert ours.error is None, ours.error
    expected = json_outcome(text if text else "{}")
    [call] = ours.stream.tool_calls
    if expected.accepted:
        assert call.ok and call.status == "complete"
        assert_same_json(tool_input(ours, index), expected.value)
        # A repeated key takes its new value, as json.loads gives it: the one documented exception.
        if isinstance(expected.value, dict) and not has_duplicate_keys(text):
            assert_snapshots_grow(ours, index, expected.value, whole_strings=True)
    else:
        assert not call.ok and ours.stream.turn.state(call) in ("incomplete", "malformed")
        snapshots = ours.block_snapshots(index)
        assert tool_input(ours, index) == (snapshots[-1] if snapshots else {})
    # Where the SDK reads the text as json.loads does, everything is the same; elsewhere (NaN, a
    # repeated key, a broken text) all but the tool input is, up to where the SDK gave up.
    same_input = sdk.error is None and expected.accepted and same_json(tool_input(sdk, index), expected.value)
    assert_same_events(sdk, ours, compare_blocks=same_input)
    if sdk.error is None and not same_input:
        assert without_tool_inputs(ours.final) == without_tool_inputs(sdk.final)


@settings(max_examples=200)
@given(data=st.data(), document=DOCUMENTS, beta=st.booleans())
def test_generated_documents_under_generated_cuts(data: st.DataObject, document: str, beta: bool) -> None:
    # Tool input is an object; the generated document sits inside one, whatever it is.
    text = data.draw(st.sampled_from(['{"value": %s}', '{"a": [], "value": %s, "z": 0}'])) % document
    fragments = data.draw(fragmentations(text))
    sdk, ours = run_both([TEXT, tool(text, fragments=fragments)], beta=beta)
    check_document(text, sdk, ours, 1)


def test_every_split_point() -> None:
    text = MIXED_INPUT
    for fragments in [[text[:cut], text[cut:]] for cut in range(len(text) + 1)] + [list(text)]:
        sdk, ours = run_both([tool(text, fragments=fragments)])
        check_document(text, sdk, ours, 0)


@pytest.mark.parametrize("beta", [False, True])
def test_every_block_type_the_helper_derives_events_from(beta: bool) -> None:
    blocks = [
        THINKING,
        TEXT,
        tool('{"query": "weather in Lisbon"}', kind="server_tool_use", tool_id="srvtoolu_1"),
        SEARCH_RESULT,
        tool(MIXED_INPUT),
        tool("", tool_id="toolu_2"),
    ]
    for seed in range(5):
        sdk, ours = run_both(blocks, beta=beta, seed=seed)
        assert sdk.error is None and ours.error is None
        assert_same_events(sdk, ours)
        kinds = {event.type for event in ours.events}
        assert {"thinking", "signature", "text", "citation", "input_json"} <= kinds
        assert [call.id for call in ours.stream.tool_calls] == ["srvtoolu_1", "toolu_1", "toolu_2"]
        assert tool_input(ours, 5) == {}


def test_mcp_tool_use_keeps_the_sdks_own_accumulation() -> None:
    text = '{"path": "/tmp/notes.md", "lines": [1, 20]}'
    sdk, ours = run_both([{**tool(text, kind="mcp_tool_use"), "id": "mcptoolu_1"}], beta=True)
    assert_same_events(sdk, ours)
    # Not parsed by tooljson: the same snapshots as the SDK's, partial numbers included.
    assert ours.snapshots == sdk.snapshots
    assert ours.stream.tool_calls == []


def test_a_malformed_input_does_not_stop_the_stream(caplog: pytest.LogCaptureFixture) -> None:
    broken = '{"city": "Lisbon", "note": "bad \\q escape", "unit": "celsius"}'
    blocks = [TEXT, tool(broken), tool('{"city": "Porto"}', tool_id="toolu_2"), TEXT]
    with caplog.at_level(logging.WARNING, logger="tooljson"):
        sdk, ours = run_both(blocks)
    assert isinstance(sdk.error, ValueError)
    assert ours.error is None
    assert_same_events(sdk, ours)
    assert [event.type for event in ours.events].count("content_block_stop") == 4
    assert ours.events[-1].type == "message_stop"
    bad, good = ours.stream.tool_calls
    assert ours.stream.turn.state(bad) == "malformed" and bad.error is not None
    assert bad.error.pos == broken.index("\\q") + 1
    assert tool_input(ours, 1) == {"city": "Lisbon"} == ours.block_snapshots(1)[-1]
    assert good.ok and tool_input(ours, 2) == {"city": "Porto"}
    [record] = caplog.records
    assert record.levelno == logging.WARNING and "toolu_1" in record.getMessage()
    assert f"malformed at position {bad.error.pos}" in record.getMessage()


@pytest.mark.parametrize(
    "fragments",
    [
        [" ", '{"city": "Lisbon"}'],  # a fragment of whitespace first: nothing to show yet
        ['{"note": "\\ud800 lone"}'],  # a lone surrogate escape, which json.loads keeps
    ],
    ids=["leading-whitespace", "lone-surrogate"],
)
def test_valid_inputs_the_sdk_helper_gives_up_on(fragments: list[str]) -> None:
    text = "".join(fragments)
    sdk, ours = run_both([tool(text, fragments=fragments), TEXT])
    assert isinstance(sdk.error, ValueError)
    assert ours.error is None
    assert_same_events(sdk, ours)
    assert_same_json(tool_input(ours, 0), json.loads(text))


@pytest.mark.parametrize(
    ("stop_reason", "verdict"), [("max_tokens", "truncated"), ("tool_use", "incomplete")]
)
def test_a_cut_off_input_is_truncated_only_at_max_tokens(
    stop_reason: str, verdict: str, caplog: pytest.LogCaptureFixture
) -> None:
    cut = MIXED_INPUT[: MIXED_INPUT.index('"emoji"') + 12]
    with caplog.at_level(logging.WARNING, logger="tooljson"):
        sdk, ours = run_both([tool(cut)], stop_reason)
    assert sdk.error is None and ours.error is None
    [call] = ours.stream.tool_calls
    assert call.status == "incomplete" and ours.stream.turn.state(call) == verdict
    assert tool_input(ours, 0) == ours.block_snapshots(0)[-1]
    assert "emoji" not in tool_input(ours, 0)
    assert without_tool_inputs(ours.final) == without_tool_inputs(sdk.final)
    [record] = caplog.records
    expected = "cut off at max_tokens" if verdict == "truncated" else "cut off with stop_reason 'tool_use'"
    assert expected in record.getMessage()


def test_corpus_texts_as_tool_input_never_raise_and_get_the_strict_verdict() -> None:
    rng = random.Random(7)
    for name, text in corpus_texts():
        fragments = pieces(text, rng, (1, 16))
        events = response_events([tool(text, fragments=fragments)], "tool_use")
        stream = AcceleratedMessageStream(ListStream(events), NOT_GIVEN, options=StreamOptions())
        # Iterated without copying snapshots: some corpus texts nest 100,000 arrays deep.
        kinds = [event.type for event in stream]
        assert kinds.count("input_json") == len(fragments) and kinds[-1] == "message_stop", name
        [call] = stream.tool_calls
        expected = json_outcome(text if text else "{}")
        assert call.ok == expected.accepted, name
        if expected.accepted:
            assert_same_json(stream.get_final_message().content[0].input, expected.value)


def test_numbers_appear_only_once_complete() -> None:
    text = '{"a": 12345, "b": [6789]}'
    fragments = ['{"a": 12', '345, "b": [67', "89]}"]
    sdk, ours = run_both([tool(text, fragments=fragments)])
    # The SDK shows the half-read number; tooljson waits for the character after it.
    assert [snapshot for _, snapshot in sdk.snapshots] == [
        {"a": 12},
        {"a": 12345, "b": [67]},
        json.loads(text),
    ]
    assert [snapshot for _, snapshot in ours.snapshots] == [{}, {"a": 12345, "b": []}, json.loads(text)]


def test_the_snapshot_is_the_live_value_and_stops_changing_at_block_stop() -> None:
    text = '{"city": "Lisbon", "days": [1, 2, 3]}'
    events = response_events([tool(text, fragments=list(text)), TEXT], "tool_use")
    stream = AcceleratedMessageStream(ListStream(events), NOT_GIVEN, options=StreamOptions())
    snapshots = [event.snapshot for event in stream if event.type == "input_json"]
    final = stream.get_final_message().content[0].input
    # Every event handed out the same object, filled in place: the first one shows the final value.
    assert all(snapshot is final for snapshot in snapshots[2:])
    assert snapshots[2] == json.loads(text)
    kept = copy.deepcopy(final)
    assert final == kept == json.loads(text)


@pytest.mark.parametrize("beta", [False, True])
def test_partial_strings_shows_growing_strings(beta: bool) -> None:
    text = '{"content": "' + "line of text\\n" * 20 + '", "path": "a.txt"}'
    default_sdk, default = run_both([tool(text)], beta=beta)
    sdk, growing = run_both([tool(text)], beta=beta, options=StreamOptions(partial_strings=True))
    final = json.loads(text)
    assert_snapshots_grow(default, 0, final, whole_strings=True)
    assert_snapshots_grow(growing, 0, final, whole_strings=False)
    shown = [snapshot.get("content", "") for _, snapshot in growing.snapshots]
    assert any(0 < len(part) < len(final["content"]) for part in shown)
    assert all(snapshot.get("content") in (None, final["content"]) for _, snapshot in default.snapshots)


def test_the_fine_grained_beta_header_shows_growing_strings_as_the_sdk_does() -> None:
    text = '{"content": "' + "word " * 40 + '"}'
    header = {"anthropic-beta": "fine-grained-tool-streaming-2025-05-14"}
    sdk, ours = run_both([tool(text)], beta=True, headers=header)
    _, told = run_both([tool(text)], beta=True, headers=header, options=StreamOptions(partial_strings=False))
    final = json.loads(text)
    for run in (sdk, ours):
        assert any(
            0 < len(snapshot.get("content", "")) < len(final["content"]) for _, snapshot in run.snapshots
        )
    assert_snapshots_grow(ours, 0, final, whole_strings=False)
    assert_snapshots_grow(told, 0, final, whole_strings=True)


def test_limits_make_a_malformed_verdict_not_an_exception() -> None:
    deep = '{"a": ' * 6 + "1" + "}" * 6
    sdk, ours = run_both([tool(deep), TEXT], options=StreamOptions(max_depth=4))
    assert ours.error is None and ours.events[-1].type == "message_stop"
    [call] = ours.stream.tool_calls
    assert ours.stream.turn.state(call) == "malformed" and isinstance(call.error, RecursionError)
    assert without_tool_inputs(ours.final) == without_tool_inputs(sdk.final)


def test_async_streams_yield_the_same_events() -> None:
    blocks = [THINKING, TEXT, tool(MIXED_INPUT), tool('{"x": tru', tool_id="toolu_2")]

    async def main() -> tuple[StreamRun, StreamRun]:
        def events() -> AsyncListStream:
            return AsyncListStream(response_events(blocks, "max_tokens", rng=random.Random(3)))

        sdk = await aconsume(AsyncMessageStream(events(), output_format=NOT_GIVEN))
        ours = await aconsume(AcceleratedAsyncMessageStream(events(), NOT_GIVEN, options=StreamOptions()))
        return sdk, ours

    sdk, ours = anyio.run(main)
    assert_same_events(sdk, ours, compare_blocks=False)
    assert without_tool_inputs(ours.final) == without_tool_inputs(sdk.final)
    assert [ours.stream.turn.state(call) for call in ours.stream.tool_calls] == ["complete", "truncated"]
