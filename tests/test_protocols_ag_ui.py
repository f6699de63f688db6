"""AG-UI events from any source: the package's own models, in order, with the verdict event."""

from __future__ import annotations

import asyncio
import json
import random
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from helpers import random_splits
from provider_streams import PROVIDERS, as_sdk_objects, stream
from test_protocols_ai_sdk import RECORDS, messages_events

core = pytest.importorskip("ag_ui.core")
encoder = pytest.importorskip("ag_ui.encoder")

from tooljson.protocols import ag_ui  # noqa: E402


def read(events: Any) -> list[Any]:
    got = list(ag_ui.events(events, thread_id="t-1", run_id="r-1"))
    # Every event is the package's own model and its encoder writes it.
    writer = encoder.EventEncoder()
    for event in got:
        assert isinstance(event, core.BaseEvent)
        frame = writer.encode(event)
        assert frame.startswith("data: ") and frame.endswith("\n\n")
        json.loads(frame[len("data: ") :])
    return got


def kinds(got: list[Any]) -> list[str]:
    return [event.type.value for event in got]


def args_of(got: list[Any], call_id: str) -> str:
    return "".join(
        e.delta for e in got if isinstance(e, core.ToolCallArgsEvent) and e.tool_call_id == call_id
    )


def test_text_and_calls_in_order() -> None:
    events = messages_events([random_splits(RECORDS, random.Random(1), 30), ['{"q": 1}']], text="Looking.")
    got = read(events)
    # Runs of one kind (the pieces of a text or of a call's arguments) counted once.
    runs = [kind for n, kind in enumerate(kinds(got)) if n == 0 or kinds(got)[n - 1] != kind]
    assert runs == [
        "RUN_STARTED",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "TOOL_CALL_START",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_END",
        "TOOL_CALL_START",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_END",
        "RUN_FINISHED",
    ]
    assert got[0].thread_id == "t-1" and got[0].run_id == "r-1"
    assert "".join(e.delta for e in got if isinstance(e, core.TextMessageContentEvent)) == "Looking."
    assert args_of(got, "toolu_0") == RECORDS
    assert args_of(got, "toolu_1") == '{"q": 1}'
    starts = [e for e in got if isinstance(e, core.ToolCallStartEvent)]
    assert [s.tool_call_name for s in starts] == ["tool_0", "tool_1"]
    assert starts[0].parent_message_id == got[1].message_id


@pytest.mark.parametrize("provider", PROVIDERS)
def test_every_provider(provider: str) -> None:
    texts = [RECORDS, "{}"]
    got = read(
        as_sdk_objects(provider, stream(provider, [random_splits(t, random.Random(2), 12) for t in texts]))
    )
    starts = [e for e in got if isinstance(e, core.ToolCallStartEvent)]
    assert [args_of(got, s.tool_call_id) for s in starts] == texts
    assert kinds(got)[-1] == "RUN_FINISHED"
    assert not [e for e in got if isinstance(e, core.CustomEvent)]


def verdicts(got: list[Any]) -> list[dict[str, Any]]:
    return [e.value for e in got if isinstance(e, core.CustomEvent) and e.name == ag_ui.VERDICT_EVENT]


def test_cut_off_call_gets_a_truncated_verdict_after_its_end() -> None:
    text = RECORDS[:200]
    got = read(messages_events([random_splits(text, random.Random(3), 7)], stop="max_tokens"))
    (verdict,) = verdicts(got)
    assert verdict["toolCallId"] == "toolu_0" and verdict["verdict"] == "truncated"
    assert verdict["position"] == len(text)
    assert "token limit" in verdict["message"]
    position = kinds(got).index("CUSTOM")
    assert kinds(got)[position - 1] == "TOOL_CALL_END"
    assert kinds(got)[-1] == "RUN_FINISHED"


def test_malformed_call_names_the_position() -> None:
    got = read(messages_events([['{"a": 1,', ', "b": 2}']]))
    (verdict,) = verdicts(got)
    assert verdict["verdict"] == "malformed" and verdict["position"] == 8


def test_a_broken_stream_ends_with_run_error() -> None:
    events = messages_events([random_splits(RECORDS, random.Random(1), 40)])

    def broken() -> Iterator[Any]:
        yield from events[:10]
        raise TimeoutError("read timed out")

    got = read(broken())
    assert kinds(got)[-1] == "RUN_ERROR"
    assert "read timed out" in got[-1].message
    (verdict,) = verdicts(got)
    assert verdict["verdict"] == "interrupted"


def test_an_event_of_the_wrong_shape_ends_with_run_error_naming_it() -> None:
    events = messages_events([['{"a": ', "1}"]])
    got = read([*events[:2], None, *events[2:]])
    assert kinds(got)[-1] == "RUN_ERROR"
    assert "event 3" in got[-1].message and "NoneType" in got[-1].message


def test_async_events() -> None:
    events = messages_events([random_splits(RECORDS, random.Random(4), 20)])

    async def upstream() -> Any:
        for event in events:
            yield event

    async def collect() -> list[Any]:
        return [e async for e in ag_ui.aevents(upstream(), thread_id="t", run_id="r")]

    got = asyncio.run(collect())
    assert args_of(got, "toolu_0") == RECORDS
    assert kinds(got)[-1] == "RUN_FINISHED"


def test_without_the_package_one_clear_error() -> None:
    script = (
        "import sys; sys.modules['ag_ui'] = None\n"
        "from tooljson.protocols import ag_ui\n"
        "try:\n"
        "    ag_ui.events([], thread_id='t', run_id='r')\n"
        "except ImportError as error:\n"
        "    print(error)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == (
        "tooljson.protocols.ag_ui needs ag-ui-protocol: pip install 'tooljson[ag-ui]'"
    ), done.stdout + done.stderr
