"""What the cell classifier tells apart, and how person letters map to persons per language.

The classifier reads *glyphs* (what is drawn), not meanings: a circle with a ``G`` is glyph ``pG``,
which is a juggler in Italian (giocoliere) and unknown in English. The table's language turns
glyphs into city notation (rules-reference.md).
"""

from __future__ import annotations

# '.' empty, 'W' wall, 'G' crate, 'H' house, '1'..'5' church, 'p' + letter a person drawn with it.
GLYPH_CLASSES: tuple[str, ...] = (
    ".", "W", "G", "H", "1", "2", "3", "4", "5",
    "pC", "pS", "pP", "pA", "pM", "pJ", "pG", "pN",
)

# Person (city notation) -> letter drawn in the circle, per table language.
PERSON_LETTERS: dict[str, dict[str, str]] = {
    "en": {"c": "C", "s": "S", "p": "P", "a": "A", "m": "M", "j": "J", "n": "N"},
    "it": {"c": "C", "s": "S", "p": "P", "a": "A", "m": "M", "j": "G", "n": "N"},
    "fr": {"c": "C", "s": "S", "p": "P", "a": "A", "m": "M", "j": "J", "n": "N"},
    # The Spanish rulebook names only the architect's A; its initials collide (ciudadano/comerciante,
    # soldado/sacerdote), so a Spanish table starts from the English letters (rules-reference.md).
    "es": {"c": "C", "s": "S", "p": "P", "a": "A", "m": "M", "j": "J", "n": "N"},
}

LANGUAGES: tuple[str, ...] = tuple(PERSON_LETTERS)


def check_language(language: str) -> str:
    if language not in PERSON_LETTERS:
        from companion.errors import UserError

        raise UserError(f"unknown language {language!r} (known: {', '.join(LANGUAGES)})")
    return language


def glyph_for_char(char: str, language: str = "en") -> str:
    """City-notation character -> glyph class ('c' -> 'pC' in English)."""
    if char in PERSON_LETTERS[language]:
        return "p" + PERSON_LETTERS[language][char]
    if char in GLYPH_CLASSES:
        return char
    raise ValueError(f"no drawing for city character {char!r}")


def char_for_glyph(glyph: str, language: str = "en") -> str | None:
    """Glyph class -> city-notation character, None for a letter the language does not use."""
    if not glyph.startswith("p"):
        return glyph
    for person, letter in PERSON_LETTERS[language].items():
        if glyph == "p" + letter:
            return person
    return None
