"""Typed partial results: a pydantic model's partial value after every delta, against the ways people
get one today.

Group ``typed partial``: the ~100 KB records stream (a list of small models), deltas of 1 to 32
characters, a typed partial value wanted after every delta:

- ``tooljson``: ``Parser(model=Records)``, ``feed`` then ``partial()`` (each field validated once, as it
  completes);
- ``pydantic-partial``: the joined text re-validated after every delta with
  ``TypeAdapter(Records).validate_json(text, experimental_allow_partial="trailing-strings")``;
- ``jiter+validate``: the joined text re-parsed with ``jiter.from_json(..., partial_mode="trailing-strings")``
  and the result validated by the model's all-optional partial form (``model_validate``), the recipe of
  libraries that offer a ``Partial[Model]``.

The re-validating approaches cost the whole text after every delta (quadratic); tooljson's total is
linear: ``tooljson`` also runs on the 1 MB records. Run as a script (``python benches/bench_typed.py``)
it prints paired ratios, timed in interleaved rounds.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from typing import Any, Optional

import command_line
import jiter
import pytest
import tooljson
from pydantic import BaseModel, TypeAdapter
from tooljson.typed.partials import partial_model
from workloads import describe, paired_ratios, workload


class Address(BaseModel):
    city: str
    zip: str


class Record(BaseModel):
    id: int
    name: str
    email: str
    score: float
    active: bool
    manager: Optional[int] = None  # noqa: UP045 - the way most models spell it
    tags: list[str] = []
    address: Address
    note: Optional[str] = None  # noqa: UP045


class Records(BaseModel):
    records: list[Record]


ADAPTER = TypeAdapter(Records)
PARTIAL_RECORDS = partial_model(Records)


def tooljson_partial(fragments: Sequence[str]) -> Any:
    parser = tooljson.Parser(model=Records)
    feed, partial = parser.feed, parser.partial
    value = None
    for piece in fragments:
        feed(piece)
        value = partial()
    parser.finish()
    return value


def pydantic_partial(fragments: Sequence[str]) -> Any:
    text = ""
    value = None
    for piece in fragments:
        text += piece
        try:
            value = ADAPTER.validate_json(text, experimental_allow_partial="trailing-strings")
        except ValueError:
            pass  # a prefix missing a required field does not validate yet
    return value


def jiter_validate(fragments: Sequence[str]) -> Any:
    buffer = b""
    value = None
    for piece in fragments:
        buffer += piece.encode()
        value = PARTIAL_RECORDS.model_validate(jiter.from_json(buffer, partial_mode="trailing-strings"))
    return value


IMPLEMENTATIONS: dict[str, Callable[[Sequence[str]], Any]] = {
    "tooljson": tooljson_partial,
    "pydantic-partial": pydantic_partial,
    "jiter+validate": jiter_validate,
}
# Quadratic approaches at 1 MB take minutes per round.
SLOW = {"pydantic-partial", "jiter+validate"}


@pytest.mark.parametrize("name", ["records", "records_1mb"])
@pytest.mark.parametrize("implementation", list(IMPLEMENTATIONS))
def test_typed_partial(benchmark: Any, implementation: str, name: str) -> None:
    if implementation in SLOW and (name != "records" or benchmark.disabled):
        pytest.skip("re-validates the whole text after every delta: minutes at this size, seconds untimed")
    data = workload(name)
    describe(benchmark, "typed", f"typed partial: {name}", name, "random", implementation)
    fragments = data.fragments["random"]
    value = benchmark(IMPLEMENTATIONS[implementation], fragments)
    expected = Records.model_validate_json(data.text)
    assert value.model_dump(exclude_unset=True, exclude_none=True) == expected.model_dump(
        exclude_unset=True, exclude_none=True
    )


def _quartiles(values: list[float]) -> str:
    return f"{statistics.median(values):.3f}× [{values[len(values) // 4]:.3f}–{values[3 * len(values) // 4]:.3f}]"


def main() -> None:
    records = workload("records").fragments["random"]
    cases = {label: (function, records) for label, function in IMPLEMENTATIONS.items()}
    ratios = paired_ratios(cases, "tooljson", rounds=command_line.rounds(5, __doc__).rounds)
    print("typed partial after every delta, 100 KB records, CPU time over tooljson's (median [quartiles]):")
    for label in cases:
        print(f"  {label}: {_quartiles(ratios[label])}")
    big = workload("records_1mb").fragments["random"]
    growth = paired_ratios(
        {"100 KB": (tooljson_partial, records), "1 MB": (tooljson_partial, big)}, "100 KB", rounds=5
    )
    print(f"tooljson from 100 KB to 1 MB: {_quartiles(growth['1 MB'])} the time (10x the text)")


if __name__ == "__main__":
    main()
