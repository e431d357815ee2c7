"""Families of hands: groups of people who draw the symbols in structurally different ways.

A real table's hand looks like nothing our generator drew, so the cell reader is trained on several
*families* and judged on a family it was never trained on (``benchmarks/bench_hands.py``). A family
fixes where its letters and digits come from (the stroke font below, OpenCV's Hershey fonts, or
handwriting fonts that Debian packages, most made from real people's hands), which ways of drawing each
symbol its players use, and the range of their pens (width, pressure, wobble, slant).

Every drawing style is used by at least two families, and no font by more than one: a family held out
of training shows letters, digits, pens and combinations of styles never seen, not a symbol concept
nobody drew before (``test_hands`` checks both).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from vision.imaging import shrunk_for_warp
from vision.synth import web_fonts

# Debian's packages for the fonts (``.ci/run`` and ``firmware_config`` install them where training or
# the benchmarks run; the product never needs them).
FONT_PACKAGES: tuple[str, ...] = (
    "fonts-dkg-handwriting", "fonts-breip", "fonts-bwht", "fonts-femkeklaver", "fonts-humor-sans",
    "fonts-comic-neue", "fonts-rufscript", "fonts-sjfonts", "fonts-kristi", "fonts-dancingscript",
    "fonts-ecolier-court", "fonts-cabinsketch", "fonts-klee", "fonts-seto", "fonts-kiloji", "fonts-yusei-magic",
    "fonts-kaushanscript",
)
# Fonts only the training pool draws (``TRAINING_POOL``): ``train_hands`` needs them, nothing else does.
POOL_FONT_PACKAGES: tuple[str, ...] = (
    "fonts-nanum-extra", "fonts-tlwg-purisa", "fonts-sil-andika", "fonts-unfonts-extra", "fonts-comfortaa",
    "fonts-urw-base35", "fonts-lobster", "fonts-aoyagi-soseki", "fonts-fantasque-sans", "fonts-havana",
    "fonts-leckerli-one", "fonts-kouzan-mouhitsu", "fonts-opendyslexic", "fonts-quicksand", "fonts-essays1743",
    "fonts-dustin",
)
FONT_ROOT = Path("/usr/share/fonts")


@dataclass(frozen=True)
class HandFamily:
    """Who draws how. Styles are the ``draw_*`` functions' numbers (``vision.synth.drawings``)."""

    name: str
    letters: tuple[str, ...]  # 'strokes', 'hershey:N' or a font file under FONT_ROOT
    walls: tuple[int, ...]
    crates: tuple[int, ...]
    churches: tuple[int, ...]
    houses: tuple[int, ...]
    circles: tuple[int, ...]  # 0 closed round, 1 open, 2 oval, 3 loose overlapping loop
    lowercase: float  # share of persons written in lower case
    stroke: tuple[float, float]  # pen width, fraction of a cell
    wobble: tuple[float, float]
    slant: tuple[float, float]
    size: tuple[float, float]
    pressure: tuple[float, float]  # how much the width varies along a stroke
    flagged_ones: float = 0.0  # share of its hands that write the 1 with a long flag (``Hand.flagged_one``)


HAND_FAMILIES: tuple[HandFamily, ...] = (
    HandFamily(
        name="tidy",
        letters=("hershey:0", "hershey:1", "hershey:2", "hershey:3", "hershey:4",
                 "opentype/comic-neue/ComicNeue-Regular.otf", "opentype/comic-neue/ComicNeue-Bold.otf",
                 "opentype/comic-neue/ComicNeue-Light.otf", "truetype/seto/setofont.ttf"),
        walls=(0, 2, 4, 5), crates=(0, 1, 4), churches=(0, 3), houses=(0, 2), circles=(0, 2),
        lowercase=0.0, stroke=(0.03, 0.055), wobble=(0.0, 0.012), slant=(-0.08, 0.08), size=(0.6, 0.78),
        pressure=(0.0, 0.15),
    ),
    HandFamily(
        name="quick",
        letters=("strokes", "truetype/humor-sans/Humor-Sans.ttf", "truetype/cabinsketch/CabinSketch-Regular.ttf",
                 "truetype/cabinsketch/CabinSketch-Bold.ttf", "opentype/kaushanscript/KaushanScript-Regular.otf"),
        walls=(1, 3, 6), crates=(2, 3, 5), churches=(1, 2, 4), houses=(1, 4), circles=(1, 3),
        lowercase=0.35, stroke=(0.035, 0.07), wobble=(0.015, 0.035), slant=(0.05, 0.3), size=(0.55, 0.8),
        pressure=(0.1, 0.35),
    ),
    HandFamily(
        name="round",
        letters=("truetype/fifthhorseman/dkg.ttf", "truetype/fifthhorseman/dkgBd.ttf",
                 "truetype/fifthhorseman/dkgIt.ttf", "truetype/breip/Breip.ttf",
                 "truetype/ecolier-court/Ecolier-court.ttf", "truetype/klee/KleeOne-SemiBold.ttf",
                 "truetype/yusei-magic/YuseiMagic-Regular.ttf"),
        walls=(0, 4, 5, 6), crates=(0, 3, 4), churches=(0, 2, 5), houses=(0, 3, 5), circles=(0, 1),
        lowercase=0.6, stroke=(0.05, 0.085), wobble=(0.005, 0.02), slant=(-0.1, 0.1), size=(0.65, 0.85),
        pressure=(0.0, 0.2),
    ),
    HandFamily(
        name="school",
        letters=("opentype/bwht/BecauseWeBuild-Regular.otf", "opentype/bwht/BecauseWeConnect-Regular.otf",
                 "opentype/bwht/BecauseWeCreate-Regular.otf", "opentype/bwht/BecauseWeLearn-Regular.otf",
                 "opentype/bwht/BecauseWeMentor-Regular.otf", "opentype/bwht/BecauseWeOrganize-Regular.otf",
                 "truetype/femkeklaver/femkeklaver.ttf", "truetype/kiloji/kiloji.ttf"),
        walls=(1, 2, 3), crates=(1, 2, 5), churches=(1, 3), houses=(1, 2, 4), circles=(2, 3),
        lowercase=0.0, stroke=(0.025, 0.05), wobble=(0.01, 0.025), slant=(-0.25, 0.0), size=(0.6, 0.8),
        pressure=(0.05, 0.3),
    ),
    HandFamily(
        name="loose",
        letters=("hershey:5", "truetype/rufscript/Rufscript010.ttf", "truetype/sjfonts/Delphine.ttf",
                 "truetype/sjfonts/SteveHand.ttf", "truetype/kristi/Kristi.ttf",
                 "opentype/dancingscript/DancingScript-Bold.otf"),
        walls=(0, 1, 5, 6), crates=(0, 1, 3, 4), churches=(0, 4, 5), houses=(0, 3, 5), circles=(0, 1, 2),
        lowercase=0.3, stroke=(0.03, 0.075), wobble=(0.02, 0.04), slant=(-0.2, 0.25), size=(0.5, 0.8),
        pressure=(0.1, 0.4),
    ),
)
FAMILY_NAMES: tuple[str, ...] = tuple(f.name for f in HAND_FAMILIES)

# More people for training only: never left out, never benchmarked. Its letters and digits come from fonts
# no family uses (``POOL_FONT_PACKAGES``), half of its persons in lower case, every drawing style and the
# whole range of pens. Every style it draws is drawn by at least two families, so a network trained without
# one family learns nothing of that family's own from the pool: it only meets more letter shapes. On the
# families left out, the errors that were left were all person letters and church digits. A third of the pools'
# hands (``flagged_ones``; the second and third pools are drawn like it) write the 1 with a long up-stroke, as much
# of Europe writes it and few fonts do: drawn by the pool alone, so that no family's hand changes (since stop 52;
# the church networks learn it, ``vision.cells.churches``).
TRAINING_POOL = HandFamily(
    name="pool",
    letters=("truetype/nanum/NanumPen.ttf", "truetype/nanum/NanumBrush.ttf", "truetype/nanum/NanumBarunpenR.ttf",
             "truetype/nanum/NanumBarunpenB.ttf", "truetype/tlwg/Purisa.ttf", "truetype/tlwg/Purisa-Oblique.ttf",
             "truetype/andika/Andika-Regular.ttf", "truetype/unfonts-extra/UnPilgia.ttf",
             "truetype/comfortaa/Comfortaa-Regular.ttf", "opentype/urw-base35/Z003-MediumItalic.otf",
             "opentype/lobster/lobster.otf", "truetype/aoyagi-soseki/aoyagi-soseki.ttf",
             "opentype/fantasque-sans/Normal/OTF/FantasqueSansMono-Regular.otf",
             "opentype/havana/Havana-Regular.otf", "truetype/leckerli-one/LeckerliOne-Regular.ttf",
             "truetype/kouzan-mouhitsu/kouzan-mouhitsu-gyosho.ttf", "opentype/opendyslexic/OpenDyslexic-Regular.otf",
             "truetype/quicksand/Quicksand-Regular.ttf", "truetype/essays1743/Essays1743-Italic.ttf",
             "truetype/dustin/Domestic_Manners.ttf", "truetype/dustin/Junkyard.ttf"),
    walls=(0, 1, 2, 3, 4, 5, 6), crates=(0, 1, 2, 3, 4, 5), churches=(0, 1, 2, 3, 4, 5), houses=(0, 1, 2, 3, 4, 5),
    circles=(0, 1, 2, 3), lowercase=0.5, stroke=(0.025, 0.085), wobble=(0.0, 0.04), slant=(-0.25, 0.3),
    size=(0.5, 0.85), pressure=(0.0, 0.4), flagged_ones=0.3,
)


# Still more people for training only: 85 of Google Fonts' handwriting fonts from the npm registry
# (``vision.synth.web_fonts``), none a family's, drawn as the first pool is (``train_hands --web-pool-boards``).
# Tried on the cell networks after the errors left on families left out were still almost all person letters: it
# moved them little and the shipped cell networks were not trained with it (``vision.cells.train_hands`` has the
# figures). The letter and church stages' networks learn from it since 2026-11-27 (``vision.cells.train_letters``).
WEB_POOL = dataclasses.replace(TRAINING_POOL, name="webpool",
                               letters=tuple(web_fonts.PREFIX + name for name in web_fonts.WEB_FONTS))

# A third pool: 95 more of Google Fonts' hands, joined-up scripts, school models and casual pens
# (``web_fonts.CURSIVE_FONTS``), drawn like the others. Tried on the letter stage (``vision.cells.train_letters
# --cursive-pool-boards``, its docstring has the figures); no shipped network learned from it.
CURSIVE_POOL = dataclasses.replace(TRAINING_POOL, name="cursive",
                                   letters=tuple(web_fonts.PREFIX + name for name in web_fonts.CURSIVE_FONTS))

# Hands no network learns, the shipped one included: nine more of Google Fonts' handwriting fonts
# (``web_fonts.NEW_HAND_FONTS``) with every drawing style and the whole range of pens. The families left out
# measure the networks trained without them; these measure the shipped reader itself on letters it never saw
# (``bench_hands --new-hands``).
NEW_HANDS = dataclasses.replace(TRAINING_POOL, name="newhands",
                                letters=tuple(web_fonts.PREFIX + name for name in web_fonts.NEW_HAND_FONTS),
                                flagged_ones=0.0)


def family(name: str) -> HandFamily:
    for f in (*HAND_FAMILIES, TRAINING_POOL, WEB_POOL, CURSIVE_POOL, NEW_HANDS):
        if f.name == name:
            return f
    raise ValueError(f"unknown hand family {name!r} (known: {', '.join(FAMILY_NAMES)})")


def font_path(letters: str) -> Path | None:
    """The font file of a family's letter source (None for the stroke and Hershey fonts)."""
    if letters == "strokes" or letters.startswith("hershey:"):
        return None
    if letters.startswith(web_fonts.PREFIX):
        return web_fonts.web_font_file(letters)
    return FONT_ROOT / letters


def missing_fonts(families: tuple[HandFamily, ...] = HAND_FAMILIES) -> list[str]:
    """Font files of ``families`` that are not installed (``FONT_PACKAGES`` brings the families',
    ``POOL_FONT_PACKAGES`` the training pool's)."""
    return [src for f in families for src in f.letters
            if (path := font_path(src)) is not None and not path.is_file()]


GLYPH_RENDER_PX = 96  # a font's letters are drawn this tall once, then warped into each cell


@lru_cache(maxsize=4096)
def font_glyph(path: str, char: str, weight: int) -> np.ndarray | None:
    """One character of a font file as ink (float32 0..1), cropped to its ink; ``weight`` thickens the
    strokes by that many pixels at ``GLYPH_RENDER_PX`` (a broad marker). None when the font lacks it."""
    from PIL import Image, ImageDraw, ImageFont

    try:
        font = ImageFont.truetype(path, GLYPH_RENDER_PX)
    except OSError:
        return None
    canvas = Image.new("L", (3 * GLYPH_RENDER_PX, 3 * GLYPH_RENDER_PX), 0)
    ImageDraw.Draw(canvas).text((GLYPH_RENDER_PX // 2, GLYPH_RENDER_PX // 2), char, fill=255, font=font,
                                stroke_width=weight, stroke_fill=255)
    ink = np.asarray(canvas, np.float32) / 255.0
    ys, xs = np.nonzero(ink > 0.2)
    if len(ys) < 10:
        return None
    ink = ink[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    ink.setflags(write=False)
    return ink


def _skeleton(binary: np.ndarray) -> np.ndarray:
    """The morphological skeleton (Lantuejoul's) of a 0/1 uint8 image: one pixel or so wide, maybe broken."""
    cross = cv2.getStructuringElement(cv2.MORPH_CROSS, (3, 3))
    skeleton = np.zeros_like(binary)
    rest = binary.copy()
    while rest.any():
        eroded = cv2.erode(rest, cross)
        skeleton |= rest & ~cv2.dilate(eroded, cross)
        rest = eroded
    return skeleton


MARKER_STEP_PX = 3  # marker widths are drawn in steps of this many pixels at GLYPH_RENDER_PX (one cache entry each)
# A font's stroke is traced by the marker wherever its ink reaches this much (0..1, at GLYPH_RENDER_PX). A script's
# hairlines are a pixel or less wide there, their ink 0.2-0.5 after antialiasing: traced from 0.5 as before stop 63,
# Écolier's N and M lost their diagonals and its S its upper curve (the marker wrote only the broad strokes, and the
# hairlines stayed as the nib drew them, to fade out of the photo).
MARKER_TRACE_FROM = 0.2


def marker_written(ink: np.ndarray, pen_px: int) -> np.ndarray:
    """``ink`` (a glyph, 0..1) written with a marker ``pen_px`` wide: every stroke, hairlines too, at least the pen's
    width (the glyph padded by ``pen_px`` on every side, not cropped)."""
    padded = np.pad(ink, pen_px)
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (pen_px, pen_px))
    line = cv2.dilate(_skeleton((padded > MARKER_TRACE_FROM).astype(np.uint8)), disc).astype(np.float32)
    return np.maximum(padded, cv2.GaussianBlur(line, (0, 0), 0.8))


@lru_cache(maxsize=8192)
def marker_glyph(path: str, char: str, weight: int, pen_px: int) -> np.ndarray | None:
    """``font_glyph`` written with a dry-erase marker ``pen_px`` wide (pixels at ``GLYPH_RENDER_PX``): no stroke
    thinner than the marker. A calligraphic font's hairlines are a nib's; a marker cannot draw them, and left
    as they are they fade out of a photo (Kristi's N was a lone diagonal, a broad pen's letters never are)."""
    ink = font_glyph(path, char, weight)
    if ink is None or pen_px < 2:
        return ink
    out = marker_written(ink, pen_px)
    ys, xs = np.nonzero(out > 0.2)
    out = out[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    out.setflags(write=False)
    return out


def warp_glyph_into(mask: np.ndarray, glyph: np.ndarray, corners: np.ndarray, area_average: bool = False) -> None:
    """Lay ``glyph`` (0..1) into ``mask`` (uint8, in place) so that its top-left, top-right and bottom-left
    corners land on ``corners`` (3 x 2 pixels); the brighter of the two wins where they overlap.
    ``area_average``: the glyph (drawn several times its size) averaged down first, so that none of its
    strokes vanishes in the warp (``shrunk_for_warp``)."""
    h, w = glyph.shape
    src = np.float32([[0, 0], [w, 0], [0, h]])
    affine = cv2.getAffineTransform(src, corners.astype(np.float32)).astype(np.float64)
    if area_average:
        glyph, affine = shrunk_for_warp(glyph, affine)
    x0, y0, bw, bh = cv2.boundingRect(np.vstack([corners, corners[1] + corners[2] - corners[0]]).astype(np.float32))
    x0, y0 = max(x0 - 1, 0), max(y0 - 1, 0)
    x1, y1 = min(x0 + bw + 2, mask.shape[1]), min(y0 + bh + 2, mask.shape[0])
    if x1 <= x0 or y1 <= y0:
        return
    affine[:, 2] -= (x0, y0)
    warped = cv2.warpAffine(glyph, affine, (x1 - x0, y1 - y0), flags=cv2.INTER_AREA)
    region = mask[y0:y1, x0:x1]
    np.maximum(region, np.clip(warped * 255.0, 0, 255).astype(np.uint8), out=region)
