"""Bad input to the command (issue 15): exit 2 and one line naming the file or field, never exit 1 or a
traceback, and no decoding of an image before its size is known."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image

from companion.cli import main
from vision.camera_health import WatchedSource

REPO = Path(__file__).resolve().parents[2]
STATE = {"players": [{"name": "Anke", "city": ["#.....#", ".GG....", ".G.....", ".G.....", ".......", ".......",
                                              "#.....#"], "coins": 3, "logs": 2, "vp": 0}],
         "pirate_boxes": 0, "current_player": 0}


def one_line_exit_2(argv: list[str], capsys) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and "internal error" not in err
    return err


@pytest.mark.parametrize("text, words", [
    ("[" * 5000 + "]" * 5000, "nested more than 32 levels"),
    ('{"players": ' + "7" * 5000 + "}", "a number of 5000 characters"),
    ('{"players": [], "pirate_boxes": NaN}', "NaN is not a number"),
    ('{"players": [], "pirate_boxes": -Infinity}', "-Infinity is not a number"),
    (b"\xff\xfe{}", "not UTF-8"),
])
def test_hostile_json_files(tmp_path: Path, capsys, text, words: str):
    path = tmp_path / "state.json"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    for command in (["tally", str(path)], ["check", str(path), str(path)]):
        assert words in one_line_exit_2(command, capsys)


def test_a_byte_order_mark_is_accepted(tmp_path: Path, capsys):
    path = tmp_path / "state.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(STATE).encode())
    assert main(["tally", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)["winners"] == ["Anke"]


def test_a_folder_is_not_a_state(tmp_path: Path, capsys):
    assert "a folder" in one_line_exit_2(["tally", str(tmp_path)], capsys)


def test_a_permission_denied_image_says_so(tmp_path: Path, capsys, monkeypatch):
    photo = tmp_path / "photo.png"
    Image.new("RGB", (200, 200)).save(photo)
    real_open = Path.open

    def refusing_open(self: Path, *args, **kwargs):  # the tests run as root, where chmod 000 still reads
        if self == photo:
            raise PermissionError(13, "Permission denied", str(self))
        return real_open(self, *args, **kwargs)

    monkeypatch.setattr(Path, "open", refusing_open)
    assert "photo.png: permission denied" in one_line_exit_2(["scan", str(photo)], capsys)
    assert "photo.png: permission denied" in one_line_exit_2(["teach", str(photo)], capsys)


@pytest.mark.parametrize("size", [(1, 500), (500, 1), (1, 1), (63, 4000)])
def test_thin_images_are_refused_as_too_small(tmp_path: Path, capsys, size):
    photo = tmp_path / "thin.png"
    Image.new("RGB", size).save(photo)
    assert "too small to hold a board" in one_line_exit_2(["scan", str(photo)], capsys)


def test_teach_from_standard_input_that_is_not_an_image(capsys, monkeypatch):
    import io

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"hello")))
    assert "-: not an image" in one_line_exit_2(["teach", "-"], capsys)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"")))
    assert "standard input is empty" in one_line_exit_2(["teach", "-"], capsys)


def test_a_huge_png_is_refused_from_its_header_in_little_memory(tmp_path: Path):
    """A 20000x20000 PNG is a few hundred KB on disk and 1.2 GB decoded: refused before decoding."""
    photo = tmp_path / "huge.png"
    Image.new("1", (20000, 20000)).save(photo)
    assert photo.stat().st_size < 2_000_000
    # measured from a small parent: a child forked from pytest would count pytest's own memory
    measure = ("import resource, subprocess, sys; p = subprocess.run(sys.argv[1:], capture_output=True, text=True); "
               "sys.stderr.write(p.stderr); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); "
               "sys.exit(p.returncode)")
    proc = subprocess.run([sys.executable, "-c", measure, sys.executable, "-m", "companion", "scan", str(photo)],
                          capture_output=True, text=True, cwd=REPO, timeout=120)
    peak_kb = int(proc.stdout.strip())
    assert proc.returncode == 2 and "too many pixels" in proc.stderr and proc.stderr.count("\n") == 1
    assert peak_kb < 300_000  # far below the 1.2 GB a decode would take


@pytest.mark.parametrize("spec, words", [("opencv:abc", "expected opencv:N"), ("opencv:9", "no camera device 9"),
                                         ("/no/such/video.mp4", "no such camera, file or folder")])
def test_a_camera_that_cannot_be_opened_stops_the_service_at_start(tmp_path: Path, spec: str, words: str):
    proc = subprocess.run([sys.executable, "-m", "companion", "serve", "--camera", spec, "--data", str(tmp_path),
                           "--port", "8799"], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    assert words in proc.stderr


def test_a_replay_that_ends_or_is_deleted_says_ended(tmp_path: Path):
    folder = tmp_path / "frames"
    folder.mkdir()
    for k in range(2):
        cv2.imwrite(str(folder / f"{k}.png"), np.full((80, 80, 3), 40 * k, np.uint8))
    with WatchedSource(str(folder)) as source:
        assert source.read() is not None and source.status == "ok"
        for f in folder.iterdir():  # the folder is emptied while it plays
            f.unlink()
        deadline = time.monotonic() + 5
        while source.read() is None and source.status != "ended" and time.monotonic() < deadline:
            pass
        assert source.status == "ended" and "could not be read" in source.last_error
    (folder / "x.png").write_bytes(cv2.imencode(".png", np.zeros((80, 80, 3), np.uint8))[1].tobytes())
    with WatchedSource(str(folder)) as source:
        assert source.read() is not None
        assert source.read() is None and source.status == "ended"
