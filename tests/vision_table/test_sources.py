from __future__ import annotations

import cv2
import numpy as np
import pytest

from companion.errors import UserError
from vision.sources import SourceError, open_source


def _frames(n: int) -> list[np.ndarray]:
    # Each frame carries its index as a grey level, so order can be checked after a round trip.
    return [np.full((48, 64, 3), 40 + 30 * i, np.uint8) for i in range(n)]


def _read_all(source) -> list[np.ndarray]:
    out = []
    while (frame := source.read()) is not None:
        out.append(frame)
    source.close()
    return out


def test_folder_replays_images_in_name_order(tmp_path):
    for i, frame in enumerate(_frames(3)):
        cv2.imwrite(str(tmp_path / f"frame_{i:02d}.png"), frame)
    (tmp_path / "notes.txt").write_text("not an image")
    source = open_source(str(tmp_path))
    frames = _read_all(source)
    assert [int(f[0, 0, 0]) for f in frames] == [40, 70, 100]
    assert source.is_live is False


def test_list_and_comma_list_keep_the_given_order(tmp_path):
    paths = []
    for i, frame in enumerate(_frames(3)):
        path = tmp_path / f"f{i}.png"
        cv2.imwrite(str(path), frame)
        paths.append(str(path))
    reordered = [paths[2], paths[0], paths[1]]
    assert [int(f[0, 0, 0]) for f in _read_all(open_source(reordered))] == [100, 40, 70]
    assert [int(f[0, 0, 0]) for f in _read_all(open_source(",".join(reordered)))] == [100, 40, 70]


def test_video_file_gives_every_frame(tmp_path):
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48))
    assert writer.isOpened()
    for frame in _frames(4):
        writer.write(frame)
    writer.release()
    frames = _read_all(open_source(str(path)))
    assert len(frames) == 4
    assert [abs(int(f[20, 20].mean()) - (40 + 30 * i)) < 8 for i, f in enumerate(frames)] == [True] * 4


@pytest.mark.parametrize(
    ("spec", "named"),
    [("/no/such/place", "/no/such/place"), ("opencv:x", "opencv:x"), ("", "empty"), ("picamera2:z", "picamera2:z")],
)
def test_bad_spec_is_one_line_user_error(spec, named):
    with pytest.raises(SourceError) as info:
        open_source(spec)
    message = str(info.value)
    assert named in message and "\n" not in message
    assert isinstance(info.value, UserError)


def test_missing_file_in_a_list_is_named(tmp_path):
    good = tmp_path / "good.png"
    cv2.imwrite(str(good), _frames(1)[0])
    with pytest.raises(SourceError, match="missing.png"):
        open_source([str(good), str(tmp_path / "missing.png")])


def test_empty_folder_and_unreadable_video_are_refused(tmp_path):
    with pytest.raises(SourceError, match="no images"):
        open_source(str(tmp_path))
    bogus = tmp_path / "clip.mp4"
    bogus.write_bytes(b"not a video at all")
    with pytest.raises(SourceError, match="clip.mp4"):
        open_source(str(bogus))
