"""Boards drawn as a camera at a table sees them: letters written with a dry-erase marker, and pixels that
average the light instead of sampling one point of it (``vision.imaging.shrunk_for_warp``)."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

from vision.cells.dataset import balanced_city, photographed_board
from vision.cells.evaluate import evaluate
from vision.cells.reader import CellReader
from vision.cells.train_hands import TRAINING_POOL, cache_name, unseen_model_path
from vision.imaging import shrunk_for_warp
from vision.synth.drawings import CellPen, Hand, draw_symbol
from vision.synth.hands import MARKER_TRACE_FROM, font_glyph, font_path, marker_glyph, marker_written

KRISTI = "truetype/kristi/Kristi.ttf"  # a nib's script: hairlines next to broad strokes
ECOLIER = "truetype/ecolier-court/Ecolier-court.ttf"  # a French school copperplate: capitals of hairlines and swells


def _thin_lines() -> np.ndarray:
    """One-pixel lines every 12 pixels, as a font's hairlines are at the size it is drawn."""
    image = np.zeros((96, 96), np.float32)
    image[:, 10::12] = 1.0
    return image


def test_an_averaged_warp_keeps_every_thin_stroke_and_the_light_of_the_image():
    image = _thin_lines()
    shrink = np.float64([[0.2, 0, 0], [0, 0.2, 0]])
    small, to_dest = shrunk_for_warp(image, shrink)
    averaged = cv2.warpAffine(small, to_dest, (20, 20), flags=cv2.INTER_LINEAR)
    sampled = cv2.warpAffine(image, shrink, (20, 20), flags=cv2.INTER_LINEAR)
    # A camera's pixels: every line leaves a trace, and the image's light is kept (a fifth of a line a pixel).
    columns = averaged[10]
    traced = [columns[max(int(x * 0.2) - 1, 0):int(x * 0.2) + 2].max() > 0.1 for x in range(10, 96, 12)]
    assert all(traced), columns
    assert averaged.sum() == pytest.approx(image.sum() * 0.04, rel=0.15)
    # Point sampling, what the warp alone does: most lines are gone, the few left are at full strength.
    assert sampled.sum() < 0.5 * image.sum() * 0.04 or sampled.max() == 1.0
    assert (sampled[10] > 0.1).sum() < len(traced)


def test_a_tilted_view_is_averaged_to_its_nearest_edge_and_an_enlarged_one_left_alone():
    image = _thin_lines()
    src = np.float32([[0, 0], [96, 0], [96, 96], [0, 96]])
    tilted = cv2.getPerspectiveTransform(src, np.float32([[0, 0], [30, 2], [28, 26], [2, 30]]))
    small, to_dest = shrunk_for_warp(image, tilted)
    assert small.shape[0] < 40 and small.shape[0] >= 30  # the nearest edge's scale, about 30/96
    corners = cv2.perspectiveTransform(src[None].astype(np.float64), to_dest @ np.diag([small.shape[1] / 96,
                                                                                      small.shape[0] / 96, 1.0]))
    assert np.allclose(corners, cv2.perspectiveTransform(src[None].astype(np.float64), tilted), atol=0.5)
    enlarged = np.float64([[2.0, 0, 0], [0, 2.0, 0]])
    same, transform = shrunk_for_warp(image, enlarged)
    assert same is image and transform is enlarged


def _stroke_survives(ink: np.ndarray, width: int) -> float:
    """The share of the ink that a disc ``width`` wide still fits in (how much of it is at least that broad)."""
    binary = (ink > 0.5).astype(np.uint8)
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (width, width))
    return float(cv2.erode(binary, disc).sum() / binary.sum())


@pytest.mark.parametrize("letter", ["N", "S", "M"])
def test_a_marker_writes_no_hairline(letter):
    """Kristi's N is a broad diagonal between two hairlines: written with a marker, its strokes are all at
    least the pen's width, and the letter keeps its size."""
    path = str(font_path(KRISTI))
    nib, marker = font_glyph(path, letter, 0), marker_glyph(path, letter, 0, 9)
    assert nib is not None and marker is not None
    assert _stroke_survives(nib, 5) < 0.3
    assert _stroke_survives(marker, 5) > 0.5
    # The pen reaches half its width beyond the font's outermost ink on each side, and its soft edge a pixel more.
    assert abs(marker.shape[0] - nib.shape[0]) <= 9 + 2 and abs(marker.shape[1] - nib.shape[1]) <= 9 + 2
    assert marker_glyph(path, letter, 0, 0) is nib  # no pen: the font as it is


@pytest.mark.parametrize("letter", ["N", "M", "S"])
def test_a_marker_traces_every_hairline_of_a_copperplate_letter(letter):
    """Écolier's N and M are drawn with hairline diagonals, its S with a hairline upper curve: antialiased to
    0.2-0.5 of full ink, they were left as the nib drew them (traced from 0.5 until stop 63), a letter missing half
    its strokes once photographed. Every pixel of the font's ink is now written with the pen."""
    nib = font_glyph(str(font_path(ECOLIER)), letter, 0)
    assert nib is not None
    padded = np.pad(nib, 9)
    inked = padded > MARKER_TRACE_FROM
    hairline = inked & (padded < 0.5)
    assert hairline.sum() > 20  # the letter has hairlines to trace
    written = marker_written(nib, 9)
    assert written.shape == padded.shape
    assert (written[inked] > 0.5).all()
    assert _stroke_survives(written, 5) > 0.5


def test_a_hand_writes_its_letters_with_its_marker_only_when_asked():
    hand = Hand(letter_font=str(font_path(KRISTI)), wobble=0.0, stroke=0.07)
    inks = []
    for marker in (False, True):
        mask = np.zeros((128, 128), np.uint8)
        pen = CellPen(mask, 32, 32, 64, dataclasses.replace(hand, marker_letters=marker), np.random.default_rng(2))
        draw_symbol(pen, "pN")
        inks.append(int(mask.sum()))
    assert inks[1] > inks[0] * 1.05  # the same circle, a broader N


def test_boards_seen_as_a_camera_sees_them_are_kept_apart_in_the_cache():
    name = TRAINING_POOL.name
    assert cache_name(name, 300, 600, camera_pixels=True) != cache_name(name, 300, 600)
    assert cache_name(name, 300, 600, camera_pixels=True) == cache_name(name, 300, 600, camera_pixels=True)


def test_a_board_seen_as_a_camera_sees_it_is_found_and_differs_from_the_point_sampled_one():
    city = balanced_city(np.random.default_rng(4), "en")
    seen = [photographed_board(city, np.random.default_rng(9), families=("loose",), camera_pixels=camera)
            for camera in (False, True)]
    assert seen[0] is not None and seen[1] is not None
    assert seen[0].shape == seen[1].shape
    assert np.abs(seen[0].astype(np.int16) - seen[1].astype(np.int16)).mean() > 0.5


@pytest.mark.parametrize("family", ["round", "loose"])
def test_a_hand_never_trained_on_seen_as_a_camera_sees_it_is_read_or_reported_uncertain(family):
    """The honest confidence of ``test_hands`` on the other rendering: a reader that had learned how the
    generator samples its pixels would be sure of itself and wrong here."""
    reader = CellReader("en", model_path=unseen_model_path(family))
    report = evaluate(reader, 12, 778, languages=("en", "it"), families=(family,), walls_outer_only=True,
                      camera_pixels=True)
    assert report.boards == 12
    assert (report.cell_errors - report.errors_flagged) / report.cells <= 0.005, report.lines()
    assert report.right_flagged / report.cells <= 0.5, report.lines()


def test_a_camera_s_processing_keeps_each_colour_where_it_was():
    """``processed_by_camera``: a red marker stays red and a blue one blue through the Bayer filter and back
    (a filter read in the wrong order swaps them, and a blue stroke then reads as a pale one)."""
    from vision.board.dataset import processed_by_camera

    frame = np.full((64, 96, 3), 235, np.uint8)
    frame[:, :48] = (40, 40, 200)  # red (BGR)
    frame[:, 48:] = (200, 60, 30)  # blue
    for seed in range(4):  # both demosaicing methods, sharpening and JPEG vary with the seed
        out = processed_by_camera(frame, np.random.default_rng(seed))
        assert out.shape == frame.shape and out.dtype == np.uint8
        red, blue = out[8:56, 8:40].mean(axis=(0, 1)), out[8:56, 56:88].mean(axis=(0, 1))
        assert red[2] > red[0] + 100 and blue[0] > blue[2] + 100, (red, blue)
        assert np.abs(out.astype(int) - frame.astype(int))[8:56, 8:40].max() < 40


def test_a_camera_s_processing_softens_a_thin_stroke_but_keeps_it():
    from vision.board.dataset import processed_by_camera

    frame = np.full((64, 64, 3), 230, np.uint8)
    frame[:, 31] = (150, 60, 20)  # a one-pixel blue line
    out = cv2.cvtColor(processed_by_camera(frame, np.random.default_rng(1)), cv2.COLOR_BGR2GRAY).astype(int)
    before = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY).astype(int)
    assert out[:, 29:34].min(axis=1).mean() < before[:, 0].mean() - 40  # still a dark line
    assert not np.array_equal(out, before)


def test_a_board_sent_as_a_camera_sends_it_is_found_and_without_it_nothing_changes():
    city = balanced_city(np.random.default_rng(4), "en")
    plain = photographed_board(city, np.random.default_rng(9), families=("tidy",))
    unchanged = photographed_board(city, np.random.default_rng(9), families=("tidy",), camera_processing=False)
    processed = photographed_board(city, np.random.default_rng(9), families=("tidy",), camera_processing=True)
    assert plain is not None and unchanged is not None and processed is not None
    assert np.array_equal(plain, unchanged)
    assert np.abs(plain.astype(np.int16) - processed.astype(np.int16)).mean() > 0.5


def test_a_camera_s_processing_leaves_the_boards_drawn_after_it_alone():
    """The processing draws its randomness from the photo, not from the boards' stream: the next board is the
    same board with or without it, so ``bench_hands --camera-processing`` compares the very same photos."""
    drawn = {}
    for processing in (False, True):
        rng, hands = np.random.default_rng(21), []
        for _ in range(2):
            city = balanced_city(rng, "en")
            photographed_board(city, rng, families=("quick",), camera_processing=processing, drawn_by=hands)
        drawn[processing] = (hands, city)
    assert drawn[False] == drawn[True]


def test_the_full_sensor_bench_reads_the_same_boards_from_the_frame_and_from_the_sensor():
    """``bench_hands --full-sensor``: one photo a board, the sensor's; its board is found in the frame (the photo
    averaged down 2.4 times) and read from the frame or from the photo. The same hand and city either way, the
    boards after it too, and the one from the sensor is the sharper (more of its light in fine detail)."""
    from vision.cells.dataset import REFERENCE_FRAME_CELL_PX, SENSOR_OVER_FRAME, SENSOR_PHOTO_FRAME

    sensor_px = (REFERENCE_FRAME_CELL_PX[0] * SENSOR_OVER_FRAME, REFERENCE_FRAME_CELL_PX[1] * SENSOR_OVER_FRAME)
    assert sensor_px[0] > 55 and sensor_px[1] > 85  # the Camera Module 3 Wide from 90 and 60 cm
    for seed in range(3):
        drawn: list[list[Hand]] = []
        after, sharpness = [], []
        for board_detail in (False, True):
            rng = np.random.default_rng(seed)
            hands: list[Hand] = []
            rectified = photographed_board(balanced_city(rng, "en"), rng, jitter_px=0.0, cell_px_range=sensor_px,
                                           photo_frame=SENSOR_PHOTO_FRAME, drawn_by=hands,
                                           sensor_over_frame=SENSOR_OVER_FRAME, board_detail=board_detail)
            assert rectified is not None and rectified.shape[:2] == (448, 448)
            gray = rectified if rectified.ndim == 2 else cv2.cvtColor(rectified, cv2.COLOR_BGR2GRAY)
            sharpness.append(float(np.abs(cv2.Laplacian(gray.astype(np.float32), cv2.CV_32F)).mean()))
            drawn.append(hands)
            after.append(rng.integers(1 << 30))
        assert drawn[0] == drawn[1] and after[0] == after[1]
        assert sharpness[1] > 1.3 * sharpness[0], sharpness
