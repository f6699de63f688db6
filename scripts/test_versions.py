"""Run the parser and accumulator tests on every CPython the published wheel is for (``make test-versions``).

``python scripts/test_versions.py DIST`` takes the wheels ``scripts/build_dist.py`` left in ``DIST``
(``make`` builds them once, for ``make test``, ``make wheel`` and this): each interpreter gets its own
virtualenv under ``.venv-versions/`` with the pinned test requirements those test files need, and pip
picks from ``DIST`` the wheel that fits it (the abi3 wheel for all, or that interpreter's own when
Cargo.toml leaves abi3 off; never the sdist). The tests run from the checkout's ``tests/`` against
the installed copy. The interpreters are :func:`build_dist.interpreters`. Prints one line per
interpreter, as many at once as there are cores; exits non-zero when one fails or is missing. ``--files`` and ``--requirements`` print the
test files and the pinned requirements (the release workflow runs the same on each wheel it builds).
"""

from __future__ import annotations

import os
import re
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from build_dist import interpreters, run, version

ROOT = Path(__file__).resolve().parents[1]
# The tests of the parser and the accumulator: they need pytest, hypothesis and psutil, nothing else.
TEST_FILES = (
    "test_parser_api.py",
    "test_accumulator.py",
    "test_conformance.py",
    "test_differential.py",
    "test_preview.py",
    "test_events.py",
    "test_event_type.py",
    "test_open_path.py",
    "test_adversarial.py",
    "test_threads.py",
    "test_leaks.py",
    "test_hashable_indices.py",
    "test_strings.py",
)
REQUIREMENTS = ("pytest", "hypothesis", "psutil")
VENVS = ROOT / ".venv-versions"


def pinned(names: tuple[str, ...]) -> list[str]:
    """The lines of requirements-dev.txt that pin ``names`` (markers included: pip picks the one that
    fits each interpreter)."""
    lines = []
    for line in (ROOT / "requirements-dev.txt").read_text().splitlines():
        match = re.match(r"([A-Za-z0-9_.-]+)==", line.strip())
        if match and match.group(1).lower() in names:
            lines.append(line.strip())
    return lines


def prepare(label: str, python: Path, dist: Path) -> Path:
    """A virtualenv for ``python`` holding the wheel that fits it and the test requirements; its interpreter."""
    venv = VENVS / label
    stamp = venv / ".requirements"
    requirements = pinned(REQUIREMENTS)
    if not (venv / "bin" / "python").exists():
        done = run(python, "-m", "venv", "--without-pip", "--clear", venv)
        if done.returncode:
            raise RuntimeError(f"venv failed: {done.stderr.strip()}")
    target = venv / "bin" / "python"
    pip = [
        sys.executable,
        "-m",
        "pip",
        "--python",
        str(target),
        "install",
        "--quiet",
        "--disable-pip-version-check",
    ]
    if not stamp.exists() or stamp.read_text() != "\n".join(requirements):
        done = run(*pip, *requirements)
        if done.returncode:
            raise RuntimeError(f"installing {' '.join(requirements)} failed: {done.stderr.strip()[-2000:]}")
        stamp.write_text("\n".join(requirements))
    done = run(
        *pip,
        "--no-deps",
        "--force-reinstall",
        "--no-index",
        "--find-links",
        dist,
        "--only-binary",
        "tooljson",
        f"tooljson=={version()}",
    )
    if done.returncode:
        raise RuntimeError(f"installing the wheel failed: {done.stderr.strip()[-2000:]}")
    return target


# Which wheel was installed (its tags), that it imports from site-packages, and its version.
WHERE = """
import importlib.metadata, sys, tooljson
tags = [line.split(": ", 1)[1] for line in importlib.metadata.distribution("tooljson").read_text("WHEEL").splitlines()
        if line.startswith("Tag: ")]
print(sys.version.split()[0], tooljson.__file__, tooljson.__version__, *tags)
"""


def test(label: str, python: Path) -> tuple[bool, str]:
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}
    where = run(python, "-c", WHERE, env=env, cwd=VENVS)
    if where.returncode or "site-packages" not in where.stdout:
        return (
            False,
            f"the installed wheel does not import: {where.stdout.strip()} {where.stderr.strip()[-500:]}",
        )
    _, _, installed, *tags = where.stdout.split()
    if installed != version() or not any("manylinux_2_17" in tag for tag in tags):
        return (
            False,
            f"installed tooljson {installed} tagged {tags}: not the manylinux_2_17 wheel of {version()}",
        )
    # The checkout's pytest options name plugins these virtualenvs do not have: only the cache is off.
    done = run(
        python,
        "-m",
        "pytest",
        "-q",
        "-o",
        "addopts=-p no:cacheprovider",
        *(f"tests/{name}" for name in TEST_FILES),
        cwd=ROOT,
        env=env,
    )
    summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr.strip()[-500:]
    if done.returncode:
        print(done.stdout[-6000:], done.stderr[-2000:], sep="\n", file=sys.stderr)
    return done.returncode == 0, f"Python {where.stdout.split()[0]}, {tags[0]}: {summary}"


def main(argv: list[str]) -> int:
    # The release workflow runs the same tests, with the same pins, on each wheel it builds.
    if argv == ["--files"]:
        print(*(f"tests/{name}" for name in TEST_FILES))
        return 0
    if argv == ["--requirements"]:
        print(*pinned(REQUIREMENTS), sep="\n")
        return 0
    if len(argv) != 1 or not Path(argv[0]).is_dir():
        print(
            "usage: python scripts/test_versions.py DIST (a directory scripts/build_dist.py filled)",
            file=sys.stderr,
        )
        return 2
    dist = Path(argv[0]).resolve()
    VENVS.mkdir(exist_ok=True)
    started = time.monotonic()
    found = list(interpreters())
    # One interpreter per core at a time: each run is one single-threaded pytest process.
    with ThreadPoolExecutor(max_workers=max(1, min(len(found), os.cpu_count() or 1))) as pool:
        outcomes = [pool.submit(_one, label, python, dist) for label, python in found]
        failed = sum(not outcome.result() for outcome in outcomes)
    print(f"{'all passed' if not failed else f'{failed} failed'} in {time.monotonic() - started:.0f} s")
    return 1 if failed else 0


def _one(label: str, python: Path | None, dist: Path) -> bool:
    """Prepare and test one interpreter; print its line when it is done. Whether it passed."""
    if python is None:
        print(
            f"{label}: MISSING (no CPython {label} under pyenv; set TOOLJSON_PYTHONS to name one)", flush=True
        )
        return False
    began = time.monotonic()
    try:
        ok, summary = test(label, prepare(label, python, dist))
    except RuntimeError as error:
        ok, summary = False, str(error)
    print(f"{label}: {'ok' if ok else 'FAILED'} - {summary} ({time.monotonic() - began:.0f} s)", flush=True)
    return ok


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
