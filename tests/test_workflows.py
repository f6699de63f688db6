"""The GitHub workflows: valid against GitHub's workflow schema, and building what the release needs.

They cannot run here; ``check-jsonschema --builtin-schema vendor.github-workflows`` checks them against
the schema that ships inside the pinned check-jsonschema (no network), and the tests below read them
for what a release needs: every platform's wheel, the sdist, the tests on each wheel, publishing only
on a tag by trusted publishing, and CI running what ``.ci/run`` runs.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
WORKFLOWS = ROOT / ".github" / "workflows"


def check_jsonschema(*files: Path) -> subprocess.CompletedProcess[str]:
    tool = Path(sys.executable).parent / "check-jsonschema"
    if not tool.exists():
        pytest.skip("check-jsonschema is not installed beside this Python (make build installs it)")
    return subprocess.run(
        [str(tool), "--builtin-schema", "vendor.github-workflows", *map(str, files)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def load(name: str) -> dict[Any, Any]:
    loaded: dict[Any, Any] = yaml.safe_load((WORKFLOWS / name).read_text(encoding="utf-8"))
    return loaded


def steps_text(job: dict[str, Any]) -> str:
    return yaml.safe_dump(job.get("steps", []), width=1_000_000)


def test_workflows_match_the_github_workflow_schema() -> None:
    done = check_jsonschema(WORKFLOWS / "ci.yml", WORKFLOWS / "release.yml")
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_schema_check_refuses_a_broken_workflow(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yml"
    broken.write_text("on: push\njobs:\n  build:\n    runs-on: ubuntu-24.04\n    steps: not-a-list\n")
    done = check_jsonschema(broken)
    assert done.returncode != 0, done.stdout


def test_ci_runs_what_ci_run_runs() -> None:
    jobs = load("ci.yml")["jobs"]
    [job] = jobs.values()
    assert "bash tooljson/.ci/run" in steps_text(job)
    # The corpus the tests read from ../shared beside the clone, and the interpreters test-versions needs.
    assert "path: shared/JSONTestSuite" in steps_text(job)
    for minor in ("3.10", "3.11", "3.12", "3.13"):
        assert f"python{minor}" in steps_text(job)
    ci_run = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    for target in ("make test ", "make test-dev", "make lint", "make test-versions", "make docs"):
        assert target in ci_run, target


def test_release_builds_every_platform_and_the_sdist() -> None:
    jobs = load("release.yml")["jobs"]
    built = set()
    for name in ("linux", "macos", "windows"):
        job = jobs[name]
        includes = job.get("strategy", {}).get("matrix", {}).get("include", [{"target": None}])
        for entry in includes:
            built.add((name, entry["target"] or "x64"))
        assert "PyO3/maturin-action@v1" in steps_text(job)
    assert built == {
        ("linux", "x86_64"),
        ("linux", "aarch64"),
        ("macos", "x86_64"),
        ("macos", "aarch64"),
        ("windows", "x64"),
    }
    assert "manylinux: '2014'" in steps_text(jobs["linux"])
    # abi3 or a wheel per CPython follows pyproject.toml's maturin features there as in
    # scripts/build_dist.py: the workflow's pattern finds the features line exactly when abi3() says so.
    from build_dist import abi3

    pattern = "'^features = \\[.*\"abi3\"'"
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert any(re.match(r'features = \[.*"abi3"', line) for line in pyproject.splitlines()) == abi3()
    for name in ("linux", "macos", "windows"):
        [step] = [step for step in jobs[name]["steps"] if step.get("id") == "abi"]
        assert f"grep -qE {pattern} pyproject.toml" in step["run"]
        assert "args: --release --out dist ${{ steps.abi.outputs.interpreters }}" in steps_text(jobs[name])
    assert "command: sdist" in steps_text(jobs["sdist"])
    assert "pip install dist/*.tar.gz" in steps_text(jobs["sdist"])


def test_release_tests_each_built_wheel() -> None:
    jobs = load("release.yml")["jobs"]
    test = jobs["test"]
    assert set(test["needs"]) == {"linux", "macos", "windows"}
    matrix = test["strategy"]["matrix"]
    assert matrix["python"] == ["3.10", "3.11", "3.12", "3.13"]
    artifacts = {entry["artifact"] for entry in matrix["include"]}
    uploaded = set()
    for name in ("linux", "macos", "windows"):
        job = jobs[name]
        targets = [
            entry["target"] for entry in job.get("strategy", {}).get("matrix", {}).get("include", [])
        ] or [""]
        for step in job["steps"]:
            if step.get("uses", "").startswith("actions/upload-artifact"):
                uploaded |= {
                    step["with"]["name"].replace("${{ matrix.target }}", target) for target in targets
                }
    # One test runner per built wheel, each on every Python the wheel is for.
    assert artifacts == uploaded
    assert len(matrix["runner"]) == len(artifacts) == 5
    text = steps_text(test)
    assert "--only-binary tooljson" in text and "scripts/test_versions.py --files" in text


def test_release_publishes_only_tags_by_trusted_publishing() -> None:
    publish = load("release.yml")["jobs"]["publish"]
    assert publish["if"] == "startsWith(github.ref, 'refs/tags/v')"
    assert set(publish["needs"]) == {"test", "sdist"}
    assert publish["permissions"] == {"id-token": "write"}
    assert "pypa/gh-action-pypi-publish@release/v1" in steps_text(publish)
    # Trusted publishing: no token or password is handed to the publishing step.
    assert "secrets." not in yaml.safe_dump(publish)
