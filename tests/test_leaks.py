"""Memory: whatever a stream does, what it leaves behind is freed.

The lifecycle test runs 100,000 accumulator lifecycles of every kind (finished, failed, discarded,
abandoned with the call still open), with previews and events on, and bounds the growth of the
process's resident memory after a warm-up. The cycle tests count live objects instead of memory: a
reference cycle through a native object (a callback that reads its parser, a caught error whose
traceback holds the parser) must be collectable by :func:`gc.collect`. The collector tests check
that ``tooljson.loads`` pauses the cyclic collector while it builds a value and leaves it as it
found it, however the parse ends.
"""

from __future__ import annotations

import gc
import json
import sys
from collections.abc import Callable

import psutil  # type: ignore[import-untyped]
import pytest
import tooljson
from tooljson import _native

LIFECYCLES = 100_000
WARM_UP = 10_000
# Allocator arenas, interned strings and caches settle during the warm-up; after it, 100,000 more
# lifecycles may move RSS by allocator noise only. A leak of even 64 bytes per lifecycle is 6 MiB.
MAX_GROWTH = 4 * 1024 * 1024

ARGUMENTS = json.dumps(
    {
        "path": "/srv/app/caf\u00e9.py",
        "content": "line\n" * 8,
        "flags": [1, -2.5, True, None],
        "pair": "\ud83d\ude80",
    }
)
PIECES = [ARGUMENTS[i : i + 9] for i in range(0, len(ARGUMENTS), 9)]
MALFORMED = ['{"a": [1, 2', "], tru", "e}"]


def rss() -> int:
    gc.collect()
    return int(psutil.Process().memory_info().rss)


def lifecycle(number: int) -> None:
    """One accumulator, one way of ending a call, picked by ``number``."""
    seen: list[object] = []
    with_callback = number % 2 == 0
    accumulator = _native.ToolCallAccumulator(
        events=True,
        on_event=(lambda index, event: seen.append(event.kind)) if with_callback else None,
        preview_string_limit=32 if number % 3 == 0 else None,
    )
    accumulator.start(0, "write_file", f"toolu_{number}")
    ending = number % 5
    pieces = MALFORMED if ending == 1 else PIECES
    for position, piece in enumerate(pieces):
        if ending == 2 and position == len(pieces) // 2:
            break  # cut off half way: finish raises IncompleteJSONError
        accumulator.add_delta(0, piece)
        if position % 4 == 0:
            accumulator.preview(0)
            accumulator.status(0)
    if not with_callback:
        accumulator.events(0)
    if ending in (0, 1, 2):
        try:
            accumulator.finish(0)
        except tooljson.JSONDecodeError:
            assert ending != 0
    elif ending == 3:
        accumulator.discard(0)
    # ending 4: abandoned, the accumulator goes away with the call still open.


def test_accumulator_lifecycles_do_not_grow_memory() -> None:
    for number in range(WARM_UP):
        lifecycle(number)
    before = rss()
    for number in range(LIFECYCLES):
        lifecycle(number)
    growth = rss() - before
    assert growth <= MAX_GROWTH, f"RSS grew by {growth / 2**20:.2f} MiB over {LIFECYCLES} lifecycles"


def test_parsers_fed_and_dropped_do_not_grow_memory() -> None:
    def one(number: int) -> None:
        parser = tooljson.Parser(events=True)
        for piece in PIECES[: len(PIECES) - number % 3]:
            parser.feed(piece)
            parser.preview()
        parser.events()
        try:
            parser.finish()
        except tooljson.IncompleteJSONError:
            # The error's traceback holds this frame and the frame the parser, which holds the
            # error: a cycle the garbage collector must be able to break.
            pass

    for number in range(WARM_UP // 2):
        one(number)
    before = rss()
    for number in range(LIFECYCLES // 2):
        one(number)
    growth = rss() - before
    assert growth <= MAX_GROWTH, f"RSS grew by {growth / 2**20:.2f} MiB"


def live(kind: type) -> int:
    gc.collect()
    return sum(1 for item in gc.get_objects() if type(item) is kind)


def assert_collected(kind: type, make_cycle: Callable[[], None], rounds: int = 200) -> None:
    """Each round leaves its objects in a reference cycle; after gc.collect() none may be left."""
    before = live(kind)
    for _ in range(rounds):
        make_cycle()
    assert live(kind) - before == 0, f"{live(kind) - before} {kind.__name__} objects were never freed"


def test_dropped_parser_is_freed() -> None:
    # No cycle here: plain reference counting frees it. This is the baseline the cycle tests need.
    def make() -> None:
        parser = tooljson.Parser()
        parser.feed("[1, 2")

    assert_collected(tooljson.Parser, make)


def test_cycle_through_a_caught_finish_error_is_collected() -> None:
    # Parser -> stored finish() error -> its traceback -> this frame -> the local `parser`.
    def make() -> None:
        parser = tooljson.Parser()
        parser.feed("[1, 2")
        try:
            parser.finish()
        except tooljson.IncompleteJSONError:
            pass

    assert_collected(tooljson.Parser, make)


def test_cycle_through_a_parser_callback_is_collected() -> None:
    # Parser -> on_event -> the closure's cell -> Parser.
    def make() -> None:
        parser = tooljson.Parser(on_event=lambda event: parser.status)
        parser.feed('{"a": [1, "x"]}')
        parser.finish()

    assert_collected(tooljson.Parser, make)


def test_cycle_through_an_accumulator_callback_is_collected() -> None:
    def make() -> None:
        accumulator = _native.ToolCallAccumulator(on_event=lambda index, event: accumulator.status(index))
        accumulator.start(0, "tool", "toolu_1")
        accumulator.add_delta(0, '{"a": [1, "x"]}')
        accumulator.finish(0)

    assert_collected(_native.ToolCallAccumulator, make)


def test_cycle_through_the_stream_accumulator_dict_is_collected() -> None:
    # A Python subclass's own attributes are traversed by Python: this cycle is collectable today.
    def make() -> None:
        accumulator = tooljson.ToolCallAccumulator()
        accumulator.me = accumulator  # type: ignore[attr-defined]
        accumulator.start(0, "tool", "toolu_1")
        accumulator.add_delta(0, "{}")
        accumulator.finish(0)

    assert_collected(tooljson.ToolCallAccumulator, make)


#: Every kind of member the value stack of ``loads`` holds: nested containers, short (cached) and
#: long strings, escapes, numbers of each path, literals.
WHOLE = (
    '{"a": [1, -2.5, true, null, "xy", "a string value longer than sixteen bytes", {"k": "v", "n": [[], {}]}],'
    ' "b": {"c": "\\u00e9\\n\\ud83d\\ude80", "d": 123456789012345678901234567890123456789012, "e": 1e400}}'
)


def loads_every_way_of_failing() -> None:
    """``tooljson.loads`` on every cut of :data:`WHOLE`, with each character replaced by one that
    breaks it, and with an integer over the digit limit after each member."""
    for cut in range(len(WHOLE) + 1):
        for text in (
            WHOLE[:cut],
            WHOLE[:cut] + "#" + WHOLE[cut + 1 :],
            WHOLE[:cut] + "9" * 5000 + WHOLE[cut:],
        ):
            try:
                tooljson.loads(text)
            except ValueError:
                pass


def test_loads_releases_everything_on_every_error() -> None:
    # The value stack holds owned references until each container closes: whatever is on it when a
    # text turns out malformed (or an integer too long) must be released. Counted in pymalloc's
    # blocks: once the key cache, the free lists and the interned strings have settled (three passes
    # here), a pass frees every block it allocates. A leak grows every pass by a block or more per
    # failing text (about 600 of them); the surroundings (the collector's own lists) may move a
    # pass by a block, so the best of three passes is taken.
    for _ in range(3):
        loads_every_way_of_failing()
    growths = []
    for _ in range(3):
        before = sys.getallocatedblocks()
        loads_every_way_of_failing()
        growths.append(sys.getallocatedblocks() - before)
    assert min(growths) <= 0, f"blocks left by each pass: {growths}"


LONG_RECORDS = json.dumps([{"id": i, "tags": ["a", "b"], "where": {"x": i / 2}} for i in range(2_000)])
# Each ends the parse another way: a value, a malformed text, a cut-off one, nesting past the limit,
# an integer past CPython's digit limit.
LONG_TEXTS = [
    LONG_RECORDS,
    LONG_RECORDS[:-1] + "}",
    LONG_RECORDS[:-1],
    "[" * 5_000,
    LONG_RECORDS[:-1] + ", " + "9" * 5_000 + "]",
]


@pytest.mark.parametrize("was_enabled", [True, False])
@pytest.mark.parametrize("text", LONG_TEXTS, ids=["value", "malformed", "cut-off", "too-deep", "long-int"])
def test_loads_leaves_the_collector_as_it_found_it(text: str, was_enabled: bool) -> None:
    if was_enabled:
        gc.enable()
    else:
        gc.disable()
    try:
        try:
            tooljson.loads(text)
        except ValueError:
            pass
        assert gc.isenabled() is was_enabled
    finally:
        gc.enable()


def test_no_collection_runs_while_loads_builds_a_value() -> None:
    # 6,000 containers set off eight collections of the young generation in the middle of the
    # build on CPython 3.10 and 3.11 before the pause (3.12 and later run the collector only
    # between bytecodes, so never inside the call).
    started: list[int] = []

    def count(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            started.append(info["generation"])

    gc.collect()
    gc.callbacks.append(count)
    try:
        value = tooljson.loads(LONG_RECORDS)
        # Counted without making a container: the next one may set off the collection put off.
        during = len(started)
    finally:
        gc.callbacks.remove(count)
    assert value == json.loads(LONG_RECORDS)
    assert during == 0, f"collections of generations {started[:during]} ran inside the call"
