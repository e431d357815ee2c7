"""The printable kit: right markers, right physical size, right paper, a true scale bar, clean errors."""

from __future__ import annotations

import re
import subprocess
import sys

import cv2
import numpy as np
import pytest
from PIL import Image

from vision.dice.geometry import TRAY_MARKER_MM
from vision.kit import (
    CELL_MM,
    DPI,
    MARKER_MM,
    SCALE_BAR_MM,
    STICKER_MM,
    render_kit,
    write_kit,
)
from vision.pirates.geometry import MARKER_MM as TRACK_MARKER_MM

PX_PER_MM = DPI / 25.4
A4_PX = (round(210 / 25.4 * DPI), round(297 / 25.4 * DPI))  # 2480 x 3508


def _detect(gray: np.ndarray) -> dict[int, np.ndarray]:
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50))
    corners, ids, _ = detector.detectMarkers(gray)
    assert ids is not None
    found: dict[int, np.ndarray] = {}
    for c, i in zip(corners, ids.ravel(), strict=True):
        assert int(i) not in found, f"marker {i} printed twice"
        found[int(i)] = c.reshape(4, 2)
    return found


def _expected_side_mm(marker_id: int) -> float:
    if marker_id < 20:
        return MARKER_MM
    return TRAY_MARKER_MM if marker_id < 24 else TRACK_MARKER_MM


def test_marker_is_70_percent_of_the_assumed_cell():
    assert pytest.approx(0.7 * CELL_MM) == MARKER_MM
    assert STICKER_MM >= MARKER_MM + 2 * (MARKER_MM / 6)  # at least one module of white quiet zone per side


def test_png_is_a4_at_300_dpi(kit_png):
    path, image = kit_png
    assert (image.shape[1], image.shape[0]) == A4_PX
    dpi = Image.open(path).info["dpi"]
    assert dpi[0] == pytest.approx(DPI, abs=0.01) and dpi[1] == pytest.approx(DPI, abs=0.01)


def test_every_marker_is_found_with_its_id_and_physical_size(kit_png):
    _, image = kit_png
    found = _detect(image)
    assert set(found) == set(range(28)), f"ids found: {sorted(found)}"
    for marker_id, corners in found.items():
        sides = np.linalg.norm(corners - np.roll(corners, -1, axis=0), axis=1)
        side_mm = float(sides.mean()) / PX_PER_MM
        # the detector sits on the outer edge of the black border: within 1.5 % of the printed size
        assert side_mm == pytest.approx(_expected_side_mm(marker_id), rel=0.015), (marker_id, side_mm)
        # upright: the marker's first corner (its top-left) is the top-left in the sheet
        assert corners[0, 0] < corners[1, 0] and corners[0, 1] < corners[3, 1], marker_id


def test_markers_have_a_white_quiet_zone(kit_png):
    _, image = kit_png
    page = render_kit(seats=5)[0]
    quiet_px = int(1.5 * PX_PER_MM)  # a clean white band right around the black square
    for placed in page.markers:
        x, y, side = placed.x, placed.y, placed.side_px
        band = image[y - quiet_px : y + side + quiet_px, x - quiet_px : x + side + quiet_px].copy()
        band[quiet_px:-quiet_px, quiet_px:-quiet_px] = 255  # blank the marker itself
        assert band.min() > 200, f"marker {placed.marker_id}: something dark right next to it"
        # the rest of the sticker inside the cut line: nothing as dark as a marker's black (the small grey
        # label on the rim is allowed)
        x0, y0, x1, y1 = placed.sticker_box
        rim = image[y0 + 3 : y1 - 2, x0 + 3 : x1 - 2].copy()
        rim[y - y0 - 3 : y - y0 - 3 + side, x - x0 - 3 : x - x0 - 3 + side] = 255
        assert rim.min() > 128, f"marker {placed.marker_id}: dark print on the sticker's rim"
        assert np.array_equal(image[y : y + side, x : x + side] > 127,
                              image[y : y + side, x : x + side] > 50), "marker not pure black and white"


def test_scale_bar_is_five_centimetres(kit_png):
    _, image = kit_png
    # the longest run of black pixels along any row of the sheet's top quarter is the bar
    top = image[: image.shape[0] // 4] < 100
    longest = 0
    for row in top:
        padded = np.concatenate(([0], row.astype(np.int8), [0]))
        edges = np.flatnonzero(np.diff(padded))
        if edges.size:
            longest = max(longest, int((edges[1::2] - edges[::2]).max()))
    assert longest / PX_PER_MM == pytest.approx(SCALE_BAR_MM, abs=0.3)


def test_pdf_page_is_a4_and_holds_the_sheet(tmp_path):
    out = tmp_path / "kit.pdf"
    assert write_kit(out, seats=2) == [out]
    data = out.read_bytes()
    assert data.startswith(b"%PDF")
    boxes = re.findall(rb"/MediaBox \[ ?0 0 ([\d.]+) ([\d.]+) ?\]", data)
    assert len(boxes) == 1  # one sheet
    width_pt, height_pt = (float(v) for v in boxes[0])
    assert width_pt / 72 * 25.4 == pytest.approx(210, abs=0.5)
    assert height_pt / 72 * 25.4 == pytest.approx(297, abs=0.5)


def test_fewer_seats_print_fewer_board_markers():
    pages = render_kit(seats=2)
    ids = sorted(m.marker_id for page in pages for m in page.markers)
    assert ids == list(range(8)) + list(range(20, 28))


def test_cli_writes_png_and_rejects_other_extensions(tmp_path):
    ok = subprocess.run([sys.executable, "-m", "companion", "kit", "--out", str(tmp_path / "k.png"), "--seats", "1"],
                        capture_output=True, text=True, timeout=60)
    assert ok.returncode == 0, ok.stderr
    assert (tmp_path / "k.png").is_file()
    bad = subprocess.run([sys.executable, "-m", "companion", "kit", "--out", str(tmp_path / "x.txt")],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2
    assert len(bad.stderr.strip().splitlines()) == 1 and "x.txt" in bad.stderr
    assert "Traceback" not in bad.stderr
    assert not (tmp_path / "x.txt").exists()


def test_cli_rejects_a_seat_count_out_of_range(tmp_path):
    bad = subprocess.run([sys.executable, "-m", "companion", "kit", "--out", str(tmp_path / "k.pdf"), "--seats", "6"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "--seats" in bad.stderr and len(bad.stderr.strip().splitlines()) == 1


def test_kit_stickers_on_a_board_are_found_by_the_board_localiser(kit_png):
    """Cut seat 3's stickers out of the printed sheet, lay them on a drawn board, find the board."""
    board_mod = pytest.importorskip("vision.board", reason="board localiser not in this checkout")
    _, image = kit_png
    page = render_kit(seats=5)[0]
    cell_px = 90
    board = np.full((7 * cell_px, 7 * cell_px), 235, np.uint8)
    for k in range(8):
        cv2.line(board, (k * cell_px, 0), (k * cell_px, 7 * cell_px), 60, 2)
        cv2.line(board, (0, k * cell_px), (7 * cell_px, k * cell_px), 60, 2)
    towers = {"A1": (0, 0), "G1": (6, 0), "G7": (6, 6), "A7": (0, 6)}
    seat = 3
    for placed in page.markers:
        if not 4 * seat <= placed.marker_id < 4 * seat + 4:
            continue
        x0, y0, x1, y1 = placed.sticker_box
        sticker = cv2.resize(image[y0 : y1 + 1, x0 : x1 + 1], (cell_px, cell_px), interpolation=cv2.INTER_AREA)
        col, row = towers[placed.label.split(" ")[0]]
        board[row * cell_px : (row + 1) * cell_px, col * cell_px : (col + 1) * cell_px] = sticker
    # lay the board on a table, turned and seen in perspective
    frame = np.full((1080, 1440), 120, np.uint8)
    src = np.float32([[0, 0], [7 * cell_px, 0], [7 * cell_px, 7 * cell_px], [0, 7 * cell_px]])
    dst = np.float32([[420, 180], [1000, 230], [960, 830], [380, 780]])
    warp = cv2.getPerspectiveTransform(src, dst)
    mask = cv2.warpPerspective(np.full_like(board, 255), warp, (1440, 1080))
    frame = np.where(mask > 0, cv2.warpPerspective(board, warp, (1440, 1080)), frame).astype(np.uint8)
    found = board_mod.find_boards(cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR))
    assert [b.seat for b in found] == [seat]
    assert found[0].markers == 4
    # the board's outer corners, A1 first, come back where the board was laid
    assert np.abs(np.asarray(found[0].corners, np.float64) - dst).max() < 4.0
