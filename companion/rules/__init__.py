"""The Saint Malo rules engine: pure Python, no OpenCV, no Flask.

State in, verdict out: ``judge`` lists every broken rule of a move, ``apply`` plays a legal one,
``legal_actions`` lists every option of a roll, ``final_tally`` scores the end.
"""

from companion.rules.actions import FACES, SYMBOLS, Action, ActionError, Placement, validate_action
from companion.rules.engine import (
    Effects,
    IllegalMove,
    RuleViolation,
    Verdict,
    apply,
    apply_forced,
    has_option,
    judge,
    resolve,
    violations,
)
from companion.rules.legal import connected_sets, legal_actions, option_value, random_action
from companion.rules.state import GameState, PirateTrack, PlayerState, StateError
from companion.rules.tally import PlayerTally, Tally, church_series_points, final_tally, is_terminal

__all__ = [
    "FACES", "SYMBOLS", "Action", "ActionError", "Placement", "validate_action",
    "Effects", "IllegalMove", "RuleViolation", "Verdict", "apply", "apply_forced", "has_option", "judge",
    "resolve", "violations",
    "connected_sets", "legal_actions", "option_value", "random_action",
    "GameState", "PirateTrack", "PlayerState", "StateError",
    "PlayerTally", "Tally", "church_series_points", "final_tally", "is_terminal",
]
