"""Packaging: the abi3 wheel and the sdist build, install into a clean virtualenv and work there.

The wheel is built with ``maturin build --release`` and the sdist with ``maturin sdist``; each is
installed into its own new virtualenv (no access to this checkout or to ``.venv``) and imported from
a directory outside the checkout, so that the installed copy is the one tested. The sdist is built
from source by pip, reusing this checkout's cargo target directory so that only what changed is
compiled. ``make wheel`` runs this module on the files it leaves in ``dist/`` (``TOOLJSON_DIST``).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
import tomllib
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]

# Run inside the clean virtualenv: the installed package, not the checkout, parses and raises.
SMOKE = """
import json, sys, tooljson
from tooljson import _native
assert "site-packages" in tooljson.__file__, tooljson.__file__
assert _native.__version__ == sys.argv[1], _native.__version__
assert tooljson.loads('{"a": [1, 2.5, "\\\\u00e9"]}') == {"a": [1, 2.5, "\\u00e9"]}
parser = tooljson.Parser()
for piece in ['{"q": "caf', '\\\\u00e9", "n": 1', "2}"]:
    parser.feed(piece)
assert parser.finish() == {"q": "caf\\u00e9", "n": 12}
try:
    tooljson.loads('[1, 2')
except json.JSONDecodeError as error:
    assert isinstance(error, tooljson.IncompleteJSONError) and error.pos == 5
else:
    raise AssertionError("a cut-off text was accepted")
print("ok", tooljson.__file__)
"""


def maturin() -> str:
    found = Path(sys.executable).parent / "maturin"
    if not found.exists():
        pytest.skip("maturin is not installed beside this Python")
    return str(found)


def run(*command: str | Path, **options: object) -> str:
    done = subprocess.run(
        [str(part) for part in command], capture_output=True, text=True, check=False, **options  # type: ignore[call-overload]
    )
    assert done.returncode == 0, f"{command} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return str(done.stdout)


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    given = os.environ.get("TOOLJSON_DIST")
    if given:
        return Path(given).resolve()
    out = tmp_path_factory.mktemp("dist")
    run(maturin(), "build", "--release", "--out", out, cwd=ROOT)
    run(maturin(), "sdist", "--out", out, cwd=ROOT)
    return out


def only(paths: list[Path]) -> Path:
    assert len(paths) == 1, paths
    return paths[0]


def wheel_of(dist: Path) -> Path:
    return only(sorted(dist.glob(f"tooljson-{VERSION}-*.whl")))


def sdist_of(dist: Path) -> Path:
    return only(sorted(dist.glob(f"tooljson-{VERSION}.tar.gz")))


def clean_python(where: Path) -> Path:
    # No pip of its own (bootstrapping one takes most of a test's time): this pip installs into it.
    venv.EnvBuilder(with_pip=False, clear=True).create(where)
    return where / "bin" / "python"


def pip_install(python: Path, *arguments: str | Path, **options: object) -> None:
    run(sys.executable, "-m", "pip", "--python", python, "install", "--quiet", "--disable-pip-version-check",
        *arguments, **options)


def smoke(python: Path, cwd: Path) -> None:
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}
    output = run(python, "-c", SMOKE, VERSION, cwd=cwd, env=env)
    assert output.startswith("ok "), output


def test_wheel_is_abi3_and_carries_the_stub(dist: Path) -> None:
    wheel = wheel_of(dist)
    assert "-cp310-abi3-" in wheel.name, wheel.name
    names = zipfile.ZipFile(wheel).namelist()
    assert "tooljson/_native.abi3.so" in names
    assert {"tooljson/__init__.py", "tooljson/_native.pyi", "tooljson/py.typed"} <= set(names)
    metadata = zipfile.ZipFile(wheel).read(f"tooljson-{VERSION}.dist-info/METADATA").decode()
    assert "Requires-Python: >=3.10" in metadata


def test_sdist_holds_the_sources_and_no_build_output(dist: Path) -> None:
    names = tarfile.open(sdist_of(dist)).getnames()
    top = f"tooljson-{VERSION}"
    for needed in ("pyproject.toml", "Cargo.toml", "Cargo.lock", "src/lib.rs", "src/python/mod.rs",
                   "python/tooljson/__init__.py", "python/tooljson/_native.pyi", "python/tooljson/py.typed"):
        assert f"{top}/{needed}" in names, needed
    leaked = [name for name in names if name.endswith((".so", ".pyd")) or "/target/" in name or "/.venv/" in name]
    assert not leaked, leaked


def test_wheel_installs_into_a_clean_venv_and_imports(dist: Path, tmp_path: Path) -> None:
    python = clean_python(tmp_path / "venv")
    pip_install(python, "--no-index", wheel_of(dist))
    smoke(python, tmp_path)


def test_sdist_builds_installs_into_a_clean_venv_and_imports(dist: Path, tmp_path: Path) -> None:
    python = clean_python(tmp_path / "venv")
    # pip builds the sdist in isolation (fetching maturin per pyproject's build-system); sharing the
    # target directory keeps the compiled dependencies of the checkout's own release build.
    env = {**os.environ, "CARGO_TARGET_DIR": str(ROOT / "target")}
    env.pop("VIRTUAL_ENV", None)
    pip_install(python, sdist_of(dist), env=env)
    smoke(python, tmp_path)


# --- without extras: each entry point names the extra it needs, before doing anything

def test_extras_module_and_pyproject_declare_the_same_packages() -> None:
    from tooljson.extras import DISTRIBUTIONS, EXTRAS

    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]

    def names(requirements: list[str]) -> list[str]:
        return [requirement.split(">")[0].split("=")[0].split("[")[0].strip() for requirement in requirements]

    assert {extra: names(requirements) for extra, requirements in declared.items() if extra != "all"} == {
        extra: [DISTRIBUTIONS.get(module, module) for module in modules] for extra, modules in EXTRAS.items()
    }
    # ``all`` is every extra's requirements, each once, in the order the extras list them.
    assert declared["all"] == list(dict.fromkeys(requirement for extra in EXTRAS for requirement in declared[extra]))


# A client that records what is asked of it: the loop must refuse to run before it asks anything.
LOOP_WITHOUT_EXTRAS = """
import sys, tooljson
asked = []
class Messages:
    def create(self, **request):
        asked.append(request)
        raise AssertionError("a request was sent")
class Client:
    messages = Messages()
tool = {"name": "f", "input_schema": {"type": "object"}}
try:
    tooljson.run_tool_loop(Client(), model="m", max_tokens=10, messages=[], tools=[tool], handlers={"f": print})
except tooljson.MissingExtra as error:
    print(error)
    assert isinstance(error, ImportError) and asked == []
"""


def _without_extras(python: Path, *arguments: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run([str(python), *arguments], capture_output=True, text=True, cwd=cwd, env=env,
                          timeout=120, check=False)


def test_wheel_without_extras_names_the_extra_each_entry_point_needs(dist: Path, tmp_path: Path) -> None:
    python = clean_python(tmp_path / "venv")
    pip_install(python, "--no-index", wheel_of(dist))
    work = tmp_path / "work"
    work.mkdir()
    needs = {
        ("demo",): "needs anthropic, jsonschema and rich: pip install 'tooljson[stream,ui]'",
        ("demo", "--plain"): "needs anthropic and jsonschema: pip install 'tooljson[stream]'",
        ("watch",): "needs anthropic, jsonschema and rich: pip install 'tooljson[stream,ui]'",
        ("watch", "--plain", "--live"): "needs anthropic and jsonschema: pip install 'tooljson[stream]'",
        ("record", "-o", "out.jsonl"): "needs anthropic and jsonschema: pip install 'tooljson[stream]'",
        ("web",): "needs starlette, uvicorn, anthropic and jsonschema: pip install 'tooljson[stream,ui]'",
        ("replay", "missing.jsonl"): "needs rich: pip install 'tooljson[ui]'",
    }
    for arguments, message in needs.items():
        done = _without_extras(python, "-m", "tooljson", *arguments, cwd=work)
        assert done.returncode == 2, (arguments, done.stdout, done.stderr)
        # One line, before anything was done: nothing on stdout, no file written.
        assert done.stdout == ""
        assert done.stderr == f"error: python -m tooljson {arguments[0]} {message}\n"
    assert list(work.iterdir()) == []
    # What needs no extra works: the help, the plain replay of the bundled stream, the stand-in.
    assert _without_extras(python, "-m", "tooljson", "--help", cwd=work).returncode == 0
    bundled = _without_extras(python, "-c", "import tooljson, pathlib; print(pathlib.Path(tooljson.__file__).parent / "
                              "'data' / 'demo_stream.jsonl')", cwd=work).stdout.strip()
    replayed = _without_extras(python, "-m", "tooljson", "replay", bundled, "--plain", cwd=work)
    assert replayed.returncode == 0, replayed.stderr
    assert "truncated at position" in replayed.stdout
    listed = _without_extras(python, "-m", "tooljson", "standin", "--list", cwd=work)
    assert listed.returncode == 0 and "parallel_calls" in listed.stdout
    loop = _without_extras(python, "-c", LOOP_WITHOUT_EXTRAS, cwd=work)
    assert loop.returncode == 0, loop.stderr
    assert loop.stdout == "validating tool input against input_schema needs jsonschema: pip install 'tooljson[stream]'\n"


def test_wheel_declares_an_all_extra(dist: Path) -> None:
    metadata = zipfile.ZipFile(wheel_of(dist)).read(f"tooljson-{VERSION}.dist-info/METADATA").decode()
    assert "Provides-Extra: all" in metadata
    in_all = {line.split("Requires-Dist: ", 1)[1].split(">")[0] for line in metadata.splitlines()
              if line.startswith("Requires-Dist: ") and line.endswith("extra == 'all'")}
    assert in_all == {"anthropic", "jsonschema", "pydantic", "rich", "starlette", "uvicorn", "httpx2", "openai", "boto3"}
    # The package itself depends on nothing.
    assert not [line for line in metadata.splitlines() if line.startswith("Requires-Dist: ") and "extra ==" not in line]
