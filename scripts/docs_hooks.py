"""mkdocs hook (``mkdocs.yml``): serve ``benches/REPORT.md`` and ``benches/scaling.png`` as part of the site.

``make bench-report`` writes both into ``benches/``; the documentation shows them as they are there
(the report as the page ``report.md``, the plot as ``scaling.png`` beside the pages) rather than
keeping a second copy under ``docs/`` that would go stale.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

BENCHES = Path(__file__).resolve().parents[1] / "benches"


def on_files(files: Files, config: Any) -> Files:
    files.append(
        File.generated(config, "report.md", content=(BENCHES / "REPORT.md").read_text(encoding="utf-8"))
    )
    files.append(File.generated(config, "scaling.png", abs_src_path=str(BENCHES / "scaling.png")))
    return files
