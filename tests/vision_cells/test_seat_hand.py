"""A seat's hand learned as the game goes (vision.cells.seat_hand): the drawings the table confirmed vote
next to the network when that seat's board is read."""

from __future__ import annotations

import copy
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from companion.layout import ALL_CELLS, LAYOUT, SIZE
from companion.store import GameStore
from vision.board import find_boards
from vision.board.dataset import photograph
from vision.cells import CellReader
from vision.cells.features import cell_crops
from vision.cells.labels import GLYPH_CLASSES
from vision.cells.reader import DRAWABLE_INDEX
from vision.cells.seat_hand import HEAD_FROM_DRAWINGS, SeatHand, TableHands, labelled
from vision.synth.board import render_board
from vision.synth.drawings import Hand

# Walls drawn as rows of stones and houses as tents: styles the generator's first hands never draw.
ODD_HAND = Hand(wall_style=4, house_style=3, crate_style=0, church_style=1, stroke=0.07, slant=0.3,
                wobble=0.01, size=0.75)
TEST_CITIES = [
    ["#WWWWW#", "HGGH..W", "WG.HH.W", ".G....H", "W..H..W", "W.H...W", "#W.WWW#"],
    ["#.WW.W#", "WGG.H..", "HG.H.HW", "WGH...W", "..H.H.W", "W..H...", "#WW.WW#"],
]
# Other drawings of the same hand, as the table confirmed them turn by turn (other cells, other strokes).
PLAYED_CITIES = [
    ["#W.W.W#", "WGG.H.W", ".GH..H.", "WG.H..W", "H.H.H..", "WH..H.W", "#.WW.W#"],
    ["#WW..W#", ".GGH.HW", "WG..H.W", "HGH..H.", "W..H..W", ".H.H.HW", "#W.WW.#"],
]


def _rectified(city: list[str], seed: int, hand: Hand = ODD_HAND) -> np.ndarray:
    rng = np.random.default_rng(seed)
    board = render_board(city, rng, cell_px=64, seat=0, hand=hand, ghost_rate=0.0)
    (located,) = find_boards(photograph(board.image, board.alpha, rng, tilt_deg=15, fill=(0.7, 0.8)).frame)
    return located.rectified


def _drawn_cells(city: list[str]) -> dict[str, str]:
    """The cells a player drew (the printed crates are the board's own)."""
    return {cell: city[i // SIZE][i % SIZE] for i, cell in enumerate(ALL_CELLS)
            if city[i // SIZE][i % SIZE] not in ".#" and cell not in LAYOUT.printed_crates}


def _misread(reader: CellReader, boards: list[tuple[list[str], np.ndarray]], hand: SeatHand | None) -> int:
    wrong = 0
    for city, rectified in boards:
        read, _, _ = reader.read(rectified, hand)
        wrong += sum(city[r][c] != read[r][c] for r in range(SIZE) for c in range(SIZE))
    return wrong


# A network trained on the generator's first hands only (the reader shipped before the hand families): the
# hand under test must be new to the reader, and the shipped network has learned stones and tents.
FIRST_HANDS_ONLY = Path(__file__).with_name("first_hands_cnn.npz")


@pytest.fixture(scope="module")
def reader() -> CellReader:
    return CellReader("en", model_path=FIRST_HANDS_ONLY)


@pytest.fixture(scope="module")
def odd_boards() -> list[tuple[list[str], np.ndarray]]:
    return [(city, _rectified(city, 40 + i)) for i, city in enumerate(TEST_CITIES)]


@pytest.fixture(scope="module")
def played_boards() -> list[tuple[list[str], np.ndarray]]:
    return [(city, _rectified(city, 60 + i)) for i, city in enumerate(PLAYED_CITIES)]


def test_confirmed_drawings_teach_an_odd_hand(reader, odd_boards, played_boards):
    before = _misread(reader, odd_boards, None)
    assert before >= 6, "the odd hand should fool the network, or this test proves nothing"
    hands = TableHands(None, None, "en")
    for city, rectified in played_boards:
        hands.learn(0, rectified, _drawn_cells(city), "move")
    after = _misread(reader, odd_boards, hands.hand(0))
    assert after <= before // 4, (before, after)
    # the network itself is untouched: without the hand it reads as before
    assert _misread(reader, odd_boards, None) == before


def test_one_example_cannot_flip_a_confident_reading(reader, odd_boards):
    city, rectified = odd_boards[0]
    probs = reader.probabilities(rectified)
    crops = cell_crops(rectified)
    confident = [i for i in DRAWABLE_INDEX if probs[i].max() >= 0.9]
    assert len(confident) >= 20
    for i in confident[:20]:
        read = int(probs[i].argmax())
        wrong = next(g for g in ("H", "pC", "3") if GLYPH_CLASSES.index(g) != read)  # walls: outer cells only
        hand = SeatHand()
        hand.add(wrong, crops[i])  # the very drawing, labelled wrongly: the closest an example can be
        taught = reader.probabilities(rectified, hand)
        assert int(taught[i].argmax()) == read, ALL_CELLS[i]
        # ...but several drawings like it do outvote the network
        for _ in range(4):
            hand.add(wrong, crops[i])
        assert reader.chars[int(reader.probabilities(rectified, hand)[i].argmax())] == reader.chars[
            GLYPH_CLASSES.index(wrong)]


def test_a_class_without_examples_keeps_the_network_reading(reader, odd_boards, played_boards):
    """Examples of walls only: cells unlike any wall read as the network reads them."""
    city, rectified = odd_boards[1]
    hands = TableHands(None, None, "en")
    played_city, played = played_boards[0]
    hands.learn(0, played, {c: w for c, w in _drawn_cells(played_city).items() if w == "W"}, "move")
    alone = reader.probabilities(rectified)
    with_walls = reader.probabilities(rectified, hands.hand(0))
    for i in DRAWABLE_INDEX:
        if city[i // SIZE][i % SIZE] == "G":
            assert with_walls[i].argmax() == alone[i].argmax()


def test_hand_survives_a_restart_of_the_store(tmp_path, reader, odd_boards, played_boards):
    store = GameStore(tmp_path)
    game = store.create_game({})
    hands = TableHands(store, game, "en")
    city, rectified = played_boards[0]
    hands.learn(2, rectified, _drawn_cells(city), "move")
    hands.learn(2, rectified, {"B2": "H"}, "correction")  # a correction replaces what a move taught there
    counts = hands.hand(2).counts()
    expected = reader.probabilities(odd_boards[0][1], hands.hand(2))
    store.close()

    store = GameStore(tmp_path)
    again = TableHands(store, game, "en")
    assert again.hand(2).counts() == counts
    assert again.hand(0) is None  # other seats learned nothing
    np.testing.assert_allclose(reader.probabilities(odd_boards[0][1], again.hand(2)), expected, atol=1e-6)
    # another game starts empty, unless the players carry the seat's last hand over
    other = store.create_game({})
    assert TableHands(store, other, "en").hand(2) is None
    store.carry_hands(other, [0, 2], per_glyph=40)
    assert TableHands(store, other, "en").hand(2).counts() == counts
    store.close()


def test_a_seat_reads_with_its_own_last_layer_once_it_has_enough_drawings(reader, odd_boards, played_boards):
    hands = TableHands(None, None, "en")
    for city, rectified in played_boards:
        hands.learn(0, rectified, _drawn_cells(city), "move")
    hand = hands.hand(0)
    assert hand is not None and sum(hand.counts().values()) >= HEAD_FROM_DRAWINGS
    seat = hand.seat_model(reader, reader.model, reader.allowed)
    assert seat is not reader.model
    # only the last layer is the seat's: the embedding the nearest examples vote on stays the network's
    assert all(a is b for a, b in zip(seat.weights[:-1], reader.model.weights[:-1], strict=True))
    assert not np.allclose(seat.weights[-1], reader.model.weights[-1])
    assert hand.seat_model(reader, reader.model, reader.allowed) is seat  # kept until the hand changes
    # the seat's layer alone, without the examples voting, reads the odd hand far better than the network
    layer_only = copy.copy(reader)
    layer_only.model = seat
    before = _misread(reader, odd_boards, None)
    assert _misread(layer_only, odd_boards, None) <= before // 2, before


def test_a_seat_with_few_drawings_reads_with_the_network_own_layer(reader, played_boards):
    city, rectified = played_boards[0]
    hands = TableHands(None, None, "en")
    hands.learn(0, rectified, dict(list(_drawn_cells(city).items())[:HEAD_FROM_DRAWINGS - 1]), "move")
    hand = hands.hand(0)
    assert hand is not None and sum(hand.counts().values()) == HEAD_FROM_DRAWINGS - 1
    assert hand.seat_model(reader, reader.model, reader.allowed) is reader.model
    hands.learn(0, rectified, dict(list(_drawn_cells(city).items())[HEAD_FROM_DRAWINGS - 1:HEAD_FROM_DRAWINGS]),
                "move")
    assert hand.seat_model(reader, reader.model, reader.allowed) is not reader.model


def _letter_sheet_hands(store=None, game_id=None) -> tuple[TableHands, np.ndarray]:
    """A teaching sheet of a hand never trained on, taught to seat 0."""
    from vision.teach import sheet_drawings, teaching_city

    rng = np.random.default_rng(31)
    board = render_board(teaching_city(), rng, cell_px=64, seat=0, hand=Hand.random(rng, family="loose"))
    photo = photograph(board.image, board.alpha, rng, tilt_deg=10.0, fill=(0.7, 0.8))
    (located,) = find_boards(photo.frame)
    hands = TableHands(store, game_id, "en")
    hands.teach(0, sheet_drawings(located.rectified, "en", rng))
    return hands, located.rectified


@pytest.fixture(scope="module")
def shipped() -> CellReader:
    return CellReader("en")


def test_a_taught_seat_fits_the_letter_stage_dense_layers_to_its_sheet(shipped):
    from vision.cells.reader import SEAT_STAGES

    assert "letters" in SEAT_STAGES and shipped.letters is not None
    stage = shipped.letters
    hands, rectified = _letter_sheet_hands()
    hand = hands.hand(0)
    head = hand.stage_model(stage, shipped.allowed)
    assert head is not stage.head
    for fitted, own in zip(head.weights, stage.head.weights, strict=True):  # the hidden layer and the last
        assert fitted.shape == own.shape and not np.allclose(fitted, own)
    assert head.temperature == stage.head.temperature and head.replay_x is stage.head.replay_x
    assert hand.stage_model(stage, shipped.allowed) is head  # kept until the hand changes
    # Fitted anew from the same drawings (a hand restarted from the store): the same head (seeded).
    copied = SeatHand()
    for glyph, drawing, ink, sure in zip(hand.glyphs, hand.drawings, hand.inks, hand.sure, strict=True):
        copied.add(GLYPH_CLASSES[glyph], ink, drawing=drawing, sure=sure)
    refitted = copied.stage_model(stage, shipped.allowed)
    assert refitted is not head
    assert all(np.array_equal(a, b) for a, b in zip(refitted.weights, head.weights, strict=True))
    # The sheet's own letters, as the seat's layer reads them from the kept drawings: it learned them.
    from vision.cells.close_look import close_from_cell_inks

    persons = [k for k, g in enumerate(hand.glyphs) if GLYPH_CLASSES[g].startswith("p")]
    crops = close_from_cell_inks(np.stack([hand.inks[k] for k in persons]).astype(np.float32) / 127.5, stage.look.zoom)
    truth = np.array([hand.glyphs[k] for k in persons])
    seat_reads = stage.probabilities(crops, shipped.allowed, shipped.prior_shift, head).argmax(axis=1)
    net_reads = stage.probabilities(crops, shipped.allowed, shipped.prior_shift).argmax(axis=1)
    assert (seat_reads == truth).mean() >= max((net_reads == truth).mean(), 0.9)
    # Reading a board with the hand goes through the seat's layer.
    calls = []
    original = SeatHand.stage_model
    try:
        SeatHand.stage_model = lambda self, s, allowed: calls.append(s.look.name) or original(self, s, allowed)
        shipped.read(rectified, hand)
    finally:
        SeatHand.stage_model = original
    assert calls == ["letters", "churches"]


def test_a_correction_sends_only_the_corrected_drawing_through_the_stage_convolutions(shipped):
    """A seat keeps its drawings' redrawn features: after one more labelled letter, only that drawing's redraws are
    read by the letter network's convolutions, and the head is the one a hand fitted from scratch gets."""
    from vision.cells.seat_hand import STAGE_REDRAWN

    stage = shipped.letters
    hand = _letter_sheet_hands()[0].hand(0)
    hand.stage_model(stage, shipped.allowed)
    person = next(k for k, g in enumerate(hand.glyphs) if GLYPH_CLASSES[g] == "pS")
    corrected = np.roll(hand.inks[person], 2, axis=1)  # another drawing of an S, as a correction brings it
    hand.add("pS", corrected, key="game:D4", sure=True)
    crops_read = []
    trunk = stage.trunk
    original = type(trunk).features
    try:
        type(trunk).features = lambda self, crops: crops_read.append(len(crops)) or original(self, crops)
        head = hand.stage_model(stage, shipped.allowed)
    finally:
        type(trunk).features = original
    assert crops_read == [STAGE_REDRAWN]
    # An Italian G among an English table's letters: kept as a drawing, never read.
    hand.add("pG", np.roll(hand.inks[person], 4, axis=0), key="game:E5", sure=True)
    assert hand.stage_model(stage, shipped.allowed) is not head
    fresh = SeatHand()
    for glyph, drawing, ink, sure in zip(hand.glyphs, hand.drawings, hand.inks, hand.sure, strict=True):
        fresh.add(GLYPH_CLASSES[glyph], ink, drawing=drawing, sure=sure)
    assert all(np.array_equal(a, b) for a, b in zip(fresh.stage_model(stage, shipped.allowed).weights, head.weights,
                                                    strict=True))


def test_a_drawing_s_redraws_are_its_own_and_shared_out_at_the_cap():
    """A drawing's first k redraws are the same whatever more are drawn (so a seat reads only the ones it lacks), two
    inks give two sets, and a hand past ``STAGE_MOST_CROPS`` counts fewer a drawing, its views sharing them."""
    from vision.cells.seat_hand import STAGE_MOST_CROPS, STAGE_REDRAWN, redraw_counts, redrawn_crops

    crop = np.zeros((40, 40), np.float32)
    crop[12:28, 18:22] = 1.5
    assert np.array_equal(redrawn_crops(crop, 5), redrawn_crops(crop, 9)[:5])
    assert not np.array_equal(redrawn_crops(crop, 5), redrawn_crops(np.roll(crop, 3, axis=1), 5))
    assert redraw_counts(np.array([1, 2, 2, 3])).tolist() == [STAGE_REDRAWN, STAGE_REDRAWN // 2, STAGE_REDRAWN // 2,
                                                              STAGE_REDRAWN]
    many = np.arange(100)  # 100 drawings of one view each: 8 crops each, 800 in all
    assert redraw_counts(many).tolist() == [STAGE_MOST_CROPS // 100] * 100


def test_a_taught_seat_fits_the_church_stage_to_its_sheets_ten_churches(shipped):
    from vision.cells.close_look import close_from_cell_inks
    from vision.cells.reader import SEAT_STAGES
    from vision.cells.seat_hand import STAGE_FROM_DRAWINGS

    assert "churches" in SEAT_STAGES and shipped.churches is not None
    stage = shipped.churches
    hand = _letter_sheet_hands()[0].hand(0)
    churches = [k for k, g in enumerate(hand.glyphs) if stage.look.classes[g]]
    assert len({hand.drawings[k] for k in churches}) == 10 >= STAGE_FROM_DRAWINGS
    head = hand.stage_model(stage, shipped.allowed)
    assert head is not stage.head and not np.allclose(head.weights[0], stage.head.weights[0])
    crops = close_from_cell_inks(np.stack([hand.inks[k] for k in churches]).astype(np.float32) / 127.5, stage.look.zoom)
    truth = np.array([hand.glyphs[k] for k in churches])
    seat_reads = stage.probabilities(crops, shipped.allowed, shipped.prior_shift, head).argmax(axis=1)
    net_reads = stage.probabilities(crops, shipped.allowed, shipped.prior_shift).argmax(axis=1)
    assert (seat_reads == truth).mean() >= max((net_reads == truth).mean(), 0.9)
    # With one church fewer than that, the stage's own head.
    fewer = SeatHand()
    dropped = hand.drawings[churches[0]]
    for glyph, drawing, ink, sure in zip(hand.glyphs, hand.drawings, hand.inks, hand.sure, strict=True):
        if drawing != dropped:
            fewer.add(GLYPH_CLASSES[glyph], ink, drawing=drawing, sure=sure)
    assert fewer.stage_model(stage, shipped.allowed) is stage.head


def test_only_drawings_a_person_labelled_fit_the_letter_stage(shipped, tmp_path):
    """Moves accepted as read teach the cell network's layer, not the letter stage's: an unnoticed misread
    would be learned as read. A correction does, and which is which survives a restart."""
    stage = shipped.letters
    rng = np.random.default_rng(5)
    hand_drawn = Hand.random(rng, family="loose")
    city = ["#.....#", ".GGcspa", "mjn.csp", "amjnc.s", "pamjn..", "cspamjn", "#.....#"]
    board = render_board(city, rng, cell_px=64, seat=0, hand=hand_drawn, ghost_rate=0.0)
    (located,) = find_boards(photograph(board.image, board.alpha, rng, tilt_deg=5.0, fill=(0.7, 0.8)).frame)
    persons = _drawn_cells(city)
    assert sum(ch in "cspamjn" for ch in persons.values()) >= HEAD_FROM_DRAWINGS
    store = GameStore(tmp_path)
    game = store.create_game({})
    hands = TableHands(store, game, "en")
    hands.learn(0, located.rectified, persons, "move")
    assert hands.hand(0).stage_model(stage, shipped.allowed) is stage.head
    hands.learn(0, located.rectified, persons, "correction")
    fitted = hands.hand(0).stage_model(stage, shipped.allowed)
    assert fitted is not stage.head
    hands.learn(0, located.rectified, {"F4": "."}, "move")  # a move learned: the sure drawings are as they were
    assert hands.hand(0).stage_model(stage, shipped.allowed) is fitted
    hands.learn(0, located.rectified, {"B1": "W"}, "correction")  # a wall corrected: no letter changed
    assert hands.hand(0).stage_model(stage, shipped.allowed) is fitted
    hands.learn(0, located.rectified, {"D2": "c"}, "correction")  # a letter corrected: fitted again
    refitted = hands.hand(0).stage_model(stage, shipped.allowed)
    assert refitted is not fitted and refitted is not stage.head
    hands.forget(0, ["B1"])  # (corrections stay when their move is undone)
    assert hands.hand(0).stage_model(stage, shipped.allowed) is refitted
    fitted = refitted
    again = TableHands(store, game, "en")
    assert again.hand(0).stage_model(stage, shipped.allowed) is not stage.head
    # Carried into the next game, the corrections are still a person's word: the letter layer is fitted there too.
    carried_from_moves = store.create_game({})
    store.carry_hands(carried_from_moves, [0], per_glyph=40)
    assert TableHands(store, carried_from_moves, "en").hand(0).stage_model(stage, shipped.allowed) is not stage.head
    store.close()


def test_a_reading_the_players_chose_is_a_person_label_and_is_forgotten_with_its_move(shipped, tmp_path):
    stage = shipped.letters
    rng = np.random.default_rng(6)
    city = ["#.....#", ".GGcspa", "mjn.csp", "amjnc.s", "pamjn..", "cspamjn", "#.....#"]
    board = render_board(city, rng, cell_px=64, seat=1, hand=Hand.random(rng, family="round"), ghost_rate=0.0)
    (located,) = find_boards(photograph(board.image, board.alpha, rng, tilt_deg=5.0, fill=(0.7, 0.8)).frame)
    persons = _drawn_cells(city)
    store = GameStore(tmp_path)
    game = store.create_game({})
    hands = TableHands(store, game, "en")
    hands.learn(1, located.rectified, persons, "answer")
    assert all(hands.hand(1).sure)
    assert hands.hand(1).stage_model(stage, shipped.allowed) is not stage.head
    assert all(TableHands(store, game, "en").hand(1).sure)  # and after a restart
    hands.forget(1, persons)  # the moves taken back
    assert hands.hand(1) is None and TableHands(store, game, "en").hand(1) is None
    store.close()


def test_what_told_a_drawing_is_a_persons_word_carried_or_not():
    assert all(labelled(s) for s in ("teach", "correction", "answer", "carried:correction", "carried:answer"))
    assert not any(labelled(s) for s in ("move", "carried:move", "carried:"))


def test_a_redrawn_crop_is_the_same_drawing_moved_a_little():
    import cv2

    from vision.cells.seat_hand import redrawn

    letter = np.zeros((40, 40), np.uint8)
    cv2.putText(letter, "A", (12, 30), cv2.FONT_HERSHEY_SIMPLEX, 0.9, 255, 2)
    crop = letter.astype(np.float32) / 170.0  # ink maps run 0..1.5 or so
    crops = np.repeat(crop[None], 60, axis=0)
    out = redrawn(crops, np.random.default_rng(1))
    assert out.shape == crops.shape and out.dtype == np.float32
    assert np.array_equal(out, redrawn(crops, np.random.default_rng(1)))  # seeded
    assert len({o.tobytes() for o in out}) == len(out)  # every one drawn another way
    assert min(np.abs(o - crop).sum() for o in out) > 0.05 * crop.sum()

    def middle(ink: np.ndarray) -> np.ndarray:
        ys, xs = np.mgrid[:40, :40]
        return np.array([(ink * xs).sum(), (ink * ys).sum()]) / ink.sum()

    # Still the same drawing, about where it was, neither wiped out nor smeared over the crop.
    assert max(np.linalg.norm(middle(o) - middle(crop)) for o in out) < 5.0
    mass = out.sum(axis=(1, 2)) / crop.sum()
    assert mass.min() > 0.05 and mass.max() < 3.0  # (faint and thinned at once: about a tenth)
    assert max(np.count_nonzero(o > 0.3) for o in out) < 3 * np.count_nonzero(crop > 0.3)


def test_fine_tuning_a_head_keeps_what_its_replay_samples_know(shipped):
    """A head fitted to one class's samples (``CellModel.fine_tune``) learns them, and its replay samples of
    the other classes keep it from reading everything as that class."""
    head = shipped.letters.head
    classes = shipped.letters.look.classes & shipped.allowed
    replay = classes[head.replay_y]
    known = head.replay_x[replay], head.replay_y[replay]
    raw = known[0] * head.scale + head.mean  # fine_tune takes raw features
    reads = head.probabilities(raw, classes).argmax(axis=1)
    before = (reads == known[1]).mean()
    # A seat whose citizens look like the others' merchants: merchants the head reads right, taught as citizens.
    merchant, taught_class = GLYPH_CLASSES.index("pM"), GLYPH_CLASSES.index("pC")
    taught = raw[(known[1] == merchant) & (reads == merchant)][:4]
    assert len(taught) >= 2
    fitted = head.fine_tune(taught, np.full(len(taught), taught_class), classes)
    assert (fitted.probabilities(taught, classes).argmax(axis=1) == taught_class).all()
    after = (fitted.probabilities(raw, classes).argmax(axis=1) == known[1]).mean()
    assert after >= before - 0.15
    # Without replay samples the same fit reads every letter as the taught one.
    alone = replace(head, replay_x=None, replay_y=None).fine_tune(taught, np.full(len(taught), taught_class), classes)
    assert (alone.probabilities(raw, classes).argmax(axis=1) == taught_class).mean() > 0.5
