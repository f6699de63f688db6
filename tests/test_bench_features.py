"""The benchmark report's judging of the features with targets of their own (``benches/features.py``
with ``bench_gemini``, ``bench_otel`` and ``bench_instructor``): figures in, verdict lines out, and
"not measured" with the reason when a benchmark could not run. No timing here."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benches"))

import bench_instructor
import features
from workloads import NOT_MEASURED

OWN_SECTIONS = tuple(section for section, _ in features.OWN_TARGETS)


def _lines_of(found: dict[str, Any], section: str) -> list[str]:
    return features.judge(found, sections=(section,))


def test_every_own_target_is_judged_when_nothing_was_measured() -> None:
    lines = features.judge({}, sections=OWN_SECTIONS)
    labels = [
        limit[1]
        for section, module in features.OWN_TARGETS
        for limit in importlib.import_module(module).LIMITS
    ]
    assert len(lines) == len(labels) > 0
    assert all(line.startswith("- not measured: ") for line in lines)


@pytest.mark.parametrize("section", OWN_SECTIONS)
def test_a_missing_library_is_named_on_each_of_its_rows(section: str) -> None:
    lines = _lines_of({section: {NOT_MEASURED: "the library is not installed"}}, section)
    assert lines
    assert all(
        line.startswith("- not measured: ") and line.endswith("): the library is not installed")
        for line in lines
    )


def test_gemini_rows_judged_against_their_bounds() -> None:
    found = {
        "gemini": {
            "file_write": {"sdk": [1.0] * 3, "sdk+tooljson": [1.02, 1.05, 1.3]},
            "code_write": {"sdk": [1.0] * 3, "sdk+tooljson": [1.1, 1.2, 1.3]},
            "scaling, wire dicts": {"100 KB": [1.0] * 3, "1 MB": [9.8, 10.0, 10.2]},
            "scaling, SDK objects": {"100 KB": [1.0] * 3, "1 MB": [12.5, 13.0, 14.0]},
        }
    }
    verdicts = [line.split(":")[0] for line in _lines_of(found, "gemini")]
    assert verdicts == ["- met", "- **not met**", "- met", "- **not met**"]


def test_otel_rows_judge_the_100_kb_calls_and_report_the_tiny_one() -> None:
    ratios = {"uninstrumented": [1.0] * 3, "instrumented-arguments": [1.1, 1.2, 1.3]}
    found = {
        "otel": {
            "records": {**ratios, "instrumented": [1.0, 1.01, 1.02]},
            "file_write": {**ratios, "instrumented": [1.04, 1.06, 1.08]},
            "tiny": {**ratios, "instrumented": [1.9, 2.0, 2.1]},
        }
    }
    lines = _lines_of(found, "otel")
    assert [line.split(":")[0] for line in lines] == ["- met", "- **not met**", "- reported"]
    assert "records: 1.01×" in lines[0] and "target ≤ 1.05" in lines[0]
    assert "tiny call" in lines[2] and "2×" in lines[2]


def test_instructor_rows_judge_end_to_end_and_report_partial_streaming() -> None:
    found = {
        "instructor": {
            "end to end": {"accelerated": [0.04, 0.045, 0.06]},
            "partial streaming": {"accelerated": [0.01, 0.0125, 0.02]},
        }
    }
    lines = _lines_of(found, "instructor")
    assert lines[0].startswith("- met: ") and "end to end: 0.045×" in lines[0]
    assert lines[1].startswith("- reported: ") and "1/80" in lines[1]


def test_instructor_without_its_environment_says_how_to_make_it(tmp_path: Path) -> None:
    found = bench_instructor.measure_paired(1, python=tmp_path / ".venv-instructor" / "bin" / "python")
    assert found == {NOT_MEASURED: ".venv-instructor missing (make test-instructor builds it)"}


def _fake_python(tmp_path: Path, body: str) -> Path:
    python = tmp_path / "python"
    python.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
    python.chmod(0o755)
    return python


def test_instructor_runs_this_file_with_json_and_reads_the_last_line(tmp_path: Path) -> None:
    seen = tmp_path / "seen"
    python = _fake_python(
        tmp_path,
        f'echo "$@" > {seen}\necho "$PYTHONPATH" >> {seen}\n'
        'echo "a line before"\necho \'{"end to end": {"accelerated": [0.03]}}\'',
    )
    assert bench_instructor.measure_paired(2, python=python) == {"end to end": {"accelerated": [0.03]}}
    arguments, paths = seen.read_text(encoding="utf-8").splitlines()
    assert arguments == f"{Path(bench_instructor.__file__).resolve()} 2 --json"
    # The tree's tooljson comes before the wheel installed in the environment.
    assert paths.split(":")[0] == str(bench_instructor.ROOT / "python")


def test_instructor_run_that_fails_is_not_measured_with_its_last_error_line(tmp_path: Path) -> None:
    python = _fake_python(
        tmp_path, 'echo "Traceback" >&2\necho "ModuleNotFoundError: no instructor" >&2\nexit 3'
    )
    found = bench_instructor.measure_paired(2, python=python)
    assert found[NOT_MEASURED].endswith("(exit 3): ModuleNotFoundError: no instructor")
    assert _lines_of({"instructor": found}, "instructor")[0].startswith("- not measured: ")
