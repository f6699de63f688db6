"""Time TurnReader.feed over the same streams in this checkout and at another revision, side by side.

    .venv/bin/python scripts/compare_reader.py REVISION [--rounds N]

The other revision's Python package is exported with ``git archive`` and imported under another name
(``tooljson_base``) in the same process, with this checkout's extension (so only the Python layers
differ; the native code must be the same). Both sides are timed in alternating rounds (CPU time, one
new reader fed every event of a stream per round), and the report gives, per stream, each side's
median time per event and the median of the per-round ratios (this checkout ÷ the revision), which
a busy machine disturbs far less than either time. Streams: the ``large_file_write`` response
(about 6,600 events, nearly all tool-input fragments: the loop's hot path) as dicts and as the
SDK's event objects, and a text-only response of 5,000 text deltas; and the ``large_file_write``
response in each other API's shape, as the stand-in writes it (dicts, and for the openai APIs the SDK's
objects too), and as LangChain ``AIMessageChunk`` s.
"""

from __future__ import annotations

import argparse
import importlib
import random
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def streams() -> dict[str, list[dict[str, object]]]:
    import random

    from tooljson.standin import get_scenario
    from tooljson.standin.render import render_stream
    from tooljson.standin.reply import Reply, Text

    scenario = get_scenario("large_file_write")
    reply = scenario.respond(scenario.first_request(), 0)
    large = render_stream(
        reply, rng=random.Random(0), model="m", input_tokens=1, fragment_sizes=(1, 32)
    ).events
    text = render_stream(
        Reply(blocks=(Text("word " * 20_000),), stop_reason="end_turn"),
        rng=random.Random(0),
        model="m",
        input_tokens=1,
        fragment_sizes=(1, 7),
    ).events
    return {"large_file_write": large, "text": text[: 5_000 + 4] + text[-3:], **other_apis(reply)}


def other_apis(reply: Any) -> dict[str, list[Any]]:
    """The reply as each other API's wire writes it (the stand-in's renderers), as dicts."""
    from tooljson.providers.bedrock import wire as bedrock
    from tooljson.providers.chat import wire as chat
    from tooljson.providers.responses import wire as responses

    body = {"model": "m", "messages": [], "input": "", "stream": True}
    made = {}
    for name, wire in (("chat", chat), ("responses", responses), ("bedrock", bedrock)):
        made[name] = wire.render(reply, rng=random.Random(0), body=body, fragment_sizes=(1, 32)).events
    return made


def openai_objects(events: list[dict[str, Any]], kind: Any) -> list[Any]:
    from openai._models import construct_type

    return [construct_type(type_=kind, value=event) for event in events]


def langchain_chunks(chunks: list[dict[str, Any]]) -> list[Any]:
    """Chat Completions chunks as the AIMessageChunk s langchain-openai makes of them."""
    from langchain_core.messages import AIMessageChunk

    made = []
    for chunk in chunks:
        for choice in chunk.get("choices") or ():
            pieces = [
                {
                    "name": (piece.get("function") or {}).get("name"),
                    "args": (piece.get("function") or {}).get("arguments"),
                    "id": piece.get("id"),
                    "index": piece.get("index"),
                    "type": "tool_call_chunk",
                }
                for piece in (choice.get("delta") or {}).get("tool_calls") or ()
            ]
            metadata = {"finish_reason": choice["finish_reason"]} if choice.get("finish_reason") else {}
            made.append(
                AIMessageChunk(
                    content=(choice.get("delta") or {}).get("content") or "",
                    tool_call_chunks=pieces,
                    response_metadata=metadata,
                )
            )
    return made


def export(revision: str, into: Path) -> Path:
    """The revision's package as ``tooljson_base`` under ``into``, sharing this checkout's extension."""
    archive = into / "package.tar"
    with archive.open("wb") as out:
        subprocess.run(["git", "archive", revision, "python/tooljson"], cwd=ROOT, stdout=out, check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter="data")
    package = into / "python" / "tooljson"
    renamed = package.with_name("tooljson_base")
    package.rename(renamed)
    for source in renamed.rglob("*.py"):
        text = re.sub(r"\btooljson\b(?=[.\s])", "tooljson_base", source.read_text(encoding="utf-8"))
        text = text.replace("tooljson_base._native", "tooljson._native").replace(
            "from tooljson_base import _native", "from tooljson import _native"
        )
        # A relative import of the extension (from .. import _native) must reach this checkout's too.
        text = re.sub(r"from \.+ import _native\b", "from tooljson import _native", text)
        text = re.sub(r"from \.+_native import\b", "from tooljson._native import", text)
        source.write_text(text, encoding="utf-8")
    return into / "python"


def sdk_objects(events: list[dict[str, Any]]) -> list[Any]:
    from anthropic.types import RawMessageStreamEvent
    from pydantic import TypeAdapter

    adapter: TypeAdapter[Any] = TypeAdapter(RawMessageStreamEvent)
    # The SDK drops pings before a client sees them.
    return [adapter.validate_python(event) for event in events if event["type"] != "ping"]


def feed_time(reader_class: Any, events: list[Any]) -> float:
    reader = reader_class()
    feed = reader.feed
    started = time.process_time()
    for event in events:
        feed(event)
    return time.process_time() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("revision", help="the revision to compare this checkout with")
    parser.add_argument("--rounds", type=int, default=40, help="alternating rounds per stream (default: 40)")
    arguments = parser.parse_args()
    data = streams()
    from openai.types.chat import ChatCompletionChunk
    from openai.types.responses import ResponseStreamEvent

    prepared = {
        "large_file_write (dicts)": data["large_file_write"],
        "large_file_write (SDK objects)": sdk_objects(data["large_file_write"]),
        "5,000 text deltas (dicts)": data["text"],
        "Chat Completions (dicts)": data["chat"],
        "Chat Completions (SDK objects)": openai_objects(data["chat"], ChatCompletionChunk),
        "Responses (dicts)": data["responses"],
        "Responses (SDK objects)": openai_objects(data["responses"], ResponseStreamEvent),
        "Bedrock ConverseStream (dicts)": data["bedrock"],
        "LangChain AIMessageChunks": langchain_chunks(data["chat"]),
    }
    with tempfile.TemporaryDirectory() as directory:
        sys.path.insert(0, str(export(arguments.revision, Path(directory))))
        base = importlib.import_module("tooljson_base.turn").TurnReader
        from tooljson.turn import TurnReader as new  # noqa: N813 - the side under test

        print(
            f"TurnReader.feed, CPU time per event, {arguments.rounds} alternating rounds ({arguments.revision} vs this checkout):"
        )
        for name, events in prepared.items():
            befores, afters, ratios = [], [], []
            for round_number in range(arguments.rounds):
                # Alternate which side goes first, so that neither always runs on a warmer cache.
                if round_number % 2:
                    after, before = feed_time(new, events), feed_time(base, events)
                else:
                    before, after = feed_time(base, events), feed_time(new, events)
                befores.append(before / len(events))
                afters.append(after / len(events))
                ratios.append(after / before)
            quartiles = statistics.quantiles(ratios, n=4)
            print(
                f"  {name:32} {statistics.median(befores) * 1e9:6.0f} ns -> {statistics.median(afters) * 1e9:6.0f} ns"
                f"   ratio {statistics.median(ratios):.3f} (IQR {quartiles[0]:.3f}-{quartiles[2]:.3f})"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
