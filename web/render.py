"""Render the dashboard's panels from the tracker's snapshot; the same templates serve the first page
load and every live update (server-sent events carry the re-rendered panels)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from flask import Flask, g, render_template

from companion.reading import rule_without_cells
from companion.rules import Action, judge
from companion.tracker import Tracker
from web.i18n import describe_action, item_label, letters_for, palette_items, plain_errors, translate
from web.service import TableService
from web.views import SYMBOL_COLOURS, city_cells, event_text, overlay_city, tally_view

PANELS = ("status", "question", "table", "actions", "pirates", "dice", "log", "tally")

_options_cache: dict[tuple[int, int, tuple[str, ...]], list[dict[str, Any]]] = {}
_options_busy: set[tuple[int, int, tuple[str, ...]]] = set()
_options_lock = threading.Lock()


def options_for(tracker: Tracker, on_ready: Callable[[], None] | None = None) -> list[dict[str, Any]] | None:
    """The engine's options for the dice in the tray, once per (game, state, dice).

    With ``on_ready`` a missing summary is worked out in a background thread (None now; ``on_ready`` is
    called when it is there), so a new roll reaches the pages at once and the options follow."""
    dice = tuple(tracker.turn_dice or ())
    if len(dice) != 5 or tracker.finished:
        return []
    key = (tracker.game_id, tracker.event_count, dice)
    with _options_lock:
        if key in _options_cache:
            return _options_cache[key]
        if on_ready is not None and key in _options_busy:
            return None

    def work() -> list[dict[str, Any]]:
        try:
            options = tracker.options(list(dice), limit=200_000)
            with _options_lock:
                if len(_options_cache) > 64:
                    _options_cache.clear()
                _options_cache[key] = options
            return options
        finally:
            with _options_lock:
                _options_busy.discard(key)

    if on_ready is None:
        return work()
    with _options_lock:
        _options_busy.add(key)

    def background() -> None:
        work()
        on_ready()

    threading.Thread(target=background, name="options", daemon=True).start()
    return None


def game_context(tracker: Tracker, *, live: bool = True,
                 on_options: Callable[[], None] | None = None) -> dict[str, Any]:
    snap = tracker.snapshot()
    lang = snap["language"]
    g.lang = lang  # the templates' _() speaks the table's language
    letters = letters_for(lang)
    current = snap["current_player"]
    dispute, pending, question = snap["dispute"], snap["pending"], snap["question"]
    last_cells: dict[int, list[str]] = {}
    action = tracker.last_action
    if action:
        last_cells[int(action["player"])] = [p["cell"] for p in action.get("place", [])]
    players = []
    for p in snap["players"]:
        i = p["index"]
        city = p["city"]
        dispute_cells: list[str] = []
        pending_cells: list[str] = []
        if live and i == current and dispute:
            city = overlay_city(city, dispute["action"].get("place", []))
            dispute_cells = dispute["cells"]
        if live and i == current and pending:
            city = overlay_city(city, pending["place"])
            pending_cells = [x["cell"] for x in pending["place"]]
        if live and question and i == question["player"]:  # the likelier reading, the cells in doubt marked
            city = overlay_city(city, question["choices"][0]["place"])
            pending_cells = question_cells(question)
        players.append({**p, "cells": city_cells(city, letters=letters, uncertain=p["uncertain"] if live else [],
                                                 dispute=dispute_cells, pending=pending_cells,
                                                 last=last_cells.get(i, []), lang=lang),
                        "is_current": i == current and not snap["finished"]})
    log = list(reversed(snap["log"]))
    for entry in log:
        entry["effects_text"] = event_text(entry, lang)
        entry["plain"] = plain_errors(lang, entry.get("reasons") or [])
        entry["shown"] = log_line(lang, entry, snap["names"])
    options = options_for(tracker, on_options) if live else []
    for o in options or []:
        best = o.get("best") or {}
        o["best_text"] = ", ".join(f"{item_label(lang, p['item'])} {p['cell']}" for p in best.get("place", []))
    last = tracker.last_action
    return {
        "lang": lang,
        "dispute_errors": plain_errors(lang, dispute["errors"]) if dispute else [],
        "palette_items": palette_items(lang),
        "last_move_text": describe_action(lang, last, snap["names"]) if last else "",
        "snap": snap,
        "question_texts": [choice_text(lang, c, question["choices"][1 - k]) for k, c in enumerate(question["choices"])]
        if question else [],
        # per choice, the rules it breaks (a reading "as drawn" where the rules forbid it): shown on its button
        "question_rules": [_rules_broken(lang, tracker, c) for c in question["choices"]] if question else [],
        "players": players,
        "current_name": snap["names"][current],
        "pirates": snap["pirates"],
        "dice": snap["dice"] or [],
        "options": options,
        "colours": SYMBOL_COLOURS,
        "log": log,
        "tally": tally_view(snap["tally"], lang),
        "live": live,
    }


def question_cells(question: dict[str, Any]) -> list[str]:
    """The cells where a question's two readings differ."""
    first, second = ({(p["cell"], p["item"]) for p in c["place"]} for c in question["choices"][:2])
    return sorted({cell for cell, _ in first ^ second})


def _rules_broken(lang: str, tracker: Tracker, action: dict[str, Any]) -> list[dict[str, str]]:
    """The rules a question's reading breaks, in plain words, without the cells the button already names."""
    errors = plain_errors(lang, [e.to_json() for e in judge(tracker.state, Action.from_json(action)).errors])
    return [{**e, "text": rule_without_cells(e["text"]) if lang == "en" else e["text"]} for e in errors]


def choice_text(lang: str, action: dict[str, Any], other: dict[str, Any]) -> str:
    """A reading for a question's button, in the table's words: the cells where it differs from the other
    reading first, then the rest, and the dice turned."""
    theirs = {(p["cell"], p["item"]) for p in other.get("place", [])}
    place = sorted(action.get("place", []), key=lambda p: (p["cell"], p["item"]) in theirs)
    text = ", ".join(f"{item_label(lang, p['item'])} {p['cell']}" for p in place)
    turned = int(action.get("turned", 0) or 0)
    if turned:
        text += f" ({translate(lang, '{n} turned', n=turned)})"
    return text[:1].upper() + text[1:]


def log_line(lang: str, entry: dict[str, Any], names: list[str]) -> str:
    """A log entry in the table's language: moves described again from their action; others as written."""
    action, kind = entry.get("action"), entry.get("kind")
    if lang == "en" or not action:
        return str(entry.get("text", ""))
    line = describe_action(lang, action, names)
    if kind == "undo":
        return f"{translate(lang, 'Taken back')}: {line}"
    if kind == "dispute":
        return f"{line} — {translate(lang, 'breaks a rule')}"
    if kind == "override":
        return f"{line} — {translate(lang, 'overridden')}"
    return line


def dashboard_context(service: TableService) -> dict[str, Any]:
    tracker = service.tracker
    ctx: dict[str, Any] = {"camera_status": service.camera_status, "camera_error": service.camera_error,
                           "has_game": tracker is not None}
    if tracker is not None:
        ctx.update(game_context(tracker, on_options=service.publish))
    return ctx


def render_panels(ctx: dict[str, Any]) -> dict[str, str]:
    return {name: render_template(f"panels/{name}.html", **ctx) for name in PANELS}


def make_renderer(app: Flask) -> Callable[[TableService], dict[str, Any]]:
    def render(service: TableService) -> dict[str, Any]:
        with app.app_context():
            ctx = dashboard_context(service)
            if not ctx["has_game"]:
                return {"html": {}, "game": None}
            snap = ctx["snap"]
            return {"html": render_panels(ctx), "game": snap["game_id"], "turn": snap["current_player"],
                    "moves": len(snap["log"]), "finished": snap["finished"], "lang": snap["language"],
                    "dispute": bool(snap["dispute"]),
                    # what undo and correction forms name, so a double submit is refused (409), not applied twice
                    "last_move": snap.get("last_move_seq"), "events": snap.get("event_count")}

    return render
