"""``tooljson.accelerate(openai_client).chat.completions.stream(...)`` against the SDK's helper, over loopback.

The 100 KB records of ``workloads.py`` (about 530 small records: escapes, non-ASCII, numbers), served
by the stand-in in its own process to the real ``openai`` client in fragments of 1 to 32 characters,
two ways: as the arguments of one strict function tool (``records``), and as the reply's content
with a ``response_format`` model (``records_content``). Every event of the stream is consumed, then
``get_final_completion()``; the timer is the client's CPU time (``time.process_time``; the server is
another process). In groups ``openai helper stream: <workload>``:

- ``sdk-helper-stream``: ``client.chat.completions.stream(...)``, the SDK rebuilding its snapshot and
  re-parsing the whole text on every chunk;
- ``accelerated``: the same request on ``tooljson.accelerate(client)``;
- ``sdk-raw-chunks``: ``client.chat.completions.create(..., stream=True)`` iterated, parsing nothing:
  the SDK's decoding and model construction per chunk, the floor under any helper stream.

``test_paired_client_cpu`` times the three in interleaved rounds (shuffled order, the ratio within
each round). ``python benches/bench_accelerate_openai.py`` prints those ratios over more rounds, as
the README quotes them. Every run checks the parsed value.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import openai
import pydantic
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import command_line
import tooljson
from bench_accelerate import Endpoint as AnthropicEndpoint
from bench_accelerate import describe, paired_client_cpu, print_paired
from bench_accelerate import measure as measure_implementations
from standin_workloads import FRAGMENT_SIZES, served, skip_quadratic_unless_timed, workload_text

WORKLOADS = ("records", "records_content")
IMPLEMENTATIONS = ("sdk-helper-stream", "accelerated", "sdk-raw-chunks")
# The targets the README and the issue set: accelerated ÷ SDK helper, client CPU.
TARGETS = {"records": 0.25, "records_content": 0.3}


class Records(pydantic.BaseModel):
    records: list[dict[str, Any]]


RECORDS_TOOL = {
    "type": "function",
    "function": {
        "name": "save_records",
        "strict": True,
        "parameters": {
            "type": "object",
            "properties": {"records": {"type": "array"}},
            "required": ["records"],
        },
    },
}


class Endpoint(AnthropicEndpoint):
    """One workload's server, a client of it, its accelerated copy and the expected value (the
    runs and checks are the anthropic benchmark's)."""

    def __init__(self, name: str, base_url: str) -> None:  # noqa: super-init-not-called - another SDK
        self.name = name
        self.client = openai.OpenAI(base_url=base_url + "/v1", api_key="stand-in", max_retries=0)
        self.accelerated = tooljson.accelerate(self.client)
        self.request: dict[str, Any] = {
            "model": "gpt-bench",
            "messages": [{"role": "user", "content": "Go."}],
        }
        if name == "records":
            self.request["tools"] = [RECORDS_TOOL]
        self.text = workload_text(name)

    def helper(self, client: Any) -> Any:
        """Consume every event of the helper stream, then return the parsed value of the final completion."""
        request = dict(self.request)
        if self.name == "records_content":
            request["response_format"] = Records
        with client.chat.completions.stream(**request) as stream:
            for _ in stream:
                pass
            completion = stream.get_final_completion()
        message = completion.choices[0].message
        if self.name == "records_content":
            return message.parsed.model_dump()
        return message.tool_calls[0].function.parsed_arguments

    def raw(self) -> int:
        count = 0
        for _ in self.client.chat.completions.create(stream=True, **self.request):
            count += 1
        return count


@pytest.fixture(scope="module")
def endpoints() -> Iterator[dict[str, Endpoint]]:
    with ExitStack() as stack:
        found = {name: Endpoint(name, stack.enter_context(served(name))) for name in WORKLOADS}
        try:
            yield found
        finally:
            for endpoint in found.values():
                endpoint.client.close()


@pytest.mark.benchmark(timer=time.process_time)
@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
@pytest.mark.parametrize("name", WORKLOADS)
def test_openai_helper_stream(
    benchmark: Any, endpoints: dict[str, Endpoint], name: str, implementation: str
) -> None:
    skip_quadratic_unless_timed(benchmark, implementation, name, ("records",))
    endpoint = endpoints[name]
    benchmark.group = f"openai helper stream: {name}"
    benchmark.extra_info.update(
        workload=name,
        implementation=implementation,
        size_bytes=len(endpoint.text.encode()),
        fragment_sizes=list(FRAGMENT_SIZES),
    )
    endpoint.check(implementation, benchmark(endpoint.run, implementation))


def measure(endpoints: dict[str, Endpoint], rounds: int) -> dict[str, dict[str, list[float]]]:
    """Per workload, each implementation's client CPU time over the SDK helper's, per round (sorted)."""
    return measure_implementations(endpoints, rounds, IMPLEMENTATIONS)


def test_paired_client_cpu(
    endpoints: dict[str, Endpoint], request: pytest.FixtureRequest, capsys: pytest.CaptureFixture[str]
) -> None:
    paired_client_cpu(request, capsys, lambda rounds: measure(endpoints, rounds), _table, "the SDK helper's")


def _table(found: dict[str, dict[str, list[float]]]) -> list[str]:
    return describe(found, floor="sdk-raw-chunks", targets=TARGETS)


def main() -> None:
    rounds = command_line.rounds(7, __doc__).rounds
    with ExitStack() as stack:
        endpoints = {name: Endpoint(name, stack.enter_context(served(name))) for name in WORKLOADS}
        found = measure(endpoints, rounds)
    print_paired(found, rounds, _table(found))


if __name__ == "__main__":
    main()
