"""Teach mode: each player draws every symbol twice on a teaching sheet; a photo of it teaches the reader
that player's hand, at that player's seat.

The teaching sheet (``TEACH_LAYOUT``: a city board, cells as the board faces its owner):

    #W.W..#      B1, D1 walls
    .GGGHH.      D2 crate, E2 and F2 houses (B2, C2: the board's printed crates)
    .G1234.      C3..F3 churches 1-4
    .G5G12.      C4 church 5, D4 crate, E4 church 1, F4 church 2
    .cspam.      B5 citizen, C5 soldier, D5 priest, E5 architect, F5 merchant
    jn345jn      A6 juggler, B6 noble, C6..E6 churches 3-5, F6 juggler, G6 noble
    #cspam#      B7 citizen, C7 soldier, D7 priest, E7 architect, F7 merchant (letters as the table's
                 language writes them); every other space stays empty

Why twice: the drawings become examples of the seat's hand (``vision.cells.seat_hand``), which vote next
to the network, and one example is never allowed to overrule a confident network; two drawings of a
symbol show the player's way of drawing it rather than one drawing. A third drawing of every letter and of
the digits 1-4 on the sheet's eleven free outer spaces was tried (stop 52, dev seeds 7100 and 8100, four players
of each new family, six fresh boards each): 119 -> 125 and 108 -> 107 of 3,936 cells misread, no better.
Nor (stop 62) asking a player who writes the persons' letters both ways, as capitals and small, for the first of
each pair in capitals and the second small, where two drawings left to chance show one way only about half the
time: with the sheets drawn that way by the hands that mix them (quick, round, loose; four players, six fresh
boards a player, the same boards both ways), dev seeds 7100-7600 514 -> 489 and 7700-8000 266 -> 282 of the
players' own misread cells, ``bench_adapt``'s seed 25 -> 28 with its sheets drawn apart from its boards. Most of
what a taught seat still misreads is a few hands' letters that look alike either way (round's Ecolier, whose
copperplate S, P and J are read as one another; loose's Kristi), not a way of writing the sheet never showed.
Nothing is retrained, the second network keeps its say, and no other seat's reading changes. Each drawing is
also kept in a few views (the photo jittered as a camera would, the drawing turned and scaled a little), which
count as one example. Several photos at once are fine, and one photo of the whole table with every player's sheet
teaches every seat (the kit's markers say whose board is whose); a sheet photographed alone, without
markers, is the seat ``--seat`` names. The examples are kept in the game store of the data directory.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion.errors import UserError
from companion.layout import ALL_CELLS, LAYOUT, cell_index, empty_city
from companion.store import GameStore
from vision.board import StickerPlaces, find_single_board
from vision.cells.dataset import jitter_rectified
from vision.cells.features import cell_crops
from vision.cells.labels import check_language, glyph_for_char
from vision.cells.reader import TEACH_FILE, CellReader
from vision.cells.seat_hand import SeatHand, TableHands

# Cell -> what is drawn there, in city notation (persons in the table's own letters).
TEACH_LAYOUT: dict[str, str] = {
    "B1": "W", "D1": "W",
    "D2": "G", "E2": "H", "F2": "H",
    "C3": "1", "D3": "2", "E3": "3", "F3": "4",
    "C4": "5", "D4": "G", "E4": "1", "F4": "2",
    "B5": "c", "C5": "s", "D5": "p", "E5": "a", "F5": "m",
    "A6": "j", "B6": "n", "C6": "3", "D6": "4", "E6": "5", "G6": "n",
    "B7": "c", "C7": "s", "D7": "p", "E7": "a", "F7": "m", "F6": "j",
}
AUGMENTATIONS = 8  # views of each taught drawing besides the photo itself (24 read no better)


def teaching_city() -> list[str]:
    """The teaching board in city notation."""
    grid = [list(r) for r in empty_city()]
    for cell, char in TEACH_LAYOUT.items():
        col, row = cell_index(cell)
        grid[row][col] = char
    return ["".join(r) for r in grid]


def _augment(rectified: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    img = jitter_rectified(rectified, rng, 1.5).astype(np.float32)
    img = img * rng.uniform(0.75, 1.15) + rng.uniform(-15, 15)
    if rng.random() < 0.5:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.4, 1.1))
    img = img + rng.normal(0, rng.uniform(1, 5), img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


def _vary_symbols(crops: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Each cell's drawing turned, scaled and moved a little, as the same hand draws it next time: one
    example of a symbol, only jittered as a whole board, taught the head that one drawing and not the
    player's way of drawing it."""
    side = crops.shape[1]
    out = np.empty_like(crops)
    for i, crop in enumerate(crops):
        turn = cv2.getRotationMatrix2D((side / 2, side / 2), float(rng.normal(0, 7)), float(rng.uniform(0.88, 1.1)))
        turn[:, 2] += rng.uniform(-2, 2, 2)
        out[i] = cv2.warpAffine(crop, turn, (side, side), flags=cv2.INTER_LINEAR, borderValue=0.0)
    return out


def sheet_drawings(rectified: np.ndarray, language: str, rng: np.random.Generator,
                   views: int = AUGMENTATIONS) -> dict[str, tuple[str, np.ndarray]]:
    """The teaching sheet's drawings: cell -> (glyph, ``views`` + 1 ink maps of it: as photographed, then
    on boards jittered as a camera would (rectification, light, blur, noise) and turned, scaled and moved
    a little as the same hand draws it next time)."""
    cells = [ALL_CELLS.index(c) for c in TEACH_LAYOUT]
    crops = [cell_crops(rectified, cells=cells)]
    for _ in range(views):
        crops.append(_vary_symbols(cell_crops(_augment(rectified, rng), cells=cells), rng))
    stacked = np.stack(crops, axis=1)  # (cells, views, CROP_PX, CROP_PX)
    return {cell: (glyph_for_char(char, language), stacked[k]) for k, (cell, char) in enumerate(TEACH_LAYOUT.items())}


def _misread_sheet(reader: CellReader, rectified: np.ndarray, hand: SeatHand | None) -> list[str]:
    city = teaching_city()
    read, _, _ = reader.read(rectified, hand)
    return sorted(c for c in TEACH_LAYOUT
                  if read[cell_index(c)[1]][cell_index(c)[0]] != city[cell_index(c)[1]][cell_index(c)[0]])


def teach_hands(sheets: Sequence[tuple[int, np.ndarray]], hands: TableHands, *, seed: int = 0,
                reader: CellReader | None = None) -> dict[str, Any]:
    """Each (seat, rectified teaching sheet) teaches that seat's hand (``hands``); no other seat changes."""
    if not sheets:
        raise UserError("teach needs at least one picture of the teaching board")
    rng = np.random.default_rng(seed)
    reader = reader or CellReader(hands.language)
    by_seat: dict[int, dict[str, list[str]]] = {}
    for seat, rectified in sheets:
        before = _misread_sheet(reader, rectified, hands.hand(seat))
        hands.teach(seat, sheet_drawings(rectified, hands.language, rng))
        after = _misread_sheet(reader, rectified, hands.hand(seat))
        seen = by_seat.setdefault(seat, {"misread_before": [], "misread_after": []})
        seen["misread_before"] = sorted(set(seen["misread_before"]) | set(before))
        seen["misread_after"] = after
    return {
        "boards": len(sheets),
        "seats": sorted(by_seat),
        "language": hands.language,
        "taught_cells": len(TEACH_LAYOUT),
        "misread_before": sorted({c for s in by_seat.values() for c in s["misread_before"]}),
        "misread_after": sorted({c for s in by_seat.values() for c in s["misread_after"]}),
        "by_seat": {str(seat): s for seat, s in sorted(by_seat.items())},
    }


def teach_from_rectified(boards: Sequence[np.ndarray | tuple[int, np.ndarray]], data_dir: str | Path,
                         language: str = "en", *, seat: int = 0, seed: int = 0,
                         reader: CellReader | None = None) -> dict[str, Any]:
    """Teach from rectified teaching sheets, each a picture (of ``seat``) or (seat, picture); kept in the
    game store of ``data_dir`` with that seat's hand, for every game to come."""
    check_language(language)
    sheets = [b if isinstance(b, tuple) else (seat, b) for b in boards]
    out_dir = Path(data_dir)
    with GameStore(out_dir) as store:
        summary = teach_hands(sheets, TableHands(store, None, language), seed=seed, reader=reader)
        summary["saved"] = str(store.path)
    old = out_dir / TEACH_FILE
    if old.is_file():
        # An adapted network from an earlier teach: it read the taught hand alone, without the second
        # network, and overfitted its one drawing of each symbol. The seats' hands replace it.
        old.unlink()
        summary["replaced"] = str(old)
    return summary


# A board is taken for a teaching sheet when at least this share of the layout's cells are read as drawn and at most
# SHEET_EXTRA_AT_MOST drawings lie elsewhere: a board in play, or an empty one, never teaches its empty spaces as symbols.
SHEET_DRAWN_AT_LEAST = 0.8
SHEET_EXTRA_AT_MOST = 3


def not_a_sheet(reader: CellReader, rectified: np.ndarray) -> str | None:
    """Why a board is not the teaching layout (a board in play, an empty one, one half drawn), or None when it is.
    What the layout's cells are read as does not matter here (a hand never seen is misread): only where ink is."""
    read, _, _ = reader.read(rectified, None)
    drawn = {cell for cell in ALL_CELLS
             if read[cell_index(cell)[1]][cell_index(cell)[0]] not in ".#" and cell not in LAYOUT.printed_crates}
    on_layout = len(drawn & set(TEACH_LAYOUT))
    elsewhere = len(drawn - set(TEACH_LAYOUT))
    if on_layout < SHEET_DRAWN_AT_LEAST * len(TEACH_LAYOUT):
        return f"only {on_layout} of the teaching layout's {len(TEACH_LAYOUT)} cells are drawn"
    if elsewhere > SHEET_EXTRA_AT_MOST:
        return f"{elsewhere} drawings lie outside the teaching layout"
    return None


def boards_in_picture(image: np.ndarray, seat: int | None = None) -> list[tuple[int, np.ndarray]]:
    """(seat, rectified board) of every board a picture shows: by the kit's markers (``seat`` given: that seat's only),
    else one board found by its outline, taken as ``seat`` (default 0)."""
    marked = StickerPlaces().locate(image)  # stuck by hand: measured on the sheet's own grid
    found = [(b.seat, b.rectified) for b in marked if seat is None or b.seat == seat]
    if not marked:
        single = find_single_board(image)
        found = [(seat or 0, single.rectified)] if single is not None else []
    return found


def teach_from_picture(image: np.ndarray, hands: TableHands, *, seat: int | None = None,
                       reader: CellReader | None = None, seed: int = 0) -> dict[str, Any]:
    """Teach from one picture (the table camera's frame, or a photo of the sheets): every board in it that shows the
    teaching layout teaches its seat's hand (``seat``: only that seat's); a board that does not is left alone and
    named in ``skipped`` with the reason. Raises ``UserError`` when no board in it shows the layout."""
    reader = reader or CellReader(hands.language)
    found = boards_in_picture(image, seat)
    if not found:
        where = f" of seat {seat}" if seat is not None else ""
        raise UserError(f"no city board{where} found in the picture (markers or board outline)")
    sheets, skipped = sheets_among(found, reader, "the picture")
    summary = teach_hands(sheets, hands, seed=seed, reader=reader)
    summary["skipped"] = skipped
    return summary


def sheets_among(found: Sequence[tuple[int, np.ndarray]], reader: CellReader,
                 where: str) -> tuple[list[tuple[int, np.ndarray]], dict[str, str]]:
    """(the boards of ``found`` that show the teaching layout, seat -> why each other one does not). Raises
    ``UserError`` naming ``where`` (a picture, a file) when none does."""
    sheets: list[tuple[int, np.ndarray]] = []
    skipped: dict[str, str] = {}
    for board_seat, rectified in found:
        problem = not_a_sheet(reader, rectified)
        if problem is None:
            sheets.append((board_seat, rectified))
        else:
            skipped[str(board_seat)] = problem
    if not sheets:
        reasons = "; ".join(f"seat {s}: {why}" for s, why in sorted(skipped.items()))
        raise UserError(f"no board in {where} shows the teaching layout ({reasons})")
    return sheets, skipped


def teach_from_images(paths: Sequence[str | Path], data_dir: str | Path, language: str = "en",
                      seat: int | None = None) -> dict[str, Any]:
    """Teach mode from photos of teaching sheets (``TEACH_LAYOUT``); summary as a JSON-able dict.

    Every sheet found teaches the seat its markers name (one photo of the whole table teaches every
    player at once); a sheet photographed alone, without markers, teaches ``seat`` (default 0). With
    ``seat`` given, only that seat's sheet is taken from photos with markers. A board that does not show the
    layout (a game in play beside the sheets) is left alone and named in ``skipped``.
    Raises ``UserError`` naming the file for an unreadable image, one with no board in it, or one where no board
    shows the layout.
    """
    check_language(language)
    reader = CellReader(language)
    sheets: list[tuple[int, np.ndarray]] = []
    skipped: dict[str, str] = {}
    for path in paths:
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            raise UserError(f"{path}: not a readable image")
        found = boards_in_picture(image, seat)
        if not found:
            where = f" for seat {seat}" if seat is not None else ""
            raise UserError(f"{path}: no city board found{where} (markers or board outline)")
        shown, left = sheets_among(found, reader, str(path))
        sheets.extend(shown)
        skipped.update(left)
    summary = teach_from_rectified(sheets, data_dir, language, reader=reader)
    summary["images"] = [str(p) for p in paths]
    summary["skipped"] = skipped
    return summary
