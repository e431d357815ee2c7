"""What the cell classifier tells apart, and how person letters map to persons per language.

The classifier reads *glyphs* (what is drawn), not meanings: a circle with a ``G`` is glyph ``pG``,
which is a juggler in Italian (giocoliere) and unknown in English. The table's language turns
glyphs into city notation (rules-reference.md).
"""

from __future__ import annotations

import math

# '.' empty, 'W' wall, 'G' crate, 'H' house, '1'..'5' church, 'p' + letter a person drawn with it.
GLYPH_CLASSES: tuple[str, ...] = (
    ".", "W", "G", "H", "1", "2", "3", "4", "5",
    "pC", "pS", "pP", "pA", "pM", "pJ", "pG", "pN",
)

# Glyphs told apart by the letter or digit drawn: where a hand never seen is misread with confidence (one
# hand's J read as an S, another's N as an M), so they have a doubt threshold of their own
# (``vision.cells.train_hands.symbol_doubt_threshold``).
LETTER_AND_DIGIT_GLYPHS: frozenset[str] = frozenset(g for g in GLYPH_CLASSES if g in "12345" or g.startswith("p"))

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

# The languages the cell networks learn person letters in, as many boards drawn in each
# (``vision.cells.train_hands``).
TRAINING_LANGUAGES: tuple[str, ...] = ("en", "it", "fr")


def letter_prior_shift(language: str, trained_in: tuple[str, ...] = TRAINING_LANGUAGES) -> tuple[float, ...]:
    """Per glyph class, what a table in ``language`` adds to a network's log-probabilities: the log of how
    much more often the letter is drawn at this table than in training.

    Training draws each language's boards alike, so the Italian juggler's G is on a third of them and the J
    on two thirds, and a network learns them as that much rarer than the C every language has. At an Italian
    table a G is as likely as a C (a change of class priors, corrected as Saerens et al., 2002, do). Other
    classes, and letters the language does not use (never read), get 0."""
    used = set(PERSON_LETTERS[language].values())
    shift = []
    for glyph in GLYPH_CLASSES:
        languages = sum(glyph[1:] in PERSON_LETTERS[lang].values() for lang in trained_in)
        drawn_here = glyph.startswith("p") and glyph[1:] in used and languages > 0
        shift.append(math.log(len(trained_in) / languages) if drawn_here else 0.0)
    return tuple(shift)


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
