"""The tracker tells the reader which drawings the table confirmed (a camera move accepted as read, a cell
corrected by hand), and the table service keeps them as the seat's hand in the game store."""

from __future__ import annotations

import numpy as np
import pytest

from companion.layout import empty_city
from companion.tracker import ConfirmedDrawing, Tracker
from vision.observation import BoardReading, DieReading, Observation

from .conftest import ONES, draw

START = empty_city()
WALLS = ["wall", "wall", "crate", "head", "swords"]
TWO_WALLS = [{"cell": "B1", "item": "W"}, {"cell": "C1", "item": "W"}]


def seen(cities: list[list[str]], dice: list[str] | None, pixels: dict[int, object] | None = None) -> Observation:
    """An observation whose boards carry the picture they were read from (``pixels`` by seat)."""
    pixels = pixels or {}
    boards = tuple(BoardReading(seat=i, city=tuple(c), confidence=ONES, rectified=pixels.get(i, f"board {i}"))
                   for i, c in enumerate(cities))
    return Observation(boards=boards, dice=None if dice is None else tuple(DieReading(f, 1.0) for f in dice))


def listening(tracker: Tracker) -> list[ConfirmedDrawing]:
    heard: list[ConfirmedDrawing] = []
    tracker.drawing_listeners.append(heard.append)
    return heard


def test_an_accepted_camera_move_teaches_its_drawing(store):
    t = Tracker.start_game(store, ["Anke", "Ben"])
    heard = listening(t)
    t.observe(seen([START, START], WALLS))
    t.observe(seen([draw(START, TWO_WALLS), START], WALLS))
    assert t.current_player() == 1
    assert [(d.kind, d.seat, d.cells) for d in heard] == [("move", 0, {"B1": "W", "C1": "W"})]
    assert heard[0].board.rectified == "board 0"  # the picture the drawing was read from


def test_a_disputed_move_does_not_teach(store):
    t = Tracker.start_game(store, ["Anke", "Ben"])
    heard = listening(t)
    t.observe(seen([START, START], WALLS))
    bad = draw(START, [{"cell": "B1", "item": "W"}, {"cell": "D4", "item": "W"}])
    t.observe(seen([bad, START], WALLS))
    assert t.dispute is not None
    # fixed on the board: the move stands, but a drawing that was disputed is no example of the hand
    t.observe(seen([draw(START, TWO_WALLS), START], WALLS))
    assert t.dispute is None and t.current_player() == 1
    assert heard == []


def test_a_corrected_cell_teaches_and_an_undone_move_is_forgotten(store):
    t = Tracker.start_game(store, ["Anke", "Ben"])
    heard = listening(t)
    t.observe(seen([START, START], WALLS))
    t.observe(seen([draw(START, TWO_WALLS), START], WALLS))
    t.correct_cell(0, "C1", ".", reason="a smudge")
    assert [(d.kind, d.cells) for d in heard[1:]] == [("correction", {"C1": "."})]
    t.undo()
    assert (heard[-1].kind, heard[-1].cells) == ("undone", {"B1": "W"})


def test_a_failing_listener_costs_no_move(store):
    t = Tracker.start_game(store, ["Anke", "Ben"])

    def broken(_drawing: ConfirmedDrawing) -> None:
        raise RuntimeError("disk on fire")

    t.drawing_listeners.append(broken)
    t.observe(seen([START, START], WALLS))
    t.observe(seen([draw(START, TWO_WALLS), START], WALLS))
    assert t.current_player() == 1 and [e["type"] for e in store.events(t.game_id)] == ["start", "move"]


def test_the_service_keeps_each_seats_hand_across_a_restart(tmp_path):
    pytest.importorskip("cv2")
    from vision.synth.board import render_board
    from web.service import TableService

    walls = draw(START, TWO_WALLS)
    picture = render_board(walls, np.random.default_rng(3), cell_px=64, ghost_rate=0.0).image
    service = TableService(str(tmp_path))
    tracker = service.new_game(["Anke", "Ben"])
    tracker.observe(seen([START, START], WALLS))
    tracker.observe(seen([walls, START], WALLS, {0: picture}))
    tracker.correct_cell(0, "D1", "c")  # a person the camera never saw drawn: taught from the picture too
    assert service.hands.hand(0).counts() == {"W": 2, "pC": 1}
    assert service.hands.hand(1) is None
    game = tracker.game_id
    service.close()

    again = TableService(str(tmp_path))
    try:
        assert again.tracker.game_id == game
        assert again.hands.hand(0).counts() == {"W": 2, "pC": 1}
        # a new game starts with an empty hand, unless the players keep the seats' last hands
        again.new_game(["Anke", "Ben"])
        assert again.hands.hand(0) is None
        again.new_game(["Anke", "Ben"], keep_hands=True)
        # the seat's last hand: the latest game that taught it something (the one in between taught nothing)
        assert again.hands.hand(0).counts() == {"W": 2, "pC": 1} and again.tracker.game_id == game + 2
    finally:
        again.close()


def test_a_new_game_can_start_from_the_seats_last_hand(tmp_path):
    pytest.importorskip("cv2")
    from vision.synth.board import render_board
    from web.service import TableService

    walls = draw(START, TWO_WALLS)
    picture = render_board(walls, np.random.default_rng(3), cell_px=64, ghost_rate=0.0).image
    service = TableService(str(tmp_path))
    try:
        tracker = service.new_game(["Anke", "Ben"])
        tracker.observe(seen([START, START], WALLS))
        tracker.observe(seen([walls, START], WALLS, {0: picture}))
        service.new_game(["Anke", "Ben", "Carla"], keep_hands=True)
        assert service.hands.hand(0).counts() == {"W": 2}
        assert service.hands.hand(1) is None and service.hands.hand(2) is None
    finally:
        service.close()


def test_the_setup_form_can_keep_the_seats_hands(tmp_path):
    pytest.importorskip("cv2")
    from vision.synth.board import render_board
    from web import create_app

    app = create_app({"DATA_DIR": str(tmp_path), "TESTING": False})
    service = app.extensions["table"]
    client = app.test_client()
    try:
        page = client.get("/setup")
        assert b'name="keep_hands"' in page.data
        token = page.text.split('name="csrf-token" content="')[1].split('"')[0]
        walls = draw(START, TWO_WALLS)
        picture = render_board(walls, np.random.default_rng(3), cell_px=64, ghost_rate=0.0).image
        tracker = service.new_game(["Anke", "Ben"])
        tracker.observe(seen([START, START], WALLS))
        tracker.observe(seen([walls, START], WALLS, {0: picture}))
        form = {"player0": "Anke", "player1": "Ben", "pin": service.pin, "csrf_token": token}
        assert client.post("/setup", data=form).status_code == 303
        assert service.hands.hand(0) is None  # unless the players say so, a new game starts afresh
        assert client.post("/setup", data={**form, "keep_hands": "1"}).status_code == 303
        assert service.hands.hand(0).counts() == {"W": 2}
    finally:
        service.close()
