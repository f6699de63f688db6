"""Block keys: any hashable object names a call, found exactly as the pure accumulator's dict finds it.

Anthropic streams key blocks by int index; other providers key calls by item id strings or by
``(choice, index)`` tuples. The pure accumulator keeps its buffers in dicts, so ``1``, ``1.0`` and
``True`` name the same call, huge ints and tuples work, and an unhashable key is a ``TypeError``.
"""

from __future__ import annotations

from typing import Any

import pytest
import tooljson
import tooljson.pure
from hypothesis import given, settings
from hypothesis import strategies as st

#: Keys that collide in interesting ways: equal across types, equal hashes, huge, containers.
KEYS: list[Any] = [
    0,
    1,
    1.0,
    True,
    False,
    0.0,
    -1,
    -2,
    2**70,
    2**64 + 1,
    "1",
    "item_abc",
    (0, 1),
    (0, 2),
    ("a",),
    None,
]


def run(target: Any, operation: str, *arguments: Any) -> tuple[Any, BaseException | None]:
    try:
        return getattr(target, operation)(*arguments), None
    except (KeyError, TypeError, ValueError) as error:
        return None, error


@st.composite
def scripts(draw: st.DrawFn) -> list[tuple[Any, ...]]:
    script: list[tuple[Any, ...]] = []
    for _ in range(draw(st.integers(1, 25))):
        key = draw(st.sampled_from(KEYS))
        operation = draw(st.sampled_from(["start", "add_delta", "add_delta", "finish"]))
        if operation == "start":
            script.append(("start", key, f"tool_{draw(st.integers(0, 3))}", "toolu_x"))
        elif operation == "add_delta":
            script.append(("add_delta", key, draw(st.sampled_from(["[", "1", ", ", "]", '"a', '"', "{}"]))))
        else:
            script.append(("finish", key))
    return script


@settings(max_examples=300)
@given(script=scripts())
def test_any_hashable_key_behaves_as_in_the_pure_accumulator(script: list[tuple[Any, ...]]) -> None:
    ours = tooljson.ToolCallAccumulator()
    reference = tooljson.pure.ToolCallAccumulator()
    for operation, *arguments in script:
        expected, expected_error = run(reference, operation, *arguments)
        got, error = run(ours, operation, *arguments)
        if expected_error is None:
            assert error is None, (operation, arguments, error)
            if operation == "finish":
                assert (got["name"], got["id"]) == (expected["name"], expected["id"])
                assert got["input"] == expected["input"]
        else:
            assert type(error) is type(expected_error) or isinstance(error, tooljson.JSONDecodeError)
            if isinstance(expected_error, KeyError):
                # The same message: the key exactly as passed.
                assert error is not None and error.args == expected_error.args


def test_equal_keys_of_other_types_name_the_same_call() -> None:
    accumulator = tooljson.ToolCallAccumulator()
    accumulator.start(1, "t", "toolu_1")
    accumulator.add_delta(1.0, "[1, ")
    accumulator.add_delta(True, "2]")
    assert accumulator.indices == [1]  # the first key given stays, as in a dict
    assert 1.0 in accumulator and True in accumulator
    assert accumulator.finish(True)["input"] == [1, 2]
    assert len(accumulator) == 0


def test_string_tuple_and_huge_int_keys() -> None:
    accumulator = tooljson.ToolCallAccumulator()
    keys: list[Any] = ["fc_12ab", (0, 1), (1, 0), 2**70]
    for number, key in enumerate(keys):
        accumulator.start(key, f"tool_{number}", f"toolu_{number}")
        accumulator.add_delta(key, f'{{"n": {number}}}')
    assert accumulator.indices == keys
    assert (0, 1) in accumulator and (0, 2) not in accumulator and 2**70 in accumulator
    assert accumulator.status((1, 0)).state == "complete"
    assert accumulator.text("fc_12ab") == '{"n": 0}'
    assert [accumulator.finish(key)["input"]["n"] for key in reversed(keys)] == [3, 2, 1, 0]
    with pytest.raises(KeyError) as raised:
        accumulator.finish((0, 1))
    assert raised.value.args == ((0, 1),)


def test_unhashable_key_is_a_type_error_as_in_a_dict() -> None:
    accumulator = tooljson.ToolCallAccumulator()
    with pytest.raises(TypeError, match="unhashable"):
        accumulator.start([0], "t", "toolu_0")
    with pytest.raises(TypeError, match="unhashable"):
        accumulator.add_delta({}, "[]")
    with pytest.raises(TypeError, match="unhashable"):
        [0] in accumulator  # noqa: B015 - the lookup is what is tested
    assert len(accumulator) == 0


def test_events_and_callbacks_carry_the_key_object() -> None:
    seen: list[Any] = []
    accumulator = tooljson.ToolCallAccumulator(on_event=lambda key, event: seen.append(key))
    accumulator.start(("choice", 0), "t", "toolu_0")
    accumulator.add_delta(("choice", 0), "[1]")
    accumulator.finish(("choice", 0))
    assert seen and all(key == ("choice", 0) for key in seen)
    pulled = tooljson.ToolCallAccumulator(events=True)
    pulled.start("item", "t", "toolu_0")
    pulled.add_delta("item", "[1]")
    pulled.finish("item")
    assert [event.kind for event in pulled.events("item")] == ["begin", "complete", "complete"]


class Key:
    """A hashable key whose equality is its own: calls Python code during the lookup."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __hash__(self) -> int:
        return hash(self.name)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Key) and other.name == self.name


def test_keys_with_their_own_equality() -> None:
    accumulator = tooljson.ToolCallAccumulator()
    accumulator.start(Key("a"), "t", "toolu_a")
    accumulator.add_delta(Key("a"), "{}")
    assert Key("a") in accumulator and Key("b") not in accumulator
    assert accumulator.finish(Key("a"))["input"] == {}


def test_subclasses_get_the_fast_add_delta_unless_they_define_their_own() -> None:
    # Every Python subclass has an add_delta of its own type (CPython specialises a C method call
    # only for instances of exactly the method's type), reading and raising as the base's does.
    assert "add_delta" in vars(tooljson.ToolCallAccumulator)
    accumulator = tooljson.ToolCallAccumulator()
    accumulator.start(0, "t", "toolu_0")
    accumulator.add_delta(0, "[1")
    accumulator.add_delta(index=0, fragment="]")
    assert accumulator.finish(0)["input"] == [1]
    with pytest.raises(TypeError):
        accumulator.add_delta(0)
    with pytest.raises(TypeError):
        accumulator.add_delta(0, 5)

    class Counting(tooljson.ToolCallAccumulator):
        def add_delta(self, index: Any, fragment: str) -> None:
            self.count = getattr(self, "count", 0) + 1
            super().add_delta(index, fragment)

    counting = Counting()
    counting.start(0, "t", "toolu_0")
    counting.add_delta(0, "{}")
    assert counting.count == 1
    assert counting.finish(0)["input"] == {}
