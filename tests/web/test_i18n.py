"""The dashboard in four languages: every string the templates show has its Italian, French and Spanish;
each table's person letters (Spanish included) wherever a letter is shown or typed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from web.i18n import CATALOGUE, LANGUAGES, RULE_TEXT, describe_action, palette_items, plain_errors, translate

TEMPLATES = Path(__file__).resolve().parents[2] / "web" / "templates"
SAINT_MALO_TEMPLATES = [p for p in TEMPLATES.rglob("*.html") if "games" not in p.relative_to(TEMPLATES).parts[:-1]]


def template_strings() -> set[str]:
    found: set[str] = set()
    for path in SAINT_MALO_TEMPLATES:
        for quote in ('"', "'"):
            found |= set(re.findall(r"_\(" + quote + r"((?:[^" + quote + r"\\]|\\.)*)" + quote, path.read_text()))
    return found


def test_every_template_string_is_translated_into_the_three_other_languages():
    strings = template_strings()
    assert len(strings) > 80  # the pattern finds the templates' strings
    missing = sorted(s for s in strings if s not in CATALOGUE)
    assert missing == []
    for english, row in CATALOGUE.items():
        assert len(row) == 3 and all(row), english
        names = set(re.findall(r"\{(\w+)\}", english))
        for other in row:  # the same placeholders in every language
            assert set(re.findall(r"\{(\w+)\}", other)) == names, (english, other)


def test_every_rule_has_its_plain_sentence_in_every_language():
    rules_dir = Path(__file__).resolve().parents[2] / "companion" / "rules"
    ids = set()
    for path in rules_dir.glob("*.py"):
        ids |= set(re.findall(r'RuleViolation\("([a-z_.]+)"', path.read_text()))
    assert len(ids) > 15
    assert sorted(ids - set(RULE_TEXT)) == []
    for lang in LANGUAGES[1:]:
        shown = plain_errors(lang, [{"rule": "wall.outer_only", "message": "Wall at D4: walls go only ..."}])
        assert shown[0]["rule"] == "wall.outer_only" and "wall.outer_only" not in shown[0]["text"]


@pytest.mark.parametrize(("lang", "juggler", "word"), [("en", "J", "juggler"), ("it", "G", "giocoliere"),
                                                     ("fr", "J", "jongleur"), ("es", "J", "malabarista")])
def test_each_table_shows_its_own_person_letters(lang, juggler, word):
    picker = {p["item"]: p for p in palette_items(lang)}
    assert picker["j"]["glyph"] == juggler and picker["j"]["name"] == word
    assert picker["a"]["glyph"] == "A"  # the Spanish rulebook's one named letter: the architect's A
    move = {"player": 0, "symbol": "head", "turned": 0, "dice": ["head"] * 4 + ["log"],
            "place": [{"cell": "D4", "item": "j"}]}
    assert f"{word} ({juggler}) D4" in describe_action(lang, move, ["Ana"])
    assert translate(lang, "Game {n}", n=3).endswith("3")


def test_an_italian_juggler_typed_as_g_in_a_circle(table, service):
    assert table.new_game(["Giulia", "Marco"], language="it").status_code == 303
    dice = {f"die{i}": f for i, f in enumerate(["head", "head", "head", "head", "log"])}
    response = table.post("/move", {**dice, "player": "0", "symbol": "auto", "place": "D4=(G)"})
    assert response.status_code == 303, response.text
    assert service.tracker.state.players[0].city[3][3] == "j"
    page = table.client.get("/").text
    assert "giocoliere (G)" in page and '<html lang="it">' in page and "Turno" in page
    wrong = table.post("/correct", {"player": "0", "cell": "D4", "item": "(J)"})
    assert wrong.status_code == 400 and "(G)" in wrong.text  # J is no person at an Italian table


def test_a_set_aside_game_is_resumed(table, service):
    table.new_game(["Anke", "Ben"])
    first = service.tracker.game_id
    table.new_game(["Carla", "Dario"])
    assert "Resume this game" in table.client.get("/games").text
    assert table.post("/resume", {"game": str(first)}).status_code == 303
    assert service.tracker.game_id == first and service.tracker.names == ["Anke", "Ben"]
    assert not service.store.meta(first).get("abandoned") and service.store.meta(first + 1).get("abandoned")
    assert table.post("/resume", {"game": "999"}).status_code == 404
