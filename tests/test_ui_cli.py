"""The view commands as a person runs them: on a pseudo-terminal, into a pipe, and as a plain log."""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import time
from typing import Any

import pytest
from tooljson.standin.scenarios.answers import BROKEN_ESCAPE_INPUT

_COMMAND = [sys.executable, "-m", "tooljson", "watch", "--scenario", "invalid_json"]
_INVALID = f"malformed at position {BROKEN_ESCAPE_INPUT.index(chr(92) + 'q') + 1}: invalid escape"
_CONTROL = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def _run_on_terminal(arguments: list[str], *, rows: int = 60, columns: int = 120) -> tuple[int, str]:
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": str(columns), "LINES": str(rows)}
    env.pop("NO_COLOR", None)
    process = subprocess.Popen(arguments, stdin=slave, stdout=slave, stderr=slave, env=env, close_fds=True)
    os.close(slave)
    output = bytearray()
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.2)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # the terminal closed with the process
                    break
                if not chunk:
                    break
                output += chunk
            elif process.poll() is not None:
                break
        code = process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(master)
    return code, output.decode("utf-8", errors="replace")


def test_watch_on_a_terminal_redraws_in_place_and_ends_on_the_final_frame() -> None:
    code, output = _run_on_terminal([*_COMMAND, "--speed", "200"])
    assert code == 0, output
    # Frames are redrawn in place: the cursor goes back up and lines are cleared.
    assert "\x1b[2K" in output
    text = _CONTROL.sub("", output)
    final = text[text.rindex("invalid_json (stand-in)") :]
    assert _INVALID in final
    assert final.count("✓ complete") == 2
    assert "final text: Results received:" in final


def test_watch_into_a_pipe_prints_one_frame_without_control_codes() -> None:
    result = subprocess.run([*_COMMAND], capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    assert "\x1b[" not in result.stdout
    assert result.stdout.count("invalid_json (stand-in)") == 1
    assert _INVALID in result.stdout
    assert result.stderr == ""


def test_watch_plain_is_a_line_log() -> None:
    result = subprocess.run([*_COMMAND, "--plain"], capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "== invalid_json (stand-in)"
    assert any(line.endswith(_INVALID) for line in lines)
    assert lines[-2].startswith("final text: Results received:")
    assert lines[-3].startswith("calls: save_record malformed at position")
    assert "\x1b[" not in result.stdout


def test_web_prints_its_address_serves_the_page_and_stops_by_itself() -> None:
    import urllib.request

    process = subprocess.Popen(
        [sys.executable, "-m", "tooljson", "web", "--stop-after", "8"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert match, line
        with urllib.request.urlopen(match.group(0) + "api/sources", timeout=30) as response:
            assert response.status == 200
        started = time.monotonic()
        assert process.wait(timeout=60) == 0
        # It stopped on its own, at the time it was given.
        assert time.monotonic() - started < 15
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()


def _demo_arguments(**overrides: object) -> argparse.Namespace:
    values: dict[str, object] = {
        "scenario": None,
        "live": False,
        "model": None,
        "plain": False,
        "speed": None,
        "fps": 20.0,
        "provider": "anthropic",
    }
    values.update(overrides)
    return argparse.Namespace(**values)


def test_demo_view_replays_the_bundled_stream_then_the_default_scenarios(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from tooljson import cli

    assert cli.demo(_demo_arguments()) == 0
    out = capsys.readouterr().out
    titles = [line.split("   turn")[0] for line in out.splitlines() if "   turn " in line and "·" in line]
    runner = "invalid_json (SDK tool_runner, accelerated)"
    assert titles == [
        "replay of data/demo_stream.jsonl",
        *(f"{name} (stand-in)" for name in cli.DEFAULT_SCENARIOS),
        runner,
    ]
    assert "truncated at position" in out
    assert _INVALID in out
    # The SDK's own runner, accelerated: the malformed calls were answered and the run went on.
    assert out.split(runner)[-1].count("rejected: the tool was not run") >= 2
    assert "Results received: save_record done" in out.split(runner)[-1]


def test_demo_handlers_answer_the_calculator(capsys: pytest.CaptureFixture[str]) -> None:
    from tooljson import cli

    assert cli.demo(_demo_arguments(scenario=["thinking"])) == 0
    assert f"result: {1234 * 5678}" in capsys.readouterr().out


def test_web_stops_cleanly_on_sigterm() -> None:
    import signal
    import urllib.request

    process = subprocess.Popen(
        [sys.executable, "-m", "tooljson", "web"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout is not None
        match = re.search(r"http://127\.0\.0\.1:(\d+)/", process.stdout.readline())
        assert match
        with urllib.request.urlopen(match.group(0), timeout=30) as response:
            assert response.status == 200
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0
        assert process.stderr is not None
        assert "Traceback" not in process.stderr.read()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()


def test_tooljson_demo_uses_the_live_view_and_keeps_plain(capsys: pytest.CaptureFixture[str]) -> None:
    from tooljson.__main__ import main

    assert main(["demo", "--scenario", "invalid_json", "--speed", "0"]) == 0
    live = capsys.readouterr().out
    # Not a terminal here: the live view prints its final frame, once.
    assert live.count("invalid_json (stand-in)") == 1
    assert _INVALID in live
    assert main(["demo", "--plain", "--scenario", "invalid_json"]) == 0
    plain = capsys.readouterr().out
    # The same view as a line log: a heading, no panels.
    assert plain.startswith("== invalid_json (stand-in)\n")
    assert "╭" not in plain and "╭" in live
    assert '{"INVALID_JSON": ' in plain


def test_tooljson_record_then_replay(capsys: pytest.CaptureFixture[str], tmp_path: Any) -> None:
    from tooljson.__main__ import main

    path = tmp_path / "run.jsonl"
    assert main(["record", "--scenario", "max_tokens", "-o", str(path)]) == 0
    recorded = capsys.readouterr().out
    assert "write_note truncated at position" in recorded
    assert main(["replay", str(path), "--plain"]) == 0
    calls = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("calls: "))
    assert recorded.split(": ", 1)[1].strip() == calls.removeprefix("calls: ")


def test_tooljson_record_refuses_an_unknown_scenario(capsys: pytest.CaptureFixture[str]) -> None:
    from tooljson.__main__ import main

    with pytest.raises(SystemExit) as caught:
        main(["record", "--scenario", "no_such_scenario"])
    assert caught.value.code == 2
    assert "invalid choice: 'no_such_scenario'" in capsys.readouterr().err
