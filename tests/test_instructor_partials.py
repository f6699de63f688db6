"""tooljson's instructor partials against instructor's own, on the same pieces of text.

instructor's ``Partial[M].model_from_chunks`` and :class:`tooljson.acceleration.instructor.PartialBuilder`
read the same text cut the same way; every partial each one yields must be equal, and so must the end
(the validated object, or the same pydantic error). Where tooljson differs on purpose it is checked
too: a text cut off raises at the end instead of ending silently, and malformed text raises
:class:`tooljson.MalformedJSONError` in the piece that makes it so, at the first offending character.
"""

from __future__ import annotations

import json
from typing import Any, Literal, Optional

import pytest

pytest.importorskip("instructor")

import tooljson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from instructor import Partial
from pydantic import BaseModel, Field, ValidationError, field_validator
from tooljson.acceleration.instructor import PartialBuilder


class Tag(BaseModel):
    label: str
    weight: float = 1.0

    @field_validator("label")
    @classmethod
    def shout(cls, value: str) -> str:
        # Validation changes the value: a tag built without it is told apart from a validated one.
        return value.upper()


class Address(BaseModel):
    city: str
    zip: str | None = None


class Person(BaseModel):
    name: str
    age: int
    address: Address
    previous: Optional[Address] = None  # noqa: UP045 - instructor's own spelling is tested as well
    tags: list[Tag] = []
    nicknames: list[str] = Field(default_factory=list)
    scores: dict[str, int] = {}
    kind: Literal["a", "b"] = "a"
    matrix: list[list[int]] | None = None


# Strings without JSON's structural characters, so that a place between tokens can be found by eye;
# and strings with everything (escapes, non-ASCII, the C1 controls instructor strips).
PLAIN = st.text(
    alphabet=st.characters(codec="utf-8", exclude_characters=',:"\\{}[]', exclude_categories=("Cs", "Cc")),
    max_size=8,
)
ANY_TEXT = st.text(max_size=8)


def _people(text: st.SearchStrategy[str], *, invalid: bool = True) -> st.SearchStrategy[dict[str, Any]]:
    address = st.fixed_dictionaries({"city": text}, optional={"zip": st.none() | text})
    tag = st.fixed_dictionaries(
        {"label": text}, optional={"weight": st.floats(allow_nan=False, allow_infinity=False)}
    )
    age: st.SearchStrategy[Any] = st.integers(-(10**20), 10**20)
    kinds = ["a", "b"]
    if invalid:
        # Now and then a value of the wrong type: instructor raises pydantic's error where it validates.
        age = age | st.just("old")
        address = address | st.just({"zip": "1"})
        tag = tag | st.just({"weight": 2})
        kinds.append("c")
    return st.fixed_dictionaries(
        {"name": text, "age": age, "address": address},
        optional={
            "previous": st.none() | address,
            "tags": st.lists(tag, max_size=4),
            "nicknames": st.lists(text, max_size=3),
            "scores": st.dictionaries(text, st.integers(0, 99), max_size=3),
            "kind": st.sampled_from(kinds),
            "matrix": st.none() | st.lists(st.lists(st.integers(), max_size=3), max_size=3),
            "extra": st.lists(st.integers(), max_size=2),
        },
    )


def _dumped(value: Any, data: st.DataObject) -> str:
    style = data.draw(st.sampled_from(["compact", "spaced", "indented"]))
    ascii_only = data.draw(st.booleans())
    if style == "compact":
        return json.dumps(value, separators=(",", ":"), ensure_ascii=ascii_only)
    if style == "indented":
        return json.dumps(value, indent=2, ensure_ascii=ascii_only)
    return json.dumps(value, ensure_ascii=ascii_only)


def _cut(text: str, data: st.DataObject) -> list[str]:
    points = sorted(set(data.draw(st.lists(st.integers(0, len(text)), max_size=40))))
    bounds = [0, *points, len(text)]
    return [text[start:end] for start, end in zip(bounds, bounds[1:])]


def _instructors(model: type[BaseModel], chunks: list[str]) -> tuple[list[Any], BaseException | None]:
    yielded: list[Any] = []
    try:
        for partial in Partial[model].model_from_chunks(iter(chunks)):  # type: ignore[attr-defined]
            yielded.append(partial)
    except (ValidationError, ValueError) as error:
        return yielded, error
    return yielded, None


def _tooljsons(model: type[BaseModel], chunks: list[str]) -> tuple[list[Any], BaseException | None, Any]:
    builder = PartialBuilder(model, {})
    yielded: list[Any] = []
    try:
        for chunk in chunks:
            yielded.append(builder.feed(chunk))
        final = builder.finish(cut_off=False)
    except (ValidationError, ValueError) as error:
        return yielded, error, None
    return yielded, None, final


SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(st.data())
def test_every_partial_equals_instructors_and_the_end_is_the_same(data: st.DataObject) -> None:
    value = data.draw(_people(ANY_TEXT))
    chunks = _cut(_dumped(value, data), data)
    theirs, their_error = _instructors(Person, chunks)
    ours, our_error, final = _tooljsons(Person, chunks)
    assert ours == theirs
    assert type(our_error) is type(their_error)
    if their_error is None:
        assert final == Person.model_validate_json(
            "".join(chunks).translate(dict.fromkeys([*range(0x20), *range(0x7F, 0xA0)]))
        )
        assert final == theirs[-1]
    else:
        assert str(our_error) == str(their_error)


@SETTINGS
@given(st.data())
def test_a_text_cut_off_yields_instructors_partials_then_raises(data: st.DataObject) -> None:
    text = _dumped(data.draw(_people(ANY_TEXT)), data)
    end = data.draw(st.integers(0, len(text) - 1))
    while end and text[end - 1].isspace():
        end -= 1
    chunks = _cut(text[:end], data)
    theirs, their_error = _instructors(Person, chunks)
    ours, our_error, _ = _tooljsons(Person, chunks)
    if their_error is not None:
        # A nested model or list item already complete and invalid: both raise it, at the same piece.
        assert ours == theirs
        assert type(our_error) is type(their_error)
        return
    assert ours == theirs
    # instructor ends on the last partial; tooljson says the text is not whole.
    assert isinstance(our_error, tooljson.IncompleteJSONError)


@SETTINGS
@given(st.data())
def test_malformed_text_raises_in_its_piece_at_its_character(data: st.DataObject) -> None:
    text = json.dumps(data.draw(_people(PLAIN, invalid=False)))
    # A place between two members: after a ", " that no string holds (PLAIN strings have no comma).
    places = [index + 2 for index in range(len(text)) if text.startswith(", ", index)]
    if not places:
        places = [len(text) - 1]
    bad = data.draw(st.sampled_from(places))
    broken = text[:bad] + "#" + text[bad:]
    chunks = _cut(broken, data)
    theirs, their_error = _instructors(Person, chunks)
    ours, our_error, _ = _tooljsons(Person, chunks)
    assert isinstance(our_error, tooljson.MalformedJSONError)
    assert our_error.pos == bad
    # The text parsed: up to the end of that piece, without its trailing whitespace (held back).
    assert our_error.doc == broken[: len("".join(chunks[: len(ours) + 1]))].rstrip()
    # The piece holding the "#" is the one that raises; before it, the partials are instructor's.
    assert len("".join(chunks[: len(ours)])) <= bad < len("".join(chunks[: len(ours) + 1]))
    assert ours == theirs[: len(ours)]
    if their_error is not None and not isinstance(their_error, ValidationError):
        assert len(theirs) >= len(ours)


def test_an_empty_piece_yields_the_empty_partial_as_instructor_does() -> None:
    chunks = ["", "  ", '{"name": "A', '", "age": 3', ', "address": {"city": "X"}}']
    theirs, _ = _instructors(Person, chunks)
    ours, error, final = _tooljsons(Person, chunks)
    assert error is None
    assert ours == theirs
    assert ours[0] == Person.model_construct(
        name=None, age=None, address=Address.model_construct(city=None, zip=None)
    )
    assert final == Person(name="A", age=3, address=Address(city="X"))


def test_no_text_at_all_is_validated_as_an_empty_object() -> None:
    # instructor reads an empty text as "{}" (an anthropic tool call without arguments streams no
    # delta), but validates it only if some piece came; tooljson always does.
    with pytest.raises(ValidationError, match="Field required"):
        PartialBuilder(Person, {}).finish(cut_off=False)

    class Note(BaseModel):
        text: str | None = None

    assert PartialBuilder(Note, {}).finish(cut_off=False) == Note()


def test_no_text_at_the_token_limit_is_incomplete_output() -> None:
    from instructor.core.exceptions import IncompleteOutputException

    builder = PartialBuilder(Person, {})
    builder.feed("")
    with pytest.raises(IncompleteOutputException):
        builder.finish(cut_off=True)


def test_a_text_cut_off_raises_tooljsons_incomplete_error_at_its_end() -> None:
    builder = PartialBuilder(Person, {})
    builder.feed('{"name": "Ada", "age"')
    with pytest.raises(tooljson.IncompleteJSONError) as raised:
        builder.finish(cut_off=False)
    assert raised.value.pos == len('{"name": "Ada", "age"')


def test_a_complete_value_is_validated_once() -> None:
    calls: list[str] = []

    class Counted(BaseModel):
        label: str

        @field_validator("label")
        @classmethod
        def count(cls, value: str) -> str:
            calls.append(value)
            return value

    class Holder(BaseModel):
        items: list[Counted]

    text = json.dumps({"items": [{"label": str(n)} for n in range(50)]})
    builder = PartialBuilder(Holder, {})
    for character in text:
        builder.feed(character)
    final = builder.finish(cut_off=False)
    # Each item but the last once, as the next one begins (instructor's rule for "complete"), then
    # all of them once with the whole object; instructor validates every complete item again on
    # every piece.
    assert len(calls) == 49 + 50
    assert final == Holder.model_validate_json(text)


def test_the_validation_context_reaches_nested_models_as_in_instructor() -> None:
    seen: list[Any] = []

    class Inner(BaseModel):
        value: int

        @field_validator("value")
        @classmethod
        def look(cls, value: int, info: Any) -> int:
            seen.append(info.context)
            return value

    class Outer(BaseModel):
        inner: Inner
        after: int

    chunks = ['{"inner": {"value": 1}, ', '"after": 2', "}"]
    builder = PartialBuilder(Outer, {"context": {"who": "me"}})
    ours = [builder.feed(chunk) for chunk in chunks]
    theirs = list(Partial[Outer].model_from_chunks(iter(chunks), context={"who": "me"}))  # type: ignore[attr-defined]
    assert ours == theirs
    assert seen and all(context == {"who": "me"} for context in seen)


def test_whitespace_at_the_end_of_an_open_string_waits_for_what_follows_as_in_instructor() -> None:
    # instructor parses the text stripped, so a string still open loses its trailing spaces until
    # something else arrives (unicode spaces too).
    chunks = [
        '{"name": "Ada ',
        "\u3000",
        " ",
        'L"',
        ', "age": 1 ',
        " ",
        ', "address": {"city": "X \u00a0',
        '"}}',
        "  ",
    ]
    theirs, their_error = _instructors(Person, chunks)
    ours, our_error, final = _tooljsons(Person, chunks)
    assert their_error is None and our_error is None
    assert ours == theirs
    assert [partial.name for partial in ours[:4]] == ["Ada", "Ada", "Ada", "Ada \u3000 L"]
    assert final.address.city == "X \u00a0"
