"""The typed example in ``examples/`` runs, and says what its text promises."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "typed_usage.py"


def test_typed_usage_example_runs() -> None:
    done = subprocess.run(
        [sys.executable, str(EXAMPLE)], capture_output=True, text=True, check=False, timeout=120
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "incomplete" in lines[0].split()
    assert any(line.startswith("finished: ") and '"notes/caf\u00e9.md"' in line for line in lines)
    verdicts = [line.split(" -> ", 1)[1] for line in lines if " -> " in line]
    assert verdicts[0].startswith("cut off at character 11")
    assert verdicts[1].startswith("malformed at line 1, column 12")
    assert verdicts[2] == 'value {"a": [1, 2]}'
