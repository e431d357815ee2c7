"""The third to sixth renderers (``vision/synth/third_renderer``, ``fourth_renderer``, ``fifth_renderer``, ``sixth_renderer``),
training sources each written apart from the product and from the others: their photos are boards the product finds by their markers, and their truth
labels every space a player can draw on."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.layout import ALL_CELLS
from vision.board.locate import find_boards
from vision.cells.dataset import SPACE_INDEX
from vision.cells.labels import GLYPH_CLASSES, glyph_for_char
from vision.cells.train_other_renderer import NOT_LEARNED, _unlearned, other_renderer_cells

SYNTH = Path(__file__).resolve().parents[2] / "vision" / "synth"


def _glyphs_module(renderer: str, module: str = "glyphs"):
    """A renderer's ``glyphs.py`` (or another of its modules), imported on its own (the renderers are scripts, not packages)."""
    spec = importlib.util.spec_from_file_location(f"{renderer}_{module}", SYNTH / renderer / f"{module}.py")
    assert spec is not None and spec.loader is not None
    glyphs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(glyphs)
    return glyphs


@pytest.mark.parametrize("renderer", ["third_renderer", "fourth_renderer", "fifth_renderer", "sixth_renderer"])
def test_its_photos_are_found_and_become_labelled_cells(tmp_path, renderer):
    # An empty home: without the web fonts (CI does not fetch them) its letters are all drawn in strokes.
    env = {**os.environ, "HOME": str(tmp_path / "home")}
    out = tmp_path / "boards"
    drawn = subprocess.run([sys.executable, str(SYNTH / renderer / "render.py"), "--out", str(out), "--boards", "3", "--seed", "5"],
                           env=env, capture_output=True, text=True, timeout=120)
    assert drawn.returncode == 0, drawn.stderr
    lines = [json.loads(t) for t in (out / "truth.jsonl").read_text().splitlines()]
    assert [line["image"] for line in lines] == ["board_00000.png", "board_00001.png", "board_00002.png"]
    for line in lines:
        assert len(line["city"]) == 7 and all(len(row) == 7 for row in line["city"])
        drawn_spaces = {ALL_CELLS[i] for i in range(49) if line["city"][i // 7][i % 7] not in ".#"}
        assert set(line["styles"]) <= drawn_spaces and line["styles"]  # a style for drawn spaces only
        assert all("|font:" not in style for style in line["styles"].values())  # no fonts here: strokes
        photo = cv2.imread(str(out / line["image"]))
        assert photo is not None and line["seat"] in [board.seat for board in find_boards(photo)]
    x, y = other_renderer_cells(out, workers=1)
    assert x.shape[0] == y.shape[0] == 3 * len(SPACE_INDEX)
    expected = []
    for line in lines:
        for i in SPACE_INDEX:
            unlearned = _unlearned(line["styles"].get(ALL_CELLS[i], ""))
            expected.append(NOT_LEARNED if unlearned else
                            GLYPH_CLASSES.index(glyph_for_char(line["city"][i // 7][i % 7], "en")))
    assert y.tolist() == expected
    assert float(np.asarray(x, np.float32).std()) > 0.05  # ink and print in the crops, not blank paper


def test_it_never_draws_a_font_kept_for_evaluation(tmp_path, monkeypatch):
    """The nine fonts no network may learn (the benchmark renderer's and ``bench_hands --new-hands``'): none is among
    the third renderer's fonts, and its own list of them is the product's."""
    from vision.synth.web_fonts import NEW_HAND_FONTS

    # An empty home, so that importing it renders no font (seconds where they were fetched).
    monkeypatch.setenv("HOME", str(tmp_path))
    glyphs = _glyphs_module("third_renderer")
    assert len(glyphs.FONTS) >= 70 and glyphs.FONT_MASKS == {}
    assert set(NEW_HAND_FONTS) == glyphs.FORBIDDEN
    assert not set(glyphs.FONTS) & set(NEW_HAND_FONTS)


@pytest.mark.parametrize("renderer", ["fourth_renderer", "fifth_renderer"])
def test_the_fourth_and_fifth_never_draw_a_font_kept_for_evaluation(tmp_path, monkeypatch, renderer):
    """The fourth and fifth renderers take every font they find in the fonts' folder but the nine no network may
    learn: their list of them is the product's, and with all of them in the folder they take none of them."""
    from vision.synth.web_fonts import NEW_HAND_FONTS

    folder = tmp_path / ".cache" / "companion" / "web-fonts"
    folder.mkdir(parents=True)
    for name in (*NEW_HAND_FONTS, "caveat", "indie-flower"):
        (folder / f"{name}.woff").write_bytes(b"")  # listed by name; a font is opened only when drawn
    monkeypatch.setenv("HOME", str(tmp_path))
    glyphs = _glyphs_module(renderer)
    assert set(NEW_HAND_FONTS) == glyphs.FORBIDDEN
    assert sorted(glyphs.FONTS) == ["caveat", "indie-flower"]


def test_the_sixth_never_draws_a_font_kept_for_evaluation(tmp_path, monkeypatch):
    """The sixth renderer names the fonts it draws from: none of the nine no network may learn is among them, its
    list of those is the product's, and asking it for one of them is refused."""
    from vision.synth.web_fonts import NEW_HAND_FONTS

    monkeypatch.setenv("HOME", str(tmp_path))
    fonts = _glyphs_module("sixth_renderer", "fonts")
    assert set(NEW_HAND_FONTS) == fonts.FORBIDDEN
    assert len(fonts.WANTED) >= 40 and not set(fonts.WANTED) & set(NEW_HAND_FONTS)
    for name in NEW_HAND_FONTS:
        with pytest.raises(ValueError, match="reserved"):
            fonts.glyph_mask(name, "a")
