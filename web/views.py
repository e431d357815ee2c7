"""From the tracker's snapshot to what the templates draw: cells of each city, the tally explained."""

from __future__ import annotations

from typing import Any

from companion.layout import LAYOUT, cell_name, draw_on_city
from companion.tracker import PERSON_LEVEL
from web.i18n import item_label, translate

SYMBOL_COLOURS = {"log": "#8b5a2b", "crate": "#e08a1e", "wall": "#7d7d7d", "cross": "#7b3fa0",
                  "head": "#2e8b3e", "swords": "#222222"}
OUTER = LAYOUT.outer_cells


def city_cells(city: list[str], *, letters: dict[str, str], uncertain: list[str] = (),  # type: ignore[assignment]
               dispute: list[str] = (), pending: list[str] = (), last: list[str] = (),  # type: ignore[assignment]
               lang: str = "en") -> list[dict[str, Any]]:
    """One dict per cell: position, kind (tower/outer/inner), what is drawn, the marks around it."""
    cells = []
    for r, row in enumerate(city):
        for c, ch in enumerate(row):
            name = cell_name(c, r)
            kind = "tower" if ch == "#" else ("outer" if name in OUTER else "inner")
            if ch in PERSON_LEVEL:
                draw, label = "person", letters.get(ch, ch.upper())
            elif ch.isdigit():
                draw, label = "church", ch
            else:
                draw, label = {"W": ("wall", ""), "G": ("crate", ""), "H": ("house", "")}.get(ch, ("", ""))
            marks = [m for m, cells_ in (("uncertain", uncertain), ("dispute", dispute), ("pending", pending),
                                         ("last", last)) if name in cells_]
            cells.append({"name": name, "x": c, "y": r, "kind": kind, "draw": draw, "label": label,
                          "item": ch, "title": f"{name}: {item_label(lang, ch) if ch != '#' else '#'}",
                          "marks": marks})
    return cells


def overlay_city(city: list[str], place: list[dict[str, str]]) -> list[str]:
    """The city with a drawing not yet in the game (pending or disputed) written in, to show it."""
    return draw_on_city(city, place, only_empty=True)


def tally_view(tally: dict[str, Any] | None, lang: str = "en") -> dict[str, Any] | None:
    """Ranking and a sentence on how the winner was found (total, then empty spaces, then shared)."""
    if not tally:
        return None
    players = sorted(tally["players"], key=lambda p: (-p["total"], -p.get("empty_spaces", 0)))
    ranked = []
    for p in players:
        rank = 1 + sum(1 for q in players if (q["total"], q.get("empty_spaces", 0)) > (p["total"], p.get("empty_spaces", 0)))
        ranked.append({**p, "rank": rank})
    winners = list(tally.get("winners", []))
    top = players[0]["total"] if players else 0
    tied = [p for p in players if p["total"] == top]
    if len(tied) == 1:
        why = translate(lang, "{a} has the most VP ({vp}).", a=tied[0]["name"], vp=top)
    else:
        names = translate(lang, " and ").join(p["name"] for p in tied)
        most_empty = max(p.get("empty_spaces", 0) for p in tied)
        leaders = [p for p in tied if p.get("empty_spaces", 0) == most_empty]
        if len(leaders) == 1:
            why = translate(lang, "{a} tie on {vp} VP; {b} wins with more empty spaces ({n}).", a=names, vp=top,
                            b=leaders[0]["name"], n=most_empty)
        else:
            why = translate(lang, "{a} tie on {vp} VP and on empty spaces ({n}): they share the win.", a=names,
                            vp=top, n=most_empty)
    return {"players": ranked, "winners": winners, "why": why}


def event_text(entry: dict[str, Any], lang: str = "en") -> str:
    effects = entry.get("effects") or {}
    parts = []
    for key, unit in (("vp", "VP"), ("coins", "Coins"), ("logs", "Logs"), ("pirate_boxes", "pirate boxes")):
        value = effects.get(key)
        if value:
            parts.append(f"{value:+d} {translate(lang, unit).lower() if unit != 'VP' else translate(lang, unit)}")
    for attack in effects.get("attacks", []) or []:
        lost = attack.get("lost_cannon") or []
        parts.append(translate(lang, "pirates attack with {n}", n=attack.get("strength")) + " ("
                     + (translate(lang, "{n} lose a cannon", n=len(lost)) if lost else translate(lang, "all hold"))
                     + ")")
    return ", ".join(parts)
