"""The stand-in serving one tool call in its own process, for end-to-end benchmarks over loopback.

    python benches/standin_workloads.py records            # the 100 KB records of workloads.py
    python benches/standin_workloads.py records_content    # the same records as the reply's text
    python benches/standin_workloads.py large_file_write   # any scenario of the stand-in's catalog

It prints the base URL on its first line, then serves until SIGINT or SIGTERM. In its own process,
the server's work (rendering thousands of events) does not share the GIL with the client, nor count
in the client's CPU time.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from tooljson.standin import SCENARIOS, Reply, Scenario, StandInServer, Text, ToolUse
from workloads import workload

__all__ = ["served", "workload_scenario", "workload_text"]

FRAGMENT_SIZES = (1, 32)

_RECORDS_TOOL: dict[str, Any] = {
    "name": "save_records",
    "description": "Save customer records.",
    "input_schema": {"type": "object", "properties": {"records": {"type": "array"}}, "required": ["records"]},
}


def _respond_records(body: dict[str, Any], turn: int) -> Reply:
    text = workload("records").text
    return Reply(blocks=(Text("Saving the records."), ToolUse("save_records", text)), stop_reason="tool_use")


def _respond_records_content(body: dict[str, Any], turn: int) -> Reply:
    return Reply(blocks=(Text(workload("records").text),), stop_reason="end_turn")


def workload_scenario(name: str) -> Scenario:
    """``records``: one ``save_records`` call whose input is the 100 KB records workload;
    ``records_content``: the same text as the reply's content (a structured output); any other
    name: that scenario of the stand-in's catalog."""
    if name == "records_content":
        return Scenario(
            name=name,
            description="The 100 KB records workload as the reply's text.",
            prompt="List these customers.",
            tools=[],
            respond=_respond_records_content,
            first_max_tokens=32_000,
        )
    if name != "records":
        return SCENARIOS[name]
    return Scenario(
        name="records",
        description=f"A save_records call whose input is {workload('records').size} bytes of records.",
        prompt="Save these customers.",
        tools=[_RECORDS_TOOL],
        respond=_respond_records,
        first_max_tokens=32_000,
    )


def workload_text(name: str) -> str:
    """The tool input text the scenario streams."""
    if name in ("records", "records_content"):
        return workload("records").text
    from tooljson.standin.scenarios.answers import LARGE_FILE_INPUT

    if name != "large_file_write":
        raise KeyError(name)
    return LARGE_FILE_INPUT


@contextmanager
def served(name: str) -> Iterator[str]:
    """Run this script for ``name`` in a child process; yield its base URL; stop it afterwards."""
    command = [sys.executable, __file__, name]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        base_url = server.stdout.readline().strip()
        assert base_url.startswith("http://127.0.0.1:"), f"the stand-in did not start: {base_url!r}"
        yield base_url
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        if server.stdout is not None:
            server.stdout.close()


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    server = StandInServer(workload_scenario(argv[0]), fragment_sizes=FRAGMENT_SIZES, seed=0)
    signal.signal(signal.SIGTERM, _interrupt)
    server.start()
    print(server.base_url, flush=True)
    try:
        while server.running:
            time.sleep(0.5)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))


def skip_quadratic_unless_timed(
    benchmark: Any, implementation: str, name: str, slow: tuple[str, ...]
) -> None:
    """Skip the SDK helper's run on a workload in ``slow`` when the benchmarks are off (``make test``):
    its time is the helper's own re-parse per delta, tens of seconds, and checks nothing of tooljson's;
    the same helper path still runs once on the other workloads."""
    import pytest

    if benchmark.disabled and implementation == "sdk-helper-stream" and name in slow:
        pytest.skip(
            "the SDK helper's quadratic re-parse of this workload is timed only with the benchmarks on"
        )
