"""The printable table kit: ArUco marker stickers at their real size (``companion kit --out FILE``).

One A4 sheet at 300 dpi (more sheets only if a layout ever overflows): for every seat the four tower
stickers (A1, G1, G7, A7), then the dice tray's and the pirate track's corner stickers, and a 5 cm scale
bar to check that the printer kept the scale. Placement and ids: shared table-kit.md.

Each sticker is one tower cell large (the dashed cut line); the marker in its middle is 70 % of a cell,
so the white margin around it is the marker's quiet zone. Printed at 100 % ("actual size"), never "fit to
page".
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from companion.errors import UserError
from companion.layout import KIT_SEATS, TOWER_MARKER_FRACTION, seat_marker_ids

# the tray's and the track's readers locate them in millimetres from these markers: print what they expect
from vision.dice.geometry import STICKER_MM as TRAY_STICKER_MM
from vision.dice.geometry import TRAY_MARKER_MM
from vision.marker_plane import marker_image
from vision.pirates.geometry import BLOCK_X_MM as TRACK_BLOCK_OFFSET_MM
from vision.pirates.geometry import MARKER_MM as TRACK_MARKER_MM

# ASSUMPTION: a Saint Malo city board is about 20 x 20 cm, so one of its 7 x 7 cells is 28 mm
# (7 x 28 mm = 19.6 cm). Measure your board; if a cell differs, change this one number.
CELL_MM = 28.0
MARKER_FRACTION = TOWER_MARKER_FRACTION  # marker side / cell side (table-kit.md)
MARKER_MM = CELL_MM * MARKER_FRACTION  # 19.6 mm
STICKER_MM = CELL_MM  # a sticker covers its tower cell; the white rim is the marker's quiet zone

DPI = 300
A4_MM = (210.0, 297.0)
MARGIN_MM = 10.0
SCALE_BAR_MM = 50.0
MAX_SEATS = KIT_SEATS
# A track sticker's inner corner goes on the corner of the block of boxes: the white rim is exactly the gap
# between marker and block that vision.pirates expects.
TRACK_STICKER_MM = TRACK_MARKER_MM + 2 * (TRACK_BLOCK_OFFSET_MM - TRACK_MARKER_MM)
TAG_GREY = 165  # the small text on a sticker's rim

TRAY_MARKERS: tuple[tuple[int, str], ...] = ((20, "top-left"), (21, "top-right"), (22, "bottom-right"), (23, "bottom-left"))
TRACK_MARKERS: tuple[tuple[int, str], ...] = ((24, "top-left"), (25, "top-right"), (26, "bottom-right"), (27, "bottom-left"))

_SHORT = {"top-left": "TL", "top-right": "TR", "bottom-right": "BR", "bottom-left": "BL"}


def mm_to_px(mm: float, dpi: int = DPI) -> int:
    return round(mm * dpi / 25.4)


@dataclass(frozen=True)
class Sticker:
    marker_id: int
    label: str  # printed under the sticker, e.g. "A1 · id 0"
    marker_mm: float = MARKER_MM  # side of the black square
    sticker_mm: float = STICKER_MM  # side of the cut line, the marker centred in it


@dataclass(frozen=True)
class StickerRow:
    title: str  # printed left of the row, e.g. "Seat 0"
    note: str  # where the row's stickers go
    stickers: tuple[Sticker, ...]


@dataclass(frozen=True)
class PlacedMarker:
    """Where a marker landed on a page, in pixels (top-left corner and side of the black square)."""

    marker_id: int
    label: str
    x: int
    y: int
    side_px: int
    sticker_box: tuple[int, int, int, int]  # x0, y0, x1, y1 of the cut line


@dataclass
class KitPage:
    image: Image.Image
    markers: list[PlacedMarker] = field(default_factory=list)
    scale_bar: tuple[int, int, int, int] = (0, 0, 0, 0)  # x0, y0, x1, y1 of the black bar


def kit_rows(seats: int = MAX_SEATS) -> list[StickerRow]:
    """What the kit holds, row by row."""
    if not 1 <= seats <= MAX_SEATS:
        raise UserError(f"--seats must be 1 to {MAX_SEATS}, not {seats}")
    rows = [
        StickerRow(
            f"Seat {s}",
            "city board towers; small text on top, upright for the owner",
            tuple(Sticker(mid, f"{tower} · id {mid}") for tower, mid in seat_marker_ids(s).items()),
        )
        for s in range(seats)
    ]
    rows.append(StickerRow("Dice tray", "outer corner of each sticker in a corner of the tray floor", tuple(
        Sticker(mid, f"tray {_SHORT[corner]} · id {mid}", TRAY_MARKER_MM, TRAY_STICKER_MM) for mid, corner in TRAY_MARKERS)))
    rows.append(StickerRow("Pirates", "inner corner of each sticker on a corner of the 6 x 10 boxes", tuple(
        Sticker(mid, f"track {_SHORT[corner]} · id {mid}", TRACK_MARKER_MM, TRACK_STICKER_MM) for mid, corner in TRACK_MARKERS)))
    return rows


def _font(size_px: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    for name in ("DejaVuSans.ttf", "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"):
        try:
            return ImageFont.truetype(name, size_px)
        except OSError:
            continue
    return ImageFont.load_default(size=size_px)


def _dashed_rectangle(draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int], dash: int, width: int) -> None:
    x0, y0, x1, y1 = box
    grey = 150  # visible for cutting, light enough not to read as a marker edge
    for a in range(x0, x1, 2 * dash):
        draw.line([(a, y0), (min(a + dash, x1), y0)], fill=grey, width=width)
        draw.line([(a, y1), (min(a + dash, x1), y1)], fill=grey, width=width)
    for b in range(y0, y1, 2 * dash):
        draw.line([(x0, b), (x0, min(b + dash, y1))], fill=grey, width=width)
        draw.line([(x1, b), (x1, min(b + dash, y1))], fill=grey, width=width)


def _header(page: KitPage, draw: ImageDraw.ImageDraw, dpi: int, page_no: int, pages: int) -> int:
    """Title, instructions and the scale bar; returns the y (px) where the rows start."""
    px = lambda mm: mm_to_px(mm, dpi)  # noqa: E731 - a local unit converter reads best inline
    x = px(MARGIN_MM)
    title = "Saint Malo table companion - marker kit" + (f" (sheet {page_no}/{pages})" if pages > 1 else "")
    draw.text((x, px(MARGIN_MM)), title, fill=0, font=_font(px(5)))
    small = _font(px(2.8))
    lines = (
        "Print at 100 % (actual size, not 'fit to page'). The bar below must measure exactly 5.0 cm.",
        f"Cut on the dashed lines: each sticker is one {CELL_MM:g} mm tower cell, the marker {MARKER_MM:.1f} mm. "
        "Keep the white rim clean;",
        "stick each one centred on its cell, its small grey text at the top (^ points away from the owner).",
    )
    for i, line in enumerate(lines):
        draw.text((x, px(MARGIN_MM + 8 + 4 * i)), line, fill=0, font=small)
    bar_y = px(MARGIN_MM + 21)
    bar = (x, bar_y, x + px(SCALE_BAR_MM) - 1, bar_y + px(2.5) - 1)
    draw.rectangle(bar, fill=0)
    for cm in range(0, int(SCALE_BAR_MM // 10) + 1):  # ticks every centimetre, below the bar
        tick_x = min(x + px(10 * cm), bar[2])
        draw.line([(tick_x, bar[3]), (tick_x, bar[3] + px(1.5))], fill=0, width=max(1, px(0.25)))
    draw.text((bar[2] + px(3), bar_y - px(0.6)), "5 cm scale bar", fill=0, font=small)
    page.scale_bar = bar
    return px(MARGIN_MM + 29)


def render_kit(seats: int = MAX_SEATS, dpi: int = DPI) -> list[KitPage]:
    """The kit's A4 pages, white background, greyscale, at ``dpi``."""
    rows = kit_rows(seats)
    px = lambda mm: mm_to_px(mm, dpi)  # noqa: E731
    page_w, page_h = px(A4_MM[0]), px(A4_MM[1])
    sticker_px = px(STICKER_MM)
    title_w = px(30)
    gap_x = px(8)
    label_h, row_gap = px(4.2), px(2.5)
    row_h = sticker_px + label_h + row_gap
    first_row_y = px(MARGIN_MM + 29)
    rows_per_page = max(1, (page_h - px(MARGIN_MM) - first_row_y) // row_h)
    chunks = [rows[i : i + rows_per_page] for i in range(0, len(rows), rows_per_page)]
    label_font, title_font, note_font = _font(px(2.8)), _font(px(4)), _font(px(2.3))
    tag_font = _font(px(1.7))

    pages: list[KitPage] = []
    for page_no, chunk in enumerate(chunks, start=1):
        page = KitPage(Image.new("L", (page_w, page_h), 255))
        draw = ImageDraw.Draw(page.image)
        y = _header(page, draw, dpi, page_no, len(chunks))
        for row in chunk:
            x = px(MARGIN_MM)
            draw.text((x, y + px(6)), row.title, fill=0, font=title_font)
            # the note wraps in the title column: two short lines
            words, note_lines, current = row.note.split(), [], ""
            for word in words:
                trial = f"{current} {word}".strip()
                if draw.textlength(trial, font=note_font) > title_w - px(2) and current:
                    note_lines.append(current)
                    current = word
                else:
                    current = trial
            note_lines.append(current)
            for i, line in enumerate(note_lines[:4]):
                draw.text((x, y + px(12 + 3 * i)), line, fill=80, font=note_font)
            x += title_w
            for sticker in row.stickers:
                # every sticker gets a cell-sized slot; a smaller one is centred in it
                cut_px = px(sticker.sticker_mm)
                cx = x + (sticker_px - cut_px) // 2
                cy = y + (sticker_px - cut_px) // 2
                box = (cx, cy, cx + cut_px - 1, cy + cut_px - 1)
                _dashed_rectangle(draw, box, dash=px(1.5), width=max(1, px(0.2)))
                marker_px = px(sticker.marker_mm)
                mx = cx + (cut_px - marker_px) // 2
                my = cy + (cut_px - marker_px) // 2
                page.image.paste(Image.fromarray(marker_image(sticker.marker_id, marker_px)), (mx, my))
                # on the sticker's top rim, so it stays after cutting: which way is up, and where it goes
                tag = sticker.label.split(" · ")[0] + f" #{sticker.marker_id} ^"
                tag_w = draw.textlength(tag, font=tag_font)
                # light grey, at the very edge: well under the detector's black threshold, clear of the marker
                draw.text((cx + (cut_px - tag_w) / 2, cy + px(0.5)), tag, fill=TAG_GREY, font=tag_font)
                draw.text((x, y + sticker_px + px(0.8)), sticker.label, fill=0, font=label_font)
                page.markers.append(PlacedMarker(sticker.marker_id, sticker.label, mx, my, marker_px, box))
                x += sticker_px + gap_x
            y += row_h
        pages.append(page)
    return pages


def write_kit(out: str | Path, seats: int = MAX_SEATS, dpi: int = DPI) -> list[Path]:
    """Write the kit as a PDF (all sheets in one file) or PNG (one file per sheet); returns the files."""
    path = Path(out)
    suffix = path.suffix.lower()
    if suffix not in (".pdf", ".png"):
        raise UserError(f"{out}: the kit is written as .pdf or .png, not {suffix or 'a file without extension'!r}")
    pages = render_kit(seats, dpi)
    try:
        if suffix == ".pdf":
            first, *rest = (p.image for p in pages)
            # resolution makes the PDF page exactly A4, so "actual size" prints the markers at their size
            first.save(path, "PDF", resolution=float(dpi), save_all=True, append_images=rest)
            return [path]
        written = []
        for i, page in enumerate(pages):
            target = path if i == 0 else path.with_name(f"{path.stem}-{i + 1}{path.suffix}")
            page.image.save(target, "PNG", dpi=(dpi, dpi))
            written.append(target)
        return written
    except OSError as exc:
        raise UserError(f"{out}: cannot write the kit ({exc.strerror or exc})") from None


def cmd_kit(args: argparse.Namespace) -> int:
    """``companion kit --out FILE [--seats N]``."""
    written = write_kit(args.out, seats=args.seats)
    for path in written:
        print(path)
    return 0
