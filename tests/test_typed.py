"""Typed partial results: differential against pydantic on generated models and documents.

For generated models (nested models, optional fields, lists, enums, literals, constrained strings and
numbers, discriminated unions) and generated documents cut at random places: ``finish()`` gives what
``Model.model_validate_json`` gives (or raises the same errors); every partial value holds exactly the
complete values, each equal to the final one, and only grows; a field that fails validation is
reported after the very fragment that completes it.
"""

from __future__ import annotations

import enum
import itertools
import json
import random
from typing import Annotated, Any, Literal

import pytest
import tooljson
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field, ValidationError, create_model
from tooljson.typed.partials import partial_model
from tooljson.typed.schema_checks import pydantic_errors

_names = itertools.count()


class Color(enum.Enum):
    red = "red"
    green = "green"


class Cat(BaseModel):
    kind: Literal["cat"]
    lives: int = Field(ge=0, le=9)


class Dog(BaseModel):
    kind: Literal["dog"]
    bark: str = Field(min_length=2)


# A field spec: (annotation, make a valid value, make an invalid value or None, is the type opaque).
Spec = tuple[Any, Any, Any]


def _leaf_specs() -> list[Spec]:
    return [
        (str, lambda r: r.choice(["", "a", "Grüße ✓", 'q"uote\\', "x" * r.randint(0, 40)]), lambda r: 5),
        (
            Annotated[str, Field(min_length=2, max_length=6)],
            lambda r: "ab" + "c" * r.randint(0, 4),
            lambda r: "x" * 9,
        ),
        (Annotated[str, Field(pattern=r"^[a-z]+$")], lambda r: "abc"[: r.randint(1, 3)], lambda r: "ABC"),
        (
            Annotated[int, Field(ge=0, le=100)],
            lambda r: r.randint(0, 100),
            lambda r: r.choice([-1, 101, "7"]),
        ),
        (Annotated[float, Field(gt=-1e6)], lambda r: r.uniform(-100, 100), lambda r: -1e7),
        (bool, lambda r: r.random() < 0.5, lambda r: "maybe"),
        (Color, lambda r: r.choice(["red", "green"]), lambda r: "blue"),
        (Literal["a", "b"], lambda r: r.choice(["a", "b"]), lambda r: "c"),
        (int | None, lambda r: None if r.random() < 0.5 else r.randint(-5, 5), lambda r: "x"),
        (
            Annotated[Cat | Dog, Field(discriminator="kind")],
            lambda r: (
                {"kind": "cat", "lives": r.randint(0, 9)}
                if r.random() < 0.5
                else {"kind": "dog", "bark": "woof"}
            ),
            lambda r: {"kind": "cat", "lives": 12},
        ),
    ]


def make_model(rng: random.Random, depth: int = 0) -> tuple[type[BaseModel], Any, Any]:
    """A model, a function making a valid document for it, and one making a document with one bad field."""
    leaves = _leaf_specs()
    fields: dict[str, Any] = {}
    makers: dict[str, tuple[Any, Any]] = {}
    for position in range(rng.randint(1, 5)):
        name = f"f{position}"
        choice = rng.random()
        if depth < 2 and choice < 0.2:
            inner, make_inner, make_bad_inner = make_model(rng, depth + 1)
            fields[name] = (inner, ...)
            makers[name] = (make_inner, make_bad_inner)
        elif depth < 2 and choice < 0.35:
            inner, make_inner, make_bad_inner = make_model(rng, depth + 1)
            fields[name] = (list[inner], ...)  # type: ignore[valid-type]
            makers[name] = (
                lambda r, m=make_inner: [m(r) for _ in range(r.randint(0, 4))],
                lambda r, m=make_inner, b=make_bad_inner: [m(r), b(r), m(r)],
            )
        elif choice < 0.45:
            annotation, make, bad = rng.choice(leaves)
            fields[name] = (list[annotation], ...)  # type: ignore[valid-type]
            makers[name] = (
                lambda r, m=make: [m(r) for _ in range(r.randint(0, 5))],
                lambda r, m=make, b=bad: [m(r), b(r)],
            )
        else:
            annotation, make, bad = rng.choice(leaves)
            fields[name] = (annotation, ...)
            makers[name] = (make, bad)
    model = create_model(f"Generated{next(_names)}", **fields)

    def valid(r: random.Random) -> dict[str, Any]:
        return {name: make(r) for name, (make, _) in makers.items()}

    def invalid(r: random.Random) -> dict[str, Any]:
        document = valid(r)
        name = r.choice(list(makers))
        document[name] = makers[name][1](r)
        return document

    return model, valid, invalid


def raised_by(model: type[BaseModel], text: str) -> ValidationError:
    try:
        model.model_validate_json(text)
    except ValidationError as error:
        return error
    raise AssertionError("valid")


def cuts(text: str, rng: random.Random) -> list[str]:
    pieces, at = [], 0
    while at < len(text):
        size = rng.choice([1, 1, 2, 3, 7, 16])
        pieces.append(text[at : at + size])
        at += size
    return pieces


def on_open_path(path: tuple[Any, ...], open_path: tuple[Any, ...] | None) -> bool:
    return open_path is not None and open_path[: len(path)] == path


def _dump(value: Any) -> Any:
    """A model, or a list of them, as plain data (what a partial and its final value compare as)."""
    if isinstance(value, BaseModel):
        return value.model_dump()
    if isinstance(value, list):
        return [item.model_dump() if isinstance(item, BaseModel) else item for item in value]
    return value


def check_partial(
    partial: Any, preview: Any, final: Any, open_path: tuple[Any, ...] | None, path: tuple[Any, ...] = ()
) -> None:
    """``partial`` holds exactly the complete values of ``preview``, each equal to ``final``'s."""
    if isinstance(partial, BaseModel):
        assert isinstance(preview, dict)
        shown = set(partial.model_fields_set)
        for key, value in preview.items():
            child = (*path, key)
            if on_open_path(child, open_path):
                sub = getattr(partial, key)
                if isinstance(sub, (BaseModel, list)):
                    check_partial(sub, value, getattr(final, key), open_path, child)
                    shown.discard(key)
                else:
                    assert key not in shown or isinstance(sub, str), (child, sub)
                    if isinstance(sub, str):
                        assert getattr(final, key).startswith(sub)
                    shown.discard(key)
                continue
            assert key in shown, f"complete field {child} not shown"
            shown.discard(key)
            expected = getattr(final, key)
            actual = getattr(partial, key)
            assert _dump(actual) == _dump(expected), child
        assert not shown, f"fields shown that are not complete: {shown} at {path}"
    elif isinstance(partial, list):
        assert isinstance(preview, list)
        complete = len(preview)
        if preview and on_open_path((*path, len(preview) - 1), open_path):
            complete -= 1
            if len(partial) > complete:
                item = partial[complete]
                if isinstance(item, (BaseModel, list)):
                    check_partial(item, preview[complete], final[complete], open_path, (*path, complete))
                else:
                    assert isinstance(item, str) and final[complete].startswith(item)
        for position in range(complete):
            item, expected = partial[position], final[position]
            if isinstance(item, BaseModel):
                check_partial(item, preview[position], expected, None, (*path, position))
            else:
                assert item == expected, (*path, position)


def snapshot(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return (type(value).__name__, {k: snapshot(getattr(value, k)) for k in value.model_fields_set})
    if isinstance(value, list):
        return [snapshot(item) for item in value]
    return (type(value).__name__, value)


def grows_from(before: Any, after: Any) -> bool:
    """Nothing shown before disappears or changes type; strings only grow; lists only grow."""
    if isinstance(before, list):
        return (
            isinstance(after, list)
            and len(after) >= len(before)
            and all(grows_from(b, a) for b, a in zip(before, after))
        )
    kind, value = before
    if not isinstance(after, tuple) or after[0] != kind:
        return False
    if isinstance(value, dict):
        return all(key in after[1] and grows_from(item, after[1][key]) for key, item in value.items())
    if isinstance(value, str):
        return after[1].startswith(value)
    return bool(after[1] == value or value != value)


@settings(max_examples=120, deadline=None)
@given(seed=st.integers(0, 2**32))
def test_valid_documents_stream_into_the_validated_model(seed: int) -> None:
    rng = random.Random(seed)
    model, valid, _ = make_model(rng)
    text = json.dumps(valid(rng), ensure_ascii=rng.random() < 0.5)
    final = model.model_validate_json(text)
    parser = tooljson.Parser(model=model)
    plain = tooljson.Parser()
    before = None
    for piece in cuts(text, rng):
        parser.feed(piece)
        plain.feed(piece)
        partial = parser.partial()
        assert isinstance(partial, partial_model(model))
        preview = plain.preview()
        if preview is not None:
            check_partial(partial, preview, final, plain.open_path())
        now = snapshot(partial)
        assert before is None or grows_from(before, now), (before, now)
        before = now
        assert parser.errors == []
    result = parser.finish()
    assert type(result) is model
    assert result.model_dump() == final.model_dump()
    assert parser.partial().model_dump(exclude_unset=True) == final.model_dump(exclude_unset=True)


@settings(max_examples=120, deadline=None)
@given(seed=st.integers(0, 2**32))
def test_a_bad_field_is_reported_after_the_fragment_that_completes_it(seed: int) -> None:
    rng = random.Random(seed)
    model, _, invalid = make_model(rng)
    text = json.dumps(invalid(rng))
    try:
        model.model_validate_json(text)
    except ValidationError as error:
        expected = error.errors(include_url=False)
    else:
        assume(False)  # the mutation happened to make a valid document
    # pydantic's errors, named by JSON Pointer into the document.
    due = {
        (e.pointer, e.type)
        for e in pydantic_errors(raised_by(model, text), (), json.loads(text))
        if e.pointer
    }
    parser = tooljson.Parser(model=model)
    witness = tooljson.Parser(events=True)
    completed: set[str] = set()
    for piece in cuts(text, rng):
        parser.feed(piece)
        witness.feed(piece)
        completed |= {event.pointer for event in witness.events() if event.kind == "complete"}
        reported = {(found.pointer, found.type) for found in parser.errors}
        # Every early error names a value that is complete by now...
        assert all(pointer in completed for pointer, _ in reported), (reported, completed)
        # ...and every error of a value complete by now is reported by now.
        assert {(pointer, kind) for pointer, kind in due if pointer in completed} <= reported, (due, reported)
    early = {(error.pointer, error.type) for error in parser.errors}
    with pytest.raises(ValidationError) as raised:
        parser.finish()
    assert raised.value.errors(include_url=False) == expected
    final = {(error.pointer, error.type) for error in parser.errors}
    assert early <= final
    # The reported field errors include every error pydantic gives that names a leaf value.
    assert early, "no error was reported before the end"


def test_early_verdict_at_the_completing_fragment() -> None:
    class Ticket(BaseModel):
        title: str
        priority: Literal["low", "high"]
        estimate: int = Field(ge=0)

    seen: list[Any] = []
    parser = tooljson.Parser(model=Ticket, on_error=seen.append)
    parser.feed('{"title": "Login fails", "priority": "urgent')
    assert parser.errors == [] and seen == []
    parser.feed('"')
    [error] = parser.errors
    assert (error.pointer, error.type, error.input) == ("/priority", "literal_error", "urgent")
    assert seen == [error]
    parser.feed(', "estimate": -3')
    assert len(parser.errors) == 1  # a number is complete once the character after it arrives
    parser.feed("}")
    assert [e.pointer for e in parser.errors] == ["/priority", "/estimate"]
    assert parser.partial().title == "Login fails" and parser.partial().priority is None


def test_growing_strings_are_shown_unless_hidden() -> None:
    class Note(BaseModel):
        title: str
        tags: list[str] = []
        code: Annotated[str, Field(pattern="^[A-Z]+$")]

    shown = tooljson.Parser(model=Note)
    hidden = tooljson.Parser(model=Note, partial_strings=False)
    for parser in (shown, hidden):
        parser.feed('{"title": "Stream')
    assert shown.partial().title == "Stream" and hidden.partial().title is None
    shown.feed('ing", "tags": ["a", "bc')
    assert shown.partial().tags == ["a", "bc"]
    shown.feed('d"], "code": "AB')
    # A constrained string appears only once complete and valid.
    assert shown.partial().tags == ["a", "bcd"] and shown.partial().code is None
    shown.feed('C"}')
    assert shown.partial().code == "ABC"
    assert shown.finish() == Note(title="Streaming", tags=["a", "bcd"], code="ABC")


def test_extra_fields_follow_the_model() -> None:
    class Strict(BaseModel, extra="forbid"):
        a: int

    class Loose(BaseModel):
        a: int

    strict, loose = tooljson.Parser(model=Strict), tooljson.Parser(model=Loose)
    for parser in (strict, loose):
        parser.feed('{"a": 1, "b": 2, ')
    assert [(e.pointer, e.type) for e in strict.errors] == [("/b", "extra_forbidden")]
    assert loose.errors == []


def test_malformed_text_raises_what_pydantic_raises() -> None:
    class A(BaseModel):
        a: int

    parser = tooljson.Parser(model=A)
    with pytest.raises(tooljson.MalformedJSONError):
        parser.feed('{"a": 1}}')
    with pytest.raises(ValidationError) as raised:
        parser.finish()
    with pytest.raises(ValidationError) as direct:
        A.model_validate_json('{"a": 1}}')
    assert raised.value.errors(include_url=False) == direct.value.errors(include_url=False)


def test_schema_gives_the_same_early_verdicts() -> None:
    schema = {
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "days": {"type": "integer", "minimum": 1, "maximum": 7},
            "units": {"enum": ["c", "f"]},
        },
        "required": ["city"],
        "additionalProperties": False,
    }
    parser = tooljson.Parser(schema=schema)
    parser.feed('{"city": "Paris", "days": 9,')
    assert [(e.pointer, e.type) for e in parser.errors] == [("/days", "maximum")]
    parser.feed(' "units": "k", "x": 1}')
    assert [(e.pointer, e.type) for e in parser.errors] == [
        ("/days", "maximum"),
        ("/units", "enum"),
        ("/x", "additionalProperties"),
    ]
    assert parser.finish() == {"city": "Paris", "days": 9, "units": "k", "x": 1}


def test_accumulator_models_per_tool_name() -> None:
    class Weather(BaseModel):
        city: str
        days: int = Field(ge=1, le=7)

    seen: list[tuple[Any, Any]] = []
    acc = tooljson.ToolCallAccumulator(
        models={"get_weather": Weather}, on_error=lambda i, e: seen.append((i, e.pointer))
    )
    acc.start(0, "get_weather", "t0")
    acc.start(1, "other", "t1")
    acc.add_delta(0, '{"city": "Oslo", "days": 9')
    acc.add_delta(1, '{"days": 9')
    acc.add_delta(0, "}")
    assert acc.errors(0)[0].pointer == "/days" and seen == [(0, "/days")]
    with pytest.raises(KeyError):
        acc.errors(1)
    acc.add_delta(1, "}")
    assert acc.finish(0) == {"name": "get_weather", "id": "t0", "input": {"city": "Oslo", "days": 9}}
    assert acc.finish(1)["input"] == {"days": 9}


def test_feed_gives_the_parsed_model_on_the_tool_call() -> None:
    class Weather(BaseModel):
        city: str

    events = [
        {"type": "message_start", "message": {"usage": {}}},
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "tool_use", "id": "t", "name": "get_weather", "input": {}},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": '{"city": "Li'},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": 'ma"}'},
        },
        {"type": "content_block_stop", "index": 0},
    ]
    acc = tooljson.ToolCallAccumulator(models={"get_weather": Weather})
    partials = []
    calls = []
    for event in events:
        calls += acc.feed(event)
        if 0 in acc:
            partials.append(acc.partial(0).city)
    assert partials == [None, "Li", "Lima"]
    [call] = calls
    assert call.parsed == Weather(city="Lima") and call.input == {"city": "Lima"}


def test_typed_parser_passes_the_structural_events_on() -> None:
    class A(BaseModel):
        a: list[int]

    pulled = tooljson.Parser(model=A, events=True)
    pushed: list[Any] = []
    callback = tooljson.Parser(model=A, on_event=pushed.append)
    plain = tooljson.Parser(events=True)
    for parser in (pulled, callback, plain):
        parser.feed('{"a": [1, 2]')
        parser.feed("}")
        parser.finish()
    assert pulled.events() == plain.events() == pushed
    with pytest.raises(ValueError, match="events are off"):
        tooljson.Parser(model=A).events()


def test_construction_refuses_what_cannot_work() -> None:
    class A(BaseModel):
        a: int

    with pytest.raises(TypeError, match="BaseModel"):
        tooljson.Parser(model=dict)
    with pytest.raises(TypeError, match="either"):
        tooljson.Parser(model=A, schema={})
    with pytest.raises(TypeError, match="on_error"):
        tooljson.Parser(on_error=print)
    with pytest.raises(TypeError, match="BaseModel"):
        tooljson.ToolCallAccumulator(models={"a": dict})
    assert isinstance(tooljson.Parser(model=A), tooljson.Parser)
    assert type(tooljson.Parser()) is tooljson.Parser
    with pytest.raises(TypeError, match="^on_error needs models= to validate against$"):
        tooljson.ToolCallAccumulator(on_error=print)
    with pytest.raises(TypeError, match="^on_error must be callable, not int$"):
        tooljson.ToolCallAccumulator(models={"a": A}, on_error=1)
    with pytest.raises(TypeError, match="^on_event must be callable, not int$"):
        tooljson.ToolCallAccumulator(models={"a": A}, on_event=1)
    with pytest.raises(TypeError, match="unexpected keyword argument 'model'"):
        tooljson.ToolCallAccumulator(model=A)


def test_events_are_routed_to_the_typed_side_only_before_a_block_opens() -> None:
    class A(BaseModel):
        a: int

    accumulator = tooljson.ToolCallAccumulator()
    accumulator.add_delta(0, "{")
    with pytest.raises(ValueError, match="before the first block opens"):
        accumulator._route_events(print)
    with pytest.raises(TypeError, match="callable"):
        tooljson.ToolCallAccumulator()._route_events(1)
    # With models and a callback of the caller's, both are served: the typed partial and every event.
    seen: list[Any] = []
    typed = tooljson.ToolCallAccumulator(
        models={"f": A}, on_event=lambda index, event: seen.append(event.kind)
    )
    typed.start(0, "f", "id")
    typed.add_delta(0, '{"a": 1}')
    assert typed.partial(0).a == 1
    assert typed.finish(0)["input"] == {"a": 1}
    assert seen[0] == "begin" and seen[-1] == "complete"


def test_import_tooljson_does_not_import_pydantic() -> None:
    import subprocess
    import sys

    code = "import sys, tooljson; tooljson.Parser(); print('pydantic' in sys.modules, 'jsonschema' in sys.modules)"
    assert subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split() == ["False", "False"]
