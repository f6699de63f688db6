"""Events of the wrong shape, for every registered source: a valid stream with one event mutated (a
field dropped, given another type, nested one level too deep, a list cut short, an object's attribute
replaced) is read or refused with :class:`tooljson.MalformedEvent`, never with an error leaking from
an adapter (``AttributeError``, ``TypeError``, ``KeyError``, ``IndexError``, a bare ``ValueError``),
and in time linear in the stream."""

from __future__ import annotations

import copy
import time
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("langchain_core")
pytest.importorskip("pydantic_ai")
pytest.importorskip("google.genai")

import tooljson
from helper_streams import response_events
from langchain_core.messages.ai import AIMessageChunk
from provider_streams import as_sdk_objects, stream
from pydantic_ai.messages import (
    PartDeltaEvent,
    PartEndEvent,
    PartStartEvent,
    TextPart,
    TextPartDelta,
    ToolCallPart,
    ToolCallPartDelta,
)
from test_gemini_feed import partial_args, sdk, streamed_call
from tooljson.errors import is_event
from tooljson.providers import registry

CALLS = [['{"city": "Pa', 'ris"}'], ["[1, ", "2]"]]


def _anthropic(objects: bool) -> list[Any]:
    blocks = [
        {"type": "text", "text": "Calling."},
        {"type": "tool_use", "id": "toolu_1", "name": "f", "text": "", "fragments": CALLS[0]},
        {"type": "tool_use", "id": "toolu_2", "name": "g", "text": "", "fragments": CALLS[1]},
    ]
    events = response_events(blocks, "tool_use")
    return events if objects else [event.to_dict() for event in events]


def _provider(name: str) -> Callable[[bool], list[Any]]:
    def build(objects: bool) -> list[Any]:
        events = stream(name, CALLS)
        return as_sdk_objects(name, events) if objects else events

    return build


def _gemini(objects: bool) -> list[Any]:
    pieces = partial_args({"path": "a.txt", "lines": [1, 2]}, lambda length: [length // 2])
    events = streamed_call(pieces, [1, 2], call_id="call_1")
    return [sdk(event) for event in events] if objects else events


def _namespaces(value: Any) -> Any:
    """A look-alike of ``value``: dicts become SimpleNamespace objects, all the way down."""
    if isinstance(value, dict):
        return SimpleNamespace(**{key: _namespaces(item) for key, item in value.items()})
    if isinstance(value, list):
        return [_namespaces(item) for item in value]
    return value


def _agents(objects: bool) -> list[Any]:
    events: list[Any] = [{"type": "agent_updated_stream_event", "new_agent": None}]
    events += [{"type": "raw_response_event", "data": event} for event in stream("responses", CALLS)]
    events.append({"type": "run_item_stream_event", "name": "tool_called", "item": None})
    return [_namespaces(event) for event in events] if objects else events


def _langchain(objects: bool) -> list[Any]:
    pieces = [
        [{"name": "f", "args": CALLS[0][0], "id": "c1", "index": 0}],
        [{"name": None, "args": CALLS[0][1], "id": None, "index": 0}],
        [{"name": "g", "args": CALLS[1][0], "id": "c2", "index": 1}],
        [{"name": None, "args": CALLS[1][1], "id": None, "index": 1}],
        [],
    ]
    chunks = []
    for number, chunk_pieces in enumerate(pieces):
        last = number == len(pieces) - 1
        fields = {
            "type": "AIMessageChunk",
            "content": "",
            "tool_call_chunks": [{"type": "tool_call_chunk", **piece} for piece in chunk_pieces],
            "response_metadata": {"finish_reason": "tool_calls"} if last else {},
            "chunk_position": "last" if last else None,
        }
        if objects:
            chunks.append(AIMessageChunk(**{key: value for key, value in fields.items() if key != "type"}))
        else:
            chunks.append(SimpleNamespace(**fields))
    return chunks


def _pydantic_ai(objects: bool) -> list[Any]:
    events: list[Any] = [
        PartStartEvent(index=0, part=TextPart(content="Calling.")),
        PartDeltaEvent(index=0, delta=TextPartDelta(content_delta=" now")),
        PartEndEvent(index=0, part=TextPart(content="Calling. now")),
        PartStartEvent(index=1, part=ToolCallPart(tool_name="f", args=CALLS[0][0], tool_call_id="t1")),
        PartDeltaEvent(index=1, delta=ToolCallPartDelta(args_delta=CALLS[0][1])),
        PartEndEvent(index=1, part=ToolCallPart(tool_name="f", args="".join(CALLS[0]), tool_call_id="t1")),
        PartStartEvent(index=2, part=ToolCallPart(tool_name="g", args={"a": 1}, tool_call_id="t2")),
        PartDeltaEvent(index=2, delta=ToolCallPartDelta(args_delta={"b": 2}, tool_name_delta="h")),
        PartEndEvent(index=2, part=ToolCallPart(tool_name="gh", args={"a": 1, "b": 2}, tool_call_id="t2")),
    ]
    if objects:
        return events
    # Look-alikes, as duck-typed callers make them, stamped with an origin (pydantic-ai 2.78 does).
    origin = {"run_id": "r", "run_step": 1, "attempt": 1, "execution_attempt": 1}
    alike = []
    for event in events:
        fields = {key: value for key, value in vars(event).items() if key not in ("part", "delta")}
        inner = getattr(event, "part", None) or getattr(event, "delta", None)
        fields["part" if hasattr(event, "part") else "delta"] = SimpleNamespace(**vars(inner))
        alike.append(SimpleNamespace(**fields, origin=SimpleNamespace(**origin)))
    return alike


# The valid streams of every registered source, each as plain data (dicts, or look-alike objects
# where the source reads objects) and as the objects its SDK or framework makes.
STREAMS: dict[str, Callable[[bool], list[Any]]] = {
    "langchain": _langchain,
    "pydantic-ai": _pydantic_ai,
    "openai-agents": _agents,
    "responses": _provider("responses"),
    "openai": _provider("openai"),
    "bedrock": _provider("bedrock"),
    "gemini": _gemini,
    "anthropic": _anthropic,
}

WRONG_VALUES: tuple[Any, ...] = (None, 7, -1, True, 2.5, "x", "", [], [1], {}, {"x": 1})
_LEAVES = (str, int, float, bool, type(None))


def _places(value: Any, path: tuple[Any, ...] = (), depth: int = 0) -> list[tuple[Any, ...]]:
    """Every place inside ``value`` (a key of a dict, an item of a list, an attribute of an object)."""
    if depth > 6 or isinstance(value, _LEAVES):
        return []
    if isinstance(value, dict):
        children = list(value.items())
    elif isinstance(value, list):
        children = list(enumerate(value))
    elif hasattr(value, "__dict__") and not isinstance(value, type):
        children = [(key, item) for key, item in vars(value).items() if not key.startswith("_")]
    else:
        return []
    found = []
    for key, item in children:
        found.append((*path, key))
        found += _places(item, (*path, key), depth + 1)
    return found


def _holder(event: Any, path: tuple[Any, ...]) -> Any:
    for key in path[:-1]:
        event = event[key] if isinstance(event, (dict, list)) else vars(event)[key]
    return event


def _get(holder: Any, key: Any) -> Any:
    return holder[key] if isinstance(holder, (dict, list)) else vars(holder)[key]


def _set(holder: Any, key: Any, value: Any) -> None:
    if isinstance(holder, (dict, list)):
        holder[key] = value
    else:
        # Past any validation or freezing: the object an SDK would never make, and a look-alike could.
        vars(holder)[key] = value


def _mutate(event: Any, path: tuple[Any, ...], operation: str, wrong: Any) -> str:
    """Change ``event`` in place at ``path``; say what was done."""
    holder = _holder(event, path)
    key = path[-1]
    where = ".".join(str(step) for step in path)
    if operation == "drop":
        if isinstance(holder, (dict, list)):
            del holder[key]
        else:
            del vars(holder)[key]
        return f"dropped {where}"
    if operation == "nest":
        _set(holder, key, [_get(holder, key)] if isinstance(wrong, list) else {"value": _get(holder, key)})
        return f"nested {where}"
    if operation == "truncate":
        value = _get(holder, key)
        if isinstance(value, (list, str)) and value:
            _set(holder, key, value[: len(value) // 2])
            return f"truncated {where}"
    _set(holder, key, copy.deepcopy(wrong))
    return f"set {where} to {wrong!r}"


FORMS = [(name, objects) for name in registry.NAMES for objects in (False, True)]


def _feed_all(feed: Callable[[Any], Any], events: list[Any]) -> tuple[int, BaseException | None]:
    """Feed ``events`` until one is refused; which one, and the error (``None``: all were read)."""
    for at, event in enumerate(events):
        try:
            feed(event)
        except tooljson.MalformedEvent as error:
            return at, error
        except TypeError as error:
            # The documented refusal of what is no event at all: an object without a ``type``.
            if is_event(event) or not str(error).startswith("expected a"):
                raise
            return at, error
    return len(events), None


def _names(message: str, event: Any, path: tuple[Any, ...]) -> bool:
    """Whether ``message`` names a field on ``path``, or the event (its type or class), or what it
    looked like when no source recognises it any more."""
    if "is no registered source's event" in message:
        return True
    kind = event.get("type") if isinstance(event, dict) else getattr(event, "type", None)
    if isinstance(kind, str) and kind in message or type(event).__name__ in message:
        return True
    # The field changed, one holding it, or (a change that makes the event mean another thing: a new
    # response id, and so a piece of a call never opened) another field of the event, that it names.
    steps = {step for place in (path, *_places(event)) for step in place if isinstance(step, str)}
    return any(step in message or step.rstrip("s") in message for step in steps)


@pytest.mark.parametrize("name", registry.NAMES)
def test_every_source_has_valid_streams_that_read_without_error(name: str) -> None:
    if name not in STREAMS:
        pytest.fail(f"no valid stream for source {name!r}: add one to STREAMS")
    for objects in (False, True):
        events = STREAMS[name](objects)
        reader = tooljson.TurnReader()
        reader.feed_all(events)
        assert reader.provider == name
        assert reader.calls, (name, objects)


@pytest.mark.parametrize(("name", "objects"), FORMS)
# An SDK object given a field of another type warns when it is dumped; it is read all the same.
@pytest.mark.filterwarnings("ignore:Pydantic serializer warnings")
@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_mutated_event_is_read_or_refused_as_a_malformed_event(
    name: str, objects: bool, data: st.DataObject
) -> None:
    if name not in STREAMS:
        pytest.fail(f"no valid stream for source {name!r}: add one to STREAMS")
    events = STREAMS[name](objects)
    at = data.draw(st.integers(0, len(events) - 1), label="event")
    places = _places(events[at])
    if not places:
        return
    path = data.draw(st.sampled_from(places), label="path")
    operation = data.draw(st.sampled_from(["drop", "wrong", "nest", "truncate"]), label="operation")
    wrong = data.draw(st.sampled_from(WRONG_VALUES), label="wrong")
    events[at] = copy.deepcopy(events[at])
    done = _mutate(events[at], path, operation, wrong)
    for reader in (tooljson.TurnReader, tooljson.ToolCallAccumulator):
        sink = reader().feed
        started = time.perf_counter()
        try:
            refused, error = _feed_all(sink, events)
        except Exception as leaked:
            raise AssertionError(
                f"{name} ({'objects' if objects else 'plain'}) through {reader.__name__}, event {at}: {done}: "
                f"{type(leaked).__name__}: {leaked}"
            ) from leaked
        assert time.perf_counter() - started < 2.0, (name, done)
        if error is not None:
            message = str(error)
            assert message.strip() and len(message) < 1000, (done, message)
            if isinstance(error, tooljson.MalformedEvent) and refused == at:
                # The event changed is refused naming the field changed, or one that holds it. (A later
                # event may be refused instead: a delta for the call whose start was changed.)
                assert _names(message, events[at], path), (done, message)
