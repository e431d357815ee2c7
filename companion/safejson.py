"""JSON from people and the network, with limits checked before and while parsing.

Python's ``json`` recurses once per nesting level (5,000 brackets: RecursionError), converts a
5,000-digit number only to fail (ValueError), and accepts ``NaN`` and ``Infinity``. Every file, standard
input and request body goes through :func:`loads`, which answers each of these with one
:class:`UserError` naming the source. A UTF-8 byte-order mark is accepted.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from companion.errors import UserError

MAX_DEPTH = 32          # a STATE.json is 4 deep; an exported store 5
MAX_NUMBER_CHARS = 24   # enough for any float a person writes; far below Python's 4,300-digit guard
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")


def _depth(text: str) -> int:
    depth = deepest = 0
    for m in _BRACKET.finditer(_STRING.sub("", text)):
        if m.group() in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > MAX_DEPTH:
                    break
        else:
            depth -= 1
    return deepest


def _number(kind: type) -> Any:
    def parse(raw: str) -> Any:
        if len(raw) > MAX_NUMBER_CHARS:
            raise ValueError(f"a number of {len(raw)} characters (at most {MAX_NUMBER_CHARS})")
        value = kind(raw)
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError(f"{raw} is too large a number")
        return value

    return parse


def _constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def decode(data: bytes, source: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise UserError(f"{source}: not UTF-8 text") from None


def loads(text: str | bytes, source: str) -> Any:
    """Parsed JSON, or a UserError naming ``source`` and what is wrong."""
    if isinstance(text, bytes):
        text = decode(text, source)
    text = text.removeprefix("\ufeff")
    if _depth(text) > MAX_DEPTH:
        raise UserError(f"{source}: nested more than {MAX_DEPTH} levels deep")
    try:
        return json.loads(text, parse_int=_number(int), parse_float=_number(float), parse_constant=_constant)
    except json.JSONDecodeError as exc:
        raise UserError(f"{source}: malformed JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except (ValueError, RecursionError) as exc:
        raise UserError(f"{source}: {exc}") from None
