"""The Pi camera source is configured from the calibrated camera settings (with a stand-in picamera2)."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.sources import SourceError, open_source

LOCKED = """
[camera]
size = [1280, 720]
[exposure]
mode = "locked"
exposure_time_us = 12000
analogue_gain = 2.0
[white_balance]
mode = "locked"
red_gain = 1.8
blue_gain = 1.5
"""


BOARD_DETAIL = LOCKED.replace("[camera]\n", "[camera]\nboard_detail = true\nsensor_size = [4608, 2592]\n")
# What the fake sensor sees: a colour OpenCV turns to YUV420 and back to within a level or two.
SCENE_BGR = (40, 120, 200)


class FakeRequest:
    """A picamera2 CompletedRequest: both streams of one moment, given back with ``release``."""

    def __init__(self, config: dict[str, object]) -> None:
        self.config = config
        self.released = False

    def make_array(self, name: str) -> np.ndarray:
        assert not self.released, "a request's arrays are made before it is released"
        width, height = self.config[name]["size"]  # type: ignore[index]
        scene = np.full((height, width, 3), SCENE_BGR, np.uint8)
        if self.config[name]["format"] == "YUV420":  # type: ignore[index]
            return cv2.cvtColor(scene, cv2.COLOR_BGR2YUV_I420)
        return scene

    def release(self) -> None:
        self.released = True


class FakePicamera2:
    opened: list[FakePicamera2] = []

    def __init__(self, index: int = 0) -> None:
        self.index = index
        self.controls: dict[str, object] = {}
        self.config: dict[str, object] = {}
        self.started = False
        self.requests: list[FakeRequest] = []
        FakePicamera2.opened.append(self)

    def create_video_configuration(self, **kwargs: object) -> dict[str, object]:
        return kwargs

    def configure(self, config: dict[str, object]) -> None:
        self.config = config

    def set_controls(self, controls: dict[str, object]) -> None:
        self.controls.update(controls)

    def start(self) -> None:
        self.started = True

    def capture_request(self) -> FakeRequest:
        self.requests.append(FakeRequest(self.config))
        return self.requests[-1]

    def capture_array(self, name: str) -> np.ndarray:
        width, height = self.config["main"]["size"]  # type: ignore[index]
        return np.full((height, width, 4), 7, np.uint8)

    def stop(self) -> None:
        self.started = False

    def close(self) -> None:
        pass


@pytest.fixture
def fake_picamera2(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> type[FakePicamera2]:
    module = types.ModuleType("picamera2")
    module.Picamera2 = FakePicamera2  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "picamera2", module)
    settings = tmp_path / "camera.toml"
    settings.write_text(LOCKED)
    monkeypatch.setenv("COMPANION_CAMERA_SETTINGS", str(settings))
    FakePicamera2.opened.clear()
    return FakePicamera2


def test_pi_camera_uses_the_calibrated_settings(fake_picamera2: type[FakePicamera2]) -> None:
    source = open_source("picamera2:1")
    camera = fake_picamera2.opened[-1]
    assert camera.index == 1 and camera.started
    assert camera.config["main"]["size"] == (1280, 720) and "lores" not in camera.config  # type: ignore[index]
    assert camera.controls["AeEnable"] is False and camera.controls["ExposureTime"] == 12000
    assert camera.controls["AwbEnable"] is False and camera.controls["ColourGains"] == (1.8, 1.5)
    frame = source.read()
    assert frame is not None and frame.shape == (720, 1280, 3)
    assert source.detail() is None and not camera.requests  # type: ignore[attr-defined]
    source.close()
    assert not camera.started


def test_pi_camera_reads_the_frame_from_lores_and_the_boards_from_the_whole_sensor(
        fake_picamera2: type[FakePicamera2], tmp_path: Path) -> None:
    (tmp_path / "camera.toml").write_text(BOARD_DETAIL)
    source = open_source("picamera2")
    camera = fake_picamera2.opened[-1]
    assert camera.config["lores"] == {"size": (1280, 720), "format": "YUV420"}
    assert camera.config["main"] == {"size": (4608, 2592), "format": "RGB888"}
    frame = source.read()
    assert frame is not None and frame.shape == (720, 1280, 3) and frame.flags["C_CONTIGUOUS"]
    assert np.abs(frame.astype(int) - SCENE_BGR).max() <= 3  # YUV420 turned into BGR, not RGB
    first = camera.requests[-1]
    assert not first.released  # held: a board may yet be read from it
    detail = source.detail()  # type: ignore[attr-defined]
    assert detail is not None and detail.shape == (2592, 4608, 3)
    source.read()
    assert first.released and not camera.requests[-1].released  # one request held at a time
    source.close()
    assert camera.requests[-1].released and not camera.started
    assert source.detail() is None  # type: ignore[attr-defined]


def test_without_picamera2_the_error_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "picamera2", None)
    with pytest.raises(SourceError, match="picamera2") as exc:
        open_source("picamera2")
    assert "\n" not in str(exc.value)
