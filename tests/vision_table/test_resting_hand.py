"""A hand left resting on a board: the reader takes it for a hand while it is new, but once still it becomes the view
the reader compares against, and the board is read with the hand on it. A reading that changes more cells than any
move draws (``LEAP_CELLS``) must hold ``LEAP_SECONDS`` before it is committed, and the board as it was is taken back
at once when the hand goes."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np

from vision.observation import BoardReading, DieReading, Observation
from vision.pipeline import TableReader
from vision.stability import LEAP_CELLS, LEAP_SECONDS, StabilityFilter
from vision.synth.table import TableSpec, render_table

CONF = tuple((1.0,) * 7 for _ in range(7))
CITY = ("#.....#", ".GG....", ".G.....", ".G.....", ".......", ".......", "#.....#")
MOVE = ("#WWWWW#", ".GG....", ".G.....", ".G.....", ".......", ".......", "#.....#")  # five walls: a move
HAND = ("#WWWWW#", "WGGGGGW", "WGGGG..", ".G.....", ".......", ".......", "#.....#")  # ten cells more: no move


def seen(city: tuple[str, ...], occluded: tuple[int, ...] = ()) -> Observation:
    return Observation(boards=(BoardReading(0, city, CONF), BoardReading(1, CITY, CONF)),
                       dice=tuple(DieReading(f, 0.99) for f in ("head", "head", "wall", "cross", "swords")),
                       extra={"sharpness": 400.0, "occluded_seats": list(occluded)})


def frames_to_commit(filt: StabilityFilter, now: list[float], observation: Observation, most: int = 400) -> int | None:
    """Push ``observation`` at 10 frames a second until it is committed: how many frames that took."""
    for k in range(1, most + 1):
        now[0] += 0.1
        if filt.push(observation) is not None:
            return k
    return None


def test_a_move_commits_at_once_and_a_reading_no_move_makes_waits_leap_seconds():
    assert sum(a != b for a, b in zip("".join(HAND), "".join(MOVE), strict=True)) > LEAP_CELLS
    now = [0.0]
    filt = StabilityFilter(hold_frames=3, clock=lambda: now[0])
    assert frames_to_commit(filt, now, seen(CITY)) == 3
    assert frames_to_commit(filt, now, seen(MOVE)) == 3, "five walls drawn are a move: no wait"
    waited = frames_to_commit(filt, now, seen(HAND))
    assert waited is not None and waited >= LEAP_SECONDS * 10
    assert filt.committed.board(0).city == HAND, "a reading that holds long enough is taken all the same"


def test_a_hand_that_moves_is_never_committed_and_the_board_comes_back_at_once():
    now = [0.0]
    filt = StabilityFilter(hold_frames=3, clock=lambda: now[0])
    frames_to_commit(filt, now, seen(MOVE))
    other = tuple(row.replace("G", "C") for row in HAND)  # the hand shifted: its cells read otherwise
    for _ in range(20):  # 20 s of a hand that shifts now and then
        for hand in (HAND, other):
            for _ in range(50):
                now[0] += 0.1
                assert filt.push(seen(hand)) is None
    # Left still past LEAP_SECONDS, it is committed; taken away, the board as it was is taken back within the hold,
    # though the reader still says the board is covered (it compares against the view with the hand).
    frames_to_commit(filt, now, seen(HAND))
    assert frames_to_commit(filt, now, seen(MOVE, occluded=(0,))) == 3
    assert filt.committed.board(0).city == MOVE
    # That way back is only for the commit right after the leap: a covered board is kept as committed again.
    assert frames_to_commit(filt, now, seen(CITY, occluded=(0,)), most=200) is None


def test_a_real_hand_resting_on_a_board_waits_and_goes():
    """Through the reader: a generated table, a hand over a board left still (the reader's reference takes it in),
    moving a little now and then; the board with the hand is not committed until it has held LEAP_SECONDS, and the
    board comes back as soon as the hand is gone."""
    rng = np.random.default_rng(101)
    spec = TableSpec.random(rng, n_boards=3, camera_cm=75)
    clean, truth = render_table(spec, rng)
    handed, _ = render_table(dataclasses.replace(spec, hand=True), rng)
    ys, xs = np.nonzero(cv2.absdiff(clean, handed).max(axis=2) > 40)
    cy, cx = int(np.median(ys)), int(np.median(xs))
    shifted = handed.copy()  # the hand stirs a little
    shifted[cy - 20:cy + 20, cx - 20:cx + 20] = np.clip(shifted[cy - 20:cy + 20, cx - 20:cx + 20].astype(int) + 30, 0, 255)
    now = [0.0]
    reader, filt = TableReader(), StabilityFilter(hold_frames=3, clock=lambda: now[0])
    commits = []

    def show(frame: np.ndarray, frames: int) -> None:
        for _ in range(frames):
            now[0] += 0.1
            if (c := filt.push(reader.read(frame))) is not None:
                commits.append((now[0], c))

    show(clean, 20)
    assert [c.board(b.seat).city for _, c in commits[-1:] for b in truth.boards] == [b.city for b in truth.boards]
    start = now[0]
    show(handed, 20)
    show(shifted, 1)
    show(handed, 40)  # still for 4 s: the reader reads the board with the hand, the filter waits
    assert len(commits) == 1, "the hand's reading was committed within 4 s"
    show(clean, 30)  # the hand taken away
    assert len(commits) == 1 and all(commits[0][1].board(b.seat).city == b.city for b in truth.boards)
    assert now[0] - start < LEAP_SECONDS


def test_a_board_is_not_reported_covered_once_the_lifted_hands_view_has_held_still():
    """The hand rests until the reader takes its view as the one to compare against; lifted, the board differs from
    that view and is reported covered, but once the view without the hand has held still it is not, though no frame
    changed since (the report was kept for as long as nothing moved)."""
    rng = np.random.default_rng(104)
    spec = TableSpec.random(rng, n_boards=3, camera_cm=75)
    clean, _ = render_table(spec, rng)
    handed, _ = render_table(dataclasses.replace(spec, hand=True), rng)
    reader = TableReader()
    for _ in range(10):
        reader.read(clean)
    covered = [reader.read(handed).extra.get("occluded_seats") for _ in range(20)]
    assert covered[0], "a new hand over a board is reported"
    lifted = [reader.read(clean).extra.get("occluded_seats") for _ in range(15)]
    assert lifted[0] == covered[0], "just lifted, the board differs from the view with the hand"
    assert lifted[-1] == []


def test_a_board_coming_back_into_view_is_no_leap():
    """Half of a full board slides out of view and comes back: what reappears was drawn all along."""
    full = ("#WWWWW#", "WGGGGGW", "WGGGGGW", "WGGGGGW", "W.....W", "W.....W", "#WWWWW#")
    half = tuple(f"{col}{row}" for col in "EFG" for row in range(1, 8) if f"{col}{row}" not in ("G1", "G7"))
    now = [0.0]
    filt = StabilityFilter(hold_frames=3, clock=lambda: now[0])

    def seen_board(unseen: tuple[str, ...]) -> Observation:
        board = BoardReading(0, full, CONF).with_unseen(unseen)
        return dataclasses.replace(seen(CITY), boards=(board, BoardReading(1, CITY, CONF)))

    assert frames_to_commit(filt, now, seen_board(())) == 3
    out = frames_to_commit(filt, now, seen_board(half))  # its unseen cells are doubtful: held longer, not a leap's wait
    assert out is not None and out < LEAP_SECONDS * 10
    assert sum(a != b for a, b in zip("".join(filt.committed.board(0).city), "".join(full), strict=True)) > LEAP_CELLS
    assert frames_to_commit(filt, now, seen_board(())) == 3, "back in view, the board is taken at once"
