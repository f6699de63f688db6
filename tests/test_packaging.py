"""Packaging: the manylinux wheel and the sdist build, install into a clean virtualenv and work there.

``scripts/build_dist.py`` builds them (``maturin build --release --zig --compatibility manylinux2014``
and ``maturin sdist``, each wheel's tag checked by ``auditwheel``); ``make test`` and ``make wheel``
build ``dist/`` once and hand it over in ``TOOLJSON_DIST``, and run by hand this module builds its own.
Each is installed into its own new virtualenv (no access to this checkout or to ``.venv``) and
imported from a directory outside the checkout, so that the installed copy is the one tested. The
sdist is built from source by pip, reusing this checkout's cargo target directory so that only what
changed is compiled. Whether the wheel is abi3 or one per CPython is Cargo.toml's choice; the tests
read it from there.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tarfile
import venv
import zipfile
from pathlib import Path

import pytest
import tomllib
from build_dist import abi3, auditwheel_tag, interpreters

ROOT = Path(__file__).resolve().parents[1]
VERSION = tomllib.loads((ROOT / "Cargo.toml").read_text())["package"]["version"]

# Run inside the clean virtualenv: the installed package, not the checkout, parses and raises.
SMOKE = """
import json, subprocess, sys, tooljson
from tooljson import _native
assert "site-packages" in tooljson.__file__, tooljson.__file__
assert _native.__version__ == tooljson.__version__ == sys.argv[1], (_native.__version__, tooljson.__version__)
version = subprocess.run([sys.executable, "-m", "tooljson", "--version"], capture_output=True, text=True, check=True)
assert version.stdout == f"tooljson {sys.argv[1]}\\n", version
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


def run(*command: str | Path, **options: object) -> str:
    done = subprocess.run(
        [str(part) for part in command],
        capture_output=True,
        text=True,
        check=False,
        **options,  # type: ignore[call-overload]
    )
    assert done.returncode == 0, f"{command} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return str(done.stdout)


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    given = os.environ.get("TOOLJSON_DIST")
    if given:
        return Path(given).resolve()
    if not (Path(sys.executable).parent / "maturin").exists():
        pytest.skip("maturin is not installed beside this Python")
    out = tmp_path_factory.mktemp("dist")
    run(sys.executable, ROOT / "scripts" / "build_dist.py", out)
    return out


def only(paths: list[Path]) -> Path:
    assert len(paths) == 1, paths
    return paths[0]


def wheels_of(dist: Path) -> list[Path]:
    return sorted(dist.glob(f"tooljson-{VERSION}-*.whl"))


def wheel_of(dist: Path) -> Path:
    """The wheel for this interpreter (the abi3 wheel, or this CPython's own)."""
    tag = f"cp{sys.version_info.major}{sys.version_info.minor}"
    return only([wheel for wheel in wheels_of(dist) if abi3() or f"-{tag}-{tag}-" in wheel.name])


def sdist_of(dist: Path) -> Path:
    return only(sorted(dist.glob(f"tooljson-{VERSION}.tar.gz")))


def clean_python(where: Path) -> Path:
    # No pip of its own (bootstrapping one takes most of a test's time): this pip installs into it.
    venv.EnvBuilder(with_pip=False, clear=True).create(where)
    return where / "bin" / "python"


def pip_install(python: Path, *arguments: str | Path, **options: object) -> None:
    run(
        sys.executable,
        "-m",
        "pip",
        "--python",
        python,
        "install",
        "--quiet",
        "--disable-pip-version-check",
        *arguments,
        **options,
    )


def smoke(python: Path, cwd: Path) -> None:
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}
    output = run(python, "-c", SMOKE, VERSION, cwd=cwd, env=env)
    assert output.startswith("ok "), output


def test_wheels_are_manylinux2014_and_carry_the_stub_and_the_license(dist: Path) -> None:
    wheels = wheels_of(dist)
    if abi3():
        # One wheel for every CPython from 3.10.
        assert [wheel.name.split("-")[2:4] for wheel in wheels] == [["cp310", "abi3"]], wheels
    else:
        tags = [f"cp{label.split('.')[0]}{label.split('.')[1]}" for label, _ in interpreters()]
        assert sorted(wheel.name.split("-")[2] for wheel in wheels) == sorted(tags), wheels
    for wheel in wheels:
        platforms = wheel.name.removesuffix(".whl").rsplit("-", 1)[1].split(".")
        assert "manylinux_2_17_x86_64" in platforms, wheel.name
        # auditwheel reads the symbols the extension needs: glibc 2.17 is enough.
        assert auditwheel_tag(wheel) == "manylinux_2_17_x86_64"
        names = zipfile.ZipFile(wheel).namelist()
        assert [name for name in names if re.fullmatch(r"tooljson/_native\..*(so|pyd)", name)], names
        assert {"tooljson/__init__.py", "tooljson/_native.pyi", "tooljson/py.typed"} <= set(names)
        license_text = zipfile.ZipFile(wheel).read(f"tooljson-{VERSION}.dist-info/licenses/LICENSE").decode()
        assert license_text == (ROOT / "LICENSE").read_text() and license_text.startswith("MIT License")
        metadata = zipfile.ZipFile(wheel).read(f"tooljson-{VERSION}.dist-info/METADATA").decode()
        assert "Requires-Python: >=3.10" in metadata
        assert "License-File: LICENSE" in metadata


def test_wheel_metadata_says_what_the_package_is(dist: Path) -> None:
    metadata = zipfile.ZipFile(wheels_of(dist)[0]).read(f"tooljson-{VERSION}.dist-info/METADATA").decode()
    fields = [line.split(": ", 1) for line in metadata.split("\n\n", 1)[0].splitlines() if ": " in line]
    classifiers = {value for key, value in fields if key == "Classifier"}
    for minor in ("3.10", "3.11", "3.12", "3.13"):
        assert f"Programming Language :: Python :: {minor}" in classifiers
    assert {
        "Typing :: Typed",
        "License :: OSI Approved :: MIT License",
        "Operating System :: POSIX :: Linux",
        "Operating System :: MacOS",
        "Operating System :: Microsoft :: Windows",
    } <= classifiers
    urls = {value.split(", ", 1)[0] for key, value in fields if key == "Project-URL"}
    assert {"Homepage", "Documentation", "Repository", "Issues", "Changelog"} <= urls
    assert "streaming" in dict(fields)["Keywords"].split(",")
    assert dict(fields)["Version"] == VERSION


def test_sdist_holds_the_sources_and_no_build_output(dist: Path) -> None:
    names = tarfile.open(sdist_of(dist)).getnames()
    top = f"tooljson-{VERSION}"
    for needed in (
        "pyproject.toml",
        "Cargo.toml",
        "Cargo.lock",
        "LICENSE",
        "README.md",
        "src/lib.rs",
        "src/python/mod.rs",
        "python/tooljson/__init__.py",
        "python/tooljson/_native.pyi",
        "python/tooljson/py.typed",
    ):
        assert f"{top}/{needed}" in names, needed
    leaked = [
        name for name in names if name.endswith((".so", ".pyd")) or "/target/" in name or "/.venv/" in name
    ]
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
    from tooljson.extras import DISTRIBUTIONS, EXTRAS, NOT_IN_ALL

    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]

    def names(requirements: list[str]) -> list[str]:
        return [requirement.split(">")[0].split("=")[0].split("[")[0].strip() for requirement in requirements]

    assert {extra: names(requirements) for extra, requirements in declared.items() if extra != "all"} == {
        extra: [DISTRIBUTIONS.get(module, module) for module in modules] for extra, modules in EXTRAS.items()
    }
    # ``all`` is every extra's requirements (but those that cannot be installed with the others), each
    # once, in the order the extras list them.
    assert declared["all"] == list(
        dict.fromkeys(
            requirement for extra in EXTRAS if extra not in NOT_IN_ALL for requirement in declared[extra]
        )
    )


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
    return subprocess.run(
        [str(python), *arguments], capture_output=True, text=True, cwd=cwd, env=env, timeout=120, check=False
    )


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
    bundled = _without_extras(
        python,
        "-c",
        "import tooljson, pathlib; print(pathlib.Path(tooljson.__file__).parent / "
        "'data' / 'demo_stream.jsonl')",
        cwd=work,
    ).stdout.strip()
    replayed = _without_extras(python, "-m", "tooljson", "replay", bundled, "--plain", cwd=work)
    assert replayed.returncode == 0, replayed.stderr
    assert "truncated at position" in replayed.stdout
    listed = _without_extras(python, "-m", "tooljson", "standin", "--list", cwd=work)
    assert listed.returncode == 0 and "parallel_calls" in listed.stdout
    loop = _without_extras(python, "-c", LOOP_WITHOUT_EXTRAS, cwd=work)
    assert loop.returncode == 0, loop.stderr
    assert (
        loop.stdout
        == "validating tool input against input_schema needs jsonschema: pip install 'tooljson[stream]'\n"
    )


def test_wheel_declares_an_all_extra(dist: Path) -> None:
    metadata = zipfile.ZipFile(wheel_of(dist)).read(f"tooljson-{VERSION}.dist-info/METADATA").decode()
    assert "Provides-Extra: all" in metadata
    in_all = {
        line.split("Requires-Dist: ", 1)[1].split(">")[0]
        for line in metadata.splitlines()
        if line.startswith("Requires-Dist: ") and line.endswith("extra == 'all'")
    }
    from tooljson.extras import DISTRIBUTIONS, EXTRAS, NOT_IN_ALL

    expected = {
        DISTRIBUTIONS.get(module, module)
        for extra, modules in EXTRAS.items()
        if extra not in NOT_IN_ALL
        for module in modules
    }
    assert in_all == expected
    # The package itself depends on nothing.
    assert not [
        line
        for line in metadata.splitlines()
        if line.startswith("Requires-Dist: ") and "extra ==" not in line
    ]


def test_wheel_registers_the_opentelemetry_instrumentor(dist: Path) -> None:
    import configparser

    entry_points = configparser.ConfigParser(delimiters=("=",))
    entry_points.read_string(
        zipfile.ZipFile(wheel_of(dist)).read(f"tooljson-{VERSION}.dist-info/entry_points.txt").decode()
    )
    assert dict(entry_points["opentelemetry_instrumentor"]) == {
        "tooljson": "tooljson.otel:ToolJSONInstrumentor"
    }
    metadata = zipfile.ZipFile(wheel_of(dist)).read(f"tooljson-{VERSION}.dist-info/METADATA").decode()
    assert "Provides-Extra: instruments" in metadata


# --- one version: Cargo.toml's, everywhere


def test_one_version_from_cargo_toml() -> None:
    import tooljson
    from tooljson import _native

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["dynamic"] == ["version"] and "version" not in project
    assert tooljson.__version__ == _native.__version__ == VERSION
    done = subprocess.run(
        [sys.executable, "-m", "tooljson", "--version"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, f"tooljson {VERSION}\n", "")
    # The changelog's newest entry is the version being built.
    newest = re.search(r"^## \[([^\]]+)\]", (ROOT / "CHANGELOG.md").read_text(), re.M)
    assert newest is not None and newest.group(1) == VERSION
