"""Options are checked when the object is made, with messages that name the option."""

from __future__ import annotations

from typing import Any

import pytest
import tooljson


@pytest.mark.parametrize("make", [tooljson.Parser, tooljson.ToolCallAccumulator])
@pytest.mark.parametrize("option", ["max_depth", "max_size", "preview_string_limit"])
def test_a_negative_count_is_a_value_error_naming_the_option(make: Any, option: str) -> None:
    with pytest.raises(ValueError, match=f"^{option} must be a non-negative integer$"):
        make(**{option: -1})


@pytest.mark.parametrize("option", ["max_depth", "max_size"])
def test_loads_checks_its_counts_too(option: str) -> None:
    with pytest.raises(ValueError, match=f"^{option} must be a non-negative integer$"):
        tooljson.loads("[]", **{option: -5})


@pytest.mark.parametrize("make", [tooljson.Parser, tooljson.ToolCallAccumulator])
def test_a_callback_that_cannot_be_called_is_refused_at_construction(make: Any) -> None:
    with pytest.raises(TypeError, match="^on_event must be callable, not int$"):
        make(on_event=5)
    make(on_event=print)  # any callable is taken


@pytest.mark.parametrize("make", [tooljson.Parser, tooljson.ToolCallAccumulator])
def test_zero_and_large_counts_are_accepted(make: Any) -> None:
    make(max_depth=0, max_size=0, preview_string_limit=0)
    make(max_depth=2**40, max_size=2**40, preview_string_limit=2**40)
