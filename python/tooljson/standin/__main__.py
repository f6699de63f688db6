"""``python -m tooljson.standin``: run the stand-in server in the foreground."""

from __future__ import annotations

import argparse
import signal
import sys
import time
from types import FrameType

from tooljson.standin.scenarios import SCENARIOS
from tooljson.standin.server import StandInServer


def _sizes(text: str) -> tuple[int, int]:
    low, _, high = text.partition(",")
    try:
        sizes = (int(low), int(high or low))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected LOW,HIGH such as 1,32; got {text!r}") from None
    if not 1 <= sizes[0] <= sizes[1]:
        raise argparse.ArgumentTypeError(f"expected 1 <= LOW <= HIGH; got {text!r}")
    return sizes


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m tooljson.standin", description=__doc__)
    parser.add_argument("--scenario", choices=sorted(SCENARIOS), help="the script to play")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: a free one)")
    parser.add_argument("--fragment-sizes", type=_sizes, default=(1, 32), metavar="LOW,HIGH")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--list", action="store_true", help="list the scenarios and exit")
    parser.add_argument("--verbose", action="store_true", help="log each request to stderr")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.list:
        width = max(len(name) for name in SCENARIOS)
        for name, scenario in SCENARIOS.items():
            print(f"{name:<{width}}  {scenario.description}")
        return 0
    if args.scenario is None:
        _parser().error("--scenario is required (or --list)")
    server = StandInServer(
        args.scenario,
        fragment_sizes=args.fragment_sizes,
        seed=args.seed,
        port=args.port,
        verbose=args.verbose,
    )
    # SIGTERM stops the server as Ctrl-C does: a background process may not get SIGINT at all.
    signal.signal(signal.SIGTERM, _interrupt)
    server.start()
    print(server.base_url, flush=True)
    try:
        # The serving thread does the work; the main thread only waits for Ctrl-C.
        while server.running:
            time.sleep(0.5)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
