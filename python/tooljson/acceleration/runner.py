"""The SDK's streaming tool runner, with every tool input read once and answered by tooljson's rules.

``client.beta.messages.tool_runner(..., stream=True)`` of an accelerated client returns the SDK's own
runner object (``BetaStreamingToolRunner`` or ``BetaAsyncStreamingToolRunner``), its class changed to
the subclass here and its thread to an accelerated one (:mod:`.threads`), so every stream it yields is
an :class:`~tooljson.acceleration.AcceleratedStream` with ``turn`` and ``tool_calls``. The subclass
overrides four of the SDK's hooks and nothing else:

* ``_run_tool`` / ``_run_toolset_member`` (every place the runner runs a tool, eagerly or not): a call
  whose input did not parse is never run. A malformed one (or one cut short although the model moved
  on) is answered with :func:`~tooljson.invalid_json_result` (``is_error``, ``{"INVALID_JSON": raw}``),
  which the SDK sends with the turn's other results; a call cut off at ``max_tokens`` raises
  :class:`~tooljson.TruncatedToolInput` there (only ``generate_tool_call_response()`` called by hand
  after a ``max_tokens`` reply reaches it: the runner itself stops on ``max_tokens``).
* ``_handle_request``: notes the reply's stream, and after it applies the ``truncation`` policy:
  ``"stop"`` ends the run as the SDK does, ``"raise"`` raises :class:`~tooljson.TruncatedToolInput`,
  ``"retry"`` sends the turn again with ``max_tokens`` doubled, up to ``max_tokens_cap`` (then raises),
  the same words and rule as :func:`~tooljson.run_tool_loop`.
* ``_steps`` (the runner's loop): runs the SDK's loop again after a retry was decided.

What each call became is recorded on the stream's reader (``turn.state(call)``: ``rejected`` for an
``INVALID_JSON`` answer, ``failed`` for a tool that raised), which the views read.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import AsyncIterator, Iterator
from contextlib import aclosing, asynccontextmanager, contextmanager
from typing import Any, Literal

from anthropic.lib.tools._beta_runner import BetaAsyncStreamingToolRunner, BetaStreamingToolRunner

from tooljson.acceleration.streams import AcceleratedStream
from tooljson.acceleration.threads import Acceleration, accelerated_thread
from tooljson.calls import ToolCall
from tooljson.errors import TruncatedToolInput
from tooljson.loop import retry_max_tokens
from tooljson.results import invalid_json_result

__all__ = [
    "AcceleratedAsyncStreamingToolRunner",
    "AcceleratedStreamingToolRunner",
    "RunnerTruncation",
    "accelerated_runner",
    "runner_problem",
]

RunnerTruncation = Literal["stop", "retry", "raise"]
"""What the accelerated tool runner does with a call cut off at ``max_tokens``."""

# The SDK's hooks overridden here, with their parameters: a version that changed one is refused.
_HOOKS = {
    "_handle_request": ["self", "thread"],
    "_run_tool": ["self", "tool", "tool_use"],
    "_run_toolset_member": ["self", "tool_use"],
    "_steps": ["self"],
}


@functools.cache
def runner_problem() -> str | None:
    """Why this ``anthropic`` cannot be given tooljson's runner, or ``None`` when it can (checked
    once: the SDK's classes do not change while the process runs)."""
    for sdk_class in (BetaStreamingToolRunner, BetaAsyncStreamingToolRunner):
        for name, parameters in _HOOKS.items():
            hook = getattr(sdk_class, name, None)
            if hook is None or list(inspect.signature(hook).parameters) != parameters:
                import anthropic

                return (
                    f"tooljson.accelerate does not know the tool runner of anthropic {anthropic.__version__} "
                    f"({sdk_class.__name__}.{name} changed); it is tested with anthropic 2.10 to 2.17"
                )
    return None


class _Answers:
    """The part both runners share: finding a call's verdict and answering the calls that did not parse."""

    _acceleration: Acceleration
    _reply: AcceleratedStream | None
    _retry_max_tokens: int | None
    _thread: Any
    _sent_messages: Any

    def _take(self, stream: Any) -> None:
        """Note the reply being read; its one warning per call that did not parse then says what the
        runner does with that call (the stream's own words say the block keeps its preview)."""
        self._reply = stream if isinstance(stream, AcceleratedStream) else None
        if self._reply is not None:
            policy = self._acceleration.truncation
            self._reply._reword_unparsed(  # noqa: SLF001 - the stream is ours (streams.py)
                "tool input of %s %r (id %s, block %s) is %s; the tool runner does not run it: "
                f"cut off at max_tokens, it follows the truncation policy {policy!r}, else it is answered with INVALID_JSON"
            )

    def _call(self, tool_use: Any) -> ToolCall | None:
        reply = getattr(self, "_reply", None)
        if reply is None:
            return None
        return next((call for call in reply.turn.calls if call.id == tool_use.id), None)

    def _refusal(self, tool_use: Any) -> dict[str, Any] | None:
        """The answer to a call whose input did not parse (the tool is then not run), else ``None``."""
        call = self._call(tool_use)
        if call is None or call.ok:
            return None
        assert self._reply is not None
        reader = self._reply.turn
        if reader.state(call) == "truncated":
            raise TruncatedToolInput(call, max_tokens=self._max_tokens())
        result = invalid_json_result(call)
        reader.record_result(call, result, rejected=True)
        return result

    def _record(self, tool_use: Any, result: Any) -> None:
        call = self._call(tool_use)
        if call is not None and self._reply is not None and isinstance(result, dict):
            self._reply.turn.record_result(call, result, failed=bool(result.get("is_error")))

    def _max_tokens(self) -> int:
        return int(self._thread.params["max_tokens"])

    def _after_reply(self, stream: Any) -> None:
        """The truncation policy, once the reply's stream has been read to its end."""
        self._retry_max_tokens = None
        if not isinstance(stream, AcceleratedStream):
            return
        reader = stream.turn
        truncated = [call for call in reader.calls if reader.state(call) == "truncated"]
        policy = self._acceleration.truncation
        if not truncated or policy == "stop":
            return
        cap = self._acceleration.max_tokens_cap
        self._retry_max_tokens = retry_max_tokens(truncated[0], policy, self._max_tokens(), cap)

    def _take_retry(self) -> bool:
        """Set the thread up to send the cut-off turn again, if a retry was decided."""
        max_tokens, self._retry_max_tokens = getattr(self, "_retry_max_tokens", None), None
        if max_tokens is None:
            return False
        # The history as that turn sent it, without the cut-off reply (the thread then starts anew).
        self._thread._state.set_messages(list(self._sent_messages))  # noqa: SLF001 - the SDK thread's history
        self._thread.update(max_tokens=max_tokens)
        return True


class AcceleratedStreamingToolRunner(BetaStreamingToolRunner[Any], _Answers):
    """``client.beta.messages.tool_runner(..., stream=True)`` of an accelerated client."""

    @contextmanager
    def _handle_request(self, thread: Any) -> Iterator[Any]:
        with super()._handle_request(thread) as stream:
            self._take(stream)
            yield stream
        self._after_reply(stream)

    def _run_tool(self, tool: Any, tool_use: Any) -> Any:
        refusal = self._refusal(tool_use)
        if refusal is not None:
            return refusal
        result = super()._run_tool(tool, tool_use)
        self._record(tool_use, result)
        return result

    def _run_toolset_member(self, tool_use: Any) -> Any:
        refusal = self._refusal(tool_use)
        if refusal is not None:
            return refusal
        result = super()._run_toolset_member(tool_use)
        self._record(tool_use, result)
        return result

    def _steps(self) -> Iterator[Any]:  # type: ignore[override]
        yield from super()._steps()
        while self._take_retry():
            yield from super()._steps()


class AcceleratedAsyncStreamingToolRunner(BetaAsyncStreamingToolRunner[Any], _Answers):
    """``client.beta.messages.tool_runner(..., stream=True)`` of an accelerated ``AsyncAnthropic``."""

    @asynccontextmanager
    async def _handle_request(self, thread: Any) -> AsyncIterator[Any]:
        async with super()._handle_request(thread) as stream:
            self._take(stream)
            yield stream
        self._after_reply(stream)

    async def _run_tool(self, tool: Any, tool_use: Any) -> Any:
        refusal = self._refusal(tool_use)
        if refusal is not None:
            return refusal
        result = await super()._run_tool(tool, tool_use)
        self._record(tool_use, result)
        return result

    async def _run_toolset_member(self, tool_use: Any) -> Any:
        refusal = self._refusal(tool_use)
        if refusal is not None:
            return refusal
        result = await super()._run_toolset_member(tool_use)
        self._record(tool_use, result)
        return result

    async def _steps(self) -> AsyncIterator[Any]:  # type: ignore[override]
        retry = True
        while retry:
            async with aclosing(super()._steps()) as steps:
                async for item in steps:
                    yield item
            retry = self._take_retry()


_RUNNERS: dict[type[Any], type[Any]] = {
    BetaStreamingToolRunner: AcceleratedStreamingToolRunner,
    BetaAsyncStreamingToolRunner: AcceleratedAsyncStreamingToolRunner,
}


def accelerated_runner(runner: Any, acceleration: Acceleration) -> Any:
    """The SDK's ``runner`` made tooljson's in place, when it streams (a runner without ``stream=True``
    reads whole messages, which the server parsed: it stays the SDK's)."""
    ours = _RUNNERS.get(type(runner))
    if ours is None:
        return runner
    problem = runner_problem()
    if problem is not None:
        raise RuntimeError(problem)
    accelerated_thread(runner._thread, acceleration)  # noqa: SLF001 - the SDK runner's thread
    runner.__class__ = ours
    # The runner is now of our class: these are its own members, set as its __init__ would have.
    runner._acceleration = acceleration  # noqa: SLF001
    runner._reply = None  # noqa: SLF001
    runner._retry_max_tokens = None  # noqa: SLF001
    return runner
