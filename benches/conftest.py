"""pytest setup of the benchmarks: record the versions being compared with every result."""

from __future__ import annotations

import sys
from importlib import metadata
from pathlib import Path
from typing import Any

# The workloads module sits beside the benchmark files; make it importable whatever the import mode.
sys.path.insert(0, str(Path(__file__).resolve().parent))

_LIBRARIES = (
    "tooljson",
    "orjson",
    "jiter",
    "anthropic",
    "partial-json-parser",
    "json-repair",
    "jsonriver",
    "ssrjson",
    "msgspec",
    "jsonmend",
    "streaming-json-parser",
    "streaming-json-parser-native",
    "pytest-benchmark",
    "google-genai",
)


def pytest_benchmark_update_machine_info(config: Any, machine_info: dict[str, Any]) -> None:
    """Adds the version of each library measured, so that a saved result says what it measured."""
    versions = {}
    for name in _LIBRARIES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    machine_info["libraries"] = versions
