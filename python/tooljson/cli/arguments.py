"""The command line's argument types and its parser class: every usage error is one line.

:class:`OneLineErrorParser` prints a usage error as one line naming the problem and where to read
more, with exit status 2. The value types reject what would fail later (a port outside 0..65535, a
speed that is not a finite number...) as a usage error, before anything runs.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import NoReturn, overload

__all__ = [
    "LOOP_PROVIDER",
    "WATCHING_SPEED",
    "Names",
    "OneLineErrorParser",
    "cannot_listen",
    "fragment_sizes",
    "number",
    "port",
    "port_option",
    "scenario_option",
    "version_option",
    "view_options",
]

WATCHING_SPEED = 60.0
"""Events a second when a person watches and no ``--speed`` is given: the small scenarios then take
a few seconds, enough to see strings grow."""


LOOP_PROVIDER = "anthropic"
"""The ``--provider`` whose scenarios run through the tool loop (it speaks the Messages API); any
other streams one response through that API's own client."""


class Names(Sequence[str]):
    """The choices of an option, looked up the first time argparse checks a value or shows the
    help: building the command line loads nothing a command may not need."""

    def __init__(self, load: Callable[[], Sequence[str]]) -> None:
        self._load = load
        self._names: tuple[str, ...] | None = None

    def _loaded(self) -> tuple[str, ...]:
        if self._names is None:
            self._names = tuple(self._load())
        return self._names

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...

    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        return self._loaded()[index]

    def __len__(self) -> int:
        return len(self._loaded())

    def __contains__(self, value: object) -> bool:
        return value in self._loaded()

    def __iter__(self) -> Iterator[str]:
        return iter(self._loaded())


class OneLineErrorParser(argparse.ArgumentParser):
    """argparse with a one-line error: what is wrong and where to read more, exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def port(text: str) -> int:
    """A TCP port, 0 meaning a free one."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port number, got {text!r}") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(
            f"a port is a number from 0 to 65535 (0 for a free one), got {value}"
        )
    return value


def number(*, positive: bool = False) -> Callable[[str], float]:
    """A finite number, at least 0 (above 0 with ``positive``)."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
        if not math.isfinite(value) or value < 0 or (positive and value == 0):
            bound = "above" if positive else "at least"
            raise argparse.ArgumentTypeError(f"expected a number {bound} 0, got {text!r}")
        return value

    return parse


def fragment_sizes(text: str) -> tuple[int, int]:
    """``LOW,HIGH`` (or one number for both): the bounds of the stand-in's fragment lengths."""
    low, _, high = text.partition(",")
    try:
        sizes = (int(low), int(high or low))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected LOW,HIGH such as 1,32; got {text!r}") from None
    if not 1 <= sizes[0] <= sizes[1]:
        raise argparse.ArgumentTypeError(f"expected 1 <= LOW <= HIGH; got {text!r}")
    return sizes


def cannot_listen(value: int, error: OSError) -> int:
    """Say, in one line, that a server cannot bind ``127.0.0.1:value``; the exit status to return."""
    reason = error.strerror or str(error)
    print(
        f"error: cannot listen on 127.0.0.1:{value}: {reason} (choose another --port, or 0 for a free one)",
        file=sys.stderr,
    )
    return 2


def scenario_option(
    parser: argparse.ArgumentParser, names: Sequence[str], *, repeat: bool, what: str
) -> None:
    """``--scenario NAME`` (repeatable with ``repeat``), its choices listed in its help, not its usage."""
    parser.add_argument(
        "--scenario",
        action="append" if repeat else "store",
        metavar="NAME",
        choices=names,
        # %(choices)s: the names are read when the help is shown, not when the option is made.
        help=what + (" (repeatable)" if repeat else "") + ": %(choices)s",
    )


def port_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--port", type=port, default=0, help="port on 127.0.0.1 (default: 0, a free one)")


def view_options(parser: argparse.ArgumentParser) -> None:
    """``--speed``, ``--plain`` and ``--fps``: how a run is shown."""
    parser.add_argument(
        "--speed",
        type=number(),
        metavar="EVENTS_PER_S",
        help=f"pace of the stream in events a second, 0 for full speed (default: {WATCHING_SPEED:g} "
        "when the live view is on a terminal, else 0)",
    )
    parser.add_argument("--plain", action="store_true", help="a plain line log instead of the live view")
    parser.add_argument(
        "--fps",
        type=number(positive=True),
        default=20.0,
        help="most frames a second the live view draws (default: 20)",
    )


class _PrintVersion(argparse.Action):
    """``--version``: the installed version, looked up only when asked (reading the package metadata
    imports importlib.metadata, which costs every command's start more than tooljson itself)."""

    def __init__(
        self,
        option_strings: Sequence[str],
        dest: str = argparse.SUPPRESS,
        help: str | None = None,  # noqa: A002 - argparse passes it by this name
    ) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=help)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> NoReturn:
        import tooljson

        print(f"tooljson {tooljson.__version__}")
        parser.exit()


def version_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--version", action=_PrintVersion, help="print tooljson's version and exit")
