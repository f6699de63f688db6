"""Threads: what is safe to share, and what happens when it is shared anyway.

What these tests establish (CPython with the GIL, which the abi3 build requires):

- One ``Parser`` or accumulator per thread: safe, results exact.
- One accumulator shared under a lock: safe, results exact.
- One accumulator shared *without* a lock, each thread on its own block indices: a native call
  holds the GIL throughout (``on_event`` callbacks run after the object's borrow has ended), so
  calls do not overlap and the results are exact, *unless* Python code runs in the middle of a
  call: a garbage collection that a call's allocations trigger runs finalizers (``__del__``,
  weakref callbacks), and those can hand the GIL to another thread while the object is borrowed.
  A call from that thread then raises ``RuntimeError("Already borrowed")`` and changes nothing;
  nothing crashes. So: share an accumulator between threads only under a lock.
- Two threads feeding the *same* block index: no crash, but the fragments interleave, so the text
  is garbage; the outcome is a value or a clean ``JSONDecodeError``/``KeyError``.
- A ``preview()`` value is the live object the parser fills in: iterating it in one thread while
  another feeds can raise ``RuntimeError: dictionary changed size during iteration``. Copy it
  (``copy.deepcopy``) under the same lock as the feeding, or preview from the feeding thread.

Threads switch every microsecond here (``sys.setswitchinterval``) so that interleavings are frequent.
"""

from __future__ import annotations

import gc
import json
import random
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import tooljson
from helpers import assert_same_json, random_splits
from tooljson import _native

THREADS = 4
CALLS_PER_THREAD = 150
DOCUMENTS = [
    {"path": "src/caf\u00e9.py", "content": "print('\u20ac')\n" * 40, "mode": "w"},
    {"query": 'rust "json" \\ parser', "limit": [1, -2.5e3, True, None], "emoji": "\U0001f680"},
    {"nested": {"a": [{"b": [[], {}]}, 1e400]}, "big": 123456789012345678901234567890},
]
TEXTS = [json.dumps(document) for document in DOCUMENTS]


@pytest.fixture(autouse=True)
def frequent_switches() -> Iterator[None]:
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(interval)


def run_threads(work: Callable[[int], None], count: int = THREADS) -> None:
    """Runs ``work(number)`` in ``count`` threads started together; re-raises the first failure."""
    barrier = threading.Barrier(count)
    failures: list[BaseException] = []

    def body(number: int) -> None:
        barrier.wait()
        try:
            work(number)
        except BaseException as failure:  # noqa: BLE001 - handed to the main thread below
            failures.append(failure)

    threads = [threading.Thread(target=body, args=(number,)) for number in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        raise failures[0]


def stream_calls(
    accumulator: Any, number: int, lock: threading.Lock | None = None, *, previews: bool = True
) -> None:
    """Streams CALLS_PER_THREAD calls on block indices of thread ``number`` and checks each result."""
    rng = random.Random(number)
    guard: Any = lock if lock is not None else _NoLock()
    for call in range(CALLS_PER_THREAD):
        index = number * 100_000 + call
        text = TEXTS[call % len(TEXTS)]
        with guard:
            accumulator.start(index, "tool", f"toolu_{index}")
        for fragment in random_splits(text, rng, rng.randint(1, 40)):
            with guard:
                accumulator.add_delta(index, fragment)
                if previews and rng.random() < 0.3:
                    accumulator.preview(index)
                    assert accumulator.status(index).state != "malformed"
        with guard:
            result = accumulator.finish(index)
        assert (result["name"], result["id"]) == ("tool", f"toolu_{index}")
        assert_same_json(result["input"], json.loads(text))


class _NoLock:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc_info: object) -> None:
        return None


def test_one_parser_per_thread() -> None:
    def work(number: int) -> None:
        rng = random.Random(number)
        for call in range(CALLS_PER_THREAD):
            text = TEXTS[(call + number) % len(TEXTS)]
            parser = tooljson.Parser(events=True)
            for fragment in random_splits(text, rng, rng.randint(1, 40)):
                parser.feed(fragment)
                parser.preview()
                parser.events()
            assert_same_json(parser.finish(), json.loads(text))

    run_threads(work)


def test_one_accumulator_per_thread() -> None:
    def work(number: int) -> None:
        stream_calls(_native.ToolCallAccumulator(events=True, on_event=lambda index, event: None), number)

    run_threads(work)


def test_shared_accumulator_under_a_lock() -> None:
    seen: dict[int, int] = {}
    accumulator = _native.ToolCallAccumulator(on_event=lambda index, event: seen.__setitem__(index, 1))
    lock = threading.Lock()
    run_threads(lambda number: stream_calls(accumulator, number, lock))
    assert len(accumulator) == 0
    assert len(seen) == THREADS * CALLS_PER_THREAD


def test_shared_stream_accumulator_under_a_lock() -> None:
    accumulator = tooljson.ToolCallAccumulator()
    lock = threading.Lock()
    run_threads(lambda number: stream_calls(accumulator, number, lock))
    assert len(accumulator) == 0


def test_shared_accumulator_without_a_lock_on_own_indices_is_exact() -> None:
    # Callbacks give the interpreter a chance to switch threads in the middle of add_delta's work.
    events: list[int] = []
    accumulator = _native.ToolCallAccumulator(events=True, on_event=lambda index, event: events.append(index))
    run_threads(lambda number: stream_calls(accumulator, number))
    assert len(accumulator) == 0
    # The threads really did take turns in the middle of their streams, not one after the other.
    owners = [index // 100_000 for index in events]
    switches = sum(1 for before, after in zip(owners, owners[1:]) if before != after)
    assert switches >= THREADS, f"only {switches} switches between threads"


def test_two_threads_feeding_one_index_do_not_crash() -> None:
    accumulator = _native.ToolCallAccumulator(events=True)
    outcomes: list[str] = []
    text = TEXTS[0]
    pieces = [text[i : i + 3] for i in range(0, len(text), 3)]

    def work(number: int) -> None:
        for _ in range(60):
            try:
                accumulator.start(7, "tool", f"toolu_{number}")
                for piece in pieces:
                    accumulator.add_delta(7, piece)
                    accumulator.preview(7)
                result = accumulator.finish(7)
            except (json.JSONDecodeError, KeyError) as error:
                # Interleaved fragments make a broken text, or the other thread finished the call.
                outcomes.append(type(error).__name__)
            except RuntimeError as error:
                # Building a JSONDecodeError runs Python code, where the interpreter may switch
                # threads; the other thread then finds the accumulator busy and is refused cleanly.
                assert "Already borrowed" in str(error)
                outcomes.append("busy")
            else:
                assert set(result) == {"name", "id", "input"}
                outcomes.append("value")

    run_threads(work, count=2)
    assert len(outcomes) == 120


def test_a_preview_is_live_so_reading_it_while_another_thread_feeds_needs_a_copy() -> None:
    parser = tooljson.Parser()
    parser.feed("{")
    for key in range(2000):
        parser.feed(f'"k{key}": [{key}], ')
    done = threading.Event()
    lock = threading.Lock()
    copies: list[int] = []

    def reader() -> None:
        import copy

        while not done.is_set():
            with lock:
                snapshot = copy.deepcopy(parser.preview())
            # The copy is this thread's own: iterating it cannot race with the feeding.
            copies.append(sum(1 for _ in snapshot))

    thread = threading.Thread(target=reader)
    thread.start()
    try:
        for key in range(2000, 12_000):
            with lock:
                parser.feed(f'"k{key}": [{key}], ')
    finally:
        done.set()
        thread.join()
    with lock:
        parser.feed('"end": 0}')
    assert len(parser.finish()) == 12_001
    assert copies == sorted(copies), "a later snapshot never has fewer keys"


def test_callback_may_call_back_into_its_accumulator() -> None:
    # The borrow ends before callbacks run, so a callback can use the same object.
    statuses: list[str] = []
    accumulator = _native.ToolCallAccumulator(
        on_event=lambda index, event: statuses.append(accumulator.status(index).state)
    )
    accumulator.start(0, "tool", "toolu_1")
    accumulator.add_delta(0, '{"a": [1, "x"')
    accumulator.add_delta(0, "]}")
    assert accumulator.finish(0)["input"] == {"a": [1, "x"]}
    assert statuses and set(statuses) <= {"incomplete", "complete"}


class _SwitchesThreadsWhenCollected:
    """Cyclic garbage whose finalizer gives the GIL away, as any finalizer that does I/O would."""

    def __init__(self) -> None:
        self.cycle = self

    def __del__(self) -> None:
        time.sleep(0)


def test_unlocked_sharing_with_finalizers_raises_already_borrowed_but_never_corrupts() -> None:
    fragment = '{"k": [1, "x"]},'
    accumulator = _native.ToolCallAccumulator(events=True)
    for index in (0, 1):
        accumulator.start(index, "tool", f"toolu_{index}")
        accumulator.add_delta(index, "[")
    accepted = [0, 0]
    refusals: list[str] = []
    done = threading.Event()
    threshold = gc.get_threshold()
    gc.set_threshold(50, 1, 1)

    def work(number: int) -> None:
        deadline = time.monotonic() + 5
        calls = 0
        while time.monotonic() < deadline and not (number == 1 and done.is_set()) and calls < 3000:
            calls += 1
            _SwitchesThreadsWhenCollected()
            try:
                accumulator.add_delta(number, fragment)
                accumulator.preview(number)
            except RuntimeError as error:
                refusals.append(str(error))
            else:
                accepted[number] += 1
        if number == 0:
            done.set()

    try:
        run_threads(work, count=2)
    finally:
        gc.set_threshold(*threshold)
        gc.collect()
    assert set(refusals) <= {"Already borrowed", "Already mutably borrowed"}, set(refusals)
    # A refused call changed nothing: each text holds exactly the fragments that were accepted (a
    # fragment whose preview was refused was still fed, so count those by the text itself).
    for index in (0, 1):
        text = accumulator.text(index)
        assert text == "[" + fragment * text.count(fragment)
        assert text.count(fragment) >= accepted[index]
        accumulator.add_delta(index, "0]")
        value = accumulator.finish(index)["input"]
        assert value == [{"k": [1, "x"]}] * text.count(fragment) + [0]
