"""A source is one place: a registered source is named in the code of one module outside its own
package, the registry (LangChain in three: ``compat/`` implements its ``parse_partial_json``), as
``scripts/source_reach.py`` counts them, and every source is registered whole."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from tooljson.providers.registry import ADAPTERS, DEFAULT, NAMES, SOURCES, recognise, source

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
from source_reach import SOURCES as MEASURED
from source_reach import code_words, reach

# The most modules outside its own each source may be named in. A source that is one package is
# named by the registry alone; the OpenAI SDK's helpers are served by tooljson.accelerate, whose
# chooser and client patching name it too (acceleration/openai*.py count as its own); LiteLLM and
# instructor are not sources of the registry but integrations (the extras name them).
#
# The Messages API reaches furthest: besides the registry, it is the API of tooljson's own tool loop
# and of its command line (the tool loop's demo and ``--live``, ``demo/``'s runs and the SDK runner
# demo, ``extras.py``'s ``stream`` extra), the proxy's default upstream, the package's top-level
# ``iter_events``, the anthropic client ``accelerate`` patches beside the openai ones (its chooser,
# instructor's ``ANTHROPIC_*`` modes), what LangChain's Anthropic chat model streams
# (``input_json_delta`` blocks), and what Bedrock's InvokeModel carries. Its SDK's helpers, its tool
# loop and the stand-in's rendering of replies count as its own (scripts/source_reach.py).
LIMITS = {"anthropic": 15, "langchain": 3, "openai": 3, "instructor": 2}


@pytest.mark.parametrize("name", sorted(MEASURED))
def test_no_source_is_named_in_more_modules_outside_its_own_than_its_limit(name: str) -> None:
    outside = reach()[name]
    assert len(outside) <= LIMITS.get(name, 1), outside


def test_the_count_sees_identifiers_and_strings_and_not_docstrings_or_comments(tmp_path: Path) -> None:
    module = tmp_path / "sample.py"
    module.write_text(
        '"""Reads Bedrock streams."""\n# bedrock here too\nX = 1\n"""bedrock, an attribute docstring"""\n'
        'name = "converse"\nbedrock_events = 2\n',
        encoding="utf-8",
    )
    assert [word for word in code_words(module) if "onverse" in word or "edrock" in word] == [
        '"converse"',
        "bedrock_events",
    ]


def test_every_source_is_whole() -> None:
    assert len(set(NAMES)) == len(NAMES)
    for each in SOURCES:
        assert source(each.name) is each
        assert each.assembler([]) is not None
        assert each.adapter is None or ADAPTERS[each.name] is each.adapter
        assert each.adapter is None or each.adapter.provider == each.name
    # Every source has its adapter: the accumulator reads no source's events itself.
    assert all(each.adapter is not None for each in SOURCES)
    assert DEFAULT in SOURCES


def test_an_unknown_source_is_named_with_the_known_ones() -> None:
    with pytest.raises(ValueError, match="no source named 'nope'; known: "):
        source("nope")


def test_objects_of_one_generic_class_are_recognised_one_by_one() -> None:
    from types import SimpleNamespace

    first = SimpleNamespace(type="AIMessageChunk")
    second = SimpleNamespace(event_kind="part_start")
    assert recognise(first) is source("langchain")
    assert recognise(second) is source("pydantic-ai")
    assert recognise(first) is source("langchain")
