"""Teaching each player's handwriting from the dashboard: the layout shown, a photo from a phone or the table
camera's picture taught to the seats whose boards show the layout, bad input answered in one line."""

from __future__ import annotations

import io
import re

import cv2
import numpy as np
import pytest

from vision.board.dataset import photograph
from vision.synth.board import render_board
from vision.synth.drawings import Hand
from vision.teach import TEACH_LAYOUT, teaching_city

from .conftest import form_move

HAND = Hand(stroke=0.06, slant=0.2, wobble=0.01, size=0.75, church_style=1)


def sheet_photo(seat: int = 0, city: list[str] | None = None) -> np.ndarray:
    rng = np.random.default_rng(21 + seat)
    board = render_board(city or teaching_city(), rng, cell_px=64, seat=seat, hand=HAND, ghost_rate=0.0)
    return photograph(board.image, board.alpha, rng, tilt_deg=10, fill=(0.7, 0.8)).frame


def jpeg(image: np.ndarray) -> bytes:
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    assert ok
    return data.tobytes()


@pytest.fixture(scope="module")
def photo_bytes() -> bytes:
    return jpeg(sheet_photo(seat=1))


def taught_rows(service) -> list[dict]:
    return service.store.hand_examples(None)


def test_the_page_shows_the_layout_in_the_tables_letters_and_the_seats_by_player(table, service):
    table.new_game(["Anke", "Bruno"], language="it")
    page = table.client.get("/teach")
    assert page.status_code == 200
    for cell, char in TEACH_LAYOUT.items():
        assert f'data-cell="{cell}" data-item="{char}"' in page.text
    assert 'class="letter" x="5" y="6.6">G</text>' in page.text  # the Italian juggler
    assert "posto 1 (marcatori 4–7) — Bruno" in page.text
    assert 'id="teach-camera" disabled' in page.text  # no camera picture yet


def test_a_phones_photo_teaches_the_seat_its_markers_name(table, service, photo_bytes):
    table.new_game(["Anke", "Bruno"])
    answer = table.post("/teach", {"source": "photo", "seat": "", "photo": (io.BytesIO(photo_bytes), "sheet.jpg")},
                        as_json=False)
    assert answer.status_code == 303  # a plain form post goes back to the table with the note
    rows = taught_rows(service)
    assert {r["seat"] for r in rows} == {1} and {r["cell"] for r in rows} == set(TEACH_LAYOUT)
    assert service.hands.hand(1) is not None and service.hands.hand(0) is None  # the running game reads with it


def test_the_answer_names_the_seats_taught_in_json(table, service, photo_bytes):
    table.new_game(["Anke", "Bruno"])
    answer = table.client.post("/teach", data={"source": "photo", "photo": (io.BytesIO(photo_bytes), "sheet.jpg")},
                               headers={"Accept": "application/json", "X-CSRF-Token": table.token,
                                        "X-Table-Pin": table.pin})
    assert answer.status_code == 200, answer.text
    body = answer.get_json()
    assert body["ok"] and body["taught"] == [1] and body["skipped"] == {}
    assert body["message"].startswith("Seat 1 (Bruno) taught")


def test_the_table_cameras_picture_teaches_too(table, service):
    assert table.post("/teach", {"source": "camera"}).status_code == 400  # no picture yet
    service.last_frame = sheet_photo(seat=0)
    answer = table.post("/teach", {"source": "camera", "seat": "0"})
    assert answer.status_code == 303
    assert {r["seat"] for r in taught_rows(service)} == {0}


def test_a_board_in_play_is_not_taught(table, service):
    table.new_game(["Anke", "Bruno"])
    assert table.post("/move", form_move()).status_code == 303
    city = ["#WW...#", ".GG....", ".G.....", ".G.....", ".......", ".......", "#.....#"]
    photo = jpeg(sheet_photo(seat=0, city=city))
    answer = table.post("/teach", {"source": "photo", "photo": (io.BytesIO(photo), "table.jpg")}, as_json=False)
    assert answer.status_code == 400
    assert re.search(r"No board in the picture shows the teaching layout \(seat 0: only \d of the teaching layout",
                     answer.text)
    assert taught_rows(service) == []


@pytest.mark.parametrize(("data", "status", "message"), [
    ({"source": "photo"}, 400, "Choose a photo of the teaching sheets"),
    ({"source": "photo", "photo": (io.BytesIO(b"not a picture"), "notes.txt")}, 400,
     "The photo notes.txt is not a readable image"),
    ({"source": "photo", "photo": (io.BytesIO(b""), "empty.jpg")}, 400, "The photo empty.jpg is not a readable image"),
    ({"source": "camera", "seat": "9"}, 400, "Seat must be between 0 and 4, not 9."),
    ({"source": "camera", "seat": "two"}, 400, "Seat must be a whole number, not 'two'."),
    ({"source": "photo", "photo": (io.BytesIO(b"\xff" * (17 * 1024 * 1024)), "huge.jpg")}, 413,
     "The request is too large."),
])
def test_bad_input_gets_one_line_and_teaches_nothing(table, service, data, status, message):
    answer = table.client.post("/teach", data={**data, "csrf_token": table.token, "pin": table.pin},
                               headers={"Accept": "application/json"})
    assert answer.status_code == status
    error = answer.get_json()["error"]
    assert message in error and "\n" not in error and "Traceback" not in error
    assert taught_rows(service) == []


def test_teaching_needs_the_pin(stranger, service, photo_bytes):
    answer = stranger.post("/teach", {"source": "photo", "photo": (io.BytesIO(photo_bytes), "sheet.jpg")}, pin=None)
    assert answer.status_code == 403
    assert taught_rows(service) == []
