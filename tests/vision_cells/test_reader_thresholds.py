"""Doubt thresholds fitted on what the whole reader reports (``vision.cells.reader_thresholds``)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from vision.cells import reader_thresholds
from vision.cells.reader import DRAWABLE_INDEX
from vision.cells.reader_thresholds import (
    MARGINS,
    Readings,
    confident_misreads,
    family_readings,
    fitted_thresholds,
    held_out_margin,
    thresholds_for_new_hands,
)
from vision.cells.train_hands import CONFIDENT_MISREAD_TARGET, UNCERTAIN_BOUNDS, unseen_model_path


def _readings(n: int, *, symbol_wrong_at: Sequence[float] = (), plain_wrong_at: Sequence[float] = (),
              agreed: bool = True) -> Readings:
    """``n`` cells read right at 0.9999 (half letters, half plain), and misread letters and plain cells at these
    sureness values; the letters' sureness is the networks' agreement when ``agreed``."""
    wrong = np.zeros(n, bool)
    symbol = np.arange(n) % 2 == 0
    sureness = np.full(n, 0.9999)
    k = 0
    for at, is_symbol in [(s, True) for s in symbol_wrong_at] + [(p, False) for p in plain_wrong_at]:
        while symbol[k] != is_symbol:
            k += 1
        wrong[k], sureness[k] = True, at
        k += 1
    return Readings(wrong, symbol, sureness, symbol & agreed)


def test_a_misread_counts_as_confident_only_at_or_above_its_own_threshold():
    read = _readings(1000, symbol_wrong_at=[0.995], plain_wrong_at=[0.95])
    assert confident_misreads(read, 0.99, 0.999, 0.999) == 0.0  # the letter under 0.999, the plain cell under 0.99
    assert confident_misreads(read, 0.99, 0.999, 0.99) == 0.001  # the agreed letter held to 0.99 only
    assert confident_misreads(read, 0.9, 0.999, 0.999) == 0.001  # the plain cell held to 0.9
    # A letter whose sureness is not the agreement is held to the symbols' threshold, not the agreed one.
    alone = _readings(1000, symbol_wrong_at=[0.995], agreed=False)
    assert confident_misreads(alone, 0.99, 0.999, 0.99) == 0.0
    assert confident_misreads(alone, 0.99, 0.99, 0.999) == 0.001
    # Neither letter threshold goes under the plain one (CellReader holds them to it).
    assert confident_misreads(read, 0.996, 0.9, 0.9) == 0.0


def test_the_fitted_thresholds_hold_every_family_to_the_target_and_no_higher():
    """The plain threshold is the lowest at which every family's misreads without doubt are at the target with
    every cell held to it; the agreed letters' the lowest above it for what the letters still need; the hardest
    family decides."""
    easy = _readings(5000)
    middling = _readings(5000, symbol_wrong_at=[0.95] * 12, plain_wrong_at=[0.9] * 4)  # 0.24 % at 0.95
    plain, agreed = fitted_thresholds([easy, middling], symbols=0.999)
    assert 0.95 < plain < 0.96 and agreed == plain
    assert confident_misreads(middling, plain, 0.999, agreed) <= CONFIDENT_MISREAD_TARGET
    assert confident_misreads(middling, 0.945, 0.999, 0.945) > CONFIDENT_MISREAD_TARGET
    # Letters misread at 0.997 (0.3 %): no plain threshold under the ceiling does; the agreed letters' goes over them.
    hard = _readings(5000, symbol_wrong_at=[0.997] * 15, plain_wrong_at=[0.9] * 4)
    plain, agreed = fitted_thresholds([easy, middling, hard], symbols=0.999)
    assert plain == UNCERTAIN_BOUNDS[1] and 0.997 < agreed <= 0.999
    for read in (easy, middling, hard):
        assert confident_misreads(read, plain, 0.999, agreed) <= CONFIDENT_MISREAD_TARGET
    assert confident_misreads(hard, plain, 0.999, 0.997) > CONFIDENT_MISREAD_TARGET
    # The easy family alone asks for no doubt above the floor.
    assert fitted_thresholds([easy], symbols=0.999) == (UNCERTAIN_BOUNDS[0], UNCERTAIN_BOUNDS[0])
    # A family beyond any threshold leaves both at their ceilings.
    hopeless = _readings(1000, symbol_wrong_at=[0.99999] * 10, plain_wrong_at=[0.99999] * 10)
    assert fitted_thresholds([easy, hopeless], symbols=0.999) == (UNCERTAIN_BOUNDS[1], 0.999)


def _worst_left_out(families: list[Readings], margin: float) -> float:
    """The worst family's misreads without doubt by thresholds fitted on the others at ``margin`` of the target."""
    worst = 0.0
    for k, left in enumerate(families):
        plain, agreed = fitted_thresholds(families[:k] + families[k + 1:], 0.999, margin * CONFIDENT_MISREAD_TARGET)
        worst = max(worst, confident_misreads(left, plain, 0.999, agreed))
    return worst


def test_a_hand_left_out_of_the_fit_is_held_to_the_target_by_a_margin():
    """Three families whose letters are misread at 0.995 and one at 0.997 as well: fitted to the target on the
    other three, the hardest left out passes the target; the margin is the largest share of the target at which
    every family left out stays within it, and thresholds fitted at it hold every one of them."""
    alike = [_readings(5000, symbol_wrong_at=[0.995] * 9) for _ in range(3)]
    hardest = _readings(5000, symbol_wrong_at=[0.995] * 9 + [0.9935] * 5)
    families = [*alike, hardest]
    plain, agreed = fitted_thresholds(alike, symbols=0.999)
    assert confident_misreads(hardest, plain, 0.999, agreed) > CONFIDENT_MISREAD_TARGET  # at the target itself
    margin = held_out_margin(families, symbols=0.999)
    assert margin < 1.0 and margin in MARGINS
    assert _worst_left_out(families, margin) <= CONFIDENT_MISREAD_TARGET
    assert _worst_left_out(families, MARGINS[MARGINS.index(margin) - 1]) > CONFIDENT_MISREAD_TARGET  # the largest
    plain, agreed, used = thresholds_for_new_hands(families, symbols=0.999)
    assert used == margin and (plain, agreed) == fitted_thresholds(families, 0.999, margin * CONFIDENT_MISREAD_TARGET)
    # Families alike ask for no margin.
    assert held_out_margin(alike, symbols=0.999) == 1.0


def test_a_family_s_boards_are_read_the_whole_way_by_the_networks_that_never_saw_it():
    """Each board's drawable cells, with the sureness and the agreement flag the reader reports (seeded: the
    same boards again give the same readings)."""
    read = family_readings("school", unseen_model_path("school"), 2, 8600)
    assert len(read.wrong) == 2 * len(DRAWABLE_INDEX)
    assert read.wrong.mean() < 0.2  # a reader, not noise: most cells right
    assert read.agreed[read.symbol].any() and not read.agreed[~read.symbol].all()
    assert np.all((read.sureness >= 0) & (read.sureness <= 1))
    again = family_readings("school", unseen_model_path("school"), 2, 8600)
    assert np.array_equal(read.sureness, again.sureness) and np.array_equal(read.wrong, again.wrong)


def test_a_dry_run_writes_nothing(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(reader_thresholds, "family_readings",
                        lambda fam, path, n, seed: _readings(500, symbol_wrong_at=[0.995] * 3))
    stored = {p: p.read_bytes() for p in (unseen_model_path("tidy"), reader_thresholds.SHIPPED_PATH)}
    assert reader_thresholds.main(["--boards", "1", "--workers", "1", "--dry-run"]) == 0
    assert "cnn_without_tidy.npz now" in capsys.readouterr().out
    assert all(p.read_bytes() == data for p, data in stored.items())
