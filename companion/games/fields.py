"""Reading the fields of a game's JSON: each problem is one ``UserError`` naming the file and field."""

from __future__ import annotations

import math
from typing import Any

from companion.errors import UserError

MAX_COUNT = 999  # no pile, track or hand at a table comes near this; a larger number is a typo


def fail(source: str, field: str, problem: str) -> UserError:
    return UserError(f"{source}: {field}: {problem}")


def as_object(value: Any, source: str, field: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise fail(source, field, "expected a JSON object")
    return value


def as_list(value: Any, source: str, field: str) -> list[Any]:
    if not isinstance(value, list):
        raise fail(source, field, "missing or not a list")
    return value


def whole(value: Any, source: str, field: str, low: int = 0, high: int = MAX_COUNT) -> int:
    """A whole number in [low, high]; JSON true/false and 3.5 are refused, 3.0 is 3."""
    if (isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value)
            or value != int(value)):
        raise fail(source, field, f"expected a whole number, not {value!r}")
    number = int(value)
    if not low <= number <= high:
        raise fail(source, field, f"{number} is out of range ({low} to {high})")
    return number


def get_whole(data: dict[str, Any], key: str, source: str, field: str, *, default: int | None = None,
              low: int = 0, high: int = MAX_COUNT) -> int:
    if key not in data or data[key] is None:
        if default is None:
            raise fail(source, field, "missing")
        return default
    return whole(data[key], source, field, low, high)


def name_of(value: Any, source: str, field: str, max_len: int = 30) -> str:
    if not isinstance(value, str) or not value.strip():
        raise fail(source, field, "expected a name (non-empty text)")
    name = value.strip()
    if len(name) > max_len:
        raise fail(source, field, f"too long (at most {max_len} characters)")
    return name


def unique_names(names: list[str], source: str, field: str) -> None:
    seen: set[str] = set()
    for k, name in enumerate(names):
        if name.casefold() in seen:
            raise fail(source, f"{field}[{k}].name", f"{name!r} appears twice; players need different names")
        seen.add(name.casefold())
