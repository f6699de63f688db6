"""The SDK's own tool runner through ``tooljson.accelerate(client)``, against the plain runner, over loopback.

The stand-in (``large_file_write``, in its own process) answers the runner's first request with one
``write_file`` call whose input is about 100 KB of UTF-8 in fragments of 1 to 32 characters; the
runner runs the tool and sends its result; the second turn is the model's closing text. Every event
of every stream the runner yields is consumed; the timer is the client's CPU time
(``time.process_time``). In the group ``tool runner: large_file_write``:

- ``sdk-runner``: ``client.beta.messages.tool_runner(..., stream=True)``, the SDK's helper stream
  re-parsing the input on every delta;
- ``accelerated``: the same on ``tooljson.accelerate(client)``;
- ``sdk-raw-events``: the same two requests (a thread created, then continued with the tool's
  result) by ``client.beta.messages.create(..., stream=True)``, each stream iterated and nothing
  parsed: the SDK's decoding and model construction per event, the floor under any runner.

``test_paired_client_cpu`` times the three in interleaved rounds (shuffled order, the ratio within
each round). ``python benches/bench_runner.py`` prints those ratios over more rounds.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic
import pytest
from anthropic import beta_tool

sys.path.insert(0, str(Path(__file__).resolve().parent))

import command_line
import tooljson
from bench_accelerate import describe, paired_client_cpu, print_paired
from standin_workloads import served, workload_scenario, workload_text
from workloads import paired_ratios

WORKLOAD = "large_file_write"
IMPLEMENTATIONS = ("sdk-runner", "accelerated", "sdk-raw-events")
TARGET = 0.35


class Endpoint:
    """The workload's server, a client of it, its accelerated copy, the runnable tool and the input."""

    def __init__(self, base_url: str) -> None:
        self.client = anthropic.Anthropic(base_url=base_url, api_key="stand-in", max_retries=0)
        self.accelerated = tooljson.accelerate(self.client)
        scenario = workload_scenario(WORKLOAD)
        (spec,) = scenario.tools
        self.written: list[dict[str, Any]] = []
        tool = beta_tool(
            self._write_file,
            name=spec["name"],
            description=spec["description"],
            input_schema=spec["input_schema"],
        )
        self.request = {**scenario.first_request(), "tools": [tool]}
        self.definitions = scenario.tools
        self.expected = json.loads(workload_text(WORKLOAD))

    def _write_file(self, **arguments: Any) -> str:
        self.written.append(arguments)
        return f"wrote {len(arguments.get('content', ''))} characters"

    def runner(self, client: Any) -> int:
        """Run the loop to its end, every event of every stream consumed; the number of streams."""
        self.written.clear()
        streams = 0
        for stream in client.beta.messages.tool_runner(**self.request, stream=True):
            streams += 1
            for _ in stream:
                pass
        return streams

    def raw(self) -> int:
        """The runner's two requests, their events iterated and nothing parsed; the event count."""
        first = {**self.request, "tools": self.definitions}
        count, message_id, call_id = 0, None, None
        for event in self.client.beta.messages.create(**first, stream=True, thread={"type": "create"}):
            count += 1
            if event.type == "message_start":
                message_id = event.message.id
            elif event.type == "content_block_start" and event.content_block.type == "tool_use":
                call_id = event.content_block.id
        assert message_id is not None and call_id is not None
        result = {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": call_id, "content": "wrote"}],
        }
        thread = {"type": "continue", "previous_message_id": message_id}
        for _ in self.client.beta.messages.create(
            model=first["model"],
            max_tokens=first["max_tokens"],
            messages=[result],
            stream=True,
            thread=thread,
        ):
            count += 1
        return count

    def run(self, implementation: str) -> int:
        if implementation == "sdk-runner":
            return self.runner(self.client)
        if implementation == "accelerated":
            return self.runner(self.accelerated)
        return self.raw()

    def check(self, implementation: str, result: int) -> None:
        if implementation == "sdk-raw-events":
            assert result > 1000
        else:
            assert result == 2 and self.written == [self.expected]


@pytest.fixture(scope="module")
def endpoint() -> Iterator[Endpoint]:
    with served(WORKLOAD) as base_url:
        found = Endpoint(base_url)
        try:
            yield found
        finally:
            found.client.close()


@pytest.mark.benchmark(timer=time.process_time)
@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
def test_tool_runner(benchmark: Any, endpoint: Endpoint, implementation: str) -> None:
    benchmark.group = f"tool runner: {WORKLOAD}"
    benchmark.extra_info.update(
        workload=WORKLOAD, implementation=implementation, size_bytes=len(workload_text(WORKLOAD).encode())
    )
    endpoint.check(implementation, benchmark(endpoint.run, implementation))


def measure(endpoint: Endpoint, rounds: int) -> dict[str, list[float]]:
    """Each implementation's client CPU time over the plain runner's, per round (sorted)."""

    def case(implementation: str) -> Any:
        def run(_: Any) -> None:
            endpoint.check(implementation, endpoint.run(implementation))

        return run, ()

    return paired_ratios({label: case(label) for label in IMPLEMENTATIONS}, "sdk-runner", rounds=rounds)


def _table(found: dict[str, dict[str, list[float]]]) -> list[str]:
    return describe(found, baseline="SDK runner", targets=dict.fromkeys(found, TARGET))


def test_paired_client_cpu(
    endpoint: Endpoint, request: pytest.FixtureRequest, capsys: pytest.CaptureFixture[str]
) -> None:
    paired_client_cpu(
        request, capsys, lambda rounds: {WORKLOAD: measure(endpoint, rounds)}, _table, "the plain runner's"
    )


def main() -> None:
    rounds = command_line.rounds(7, __doc__).rounds
    with served(WORKLOAD) as base_url:
        endpoint = Endpoint(base_url)
        found = {WORKLOAD: measure(endpoint, rounds)}
        endpoint.client.close()
    print_paired(found, rounds, _table(found))


if __name__ == "__main__":
    main()
