"""The behaviour every source shares, tested over the registry: a source gets these tests by being registered.

Each source whose ``Source.streams`` names its stream builders (``tooljson.providers.<name>.streams``)
is fed the events of responses with given calls, as dicts and as its SDK's objects: the inputs are
``json.loads`` of the joined fragments whatever the cuts, the verdicts follow the source's own words
for the token limit, previews only grow, objects read as their dicts, ``invalid_json_result`` carries
the call's id and the raw text. Each source the stand-in speaks (``registry.SPOKEN``) is relayed by the
proxy byte for byte and recorded then replayed with the same calls.
"""

from __future__ import annotations

import copy
import importlib
import json
import urllib.request
from contextlib import closing
from types import ModuleType
from typing import Any

import pytest
import tooljson
from helper_streams import assert_grows
from helpers import assert_same_json, expected_input, split_at
from hypothesis import given, settings
from hypothesis import strategies as st
from test_differential import DOCUMENTS, fragmentations
from tooljson.providers.registry import SOURCES, SPOKEN, source
from tooljson.providers.source import Source

BUILT = [each for each in SOURCES if each.streams is not None]
"""The sources whose tests can build their streams."""
TEXTS = (
    '{"city": "S\\u00e3o Paulo", "unit": "celsius"}',
    '{"emoji": "\\ud83d\\ude80", "n": -12.5e-3, "ok": true, "none": null, "list": [1, [2, {"a": "b"}]]}',
)
# Arguments that are not always a JSON object: only for sources whose wire carries text.
ANY_TEXTS = (*TEXTS, '"just a string"', "[]")


def builders(each: Source) -> ModuleType:
    assert each.streams is not None
    return importlib.import_module(each.streams)


TEXT_SOURCES = [each for each in BUILT if builders(each).ARGUMENT_TEXT]
"""The sources whose wire carries a call's arguments as JSON text cut anywhere (any text can be sent)."""


def _ids(sources: list[Source]) -> list[str]:
    return [each.name for each in sources]


def events_of(each: Source, calls: list[list[str]], *, cut_off: bool = False, sdk: bool = False) -> list[Any]:
    made = builders(each)
    events = made.events(calls, cut_off=cut_off)
    if not sdk:
        return list(events)
    try:
        return list(made.as_sdk_objects(events))
    except ImportError as missing:
        pytest.skip(f"{each.name}'s SDK is not installed: {missing}")


def read(events: list[Any]) -> tooljson.TurnReader:
    reader = tooljson.TurnReader()
    for event in events:
        reader.feed(event)
    return reader


def _check_inputs(each: Source, texts: list[list[str]], *, sdk: bool) -> None:
    reader = read(events_of(each, texts, sdk=sdk))
    # A source whose events say no stop reason (pydantic-ai's) never says the response ended.
    assert reader.provider == each.name and reader.stopped == (builders(each).NORMAL_STOP is not None)
    assert len(reader.calls) == len(texts)
    for call, fragments in zip(sorted(reader.calls, key=lambda c: str(c.key)), texts):
        joined = "".join(fragments)
        assert call.provider == each.name and call.raw_json == joined
        expected = expected_input(joined)
        if expected.accepted:
            assert reader.state(call) == "complete", (call.error, joined)
            assert_same_json(call.input, expected.value)
        else:
            assert call.input is None and reader.state(call) in ("incomplete", "malformed")
            assert isinstance(call.error, ValueError)


@pytest.mark.parametrize("sdk", [False, True], ids=["dicts", "sdk-objects"])
@pytest.mark.parametrize("each", TEXT_SOURCES, ids=_ids(TEXT_SOURCES))
@settings(max_examples=60, deadline=None)
@given(data=st.data(), first=DOCUMENTS, second=DOCUMENTS)
def test_inputs_are_json_loads_of_the_joined_arguments(
    data: st.DataObject, each: Source, sdk: bool, first: str, second: str
) -> None:
    # Two calls in one response, each cut its own way: neither may leak into the other.
    _check_inputs(each, [data.draw(fragmentations(first)), data.draw(fragmentations(second))], sdk=sdk)


@pytest.mark.parametrize("text", ANY_TEXTS)
@pytest.mark.parametrize("each", TEXT_SOURCES, ids=_ids(TEXT_SOURCES))
def test_every_split_point_gives_the_same_input(each: Source, text: str) -> None:
    for cut in range(len(text) + 1):
        _check_inputs(each, [split_at(text, [cut]), [text]], sdk=cut % 2 == 1)


@pytest.mark.parametrize("each", BUILT, ids=_ids(BUILT))
def test_values_are_the_arguments_and_no_arguments_is_an_empty_object(each: Source) -> None:
    for sdk in (False, True):
        reader = read(events_of(each, [[], [TEXTS[0][:9], TEXTS[0][9:]], [TEXTS[1]]], sdk=sdk))
        assert [reader.state(call) for call in reader.calls] == ["complete"] * 3
        assert [call.input for call in reader.calls] == [{}, json.loads(TEXTS[0]), json.loads(TEXTS[1])]
        assert len({call.id for call in reader.calls}) == 3 and all(call.id for call in reader.calls)


@pytest.mark.parametrize("each", BUILT, ids=_ids(BUILT))
def test_a_call_cut_off_at_the_limit_is_truncated_never_invalid(each: Source) -> None:
    cut = TEXTS[0][:20]
    made = builders(each)
    if made.CUT_OFF_STOP is None:
        pytest.skip(f"{each.title}'s events say no stop reason: a cut-off call is never truncated")
    for sdk in (False, True):
        reader = read(events_of(each, [[TEXTS[1]], [cut[:9], cut[9:]]], cut_off=True, sdk=sdk))
        assert reader.stop_reason == made.CUT_OFF_STOP
        whole, last = sorted(reader.calls, key=lambda c: str(c.key))
        assert (reader.state(whole), reader.state(last)) == ("complete", "truncated")
        assert reader.accumulator.is_truncated(last) and not reader.accumulator.is_invalid(last)
        assert last.preview == {"city": "São P"}


@pytest.mark.parametrize("each", TEXT_SOURCES, ids=_ids(TEXT_SOURCES))
def test_unparsable_text_with_a_normal_stop_is_invalid_and_malformed_text_says_where(each: Source) -> None:
    made = builders(each)
    reader = read(events_of(each, [[TEXTS[0][:20]]]))
    assert reader.stop_reason == made.NORMAL_STOP
    (call,) = reader.calls
    assert reader.state(call) == "incomplete" and reader.accumulator.is_invalid(call)
    broken = TEXTS[0].replace("\\u00e3", "\\q")
    for cut_off in (False, True) if made.CUT_OFF_STOP is not None else (False,):
        reader = read(events_of(each, [[broken[:12], broken[12:]]], cut_off=cut_off, sdk=cut_off))
        (call,) = reader.calls
        assert reader.state(call) == "malformed" and call.error is not None
        assert call.error.pos == broken.index("\\q") + 1


@pytest.mark.parametrize("each", BUILT, ids=_ids(BUILT))
def test_previews_only_grow_toward_the_input(each: Source) -> None:
    text = '{"path": "a.txt", "content": "hello world", "n": [1, 2, {"deep": "er"}], "done": true}'
    fragments = [text[at : at + 7] for at in range(0, len(text), 7)]
    for sdk in (False, True):
        reader = tooljson.TurnReader()
        shown: list[Any] = []
        for event in events_of(each, [fragments], sdk=sdk):
            reader.feed(event)
            open_blocks = [block for block in reader.blocks if block.call is None]
            previews = [reader.accumulator.preview(block.index) for block in open_blocks]
            # None: nothing to show yet (no value begun).
            shown += [copy.deepcopy(preview) for preview in previews if preview is not None]
        (call,) = reader.calls
        assert len(shown) > 3
        for before, after in zip(shown, shown[1:]):
            assert_grows(before, after, whole_strings=False)
        for preview in shown:
            assert_grows(preview, call.input, whole_strings=False)
        assert call.input == json.loads(text)


@pytest.mark.parametrize("each", BUILT, ids=_ids(BUILT))
def test_sdk_objects_read_as_their_dicts(each: Source) -> None:
    calls = [[TEXTS[0][:5], TEXTS[0][5:]], [TEXTS[1][:30], TEXTS[1][30:]], [TEXTS[0][:11]]]
    for cut_off in (False, True):
        readers = [read(events_of(each, calls, cut_off=cut_off, sdk=sdk)) for sdk in (False, True)]

        def seen(reader: tooljson.TurnReader) -> list[Any]:
            return [
                (c.key, c.id, c.name, c.raw_json, c.status, c.input, reader.state(c), c.provider)
                for c in reader.calls
            ]

        assert seen(readers[0]) == seen(readers[1])
        assert [reader.stop_reason for reader in readers] == [readers[0].stop_reason] * 2
        assert readers[0].assembler.text == readers[1].assembler.text
        assert readers[0].stopped == readers[1].stopped == (builders(each).NORMAL_STOP is not None)


def _found(value: Any, wanted: Any) -> bool:
    """Whether ``wanted`` is ``value``, or inside it, or the JSON text of something that is."""
    if value == wanted:
        return True
    if isinstance(value, str):
        try:
            decoded = json.loads(value)
        except ValueError:
            return False
        return decoded != value and _found(decoded, wanted)
    if isinstance(value, dict):
        return any(_found(item, wanted) for item in value.values())
    if isinstance(value, list):
        return any(_found(item, wanted) for item in value)
    return False


@pytest.mark.parametrize("each", TEXT_SOURCES, ids=_ids(TEXT_SOURCES))
def test_invalid_json_results_carry_the_call_id_and_the_raw_text(each: Source) -> None:
    raw = '{"note": "a\\qb"}'
    (call,) = read(events_of(each, [[raw[:5], raw[5:]]], sdk=True)).calls
    try:
        result = tooljson.invalid_json_result(call)
    except ValueError as refused:
        pytest.skip(f"{each.title}'s framework sends the results: {refused}")
    assert result == source(call.provider).answer(
        call, json.dumps({"INVALID_JSON": raw}), True, {"INVALID_JSON": raw}
    )
    assert _found(result, call.id) and _found(result, {"INVALID_JSON": raw})


# --- the stand-in's APIs: relayed by the proxy, recorded and replayed

FAULTY = ("stream_error", "connection_drop")
# What the client's request said of its own bytes and connection: the test sends its own.
HOP_HEADERS = frozenset(
    {"content-length", "content-type", "host", "transfer-encoding", "connection", "accept-encoding"}
)
PLAYED = ("parallel_calls", "max_tokens", "invalid_json", *FAULTY)


def _scenarios(name: str) -> list[str]:
    from tooljson.standin import scenarios_for

    return [scenario for scenario in PLAYED if scenario in scenarios_for(name)]


@pytest.mark.parametrize("name", SPOKEN)
def test_the_proxy_relays_each_stand_in_api_byte_for_byte_and_reads_its_calls(name: str) -> None:
    from tooljson.proxy.serve import ProxyServer
    from tooljson.standin import StandInServer, get_scenario
    from tooljson.standin.clients import first_request, open_client, stream_events
    from tooljson.standin.wire import wire

    for module in wire(name).modules:
        pytest.importorskip(module)
    scenario = get_scenario("max_tokens")
    with StandInServer(scenario) as upstream, ProxyServer(upstream.base_url) as proxy:
        with closing(open_client(name, upstream.base_url)) as client:
            direct = read(list(stream_events(name, client, first_request(scenario, name))))
        sent = upstream.requests[-1]
        bodies = []
        for base in (upstream.base_url, proxy.url):
            post = urllib.request.Request(
                base + sent.path,
                data=json.dumps(sent.body).encode(),
                method="POST",
                headers={
                    "Content-Type": "application/json",
                    **{key: value for key, value in sent.headers.items() if key not in HOP_HEADERS},
                },
            )
            with urllib.request.urlopen(post, timeout=30) as answer:
                bodies.append(answer.read())
        assert bodies[0] == bodies[1] and bodies[0]
        proxy.settle()
        proxy.run.update()
        statuses = [(call.name, call.status) for call in proxy.run.calls]
    assert (
        statuses
        == [(call.name, direct.state(call)) for call in direct.calls]
        == [("write_note", "truncated")]
    )


def _summary(calls: list[Any]) -> list[tuple[Any, ...]]:
    return [
        (c.id, c.name, c.status, c.position, None if c.status == "interrupted" else c.message, c.value)
        for c in calls
    ]


@pytest.mark.parametrize("name", [each for each in SPOKEN if each != SPOKEN[0]])
def test_each_stand_in_api_recorded_then_replayed_gives_the_same_calls(name: str, tmp_path: Any) -> None:
    from tooljson.demo.runs import run_provider_scenario
    from tooljson.standin.wire import wire
    from tooljson.ui.model import RunView
    from tooljson.ui.playback import play_events
    from tooljson.ui.recording import load_events, write_events

    for module in wire(name).modules:
        pytest.importorskip(module)
    for scenario in _scenarios(name):
        events: list[dict[str, Any]] = []
        recorded = RunView()
        run_provider_scenario(name, scenario, recorded, on_raw_event=events.append)
        path = tmp_path / f"{name}-{scenario}.jsonl"
        with path.open("w", encoding="utf-8") as out:
            write_events(events, out)
        replayed = RunView()
        play_events(load_events(path), replayed)
        assert _summary(replayed.calls) == _summary(recorded.calls), scenario
        assert replayed.final_text == recorded.final_text, scenario
        assert (replayed.failure is None) == (recorded.failure is None) == (scenario not in FAULTY), scenario


@pytest.mark.parametrize("each", TEXT_SOURCES, ids=_ids(TEXT_SOURCES))
def test_preview_status_and_events_per_call_as_for_the_accumulators_own_calls(each: Source) -> None:
    text = '{"path": "a.txt", "content": "hello", "n": [1, 2]}'
    fragments = [text[:12], text[12:30], text[30:44], text[44:]]

    def shown(accumulator: tooljson.ToolCallAccumulator, index: Any) -> tuple[Any, ...]:
        # The preview is the value under construction: a copy keeps what it showed then.
        status = accumulator.status(index)
        events = [(event.kind, event.pointer, event.value) for event in accumulator.events(index)]
        return (
            copy.deepcopy(accumulator.preview(index)),
            accumulator.open_path(index),
            status.state,
            status.pos,
            events,
        )

    direct = tooljson.ToolCallAccumulator(events=True)
    direct.start(0, "tool_0", "call_0")
    expected = [shown(direct, 0)]
    for fragment in fragments:
        direct.add_delta(0, fragment)
        expected.append(shown(direct, 0))
    accumulator = tooljson.ToolCallAccumulator(events=True)
    seen = []
    for event in events_of(each, [fragments]):
        accumulator.feed(event)
        seen += [
            shown(accumulator, block.index)
            for block in accumulator.blocks
            if accumulator.open_call(block.key) is block
        ]
    # One entry per event while the call is open: its start, then each fragment.
    assert seen == expected
