"""pytest setup shared by the tests of the core."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from hypothesis import settings

# The helpers module sits beside the tests, the developer scripts in scripts/ (a test checks the
# bundled demo stream against the script that records it); make both importable.
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parent.parent / "scripts"))

# Parsing through the extension is fast, but a 2-core machine running other work can stall any one
# example; a per-example deadline would turn that into a flaky failure, so none is set. The number of
# examples stays fixed per test.
# The shared headless Chromium, a fixture every browser test takes by name.
from browser import browser  # noqa: F401

settings.register_profile("tooljson", deadline=None, print_blob=True)
# CI draws the same examples on every run (.ci/run sets TOOLJSON_HYPOTHESIS=ci), so that a submission
# passes or fails on its code alone; a local run draws new ones each time and keeps exploring.
settings.register_profile("ci", settings.get_profile("tooljson"), derandomize=True)
settings.load_profile(os.environ.get("TOOLJSON_HYPOTHESIS", "tooljson"))
