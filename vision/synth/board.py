"""Synthetic city boards: the board art, the printed crates, one hand's drawings, the kit's markers.

``render_city`` is what the brief promises (an image); ``render_board`` returns the same picture with
its ground truth (city, hand, alpha of the rounded board outline) for dataset builders. The board
picture is loaded from ``../shared/reference-art/city-board.png`` at generation time (or the folder in
``COMPANION_REFERENCE_ART``); without it a drawn look-alike is used. The art is never packaged.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from companion.layout import LAYOUT, SIZE, TOWER_MARKER_FRACTION, cell_index, seat_marker_ids
from vision.cells.labels import glyph_for_char
from vision.marker_plane import marker_image
from vision.synth.art import BOARD_ART, reference_art_dir
from vision.synth.drawings import CellPen, Hand, draw_church_bitmap, draw_crate, draw_ghost, draw_symbol

MARKER_FRACTION = TOWER_MARKER_FRACTION  # marker side / cell side (table-kit.md)
TOWER_ORDER: tuple[str, ...] = LAYOUT.towers  # marker ids 4s, 4s+1, 4s+2, 4s+3 (seat_marker_ids)
PRINT_COLOUR = (45, 85, 140)  # BGR of the board's own print (brown)


@dataclass(frozen=True)
class RenderedBoard:
    """A rendered board and what is on it. ``alpha`` is 255 on the board, 0 off its rounded corners."""

    image: np.ndarray
    alpha: np.ndarray
    city: tuple[str, ...]
    seat: int | None
    hand: Hand
    cell_px: int


@lru_cache(maxsize=16)
def _art(cell_px: int, use_art: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Board art (BGR, alpha) at 7 * cell_px, printed crates included. Cached: callers must copy."""
    side = SIZE * cell_px
    path = reference_art_dir() / BOARD_ART
    raw = cv2.imread(str(path), cv2.IMREAD_UNCHANGED) if use_art and path.is_file() else None
    if raw is not None and raw.ndim == 3 and raw.shape[2] == 4:
        raw = cv2.resize(raw, (side, side), interpolation=cv2.INTER_AREA)
        image, alpha = np.ascontiguousarray(raw[:, :, :3]), np.ascontiguousarray(raw[:, :, 3])
    elif raw is not None:
        image = cv2.resize(raw[:, :, :3] if raw.ndim == 3 else cv2.cvtColor(raw, cv2.COLOR_GRAY2BGR),
                           (side, side), interpolation=cv2.INTER_AREA)
        alpha = np.full((side, side), 255, np.uint8)
    else:
        image, alpha = _lookalike(cell_px)
    _draw_printed_crates(image, cell_px)
    image.setflags(write=False)
    alpha.setflags(write=False)
    return image, alpha


def _lookalike(cell_px: int) -> tuple[np.ndarray, np.ndarray]:
    """A drawn stand-in for the board art: dark outer ring, light interior, grid, tower icons."""
    side = SIZE * cell_px
    rng = np.random.default_rng(7)
    image = np.empty((side, side, 3), np.uint8)
    image[:] = (150, 178, 192)
    image[cell_px:-cell_px, cell_px:-cell_px] = (222, 232, 238)
    noise = rng.normal(0, 6, (side // 4 + 1, side // 4 + 1, 1))
    noise = cv2.resize(noise, (side, side))[:, :, None]
    image = np.clip(image + noise, 0, 255).astype(np.uint8)
    for k in range(SIZE + 1):
        p = min(k * cell_px, side - 1)
        cv2.line(image, (p, 0), (p, side - 1), (70, 80, 85), 1, cv2.LINE_AA)
        cv2.line(image, (0, p), (side - 1, p), (70, 80, 85), 1, cv2.LINE_AA)
    h = cell_px // 2
    # Tower icons as on the real board: a green head on A1, coins on G1 and A7, a "3" on G7.
    cv2.circle(image, (h, h - cell_px // 8), cell_px // 6, (60, 140, 50), -1, cv2.LINE_AA)
    for cx, cy in ((6 * cell_px + h, h), (h, 6 * cell_px + h)):
        cv2.circle(image, (cx - cell_px // 8, cy), cell_px // 7, (40, 190, 230), -1, cv2.LINE_AA)
        cv2.circle(image, (cx + cell_px // 8, cy), cell_px // 7, (40, 190, 230), -1, cv2.LINE_AA)
    cv2.circle(image, (6 * cell_px + h, 6 * cell_px + h), cell_px // 4, (60, 60, 60), 2, cv2.LINE_AA)
    cv2.putText(image, "3", (6 * cell_px + h - cell_px // 10, 6 * cell_px + h + cell_px // 10),
                cv2.FONT_HERSHEY_SIMPLEX, cell_px / 80, (60, 60, 60), 2, cv2.LINE_AA)
    alpha = np.full((side, side), 255, np.uint8)
    return image, alpha


def _draw_printed_crates(image: np.ndarray, cell_px: int) -> None:
    """The printed starting crates: the same fixed drawing on every board, in the print colour."""
    hand = Hand(colour=PRINT_COLOUR, stroke=0.05, wobble=0.0, size=0.72, crate_style=1)
    mask = np.zeros(image.shape[:2], np.uint8)
    for cell in LAYOUT.printed_crates:
        col, row = cell_index(cell)
        pen = CellPen(mask, col * cell_px, row * cell_px, cell_px, hand, np.random.default_rng(0))
        pen.affine = np.eye(2) * 0.72  # no per-symbol jitter: printed, not drawn
        pen.offset = np.array([0.5, 0.5])
        draw_crate(pen)
    _composite(image, mask, PRINT_COLOUR, 0.9)


def _composite(image: np.ndarray, mask: np.ndarray, colour: tuple[int, int, int], opacity: float) -> None:
    """Lay ink of ``colour`` on ``image`` (in place) where ``mask`` (0..255) says, at ``opacity``."""
    x0, y0, w, h = cv2.boundingRect(mask)
    if w == 0 or h == 0:
        return
    roi = image[y0:y0 + h, x0:x0 + w]
    ink = mask[y0:y0 + h, x0:x0 + w].astype(np.float32) * (opacity / 255.0)
    solid = np.empty_like(roi)
    solid[:] = colour
    image[y0:y0 + h, x0:x0 + w] = cv2.blendLinear(roi, solid, 1.0 - ink, ink)


# Where a sticker lies against where the kit puts it: (dx, dy) in cells and its turn in degrees.
StickerPlacement = tuple[float, float, float]


def draw_markers(image: np.ndarray, seat: int, cell_px: int,
                 placements: Sequence[StickerPlacement] | None = None) -> None:
    """The kit's stickers: ids 4s..4s+3 centred on towers A1, G1, G7, A7, with a white quiet zone.
    ``placements``: each sticker (in ``TOWER_ORDER``) that far off its place and turned, as a hand sticks it."""
    side = int(round(MARKER_FRACTION * cell_px))
    quiet = max(2, side // 6)
    for k, (tower, marker_id) in enumerate(seat_marker_ids(seat).items()):
        col, row = cell_index(tower)
        cx, cy = (col + 0.5) * cell_px, (row + 0.5) * cell_px
        dx, dy, turn = (0.0, 0.0, 0.0) if placements is None else placements[k]
        if (dx, dy, turn) == (0.0, 0.0, 0.0):
            x0, y0 = int(round(cx - side / 2)), int(round(cy - side / 2))
            cv2.rectangle(image, (x0 - quiet, y0 - quiet), (x0 + side + quiet - 1, y0 + side + quiet - 1),
                          (255, 255, 255), -1)
            image[y0:y0 + side, x0:x0 + side] = marker_image(marker_id, side)[:, :, None]
            continue
        # The sticker (marker and quiet zone) turned about its centre and laid where the hand put it.
        sticker = cv2.copyMakeBorder(marker_image(marker_id, side), quiet, quiet, quiet, quiet,
                                     cv2.BORDER_CONSTANT, value=255)
        half = sticker.shape[0] / 2
        to_board = cv2.getRotationMatrix2D((half, half), -turn, 1.0)
        to_board[:, 2] += (cx + dx * cell_px - half, cy + dy * cell_px - half)
        size = (image.shape[1], image.shape[0])
        laid = cv2.warpAffine(sticker, to_board, size, flags=cv2.INTER_LINEAR, borderValue=0)
        cover = cv2.warpAffine(np.full_like(sticker, 255), to_board, size, flags=cv2.INTER_LINEAR, borderValue=0)
        alpha = (cover.astype(np.float32) / 255.0)[:, :, None]
        image[:] = (image * (1.0 - alpha) + laid[:, :, None].astype(np.float32) * alpha).astype(np.uint8)


def stickers_by_hand(rng: np.random.Generator, error_mm: float, cell_mm: float) -> list[StickerPlacement]:
    """Four stickers as a person sticks them: each off its tower's centre by ``error_mm`` (standard
    deviation, each way) and turned by as many degrees, but never over the board's edge: a sticker
    covers its tower cell, and the corner of the board is what a person lines it up with."""
    placements = []
    for tower in TOWER_ORDER:
        dx, dy = rng.normal(0, error_mm, 2) / cell_mm
        turn = float(rng.normal(0, error_mm))
        # Half the turned sticker's width (marker and quiet zone, ``draw_markers``), in cells.
        half = MARKER_FRACTION * (1 + 2 / 6) / 2 * (abs(np.cos(np.radians(turn))) + abs(np.sin(np.radians(turn))))
        col, row = cell_index(tower)
        out_x, out_y = (1 if col else -1), (1 if row else -1)  # away from the board, along x and y
        reach = max(0.0, 0.5 - half)
        dx = out_x * min(out_x * dx, reach)
        dy = out_y * min(out_y * dy, reach)
        placements.append((float(dx), float(dy), turn))
    return placements


def render_board(
    city: Sequence[str],
    rng: np.random.Generator,
    *,
    cell_px: int = 64,
    seat: int | None = None,
    language: str = "en",
    hand: Hand | None = None,
    digit_bitmaps: Mapping[int, Sequence[np.ndarray]] | None = None,
    ghost_rate: float = 0.15,
    smudge_rate: float = 0.1,
    use_art: bool = True,
    cell_seed: int | None = None,
    stickers: Sequence[StickerPlacement] | None = None,
) -> RenderedBoard:
    """Render ``city`` (7 strings of 7, city notation) in one random hand; see ``render_city``.

    ``digit_bitmaps`` (size -> 8x8 images 0..16, e.g. scikit-learn's ``load_digits``) makes churches
    carry real handwritten digits instead of the synthetic ones. ``cell_seed``: each cell drawn from a seed
    of its own (and the wiped ink's patches from another), so that the same board with one drawing more
    differs in that cell alone, as a board does after a move; ``rng`` then only picks the hand.
    ``stickers``: where each of the kit's stickers lies against its place (``draw_markers``).
    """
    if len(city) != SIZE or any(len(r) != SIZE for r in city):
        raise ValueError("a city is 7 strings of 7 characters")
    art, alpha = _art(cell_px, use_art)
    image = art.copy()
    hand = hand or Hand.random(rng)
    ink = np.zeros(image.shape[:2], np.uint8)
    ghost = np.zeros(image.shape[:2], np.uint8)
    printed = {cell_index(c) for c in LAYOUT.printed_crates}
    board_rng = rng
    for row in range(SIZE):
        for col in range(SIZE):
            char = city[row][col]
            if char == "#":
                continue
            if cell_seed is not None:
                rng = np.random.default_rng([cell_seed, row, col])
            x0, y0 = col * cell_px, row * cell_px
            if char == ".":
                if rng.random() < ghost_rate:
                    pen = CellPen(ghost, x0, y0, cell_px, hand, rng)
                    pen.width = max(1, pen.width)
                    draw_ghost(pen)
                if rng.random() < smudge_rate:
                    centre = (int(x0 + rng.uniform(0.2, 0.8) * cell_px), int(y0 + rng.uniform(0.2, 0.8) * cell_px))
                    axes = (int(rng.uniform(0.08, 0.3) * cell_px), int(rng.uniform(0.05, 0.2) * cell_px))
                    cv2.ellipse(ghost, centre, axes, float(rng.uniform(0, 180)), 0, 360,
                                int(rng.integers(60, 140)), -1, cv2.LINE_AA)
                continue
            if char == "G" and (col, row) in printed:
                continue  # already printed on the board
            pen = CellPen(ink, x0, y0, cell_px, hand, rng)
            glyph = glyph_for_char(char, language)
            if digit_bitmaps is not None and glyph in "12345" and digit_bitmaps.get(int(glyph)):
                pool = digit_bitmaps[int(glyph)]
                draw_church_bitmap(pen, pool[int(rng.integers(len(pool)))])
            else:
                draw_symbol(pen, glyph)
    rng = board_rng if cell_seed is None else np.random.default_rng([cell_seed, SIZE * SIZE])
    if ghost.any():
        # Wiped ink: faint, smeared, and gone in patches (a sponge never wipes evenly).
        side = ghost.shape[0]
        patches = rng.random((side // 12 + 1, side // 12 + 1)).astype(np.float32)
        patches = cv2.resize(patches, (side, side), interpolation=cv2.INTER_LINEAR)
        ghost = (ghost * np.clip((patches - 0.25) * 2.0, 0.0, 1.0)).astype(np.uint8)
        ghost = cv2.GaussianBlur(ghost, (0, 0), cell_px / 40 + rng.uniform(0.5, 1.5))
        _composite(image, ghost, hand.colour, float(rng.uniform(0.08, 0.28)))
    _composite(image, ink, hand.colour, hand.opacity)
    if seat is not None:
        draw_markers(image, seat, cell_px, stickers)
    return RenderedBoard(image=image, alpha=alpha.copy(), city=tuple(city), seat=seat, hand=hand, cell_px=cell_px)


def render_city(
    city: list[str],
    rng: np.random.Generator,
    *,
    cell_px: int = 64,
    seat: int | None = None,
    language: str = "en",
) -> np.ndarray:
    """Top-down BGR image (7 * cell_px square) of one city board drawn in a random hand.

    With ``seat`` the kit's ArUco markers (ids 4*seat .. 4*seat+3) sit on towers A1, G1, G7, A7.
    """
    return render_board(city, rng, cell_px=cell_px, seat=seat, language=language).image


def random_city(rng: np.random.Generator, *, fill: float | None = None, language: str = "en") -> list[str]:
    """A random (not necessarily legal) city: every class turns up, walls mostly on the outer ring."""
    from companion.layout import empty_city

    fill = float(rng.uniform(0.1, 0.95)) if fill is None else fill
    grid = [list(r) for r in empty_city()]
    persons = list(_person_chars(language))
    inner_choices = ["G", "H", "1", "2", "3", "4", "5", *persons]
    outer = LAYOUT.outer_cells
    printed = set(LAYOUT.printed_crates)
    for row in range(SIZE):
        for col in range(SIZE):
            name = f"{'ABCDEFG'[col]}{row + 1}"
            if grid[row][col] == "#" or name in printed or rng.random() > fill:
                continue
            if name in outer and rng.random() < 0.55:
                grid[row][col] = "W"
            else:
                grid[row][col] = str(rng.choice(inner_choices))
    return ["".join(r) for r in grid]


def _person_chars(language: str) -> tuple[str, ...]:
    from vision.cells.labels import PERSON_LETTERS

    return tuple(PERSON_LETTERS[language])
