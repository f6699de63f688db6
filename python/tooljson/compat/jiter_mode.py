"""``from_json``: the result of ``jiter.from_json`` for every input, resumed on a growing buffer."""

from __future__ import annotations

import re
from typing import Any, Final, Literal

from .. import _native
from . import jiter_reference
from .jiter_reference import RECURSION_LIMIT
from .resume import REFERENCE, ResumeCache, has_lone_surrogate, snapshot

__all__ = ["from_json", "PartialMode", "partial_mode_name", "CACHE"]

PartialMode = bool | Literal["off", "on", "trailing-strings"]

#: The texts recently read by :func:`from_json` (and :func:`tooljson.parse_partial_json`).
CACHE: Final = ResumeCache(max_depth=RECURSION_LIMIT)

_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_INF_NAN = re.compile(r"NaN|Infinity")
_INF_NAN_BYTES = re.compile(rb"NaN|Infinity")

_PARTIAL_ERROR = "Invalid partial mode, should be `'off'`, `'on'`, `'trailing-strings'` or a `bool`"
_CACHE_ERROR = "Invalid string cache mode, should be `'all'`, '`keys`', `'none`' or a `bool`"
_FLOAT_ERROR = "Invalid float mode, should be `'float'`, `'decimal'` or `'lossless-float'`"


def partial_mode_name(partial_mode: object) -> str:
    """``"off"``, ``"on"`` or ``"trailing-strings"``; the error jiter raises for anything else."""
    if partial_mode is True:
        return "on"
    if partial_mode is False:
        return "off"
    if isinstance(partial_mode, str):
        if partial_mode in ("off", "on", "trailing-strings"):
            return partial_mode
        raise ValueError(_PARTIAL_ERROR)
    raise TypeError(_PARTIAL_ERROR)


def _check_choice(value: object, allowed: tuple[str, ...], message: str, *, bools: bool) -> None:
    if bools and isinstance(value, bool):
        return
    if isinstance(value, str):
        if value not in allowed:
            raise ValueError(message)
        return
    raise TypeError(message)


def _jiter_number(digits: str) -> Any:
    """A number cut off at the end counts in jiter's partial modes when it is whole as it stands."""
    if not _NUMBER.fullmatch(digits):
        return None
    if digits.lstrip("-").isdigit():
        return int(digits)
    return float(digits)


def from_json(
    json_data: bytes | bytearray | str,
    /,
    *,
    allow_inf_nan: bool = True,
    cache_mode: bool | Literal["all", "keys", "none"] = "all",
    partial_mode: PartialMode = False,
    catch_duplicate_keys: bool = False,
    float_mode: Literal["float", "decimal", "lossless-float"] = "float",
) -> Any:
    """Parses ``json_data`` exactly as ``jiter.from_json`` does, resuming on a growing buffer.

    Takes ``bytes`` (as jiter does), ``bytearray`` and ``str`` (the same result as for the UTF-8
    bytes). The result, the partial modes and the ``ValueError`` for rejected input are jiter's;
    ``cache_mode`` is accepted and checked, and changes nothing in the result. With a partial mode,
    a call whose input extends the input of a recent call reads only the new part: complete values
    inside the result are shared with the results of earlier calls on the same buffer (copy one
    before changing it in place). ``catch_duplicate_keys=True`` and a ``float_mode`` other than
    ``"float"`` always parse the whole input, in Python.
    """
    if (
        (partial_mode is True or partial_mode == "trailing-strings")
        and cache_mode == "all"
        and float_mode == "float"
        and catch_duplicate_keys is False
        and type(json_data) in _RESUMABLE
    ):
        # The usual call on a growing buffer, with jiter's defaults: nothing to check.
        strings = partial_mode is not True
    else:
        mode = _checked(json_data, cache_mode, partial_mode, float_mode)
        if catch_duplicate_keys or float_mode != "float":
            return _reference(json_data, allow_inf_nan, mode, catch_duplicate_keys, float_mode)
        if mode == "off":
            return _whole(json_data, allow_inf_nan)
        strings = mode == "trailing-strings"
    entry = CACHE.read(json_data, strings=strings)
    try:
        value = _jiter_partial(entry, strings, allow_inf_nan)
    finally:
        CACHE.give(entry)
    if value is REFERENCE:
        mode = "trailing-strings" if strings else "on"
        return _reference(json_data, allow_inf_nan, mode, False, "float")
    return value


_RESUMABLE = frozenset({bytes, str, bytearray})


def _checked(json_data: object, cache_mode: object, partial_mode: object, float_mode: object) -> str:
    """The partial mode's name, once every argument is checked as jiter checks it."""
    mode = partial_mode_name(partial_mode)
    _check_choice(cache_mode, ("all", "keys", "none"), _CACHE_ERROR, bools=True)
    _check_choice(float_mode, ("float", "decimal", "lossless-float"), _FLOAT_ERROR, bools=False)
    if not isinstance(json_data, (bytes, bytearray, str)):
        raise TypeError(f"from_json takes bytes, bytearray or str, not {type(json_data).__name__}")
    return mode


def _jiter_partial(entry: _native.GrowingText, keep_open_string: bool, allow_inf_nan: bool) -> Any:
    """The partial value from what ``entry`` has read, or :data:`REFERENCE`.

    jiter refuses a surrogate escape that is not half of a pair, which the native parser keeps (as
    json.loads does): the native parser says when it has read one. One at the end still waiting
    for its low half is left out of the value, as jiter leaves it out of a cut-off text.
    """
    if entry.has_lone_surrogate:
        return REFERENCE
    if not allow_inf_nan and entry.has_inf_nan:
        return REFERENCE
    return snapshot(entry, keep_open_string=keep_open_string, number=_jiter_number)


def _whole(data: bytes | bytearray | str, allow_inf_nan: bool) -> Any:
    """A strict parse: the native one where jiter and json.loads agree, else the reference. Bytes
    are read as UTF-8 where they are (no ``str`` is made of the whole text)."""
    raw = data if isinstance(data, str) else bytes(data)
    escape, inf_nan = ("\\u", _INF_NAN) if isinstance(raw, str) else (b"\\u", _INF_NAN_BYTES)
    lone_surrogate = escape in raw and has_lone_surrogate(raw)  # type: ignore[operator]
    if not lone_surrogate and (allow_inf_nan or not inf_nan.search(raw)):  # type: ignore[arg-type]
        text = _native.GrowingText(partial_strings=False, max_depth=RECURSION_LIMIT)
        if text.read(raw, 0) and text.status.state == "complete":
            value = text.snapshot()[3]  # type: ignore[index]
            if value is not None:  # (a bare top-level number or null is read by the reference)
                return value
    return _reference(raw, allow_inf_nan, "off", False, "float")


def _reference(
    data: bytes | bytearray | str,
    allow_inf_nan: bool,
    partial: str,
    catch_duplicate_keys: bool,
    float_mode: str,
) -> Any:
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else bytes(data)
    return jiter_reference.parse(
        raw,
        allow_inf_nan=bool(allow_inf_nan),
        partial=partial,
        catch_duplicate_keys=bool(catch_duplicate_keys),
        float_mode=float_mode,
    )
