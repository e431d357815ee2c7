"""The letter stage: a person's letter read again from a close crop of the middle of its cell."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from companion.layout import ALL_CELLS, SIZE
from vision.cells.close_look import StageNetwork
from vision.cells.features import cell_crops
from vision.cells.labels import GLYPH_CLASSES, PERSON_LETTERS
from vision.cells.letters import (
    LETTER_FROM,
    LETTER_WEIGHT,
    LETTER_ZOOM,
    LETTERS,
    PERSON_CLASS,
    letter_crops,
    letters_path_for,
    wants_letters,
    with_letters,
)
from vision.cells.reader import CellReader
from vision.cells.train_letters import LETTERS_PATH, person_city

S = GLYPH_CLASSES.index("pS")
C = GLYPH_CLASSES.index("pC")
EMPTY = GLYPH_CLASSES.index(".")


def test_the_letter_network_goes_with_its_cell_network():
    assert letters_path_for(Path("vision/cells/cnn.npz")) == Path("vision/cells/letters.npz")
    assert letters_path_for(Path("unseen/cnn_without_loose.npz")) == Path("unseen/letters_without_loose.npz")


def _ink_side(crop: np.ndarray) -> tuple[int, float, float]:
    ys, xs = np.nonzero(crop > 0.5)
    return int(xs.max() - xs.min() + 1), float(xs.mean()), float(ys.mean())


def test_a_close_crop_shows_the_middle_of_its_cell_larger():
    """A dark square of 0.3 of a cell in the middle of C3: the close crop shows it centred at 0.3 / LETTER_ZOOM of
    the crop's side, the whole cell's crop at about half that (it spans the cell and a margin)."""
    rectified = np.full((448, 448), 200, np.uint8)
    cell = 448 // SIZE
    index = ALL_CELLS.index("C3")
    row, col = divmod(index, SIZE)
    half = int(round(0.15 * cell))
    cx, cy = int((col + 0.5) * cell), int((row + 0.5) * cell)
    rectified[cy - half:cy + half, cx - half:cx + half] = 50
    close = letter_crops(rectified, [index])[0]
    whole = cell_crops(rectified, cells=[index])[0]
    side, mx, my = _ink_side(close)
    assert abs(side - 0.3 / LETTER_ZOOM * close.shape[0]) <= 2
    assert abs(mx - close.shape[1] / 2) <= 1.5 and abs(my - close.shape[0] / 2) <= 1.5
    assert side >= 1.7 * _ink_side(whole)[0]


def test_the_letter_stage_reads_only_cells_taken_for_a_person():
    probs = np.zeros((3, len(GLYPH_CLASSES)))
    probs[0, C], probs[0, EMPTY] = LETTER_FROM + 0.01, 1 - LETTER_FROM - 0.01
    probs[1, C], probs[1, EMPTY] = LETTER_FROM - 0.01, 1 - LETTER_FROM + 0.01
    probs[2, C], probs[2, S], probs[2, EMPTY] = 0.3, 0.3, 0.4  # two letters together
    assert wants_letters(probs).tolist() == [True, False, True]


def test_the_letter_moves_only_the_letter_and_keeps_the_persons_share():
    probs = np.zeros((1, len(GLYPH_CLASSES)))
    probs[0, C], probs[0, S], probs[0, EMPTY] = 0.5, 0.3, 0.2
    letters = np.zeros_like(probs)
    letters[0, S] = 1.0
    out = with_letters(probs, letters, weight=0.5)
    assert out[0].argmax() == S
    assert out[0, EMPTY] == pytest.approx(0.2) and out[0, PERSON_CLASS].sum() == pytest.approx(0.8)
    assert out[0, S] == pytest.approx(0.8 * (0.5 * 0.3 / 0.8 + 0.5))
    assert out.sum() == pytest.approx(1.0)
    assert np.allclose(with_letters(probs, letters, weight=0.0), probs)


def _persons(city):
    return [ALL_CELLS[i] for i in range(SIZE * SIZE) if city[i // SIZE][i % SIZE] in PERSON_LETTERS["en"]]


@pytest.fixture
def letters_say_s(stage_says):
    """A cell network beside a letter network that reads every close crop as an S."""
    return stage_says("letters", "pS")


def test_the_reader_reads_the_letter_of_every_person_again(busy_city, letters_say_s, close_up_board):
    """With a letter network that sees an S in every crop, every person of another letter is read as an S or
    doubted (the cell network's C and the letter network's S at their weights: the S at most LETTER_WEIGHT sure); the
    other cells are read as without it. Fails when the reader leaves the letter stage out."""
    rectified = close_up_board(busy_city, 5)
    plain = CellReader("en", model_path=letters_say_s)
    assert plain.letters is not None
    letters_path_for(letters_say_s).unlink()
    without = CellReader("en", model_path=letters_say_s)
    assert without.letters is None
    city, confidence, uncertain = plain.read(rectified)
    city_before, _, _ = without.read(rectified)
    persons = _persons(busy_city)
    assert persons
    for name in persons:
        i = ALL_CELLS.index(name)
        row, col = divmod(i, SIZE)
        truth = busy_city[row][col]
        assert city_before[row][col] == truth, name
        if truth != "s":
            assert city[row][col] == "s" or name in uncertain, name
            assert confidence[row][col] <= LETTER_WEIGHT + 0.01, name
    others = [i for i in range(SIZE * SIZE) if ALL_CELLS[i] not in persons]
    assert all(city[i // SIZE][i % SIZE] == city_before[i // SIZE][i % SIZE] for i in others)


def test_person_boards_hold_mostly_persons_of_their_language():
    rng = np.random.default_rng(3)
    for language in ("en", "it"):
        city = person_city(rng, language)
        drawn = [ch for row in city for ch in row if ch not in "#.G"]  # (the printed crates)
        assert len(drawn) >= 30 and set(drawn) <= set(PERSON_LETTERS[language])


def test_the_shipped_letter_stage_reads_a_neat_hands_letters(close_up_board):
    """The shipped letter network on its own, on boards of persons in a neat hand of the generator's first
    hands (which it learned), photographed close up (the board 0.7-0.8 of the frame's height): few letters
    misread."""
    stage = StageNetwork.load(LETTERS_PATH, LETTERS)
    allowed = np.array([g in {"p" + v for v in PERSON_LETTERS["en"].values()} for g in GLYPH_CLASSES])
    wrong = total = 0
    for seed in range(3):
        rng = np.random.default_rng(100 + seed)
        city = person_city(rng, "en")
        rectified = close_up_board(city, 200 + seed)
        cells = [ALL_CELLS.index(name) for name in _persons(city)]
        probs = stage.probabilities(letter_crops(rectified, cells), allowed, np.zeros(len(GLYPH_CLASSES)))
        truth = [GLYPH_CLASSES.index("p" + PERSON_LETTERS["en"][city[i // SIZE][i % SIZE]]) for i in cells]
        wrong += int(np.sum(probs.argmax(axis=1) != np.array(truth)))
        total += len(cells)
    assert total >= 90
    assert wrong / total <= 0.03
