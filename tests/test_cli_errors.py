"""The command line as a careless user meets it: every error is one line and an exit status, never a
traceback, and a failed recording leaves no file behind; the help reads well in a terminal."""

from __future__ import annotations

import argparse
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tooljson import cli
from tooljson.demo import runs

COMMANDS = ["demo", "watch", "record", "replay", "web", "standin"]


def _run(*arguments: str, module: str = "tooljson") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", module, *arguments], capture_output=True, text=True, timeout=120, check=False
    )


def _one_line_error(done: subprocess.CompletedProcess[str], status: int = 2) -> str:
    assert done.returncode == status, (done.returncode, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1, lines
    return lines[0]


@pytest.fixture
def busy_port() -> Iterator[int]:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    try:
        yield listener.getsockname()[1]
    finally:
        listener.close()


@pytest.mark.parametrize(
    "command",
    [
        ("tooljson", "web"),
        ("tooljson", "standin", "--scenario", "parallel_calls"),
        ("tooljson.standin", "--scenario", "parallel_calls"),
    ],
)
def test_a_port_in_use_is_one_line(busy_port: int, command: tuple[str, ...]) -> None:
    module, *arguments = command
    line = _one_line_error(_run(*arguments, "--port", str(busy_port), module=module))
    assert line == (
        f"error: cannot listen on 127.0.0.1:{busy_port}: Address already in use "
        "(choose another --port, or 0 for a free one)"
    )


@pytest.mark.parametrize("port", ["-1", "99999", "65536", "http", "1e3", ""])
@pytest.mark.parametrize("command", ["web", "standin"])
def test_a_port_out_of_range_is_a_usage_error(port: str, command: str) -> None:
    line = _one_line_error(_run(command, "--port", port))
    assert line.startswith(f"python -m tooljson {command}: error: argument --port: ")
    assert line.endswith(f"(see python -m tooljson {command} --help)")


@pytest.mark.parametrize(
    ("arguments", "says"),
    [
        (["nope"], "invalid choice: 'nope'"),
        ([], "the following arguments are required: COMMAND"),
        (["replay"], "the following arguments are required: FILE"),
        (
            ["replay", "x.jsonl", "--speed", "nan"],
            "argument --speed: expected a number at least 0, got 'nan'",
        ),
        (["replay", "x.jsonl", "--speed", "-3"], "argument --speed: expected a number at least 0"),
        (["replay", "x.jsonl", "--fps", "0"], "argument --fps: expected a number above 0"),
        (["web", "--stop-after", "inf"], "argument --stop-after: expected a number at least 0"),
        (["standin", "--fragment-sizes", "9,1"], "expected 1 <= LOW <= HIGH"),
        (["record", "--scenario", "nope"], "invalid choice: 'nope'"),
        (["watch", "--seed", "x"], "argument --seed: invalid int value: 'x'"),
    ],
)
def test_usage_errors_are_one_line_and_status_2(arguments: list[str], says: str) -> None:
    assert says in _one_line_error(_run(*arguments))


def test_a_missing_or_unreadable_file_is_one_line(tmp_path: Path) -> None:
    assert "cannot read" in _one_line_error(_run("replay", str(tmp_path / "missing.jsonl"), "--plain"))
    assert "Is a directory" in _one_line_error(_run("replay", str(tmp_path), "--plain"))
    assert "no such file" in _one_line_error(_run("web", str(tmp_path / "missing.jsonl")))


# --- record leaves no partial output


def _files(directory: Path) -> list[str]:
    return sorted(path.name for path in directory.iterdir())


def test_record_writes_its_file_only_when_complete(tmp_path: Path) -> None:
    out = tmp_path / "run.jsonl"
    assert cli.main(["record", "--scenario", "parallel_calls", "-o", str(out)]) == 0
    assert _files(tmp_path) == ["run.jsonl"]
    assert out.stat().st_size > 0


def test_a_run_that_records_nothing_leaves_no_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def refused(name: str, view: Any, **options: Any) -> None:
        view.finish(failure="APIConnectionError: Connection refused")

    monkeypatch.setattr(runs, "run_scenario", refused)
    out = tmp_path / "run.jsonl"
    assert cli.main(["record", "--scenario", "parallel_calls", "-o", str(out)]) == 1
    assert capsys.readouterr().err == (
        "error: nothing was recorded (APIConnectionError: Connection refused); no file written\n"
    )
    assert _files(tmp_path) == []


def test_an_interrupted_recording_keeps_the_previous_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def interrupted(name: str, view: Any, *, on_raw_event: Any, **options: Any) -> None:
        on_raw_event({"type": "message_start", "message": {}})
        raise KeyboardInterrupt

    out = tmp_path / "run.jsonl"
    out.write_text("the previous recording\n", encoding="utf-8")
    monkeypatch.setattr(runs, "run_scenario", interrupted)
    assert cli.main(["record", "--scenario", "parallel_calls", "-o", str(out)]) == 130
    assert capsys.readouterr().err == "interrupted\n"
    assert _files(tmp_path) == ["run.jsonl"]
    assert out.read_text(encoding="utf-8") == "the previous recording\n"


def test_record_into_a_directory_or_nowhere_is_one_line(tmp_path: Path) -> None:
    assert "cannot write" in _one_line_error(_run("record", "--scenario", "empty_input", "-o", str(tmp_path)))
    missing = tmp_path / "no" / "such" / "dir.jsonl"
    assert "cannot write" in _one_line_error(_run("record", "--scenario", "empty_input", "-o", str(missing)))
    assert _files(tmp_path) == []


# --- help


def _parsers() -> Iterator[tuple[str, argparse.ArgumentParser]]:
    top = cli.parser()
    yield "python -m tooljson", top
    subparsers = next(action for action in top._actions if isinstance(action, argparse._SubParsersAction))
    yield from subparsers.choices.items()


@pytest.mark.parametrize("arguments", [["--help"], *([command, "--help"] for command in COMMANDS)])
def test_help_reads_well_in_a_terminal(arguments: list[str]) -> None:
    done = _run(*arguments)
    assert done.returncode == 0 and done.stderr == ""
    text = done.stdout
    # No markup meant for documentation tools, no choice lists spilling over the usage line.
    for markup in ("``", ":class:", ":func:", ":mod:", "{parallel_calls,"):
        assert markup not in text
    assert "usage: python -m tooljson" in text


def test_every_option_says_what_it_does() -> None:
    for name, parser in _parsers():
        for action in parser._actions:
            if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
                continue
            assert action.help, f"{name}: {action.option_strings or action.dest} has no help"
