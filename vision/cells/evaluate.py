"""Evaluate the cell reader on fresh synthetic boards and on held-out real handwritten digits.

    .venv/bin/python -m vision.cells.evaluate --seed 123 --boards 100

Boards go through the whole path (render -> photograph -> find_boards -> CellReader). Prints the
per-cell error, the share of boards read without any error, the error per class, how well the
confidence separates right from wrong, and the church accuracy with scikit-learn's ``load_digits``
test split drawn into the churches (those images are never used for training).
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from companion.layout import ALL_CELLS, SIZE
from vision.cells.dataset import CAMERA_CELL_PX, balanced_city, photographed_board
from vision.cells.labels import glyph_for_char
from vision.cells.reader import DRAWABLE_INDEX, CellReader
from vision.synth.drawings import Hand


@dataclass(frozen=True)
class Misread:
    """One cell read wrong: its picture as the reader had it, what was drawn and what was read."""

    crop: np.ndarray  # the cell of the rectified board (grey or BGR)
    truth: str
    read: str
    doubted: bool  # listed uncertain: the table is asked, not told
    letter_source: str  # where the hand's letters and digits come from (``Hand.letter_source``)


@dataclass
class Report:
    boards: int = 0
    not_found: int = 0  # photos whose board the localiser did not find (not read, not counted above)
    cells: int = 0
    cell_errors: int = 0
    boards_perfect: int = 0
    boards_no_confident_error: int = 0  # every wrong cell (if any) was in the uncertain list
    errors_flagged: int = 0  # wrong cells that were also in the uncertain list
    right_flagged: int = 0  # right cells needlessly flagged uncertain
    read_seconds: list[float] = field(default_factory=list)
    per_class: dict[str, list[int]] = field(default_factory=dict)  # glyph -> [seen, wrong]
    # where the board's letters and digits come from (``Hand.letter_source``) -> [cells, wrong, wrong and not
    # flagged uncertain]: which of a family's hands the misreads belong to
    per_letter_source: dict[str, list[int]] = field(default_factory=dict)
    digit_cells: int = 0
    digit_right: int = 0
    misreads: list[Misread] = field(default_factory=list)  # kept only when ``evaluate`` is asked to

    def lines(self) -> list[str]:
        out = [
            f"boards {self.boards}, cells {self.cells} (the 41 drawable spaces each); "
            f"{self.not_found} more boards not found by the localiser",
            f"per-cell error {self.cell_errors / max(self.cells, 1):.3%} ({self.cell_errors} cells)",
            f"boards without error {self.boards_perfect / max(self.boards, 1):.1%}; without a confident "
            f"error (all misreads flagged uncertain) {self.boards_no_confident_error / max(self.boards, 1):.1%}",
            f"confident per-cell error (wrong and not flagged) "
            f"{(self.cell_errors - self.errors_flagged) / max(self.cells, 1):.3%}; "
            f"cells flagged uncertain {(self.errors_flagged + self.right_flagged) / max(self.cells, 1):.1%}",
            f"wrong cells flagged uncertain {self.errors_flagged}/{self.cell_errors}; "
            f"right cells flagged {self.right_flagged}",
            f"read time per board {1000 * float(np.mean(self.read_seconds or [0])):.1f} ms",
        ]
        if self.digit_cells:
            out.append(f"load_digits churches: {self.digit_right}/{self.digit_cells} = "
                       f"{self.digit_right / self.digit_cells:.1%} right")
        worst = sorted(self.per_class.items(), key=lambda kv: -kv[1][1] / max(kv[1][0], 1))
        out.append("per class (seen, wrong): " + ", ".join(f"{g}:{s},{w}" for g, (s, w) in worst))
        return out


def evaluate(reader: CellReader, n_boards: int, seed: int, *, digit_boards: int = 0,
             languages: tuple[str, ...] = ("en",), cell_px_range: tuple[float, float] = CAMERA_CELL_PX,
             families: tuple[str, ...] | None = None, walls_outer_only: bool = False,
             camera_pixels: bool = False, camera_processing: bool = False,
             photo_frame: tuple[int, int] | None = None, sensor_over_frame: float | None = None,
             board_detail: bool = True, keep_misreads: bool = False) -> Report:
    """Boards photographed at ``cell_px_range`` frame pixels a cell (default: the camera's range), drawn
    by hands of ``families`` (all if None); ``walls_outer_only``: walls only where the rules allow them, as
    on a table (else every class anywhere, which tests the picture alone); ``camera_pixels``: letters written
    with the marker and pixels averaged as a camera's; ``camera_processing``: each photo as a camera sends it,
    demosaiced, sharpened and JPEG-compressed (``dataset.photographed_board``); ``photo_frame``: the photos'
    size (default the dataset's); ``sensor_over_frame``: each photo is a camera's whole sensor, its board found
    in the frame the camera sends and rectified from it or, with ``board_detail``, from the photo (the pipeline's
    ``detail``): with the same seed, the same photos either way. ``keep_misreads``: the report keeps each wrong
    cell's picture (``Report.misreads``, for ``misread_sheet``)."""
    rng = np.random.default_rng(seed)
    report = Report()
    readers = {reader.language: reader}
    test_digits = None
    if digit_boards:
        from vision.cells.dataset import load_digit_split

        _, test_digits = load_digit_split()
    made = 0
    while made < n_boards + digit_boards:
        with_digits = made >= n_boards
        language = reader.language if languages == ("en",) else str(rng.choice(list(languages)))
        city = balanced_city(rng, language, walls_outer_only=walls_outer_only)
        drawn_by: list[Hand] = []
        rectified = photographed_board(city, rng, language=language, jitter_px=0.0, cell_px_range=cell_px_range,
                                       digit_bitmaps=test_digits if with_digits else None, families=families,
                                       camera_pixels=camera_pixels, camera_processing=camera_processing,
                                       drawn_by=drawn_by, sensor_over_frame=sensor_over_frame,
                                       board_detail=board_detail, photo_frame=photo_frame)
        if rectified is None:
            report.not_found += 1
            continue
        made += 1
        t0 = time.perf_counter()
        if language not in readers:
            readers[language] = reader.for_language(language)
        read, _, uncertain = readers[language].read(rectified)
        report.read_seconds.append(time.perf_counter() - t0)
        wrong = confident_wrong = 0
        for i in DRAWABLE_INDEX:  # towers and printed crates are never read: they do not count
            name = ALL_CELLS[i]
            row, col = divmod(i, SIZE)
            truth, got = city[row][col], read[row][col]
            if with_digits:
                if truth in "12345":
                    report.digit_cells += 1
                    report.digit_right += truth == got
                continue
            glyph = glyph_for_char(truth, language)
            seen = report.per_class.setdefault(glyph, [0, 0])
            seen[0] += 1
            report.cells += 1
            if truth != got:
                wrong += 1
                seen[1] += 1
                report.errors_flagged += name in uncertain
                confident_wrong += name not in uncertain
                if keep_misreads:
                    side = rectified.shape[0] // SIZE
                    report.misreads.append(Misread(
                        rectified[row * side:(row + 1) * side, col * side:(col + 1) * side].copy(), truth, got,
                        name in uncertain, drawn_by[0].letter_source))
            else:
                report.right_flagged += name in uncertain
        if not with_digits:
            report.boards += 1
            report.cell_errors += wrong
            report.boards_perfect += wrong == 0
            report.boards_no_confident_error += confident_wrong == 0
            source = report.per_letter_source.setdefault(drawn_by[0].letter_source, [0, 0, 0])
            source[0] += len(DRAWABLE_INDEX)
            source[1] += wrong
            source[2] += confident_wrong
    return report


def misread_sheet(misreads: list[Misread], columns: int = 12, tile_px: int = 96) -> np.ndarray | None:
    """The wrong cells side by side (BGR), each as the reader had it, enlarged without smoothing, under it what was
    drawn > what was read, '?' when it was doubted ('!' when not) and where the hand's letters come from: what a
    person would make of the same pixels. None when nothing was misread."""
    import cv2

    if not misreads:
        return None
    label_px = 18
    tiles = []
    for m in misreads:
        crop = m.crop if m.crop.ndim == 3 else cv2.cvtColor(m.crop, cv2.COLOR_GRAY2BGR)
        tile = cv2.copyMakeBorder(cv2.resize(crop, (tile_px, tile_px), interpolation=cv2.INTER_NEAREST),
                                  0, label_px, 0, 0, cv2.BORDER_CONSTANT, value=(255, 255, 255))
        cv2.putText(tile, f"{m.truth}>{m.read}{'?' if m.doubted else '!'} {m.letter_source.split('/')[-1][:7]}",
                    (2, tile_px + 13), cv2.FONT_HERSHEY_SIMPLEX, 0.33, (0, 0, 200), 1, cv2.LINE_AA)
        tiles.append(tile)
    blank = np.full_like(tiles[0], 255)
    tiles += [blank] * (-len(tiles) % columns)
    return np.vstack([np.hstack(tiles[k:k + columns]) for k in range(0, len(tiles), columns)])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Evaluate the cell reader on synthetic boards.")
    parser.add_argument("--seed", type=int, default=123)
    parser.add_argument("--boards", type=int, default=100)
    parser.add_argument("--digit-boards", type=int, default=30, help="boards with load_digits churches")
    parser.add_argument("--language", default="en")
    parser.add_argument("--data-dir", type=Path, default=None)
    args = parser.parse_args(argv)
    reader = CellReader(args.language, args.data_dir)
    report = evaluate(reader, args.boards, args.seed, digit_boards=args.digit_boards)
    print("\n".join(report.lines()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
