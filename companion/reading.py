"""Rules-aware move reading: which legal move explains a turn's drawing best.

A turn's new drawings must form one legal action for the dice in the tray. The cell reader gives each
cell a few likely readings with their probabilities (``BoardReading.alternatives``); every legal action
of the roll that only draws on cells where something may have been drawn is scored by how probable the
board makes it, and the most probable one is the move. Pure Python: the rules engine enumerates, this
module only weighs (no OpenCV, no NumPy).

The score of an action is the log-probability of the board showing exactly what it draws, relative to
the board showing nothing new: the sum, over the cells it draws on, of log p(item) - log p(empty) (the
cells it leaves alone count as empty, and all cells empty is the common baseline). The raw reading,
each cell's likeliest reading taken alone, scores highest of all; an action scoring far below it (a
confident drawing it has to call empty or something else) does not fit, and an illegal drawing with no
legal action that fits stays a dispute.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from companion.layout import ALL_CELLS
from companion.rules import legal_actions

EMPTY = "."
# The probability of a reading the cell reader did not list (it lists readings down to 0.001).
UNLISTED = 1e-4
# A cell takes part when the reader gives a drawing there at least this probability: a legal action that
# draws on a cell read empty with more certainty than that is never the most probable one anyway, and
# skipping those cells keeps the scoring to the few actions that matter.
CANDIDATE_AT_LEAST = 0.02
# The thresholds are log-probability ratios chosen by measurement: ``benchmarks/bench_moves.py --sweep``
# (390 drawn moves of 5 bot games, each in a hand family the network never saw) prints the moves read right,
# asked, disputed and wrong for a grid of them (the figures below are from it, seed 2026).
# A legal action at most FIT_WITHIN less probable than the raw reading fits the drawing (e^4.6 = 100:1):
# on an unseen hand a misread cell often has its right reading at 2-30 %. 6.9 turned 7 more disputes into
# right moves but took one more move wrong without asking; a wrong move nobody notices costs more than a
# dispute the players settle, so 4.6.
FIT_WITHIN = 4.6
# Two fitting legal actions closer than ASK_WITHIN (e^1.4 = 4:1) are a close call: the players are asked.
# Asking at all took the moves recorded wrong from 27 to 14 (of 390), at 17 questions the right reading
# answered with a tap and 6 where it was neither; 2.3 took them to 11 at 24 + 7 questions.
ASK_WITHIN = 1.4
# A cell read as drawn may be taken as empty only this far (log ratio, summed over such cells): the camera
# sees ink there, and calling it nothing is how an illegal drawing would be explained away (an inner wall,
# which the cell reader already weighs down, dropped from a row of walls). The benchmark's players mark
# phantom cells empty before they draw, so it changes none of its legal moves (0.7 to unlimited alike).
DROP_WITHIN = 1.1
# What the dice say before the board: players mostly use every die showing the symbol they choose (the bots
# of companion.bots leave some unused in 14 % (greedy) to 24 % (random) of their drawn moves). An action
# leaving dice of its symbol unused is this much less probable a priori (log ratio; 0 weighs the board only).
# Off: 1.7 read 3 more of 390 moves right with the same wrong ones, 3.0 took 3 more wrong; too little to
# assume how people choose.
UNUSED_DICE_PRIOR = 0.0
# A move drawn on a cell the camera is less than DOUBT_BELOW sure of (its sureness is calibrated on hands the
# network never saw, its probabilities are not) is asked about when another legal action, at most DOUBT_WITHIN
# less probable than the raw reading (e^5.5 = 245:1), reads that cell otherwise. Every move bench_moves recorded
# wrong without asking was drawn on a cell the reader listed as uncertain (a church 4 read as a 1 at 92.6 %),
# but so are a third of the right cells of a new hand: asking about all of them took the wrong moves from 2 to
# 0 of 358 at seed 3030 for 53 more questions (the sweep's figures). Under 0.8 sure took them to 0 for 10 more
# questions, and at seed 4040 from 1 to 0 of 392 for 1 more (0.7 left one wrong at 3030, a window of 4.6 one
# at 4040). Chosen on those two seeds (``bench_moves.py --sweep --seed 3030``, ``4040``), not the benchmark's: at its
# seed 2026 the moves recorded wrong went from 6 to 4 of 390, the questions from 7 to 16. 0 (either): off.
DOUBT_BELOW = 0.8
DOUBT_WITHIN = 5.5
# ... and under UNUSED_DOUBT_BELOW when that move leaves dice of its symbol unused (a church 1 with four crosses
# rolled, a soldier with four heads): the rules allow it, but players mostly use the dice they rolled, and a
# reading that uses them (the 4 a new hand's 1 resembles, the juggler its soldier) is the likelier misread.
# Chosen on seeds the threshold above was not (``bench_moves.py --sweep --seed 5050``, ``6060``): at 6060 a
# juggler read as a soldier at 96.4 % sure went from recorded wrong to asked (1 -> 0 of 385 moves) for 5 more
# questions, at 5050 none wrong either way for 8 more; under 0.99, 10 and 13 more for the same. At the
# benchmark's seed 2026 the moves recorded wrong go from 4 to 3 of 390 (the rest: church digits, two read as the
# digit that uses every cross, one as a 1 at 99 %), and at 3030 and 4040 none either way for 4 and 3 more
# questions. The bots leave dice unused in 14-24 % of their moves, likely more than players do, so a table is
# asked less.
UNUSED_DOUBT_BELOW = 0.97


def cell_probabilities(alternatives: Mapping[str, float] | None, seen: str) -> dict[str, float]:
    """One cell's readings as probabilities: the reader's alternatives, else its one reading for sure."""
    if not alternatives:
        return {seen: 1.0}
    return {str(k): float(v) for k, v in alternatives.items()}


def _log_p(probs: Mapping[str, float], item: str) -> float:
    return math.log(max(float(probs.get(item, 0.0)), UNLISTED))


@dataclass(frozen=True)
class ScoredAction:
    action: dict[str, Any]  # ACTION.json
    score: float  # log-probability relative to nothing drawn


@dataclass(frozen=True)
class MoveReading:
    """What the rules make of a drawing: the fitting legal actions, most probable first."""

    raw_score: float  # the raw reading's score: the best any explanation of the cells can do
    ranked: list[ScoredAction] = field(default_factory=list)  # fitting legal actions, best first
    candidates: tuple[str, ...] = ()  # the cells where something may have been drawn
    # The other reading of a doubted cell the best action draws on (``doubted_rival``), if there is one.
    rival: ScoredAction | None = None

    @property
    def best(self) -> dict[str, Any] | None:
        return self.ranked[0].action if self.ranked else None

    @property
    def margin(self) -> float:
        """How much more probable the best fitting action is than the next (log ratio; inf: only one)."""
        if len(self.ranked) < 2:
            return math.inf
        return self.ranked[0].score - self.ranked[1].score

    @property
    def close(self) -> bool:
        return len(self.ranked) >= 2 and self.margin < ASK_WITHIN


def doubted_rival(best: ScoredAction, others: Sequence[ScoredAction], doubted: Collection[str]) -> ScoredAction | None:
    """The likeliest of ``others`` (best first) that reads a cell ``best`` draws on and the camera doubts
    (``doubted``) otherwise: the other choice of the question a doubted drawing asks. None when ``best``
    draws on no doubted cell or no other reading differs there."""
    mine = {p["cell"]: p["item"] for p in best.action.get("place", [])}
    cells = [cell for cell in mine if cell in doubted]
    if not cells:
        return None
    for other in others:
        theirs = {p["cell"]: p["item"] for p in other.action.get("place", [])}
        if other is not best and any(theirs.get(cell) != mine[cell] for cell in cells):
            return other
    return None


def leaves_dice_unused(action: Mapping[str, Any], dice: Sequence[str]) -> bool:
    """Whether ``action`` (ACTION.json) uses fewer of the rolled dice showing its symbol than there are
    (none turned: a player who pays to turn a die uses every one of its symbol)."""
    from companion.tracker import dice_used  # the tracker imports this module

    return not action.get("turned") and dice_used(action) < list(dice).count(action.get("symbol"))


def read_move(state: Any, dice: Sequence[str], cells: Mapping[str, Mapping[str, float]],
              *, fit_within: float = FIT_WITHIN, drop_within: float = DROP_WITHIN,
              unused_dice_prior: float = UNUSED_DICE_PRIOR, doubted: Collection[str] = (),
              doubt_within: float = DOUBT_WITHIN, unused_doubted: Collection[str] = ()) -> MoveReading:
    """Weigh every legal action of ``state``'s current player with these ``dice`` against ``cells``.

    ``cells`` maps each space the engine holds empty to its readings' probabilities (city character ->
    probability; ``cell_probabilities``). Only actions that draw something, and only on cells with a
    drawing at least ``CANDIDATE_AT_LEAST`` probable, are weighed; those within ``fit_within`` of the raw
    reading, and leaving empty cells read as drawn only within ``drop_within``, are returned, best first.
    ``doubted``: the cells the camera is unsure of (the tracker's: read less than ``DOUBT_BELOW`` sure); the
    best action's ``rival`` is looked for among the actions within ``doubt_within`` of the raw reading.
    ``unused_doubted``: more cells doubted when the best action leaves dice of its symbol unused (the
    tracker's: read less than ``UNUSED_DOUBT_BELOW`` sure).
    """
    dice = list(dice)
    logs: dict[str, dict[str, float]] = {}
    drawn: dict[str, float] = {}  # cells read as drawn (a drawing likelier than empty): what calling them empty costs
    raw = 0.0
    for cell, probs in cells.items():
        if 1.0 - float(probs.get(EMPTY, 0.0)) < CANDIDATE_AT_LEAST:
            continue
        empty = _log_p(probs, EMPTY)
        gains = {item: _log_p(probs, item) - empty for item in probs if item != EMPTY}
        logs[cell] = gains
        best = max(0.0, *gains.values()) if gains else 0.0
        raw += best
        if best > 0.0:
            drawn[cell] = best
    unlisted: dict[str, float] = {cell: math.log(UNLISTED) - _log_p(cells[cell], EMPTY) for cell in logs}
    ranked: list[ScoredAction] = []
    if logs:
        seen: set[tuple[tuple[str, str], ...]] = set()
        for action in legal_actions(state, dice):
            place = action.place
            if not place or any(p.cell not in logs for p in place):
                continue
            score = 0.0
            for p in place:
                score += logs[p.cell].get(p.item, unlisted[p.cell])
            if unused_dice_prior and leaves_dice_unused(action.to_json(), dice):
                score -= unused_dice_prior
            if raw - score > max(fit_within, doubt_within):
                continue
            placed = {p.cell for p in place}
            if sum(cost for cell, cost in drawn.items() if cell not in placed) > drop_within:
                continue
            key = tuple(sorted((p.cell, p.item) for p in place))
            if key in seen:
                continue
            seen.add(key)
            as_json = action.to_json()
            as_json["place"].sort(key=lambda pl: ALL_CELLS.index(pl["cell"]))
            ranked.append(ScoredAction(as_json, score))
    ranked.sort(key=lambda s: -s.score)
    fitting = [r for r in ranked if raw - r.score <= fit_within]
    rival = None
    if fitting and doubt_within > 0:
        if unused_doubted and leaves_dice_unused(fitting[0].action, dice):
            doubted = set(doubted) | set(unused_doubted)
        rival = doubted_rival(fitting[0], [r for r in ranked if raw - r.score <= doubt_within], doubted)
    return MoveReading(raw, fitting, tuple(sorted(logs, key=ALL_CELLS.index)), rival)


PERSON_WORDS: dict[str, str] = {
    "c": "a citizen", "s": "a soldier", "p": "a priest", "a": "an architect", "m": "a merchant",
    "j": "a juggler", "n": "a noble",
}
ITEM_WORDS: dict[str, str] = {"W": "a wall", "G": "a crate", "H": "a house", **PERSON_WORDS,
                              **{str(n): f"a church {n}" for n in range(1, 6)}}


def rule_without_cells(message: str) -> str:
    """A rules-engine message ("Wall at D4: walls go only in the outer ...") without the cells it starts
    with, for a question's button that already names them."""
    return message.split(": ", 1)[-1].rstrip(".")


def describe_choice(action: Mapping[str, Any], other: Mapping[str, Any] | None = None) -> str:
    """A reading in plain words for a question's button: what is drawn where (with ``other``, the cells
    where the two readings differ come first), and the dice turned."""
    place = list(action.get("place", []))
    if other is not None:
        theirs = {(p["cell"], p["item"]) for p in other.get("place", [])}
        place.sort(key=lambda p: (p["cell"], p["item"]) in theirs)
    groups: dict[str, list[str]] = {}
    for p in place:
        groups.setdefault(p["item"], []).append(p["cell"])
    parts = []
    for item, where in groups.items():
        word = ITEM_WORDS.get(item, item)
        if len(where) > 1:
            plural = {"a wall": "walls", "a crate": "crates", "a house": "houses"}.get(word, word)
            parts.append(f"{len(where)} {plural} at {', '.join(where)}")
        else:
            parts.append(f"{word} at {where[0]}")
    text = ", ".join(parts) if parts else "nothing drawn"
    turned = int(action.get("turned", 0))
    if turned:
        text += f" ({turned} {'die' if turned == 1 else 'dice'} turned)"
    return text[:1].upper() + text[1:]
