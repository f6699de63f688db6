"""What a tool call is, for every provider: the block as it streams, the finished call, and the one
vocabulary of states the stream, the loop and the views share.

:class:`ToolBlock` is a call while its text streams; :class:`ToolCall` is the call once its block
stopped and its text was parsed. :data:`CallState` names where a call stands.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from tooljson.errors import JSONDecodeError
from tooljson.providers import Provider

__all__ = ["BlockType", "CallState", "ParseState", "ToolBlock", "ToolCall"]

ParseState = Literal["complete", "incomplete", "malformed"]
"""Where a text stands, in the parser's words (:attr:`tooljson.ParseStatus.state`)."""

CallState = Literal[
    "streaming",
    "complete",
    "incomplete",
    "malformed",
    "truncated",
    "interrupted",
    "rejected",
    "repaired",
    "failed",
]
"""Where a tool call stands, in one vocabulary for the stream, the loop and the views: the parser's
words for a call whose block stopped, plus ``streaming`` (its block is still open), ``truncated``
(cut off because the response hit the token limit), ``interrupted`` (the stream broke off while the
block was open), and what became of a call that parsed once the loop answered it: ``rejected``
(validation or routing refused it, the tool was not run), ``repaired`` (run on input that
validation safely repaired) and ``failed`` (its handler raised)."""

BlockType = str
"""The source's own word for what a call is: Messages ``tool_use`` / ``server_tool_use``, Chat
Completions ``function``, Responses ``function_call`` / ``custom_tool_call``, Bedrock ``toolUse``,
LangChain ``tool_call``, pydantic-ai ``tool-call`` (its ``part_kind``), ... (each source's adapter
says it when a call begins)."""


@dataclass(eq=False, slots=True)
class ToolBlock:
    """A tool call as it streams: its identity from the event that began it, and its progress.

    ``index`` is the accumulator's handle for the call (what :meth:`~ToolCallAccumulator.preview`,
    ``status``, ``text`` and ``events`` take): the content-block index for the Messages API, an int
    the accumulator assigns for the other providers. ``key`` is the provider's own identity of the
    call: the block index (Messages), ``(choice index, tool-call index)`` (Chat Completions),
    ``output_index`` (Responses), ``contentBlockIndex`` (Bedrock). ``item_id`` is the Responses
    output item's id. ``free_text`` holds the pieces of a Responses custom tool's input, which is
    text, not JSON, and is never parsed.
    """

    index: Any
    id: str
    name: str
    block_type: BlockType
    deltas: int = 0
    chars: int = 0
    # Whose call it is: the accumulator always says (a block of no source cannot be read).
    provider: Provider = field(kw_only=True)
    key: Any = None
    item_id: str | None = None
    free_text: list[str] | None = None

    # The call this block became once it stopped (None while it streams).
    call: ToolCall | None = None

    def __post_init__(self) -> None:
        if self.key is None:
            self.key = self.index


@dataclass(frozen=True)
class ToolCall:
    """One tool call, parsed once its block stopped.

    ``input`` is what :func:`json.loads` returns for ``raw_json`` (``{}`` when no text streamed), or
    ``None`` when the text did not parse; ``error`` is then the :class:`tooljson.JSONDecodeError`
    (an :class:`~tooljson.IncompleteJSONError` for a cut-off text, a
    :class:`~tooljson.MalformedJSONError` otherwise) and ``status`` says which, in the parser's words.
    For such a call ``preview`` is the value as far as it was built and ``open_path`` the path left
    open where the text stopped (what a view shows of a broken call).

    ``id`` is what the tool result must refer to (Messages ``tool_use_id``, Chat Completions
    ``tool_call_id``, Responses ``call_id``, Bedrock ``toolUseId``); ``provider``, ``key`` and
    ``item_id`` say where the call came from (see :class:`ToolBlock`); ``provider`` is required (by
    keyword), ``block_type`` is ``"tool_call"`` when not given. A Responses custom tool call
    (``block_type`` ``"custom_tool_call"``) has its free text as ``input`` and ``raw_json``.
    """

    index: Any
    id: str
    name: str
    input: Any
    raw_json: str
    # The error follows from raw_json, and exceptions compare by identity: equality ignores it.
    error: JSONDecodeError | None = field(default=None, compare=False)
    status: ParseState = "complete"
    block_type: BlockType = "tool_call"
    preview: Any = field(default=None, compare=False)
    open_path: tuple[str | int, ...] | None = field(default=None, compare=False)
    # For a tool with a model (ToolCallAccumulator(models=...)): the validated instance, and the
    # field errors found while it streamed and at its end.
    parsed: Any = None
    validation_errors: tuple[Any, ...] = field(default=(), compare=False)
    # Whose call it is, by keyword: its results take that source's shape (tooljson.results).
    provider: Provider = field(kw_only=True)
    key: Any = None
    item_id: str | None = None

    def __post_init__(self) -> None:
        if self.key is None:
            object.__setattr__(self, "key", self.index)

    @property
    def ok(self) -> bool:
        """Whether the input parsed."""
        return self.status == "complete"
