"""Cell datasets: synthetic boards photographed, located by their markers and cut into 45 cells.

Every sample goes through the same path as a real frame (render -> photograph with perspective,
light, shadow, glare, blur, noise -> ``find_boards`` -> rectified board -> cell crops), plus a small
random error of the rectification so the classifier tolerates imperfect localisation.

``python -m vision.cells.dataset --boards 50 --seed 3 --out /tmp/cells.npz`` writes one to disk.
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from companion.layout import LAYOUT, SIZE, cell_index, empty_city
from vision.board.dataset import photograph
from vision.board.locate import find_boards, rectified_from_detail
from vision.cells.features import cell_crops, crop_features
from vision.cells.labels import GLYPH_CLASSES, PERSON_LETTERS, glyph_for_char
from vision.synth.board import render_board
from vision.synth.drawings import Hand

SPACE_INDEX: tuple[int, ...] = tuple(
    r * SIZE + c for r in range(SIZE) for c in range(SIZE) if f"{'ABCDEFG'[c]}{r + 1}" not in LAYOUT.towers
)


def balanced_city(rng: np.random.Generator, language: str, empty_rate: float = 0.3,
                  walls_outer_only: bool = False) -> list[str]:
    """A city where every glyph class is about equally likely (legal or not: the reader reads drawings).
    ``walls_outer_only``: walls only on the outer ring, as the rules have them (a table's board)."""
    grid = [list(r) for r in empty_city()]
    choices = ["W", "G", "H", "1", "2", "3", "4", "5", *PERSON_LETTERS[language]]
    printed = {cell_index(c) for c in LAYOUT.printed_crates}
    outer = {cell_index(c) for c in LAYOUT.outer_cells}
    for row in range(SIZE):
        for col in range(SIZE):
            if grid[row][col] == "#" or (col, row) in printed:
                continue
            if rng.random() >= empty_rate:
                pick = str(rng.choice(choices))
                while walls_outer_only and pick == "W" and (col, row) not in outer:
                    pick = str(rng.choice(choices))
                grid[row][col] = pick
    return ["".join(r) for r in grid]


def jitter_rectified(rectified: np.ndarray, rng: np.random.Generator, sigma_px: float) -> np.ndarray:
    """Move the rectified corners a little: what a slightly wrong homography would give."""
    side = rectified.shape[0]
    src = np.array([[0, 0], [side, 0], [side, side], [0, side]], np.float32)
    dst = src + rng.normal(0, sigma_px, (4, 2)).astype(np.float32)
    h = cv2.getPerspectiveTransform(src, dst)
    return cv2.warpPerspective(rectified, h, (side, side), borderMode=cv2.BORDER_REPLICATE)


@dataclass
class CellSet:
    features: np.ndarray  # (n, f) float32
    labels: np.ndarray  # (n,) int, index into GLYPH_CLASSES
    bitmap_digit: np.ndarray  # (n,) bool: a church drawn with a load_digits image
    crops: np.ndarray | None = None  # (n, 24, 24) ink maps when asked for


# Pixels per cell in the camera's frame: hardware.md's table, from 24 px (the Camera Module 3 Wide at
# 90 cm, the highest it may hang) through 29 px (75 cm, the recommended height) to 44 px (2 players at
# 50 cm); a webcam gives 31-46 px.
CAMERA_CELL_PX = (24.0, 46.0)
# Training draws most boards a little beyond the camera's range, weighted to its far end where letters
# are 7-10 px tall and most misreads are (at 24-30 px a cell 4.7 times as many as at 36-46), and a few
# closer up (a phone photo of one board), so that those read as well: (range, share of boards).
TRAINING_CELL_PX: tuple[tuple[tuple[float, float], float], ...] = (
    ((22.0, 34.0), 0.45), ((34.0, 48.0), 0.4), ((48.0, 80.0), 0.15))
_PHOTO_FRAME = (800, 600)
# The reference camera (Camera Module 3 Wide, hardware.md) from 90 cm down to 60 cm: a cell spans 24-36 px of
# its 1080p frame, and this many times that of its whole sensor (4608 px across: ``board_detail``).
REFERENCE_FRAME_CELL_PX = (24.0, 36.0)
SENSOR_OVER_FRAME = 4608 / 1920
# A photo large enough for a board at the whole sensor's 87 px a cell, tilted.
SENSOR_PHOTO_FRAME = (1600, 1200)


def photographed_board(
    city: Sequence[str], rng: np.random.Generator, *, language: str = "en",
    digit_bitmaps: Mapping[int, Sequence[np.ndarray]] | None = None, tilt_deg: float = 30.0,
    jitter_px: float = 1.2, cell_px_range: tuple[float, float] = CAMERA_CELL_PX,
    families: Sequence[str] | None = None, camera_pixels: bool = False, camera_processing: bool = False,
    drawn_by: list[Hand] | None = None, photo_frame: tuple[int, int] | None = None,
    sensor_over_frame: float | None = None, board_detail: bool = True,
    letter_widths: tuple[float, float] | None = None,
) -> np.ndarray | None:
    """Render, photograph and locate one board; the rectified image (None if it was not found).

    ``cell_px_range``: how many frame pixels a cell spans (before the tilt shrinks the far side).
    ``families``: the hand families (``vision.synth.hands``) the board's hand is drawn from (all if None).
    ``camera_pixels``: drawn and seen as at a table: a font's letters written with the hand's marker, the
    board's pixels averaged down as a camera's are (else sampled at a point, as the first boards were).
    ``camera_processing``: the photo as a camera sends it (``board.dataset.processed_by_camera``: demosaiced,
    sharpened, JPEG). ``drawn_by``: the hand that drew the board is appended to it (found or not).
    ``photo_frame``: the photo's size (default 800 x 600; larger for more pixels a cell than the camera's 1080p gives).
    ``sensor_over_frame``: the photo is a camera's whole sensor, and the board is found as the pipeline finds it,
    in the frame it sends (the photo averaged down this many times, as its scaler does), then rectified from
    that frame or, with ``board_detail``, from the photo (``vision.board.rectified_from_detail``).
    ``letter_widths``: the hand writes its letters and digits narrower or wider than its font, by a factor drawn
    log-uniformly from this range (``Hand.letter_width``; training only: without it the random draws are as before).
    """
    seat = int(rng.integers(5))
    cell_px = int(rng.integers(44, 76))
    hand = Hand.random(rng, families=tuple(families) if families else None)
    if camera_pixels:
        hand = dataclasses.replace(hand, marker_letters=True)
    if letter_widths is not None:
        width = float(np.exp(rng.uniform(np.log(letter_widths[0]), np.log(letter_widths[1]))))
        hand = dataclasses.replace(hand, letter_width=width)
    if drawn_by is not None:
        drawn_by.append(hand)
    board = render_board(city, rng, cell_px=cell_px, seat=seat, language=language, digit_bitmaps=digit_bitmaps,
                         hand=hand)
    photo_frame = photo_frame or _PHOTO_FRAME
    fill = SIZE * float(rng.uniform(*cell_px_range)) / min(photo_frame)
    photo = photograph(board.image, board.alpha, rng, frame_size=photo_frame, tilt_deg=tilt_deg, fill=(fill, fill),
                       area_average=camera_pixels, camera_processing=camera_processing)
    seen = photo.frame
    if sensor_over_frame is not None:
        height, width = photo.frame.shape[:2]
        size = (round(width / sensor_over_frame), round(height / sensor_over_frame))
        seen = cv2.resize(photo.frame, size, interpolation=cv2.INTER_AREA)
    found = [b for b in find_boards(seen) if b.seat == seat]
    if not found:
        return None
    rectified = found[0].rectified
    if sensor_over_frame is not None and board_detail:
        sharper = rectified_from_detail(photo.frame, found[0], seen.shape)
        if sharper is None:
            return None
        rectified = sharper
    return jitter_rectified(rectified, rng, jitter_px) if jitter_px > 0 else rectified


def make_cell_set(
    n_boards: int, rng: np.random.Generator, *,
    digit_bitmaps: Mapping[int, Sequence[np.ndarray]] | None = None, bitmap_rate: float = 0.0,
    keep_crops: bool = False, languages: Sequence[str] = ("en", "it"),
    families: Sequence[str] | None = None, camera_pixels: bool = False,
) -> CellSet:
    feats, labels, bitmap, crops_all = [], [], [], []
    made = 0
    while made < n_boards:
        language = str(rng.choice(list(languages)))
        city = balanced_city(rng, language)
        use_bitmaps = digit_bitmaps is not None and rng.random() < bitmap_rate
        band = rng.choice(len(TRAINING_CELL_PX), p=[share for _, share in TRAINING_CELL_PX])
        cell_px_range = TRAINING_CELL_PX[int(band)][0]
        rectified = photographed_board(city, rng, language=language, cell_px_range=cell_px_range,
                                       digit_bitmaps=digit_bitmaps if use_bitmaps else None, families=families,
                                       camera_pixels=camera_pixels)
        if rectified is None:
            continue
        made += 1
        crops = cell_crops(rectified)[list(SPACE_INDEX)]
        feats.append(crop_features(crops))
        if keep_crops:
            crops_all.append(crops)
        for idx in SPACE_INDEX:
            glyph = glyph_for_char(city[idx // SIZE][idx % SIZE], language)
            labels.append(GLYPH_CLASSES.index(glyph))
            bitmap.append(use_bitmaps and glyph in "12345")
    return CellSet(
        features=np.vstack(feats), labels=np.asarray(labels, np.int64), bitmap_digit=np.asarray(bitmap, bool),
        crops=np.concatenate(crops_all) if keep_crops else None,
    )


def load_digit_split() -> tuple[dict[int, list[np.ndarray]], dict[int, list[np.ndarray]]]:
    """scikit-learn's bundled handwritten digits 1-5, split by index: train (4 of 5), test (1 of 5).

    The training side never sees the test images. scikit-learn is a dev dependency: only training,
    evaluation and benchmarks call this.
    """
    from sklearn.datasets import load_digits

    digits = load_digits()
    train: dict[int, list[np.ndarray]] = {d: [] for d in range(1, 6)}
    test: dict[int, list[np.ndarray]] = {d: [] for d in range(1, 6)}
    for i, (image, target) in enumerate(zip(digits.images, digits.target, strict=True)):
        if 1 <= target <= 5:
            (test if i % 5 == 0 else train)[int(target)].append(image)
    return train, test


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write a synthetic cell dataset (.npz).")
    parser.add_argument("--boards", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    cells = make_cell_set(args.boards, np.random.default_rng(args.seed))
    np.savez_compressed(args.out, features=cells.features, labels=cells.labels)
    print(f"{len(cells.labels)} cells from {args.boards} boards -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
