"""The providers layer owns its state: adapters drive the accumulator's public operations only, the
accumulator knows them only through their base class and the registry, and no import cycle joins them."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
import tooljson
from tooljson.accumulator import ToolCallAccumulator
from tooljson.providers.adapter import Adapter, CallOperations
from tooljson.providers.registry import ADAPTERS

PACKAGE = Path(tooljson.__file__).resolve().parent
ADAPTER_MODULES = sorted(
    path
    for folder in ("providers", "frameworks")
    if (PACKAGE / folder).is_dir()
    for path in (PACKAGE / folder).rglob("*.py")
)
# What the typed-calls mixin keeps (typed values are the accumulator's own concern).
TYPED_STATE = {"_models", "_router"}
OPERATIONS = (
    "begin_call",
    "add_fragment",
    "end_call",
    "stop_response",
    "new_response",
    "open_call",
    "received",
)


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


@pytest.mark.parametrize("path", ADAPTER_MODULES, ids=lambda path: f"{path.parent.name}/{path.name}")
def test_no_adapter_module_imports_the_accumulator_or_the_reader(path: Path) -> None:
    assert not _imports(path) & {"tooljson.accumulator", "tooljson.turn"}


@pytest.mark.parametrize("path", ADAPTER_MODULES, ids=lambda path: f"{path.parent.name}/{path.name}")
def test_no_adapter_touches_a_private_member_of_what_it_drives(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    reached = [
        node.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and node.attr.startswith("_")
        and not node.attr.startswith("__")
        and isinstance(node.value, ast.Attribute)
        and node.value.attr == "calls"
    ]
    assert reached == []


def test_the_accumulator_imports_no_adapter_module() -> None:
    imported = _imports(PACKAGE / "accumulator.py")
    adapters = {
        f"tooljson.providers.{name}"
        for name in ("anthropic", "chat", "responses", "bedrock", "gemini", "gemini.arguments_text")
    }
    assert not imported & adapters
    assert {"tooljson.providers.adapter", "tooljson.providers.registry"} <= imported


def test_the_accumulator_has_every_operation_the_adapters_use() -> None:
    for name in OPERATIONS:
        assert callable(getattr(ToolCallAccumulator, name))
        assert getattr(ToolCallAccumulator, name).__doc__
        assert hasattr(CallOperations, name)


def test_every_registered_adapter_is_one() -> None:
    for provider, adapter in ADAPTERS.items():
        assert issubclass(adapter, Adapter)
        assert adapter.provider == provider


def test_an_accumulator_holds_no_state_of_an_adapter() -> None:
    accumulator = ToolCallAccumulator()
    accumulator.feed(
        {"id": "a", "choices": [{"index": 0, "delta": {"content": "hi"}, "finish_reason": "stop"}]}
    )
    held = set(vars(accumulator))
    # _last: the source of the last dict event, the accumulator's own routing; watcher: tooljson.watch's
    # (no adapter's state). State that is still its class default is not held by the instance.
    allowed = {
        "stop_reason",
        "calls",
        "blocks",
        "warnings",
        "open_calls",
        "on_error",
        "_adapters",
        "_last",
        "_last_object",
        "watcher",
    }
    assert {"calls", "blocks", "warnings", "open_calls", "_adapters", "_last", "stop_reason"} <= held
    assert held - allowed - TYPED_STATE == set()


def test_a_new_response_resets_every_adapter_it_made() -> None:
    accumulator = ToolCallAccumulator()
    chunk = {
        "id": "a",
        "choices": [
            {
                "index": 0,
                "delta": {
                    "tool_calls": [
                        {
                            "index": 0,
                            "id": "c1",
                            "type": "function",
                            "function": {"name": "f", "arguments": "{}"},
                        }
                    ]
                },
                "finish_reason": "length",
            }
        ],
    }
    accumulator.feed(chunk)
    chat = accumulator.adapter("openai")
    assert accumulator.stop_reason_for(accumulator.calls[0]) == "length"
    accumulator.feed({"type": "message_start", "message": {"id": "m", "content": [], "usage": {}}})
    assert accumulator.calls == [] and accumulator.stop_reason is None
    assert chat.response_id is None  # type: ignore[attr-defined]
    assert accumulator.adapter("openai") is chat


def test_begins_response_asks_the_adapters() -> None:
    accumulator = ToolCallAccumulator()
    accumulator.feed(
        {"id": "a", "choices": [{"index": 0, "delta": {"content": "hi"}, "finish_reason": None}]}
    )
    assert not accumulator.begins_response({"id": "a", "choices": []})
    assert accumulator.begins_response({"id": "b", "choices": []})
    assert accumulator.begins_response({"type": "message_start", "message": {}})
    assert accumulator.begins_response({"messageStart": {"role": "assistant"}})
