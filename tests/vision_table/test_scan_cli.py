from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from companion.cli import main
from vision import pipeline
from vision.synth.pirates import track_scene
from vision.synth.table import render_table


@pytest.fixture
def stub_cells(monkeypatch, cell_stub):
    # The scan command is about the table; the cells have their own tests (tests/vision_cells).
    monkeypatch.setattr(pipeline.TableReader, "cell_reader", property(lambda self: cell_stub))
    return cell_stub


def test_scan_prints_one_json_line_per_image_and_carries_on_after_a_bad_one(tmp_path, capsys, stub_cells, table_spec):
    rng = np.random.default_rng(3)
    table, truth = render_table(table_spec, rng)
    table_path = tmp_path / "table.png"
    cv2.imwrite(str(table_path), table)
    track, players, marked = track_scene(np.random.default_rng(4), 2, 5)
    track_path = tmp_path / "track.png"
    cv2.imwrite(str(track_path), track)
    broken = tmp_path / "broken.jpg"
    broken.write_bytes(b"\xff\xd8 this is not really a jpeg")
    missing = tmp_path / "missing.png"

    code = main(["scan", str(table_path), str(broken), str(missing), str(track_path)])
    out, err = capsys.readouterr()
    assert code == 2
    lines = [json.loads(line) for line in out.splitlines()]
    assert [line["image"] for line in lines] == [str(table_path), str(track_path)]
    first, second = lines
    assert [b["seat"] for b in first["boards"]] == [0, 1, 2]
    assert all(len(b["city"]) == 7 and isinstance(b["uncertain"], list) for b in first["boards"])
    assert sorted(first["dice"]) == sorted(truth.dice_faces)
    assert first["pirate_boxes"] == table_spec.pirate_boxes
    # a picture of the track alone: no boards, no tray, but the boxes
    assert second["boards"] == [] and second["dice"] == [] and second["pirate_boxes"] == marked
    err_lines = err.strip().splitlines()
    assert len(err_lines) == 2
    assert "broken.jpg" in err_lines[0] and "missing.png" in err_lines[1]


def test_scan_of_good_images_exits_zero(tmp_path, capsys, stub_cells):
    track, _, marked = track_scene(np.random.default_rng(5), 4, 17)
    path = tmp_path / "t.png"
    cv2.imwrite(str(path), track)
    assert main(["scan", str(path), str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [json.loads(line)["pirate_boxes"] for line in out] == [marked, marked]


def test_teach_names_a_missing_photo(tmp_path, capsys):
    code = main(["teach", str(tmp_path / "nope.jpg"), "--data", str(tmp_path)])
    assert code == 2
    assert "nope.jpg" in capsys.readouterr().err
