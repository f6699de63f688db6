"""Run the parser and accumulator tests on every CPython the abi3 wheel is for (``make test-versions``).

The wheel is built once (``maturin build --release``); each interpreter gets its own virtualenv under
``.venv-versions/`` with that wheel and the pinned test requirements those test files need, and runs
them from the checkout's ``tests/`` against the installed copy. The interpreters are pyenv's newest
patch release of each minor version from 3.10 (``requires-python``) to 3.13, found under
``$PYENV_ROOT/versions`` (default ``~/.pyenv``); ``TOOLJSON_PYTHONS`` (paths, separated by ``:``) names
others instead. Prints one line per interpreter; exits non-zero when one fails or is missing.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MINORS = ("3.10", "3.11", "3.12", "3.13")
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


def interpreters() -> list[tuple[str, Path | None]]:
    """(label, python) per interpreter to test; ``None`` for one that is missing."""
    given = os.environ.get("TOOLJSON_PYTHONS")
    if given:
        return [(Path(path).name, Path(path)) for path in given.split(":") if path]
    versions = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    found: list[tuple[str, Path | None]] = []
    for minor in MINORS:
        releases = [path for path in versions.glob(f"{minor}.*") if re.fullmatch(rf"{re.escape(minor)}\.\d+", path.name)]
        newest = max(releases, key=lambda path: int(path.name.rsplit(".", 1)[1]), default=None)
        python = newest / "bin" / "python3" if newest is not None else None
        found.append((newest.name if newest is not None else minor, python if python and python.exists() else None))
    return found


def run(*command: str | Path, **options: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(part) for part in command], text=True, capture_output=True, check=False, **options)  # type: ignore[call-overload]


def build_wheel() -> Path:
    out = VENVS / "wheel"
    shutil.rmtree(out, ignore_errors=True)
    done = run(Path(sys.executable).parent / "maturin", "build", "--release", "--out", out, cwd=ROOT)
    if done.returncode:
        sys.exit(f"maturin build failed:\n{done.stderr[-3000:]}")
    [wheel] = sorted(out.glob("tooljson-*-abi3-*.whl"))
    return wheel


def prepare(label: str, python: Path, wheel: Path) -> Path:
    """A virtualenv for ``python`` holding the wheel and the test requirements; its interpreter."""
    venv = VENVS / label
    stamp = venv / ".requirements"
    requirements = pinned(REQUIREMENTS)
    if not (venv / "bin" / "python").exists():
        done = run(python, "-m", "venv", "--without-pip", "--clear", venv)
        if done.returncode:
            raise RuntimeError(f"venv failed: {done.stderr.strip()}")
    target = venv / "bin" / "python"
    pip = [sys.executable, "-m", "pip", "--python", str(target), "install", "--quiet", "--disable-pip-version-check"]
    if not stamp.exists() or stamp.read_text() != "\n".join(requirements):
        done = run(*pip, *requirements)
        if done.returncode:
            raise RuntimeError(f"installing {' '.join(requirements)} failed: {done.stderr.strip()[-2000:]}")
        stamp.write_text("\n".join(requirements))
    done = run(*pip, "--no-deps", "--force-reinstall", wheel)
    if done.returncode:
        raise RuntimeError(f"installing the wheel failed: {done.stderr.strip()[-2000:]}")
    return target


def test(label: str, python: Path) -> tuple[bool, str]:
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}
    where = run(python, "-c", "import sys, tooljson; print(sys.version.split()[0], tooljson.__file__)", env=env, cwd=VENVS)
    if where.returncode or "site-packages" not in where.stdout:
        return False, f"the installed wheel does not import: {where.stdout.strip()} {where.stderr.strip()[-500:]}"
    # The checkout's pytest options name plugins these virtualenvs do not have: only the cache is off.
    done = run(
        python, "-m", "pytest", "-q", "-o", "addopts=-p no:cacheprovider", *(f"tests/{name}" for name in TEST_FILES),
        cwd=ROOT, env=env,
    )
    summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr.strip()[-500:]
    if done.returncode:
        print(done.stdout[-6000:], done.stderr[-2000:], sep="\n", file=sys.stderr)
    return done.returncode == 0, f"Python {where.stdout.split()[0]}: {summary}"


def main() -> int:
    VENVS.mkdir(exist_ok=True)
    started = time.monotonic()
    wheel = build_wheel()
    print(f"built {wheel.name} in {time.monotonic() - started:.0f} s", flush=True)
    failed = 0
    for label, python in interpreters():
        if python is None:
            print(f"{label}: MISSING (no CPython {label} under pyenv; set TOOLJSON_PYTHONS to name one)", flush=True)
            failed += 1
            continue
        began = time.monotonic()
        try:
            ok, summary = test(label, prepare(label, python, wheel))
        except RuntimeError as error:
            ok, summary = False, str(error)
        failed += not ok
        print(f"{label}: {'ok' if ok else 'FAILED'} - {summary} ({time.monotonic() - began:.0f} s)", flush=True)
    print(f"{'all passed' if not failed else f'{failed} failed'} in {time.monotonic() - started:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
