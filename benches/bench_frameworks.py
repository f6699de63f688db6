"""Following one ~100 KB tool input through a framework's stream, over loopback.

The stand-in serves ``large_file_write`` (one ~100 KB ``write_file`` input in 1–32-character
fragments) from its own process; the timer is the client's CPU time (``time.process_time``), so the
server's work does not count. In groups ``framework: <framework>``:

- LangChain, ``ChatAnthropic(...).bind_tools([...]).stream(...)``:
  - ``chunks``: iterating the chunks, doing nothing (the floor: the SDK, LangChain's chunk building);
  - ``tooljson``: every chunk fed to a ``TurnReader``, then ``reader.message()`` (the finished
    message, one ``add_ai_message_chunks`` merge and the strict verdicts);
  - ``gathered``: LangChain's documented ``gathered = gathered + chunk``, which re-merges the message
    and re-parses every call's arguments at every chunk (quadratic; tens of seconds, so it runs only
    in ``python benches/bench_frameworks.py --gathered``, never in a test run).
- pydantic-ai, ``agent.run_stream_events(...)`` on its Anthropic model: ``events`` iterates them,
  ``tooljson`` feeds each to a ``TurnReader``.

Every run checks the parsed input against ``json.loads`` of the scenario's text (the gathered one,
LangChain's own partial parse). ``python benches/bench_frameworks.py [--rounds N] [--gathered]``
prints the paired ratios (both sides timed in interleaved rounds, shuffled, the ratio within each
round), as the README quotes them.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from standin_workloads import FRAGMENT_SIZES, served, workload_scenario, workload_text
from tooljson.turn import TurnReader
from workloads import paired_ratios

WORKLOAD = "large_file_write"
LANGCHAIN = ("chunks", "tooljson")
PYDANTIC_AI = ("events", "tooljson")

#: The targets, in ``features.py``'s shape: (section, label, comparison, bound, kind).
LIMITS = [
    ("frameworks", "langchain", "tooljson", 1.1, "at_most"),
    ("frameworks", "pydantic-ai", "tooljson", 1.1, "at_most"),
]
DESCRIPTIONS = {
    (
        "frameworks",
        "tooljson",
    ): "following a ~100 KB tool input through the framework's stream with a TurnReader "
    "(LangChain: and reader.message()), client CPU over iterating the stream alone",
}


def installed() -> bool:
    """Whether the frameworks this file drives can be imported."""
    import importlib.util

    return all(importlib.util.find_spec(name) is not None for name in ("langchain_anthropic", "pydantic_ai"))


class Endpoint:
    """The served workload, LangChain's model and pydantic-ai's agent on it, and the expected input."""

    def __init__(self, base_url: str) -> None:
        from langchain_anthropic import ChatAnthropic
        from pydantic_ai import Agent, Tool
        from pydantic_ai.models.anthropic import AnthropicModel
        from pydantic_ai.providers.anthropic import AnthropicProvider
        from pydantic_ai.settings import ModelSettings

        scenario = workload_scenario(WORKLOAD)
        tools = [tool for tool in scenario.tools if "input_schema" in tool]
        self.prompt = scenario.prompt
        self.expected = json.loads(workload_text(WORKLOAD))
        llm = ChatAnthropic(  # type: ignore[call-arg]
            model="claude-standin",
            base_url=base_url,
            api_key="stand-in",
            max_tokens=scenario.first_max_tokens,
        )
        self.llm = llm.bind_tools(tools)
        self.base_url = base_url

        def done(**arguments: Any) -> str:
            return "written"

        agent_tools = [
            Tool.from_schema(
                done, name=t["name"], description=t["description"], json_schema=t["input_schema"]
            )
            for t in tools
        ]

        def agent(client: anthropic.AsyncAnthropic) -> Any:
            # A client per run: its connections belong to the event loop of that run.
            model = AnthropicModel("claude-standin", provider=AnthropicProvider(anthropic_client=client))
            return Agent(
                model, tools=agent_tools, model_settings=ModelSettings(max_tokens=scenario.first_max_tokens)
            )

        self.agent = agent

    # --- LangChain

    def chunks(self) -> int:
        count = 0
        for _ in self.llm.stream(self.prompt):
            count += 1
        return count

    def langchain_reader(self) -> Any:
        reader = TurnReader()
        feed = reader.feed
        for chunk in self.llm.stream(self.prompt):
            feed(chunk)
        return reader.message().tool_calls[0]["args"]

    def gathered(self) -> Any:
        gathered = None
        for chunk in self.llm.stream(self.prompt):
            gathered = chunk if gathered is None else gathered + chunk
        assert gathered is not None
        return gathered.tool_calls[0]["args"]

    # --- pydantic-ai

    def events(self, reader: TurnReader | None = None) -> Any:
        async def run() -> int:
            count = 0
            async with anthropic.AsyncAnthropic(
                base_url=self.base_url, api_key="stand-in", max_retries=0
            ) as client:
                async with self.agent(client).run_stream_events(self.prompt) as stream:
                    async for event in stream:
                        count += 1
                        if reader is not None:
                            reader.feed(event)
            return count

        return asyncio.run(run())

    def pydantic_ai_reader(self) -> Any:
        reader = TurnReader()
        self.events(reader)
        return reader.calls[0].input

    def run(self, framework: str, implementation: str) -> Any:
        if framework == "langchain":
            return {"chunks": self.chunks, "tooljson": self.langchain_reader, "gathered": self.gathered}[
                implementation
            ]()
        return self.events() if implementation == "events" else self.pydantic_ai_reader()

    def check(self, implementation: str, result: Any) -> None:
        if implementation in ("chunks", "events"):
            assert result > len(json.dumps(self.expected)) // max(FRAGMENT_SIZES)
        else:
            assert result == self.expected


@pytest.fixture(scope="module")
def endpoint() -> Iterator[Endpoint]:
    pytest.importorskip("langchain_anthropic")
    pytest.importorskip("pydantic_ai")
    with served(WORKLOAD) as base_url:
        yield Endpoint(base_url)


@pytest.mark.benchmark(timer=time.process_time)
@pytest.mark.parametrize(
    ("framework", "implementation"),
    [("langchain", name) for name in LANGCHAIN] + [("pydantic-ai", name) for name in PYDANTIC_AI],
)
def test_framework_stream(benchmark: Any, endpoint: Endpoint, framework: str, implementation: str) -> None:
    benchmark.group = f"framework: {framework}"
    benchmark.extra_info.update(
        workload=WORKLOAD, implementation=implementation, fragment_sizes=list(FRAGMENT_SIZES)
    )
    endpoint.check(implementation, benchmark(endpoint.run, framework, implementation))


def measure(endpoint: Endpoint, rounds: int, *, gathered: bool = False) -> dict[str, dict[str, list[float]]]:
    """Per framework, each implementation's client CPU time over the floor's, per round (sorted)."""

    def runner(framework: str, implementation: str) -> Any:
        def run(_: Any) -> None:
            endpoint.check(implementation, endpoint.run(framework, implementation))

        return run

    langchain = LANGCHAIN + (("gathered",) if gathered else ())
    return {
        "langchain": paired_ratios(
            {name: (runner("langchain", name), ()) for name in langchain}, "chunks", rounds=rounds
        ),
        "pydantic-ai": paired_ratios(
            {name: (runner("pydantic-ai", name), ()) for name in PYDANTIC_AI}, "events", rounds=rounds
        ),
    }


def measure_paired(rounds: int) -> dict[str, dict[str, list[float]]]:
    """The figures of the report (``features.measure``), with the stand-in served for them."""
    with served(WORKLOAD) as base_url:
        return measure(Endpoint(base_url), rounds)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7, help="interleaved rounds (default: 7)")
    parser.add_argument(
        "--gathered", action="store_true", help="also time gathered + chunk (tens of seconds a round)"
    )
    arguments = parser.parse_args(argv)
    with served(WORKLOAD) as base_url:
        found = measure(Endpoint(base_url), arguments.rounds, gathered=arguments.gathered)
    print(f"{WORKLOAD}, client CPU time over the floor's, {arguments.rounds} interleaved rounds:")
    for framework, ratios in found.items():
        for name, values in ratios.items():
            print(
                f"  {framework:12} {name:10} {statistics.median(values):8.3f}× (range {values[0]:.3f}–{values[-1]:.3f})"
            )
        if "gathered" in ratios:
            # Each list is sorted, not paired by round: the medians' quotient.
            over = statistics.median(ratios["tooljson"]) / statistics.median(ratios["gathered"])
            print(f"  {framework:12} tooljson ÷ gathered {over:.4f} (1/{1 / over:.0f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
