"""Build what is published into one directory: the manylinux wheel(s) and the sdist (``make wheel``).

``python scripts/build_dist.py OUT`` empties ``OUT`` and runs ``maturin build --release --zig
--compatibility manylinux2014`` (zig, from the pinned ``ziglang`` package, links against glibc 2.17
whatever this machine's glibc is; maturin finds it only with the virtualenv's ``bin`` on ``PATH``),
then ``maturin sdist``. The build has a target directory of its own (``target/dist``): its linker
differs from ``maturin develop``'s, and sharing one directory would make each rebuild the other's work.

abi3 or not is pyproject.toml's choice alone (the ``abi3`` cargo feature among maturin's features):
with it maturin makes one wheel for every CPython from 3.10; without it this script asks for one wheel
per interpreter that :func:`interpreters` finds (pyenv's 3.10 to 3.13), each checked the same way.
``python scripts/build_dist.py --abi3 OUT`` builds the abi3 wheel alone, whatever pyproject.toml says
(``make test-abi3`` tests it). ``auditwheel show`` must find each wheel consistent with the tag it
carries, or the build fails.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
MINORS = ("3.10", "3.11", "3.12", "3.13")
# The oldest glibc the wheel runs on: manylinux2014 (glibc 2.17), as orjson, jiter and pydantic-core.
COMPATIBILITY = "manylinux2014"


def cargo() -> dict[str, Any]:
    """Cargo.toml. tomllib is imported here, not at the top: the release workflow runs
    ``test_versions.py --files`` on CPython 3.10 too, which has no tomllib."""
    import tomllib

    return tomllib.loads((ROOT / "Cargo.toml").read_text())


def version() -> str:
    """The package version: Cargo.toml's, the one source every other place reads."""
    return str(cargo()["package"]["version"])


def abi3() -> bool:
    """Whether the published extension is built against the stable ABI: maturin's features in
    pyproject.toml name the crate's ``abi3`` feature."""
    import tomllib

    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return "abi3" in pyproject["tool"]["maturin"].get("features", [])


def interpreters() -> list[tuple[str, Path | None]]:
    """(label, python) per CPython to build for and test on; ``None`` for one that is missing.

    pyenv's newest patch release of each minor version from 3.10 (``requires-python``) to 3.13, found
    under ``$PYENV_ROOT/versions`` (default ``~/.pyenv``); ``TOOLJSON_PYTHONS`` (paths separated by
    ``:``) names others instead.
    """
    given = os.environ.get("TOOLJSON_PYTHONS")
    if given:
        return [(Path(path).name, Path(path)) for path in given.split(":") if path]
    versions = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    found: list[tuple[str, Path | None]] = []
    for minor in MINORS:
        releases = [
            path
            for path in versions.glob(f"{minor}.*")
            if re.fullmatch(rf"{re.escape(minor)}\.\d+", path.name)
        ]
        newest = max(releases, key=lambda path: int(path.name.rsplit(".", 1)[1]), default=None)
        python = newest / "bin" / "python3" if newest is not None else None
        found.append(
            (newest.name if newest is not None else minor, python if python and python.exists() else None)
        )
    return found


def run(*command: str | Path, **options: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(part) for part in command], text=True, capture_output=True, check=False, **options
    )  # type: ignore[call-overload]


def auditwheel_tag(wheel: Path) -> str:
    """The platform tag ``auditwheel show`` finds the wheel consistent with."""
    done = run(Path(sys.executable).parent / "auditwheel", "show", wheel)
    found = re.search(r'consistent\s+with\s+the\s+following\s+platform\s+tag:\s+"([^"]+)"', done.stdout)
    if done.returncode or found is None:
        raise RuntimeError(f"auditwheel show {wheel.name} failed:\n{done.stdout}{done.stderr}")
    return found.group(1)


def build(out: Path, stable_abi: bool = False) -> list[Path]:
    """Build the wheel(s) and the sdist into ``out`` (emptied first); the files made. With
    ``stable_abi``, the abi3 wheel whatever pyproject.toml says."""
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    bin_dir = Path(sys.executable).parent
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        "CARGO_TARGET_DIR": str(ROOT / "target" / "dist"),
    }
    env.pop("VIRTUAL_ENV", None)
    targets: list[str] = ["--features", "abi3"] if stable_abi else []
    if not abi3() and not stable_abi:
        missing = [label for label, python in interpreters() if python is None]
        if missing:
            raise RuntimeError(
                f"no CPython {', '.join(missing)} to build a wheel for (pyenv, or TOOLJSON_PYTHONS)"
            )
        for _, python in interpreters():
            targets += ["--interpreter", str(python)]
    maturin = bin_dir / "maturin"
    done = run(
        maturin,
        "build",
        "--release",
        "--zig",
        "--compatibility",
        COMPATIBILITY,
        "--out",
        out,
        *targets,
        cwd=ROOT,
        env=env,
    )
    if done.returncode:
        raise RuntimeError(f"maturin build failed:\n{done.stderr[-4000:]}")
    done = run(maturin, "sdist", "--out", out, cwd=ROOT, env=env)
    if done.returncode:
        raise RuntimeError(f"maturin sdist failed:\n{done.stderr[-4000:]}")
    wheels = sorted(out.glob("*.whl"))
    for wheel in wheels:
        tag = auditwheel_tag(wheel)
        if tag not in wheel.name.removesuffix(".whl").rsplit("-", 1)[1].split("."):
            raise RuntimeError(
                f"{wheel.name}: auditwheel finds it consistent with {tag}, not with its own tag"
            )
    return sorted(out.iterdir())


def main(argv: list[str]) -> int:
    stable_abi = argv[:1] == ["--abi3"]
    argv = argv[1:] if stable_abi else argv
    if len(argv) != 1:
        print("usage: python scripts/build_dist.py [--abi3] OUT", file=sys.stderr)
        return 2
    try:
        made = build(Path(argv[0]).resolve(), stable_abi)
    except RuntimeError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    for path in made:
        print(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
