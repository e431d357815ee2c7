"""The Pi camera source is configured from the calibrated camera settings (with a stand-in picamera2)."""

from __future__ import annotations

import sys
import types
from pathlib import Path

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


class FakePicamera2:
    opened: list[FakePicamera2] = []

    def __init__(self, index: int = 0) -> None:
        self.index = index
        self.controls: dict[str, object] = {}
        self.config: dict[str, object] = {}
        self.started = False
        FakePicamera2.opened.append(self)

    def create_video_configuration(self, **kwargs: object) -> dict[str, object]:
        return kwargs

    def configure(self, config: dict[str, object]) -> None:
        self.config = config

    def set_controls(self, controls: dict[str, object]) -> None:
        self.controls.update(controls)

    def start(self) -> None:
        self.started = True

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
    assert camera.config["main"]["size"] == (1280, 720)  # type: ignore[index]
    assert camera.controls["AeEnable"] is False and camera.controls["ExposureTime"] == 12000
    assert camera.controls["AwbEnable"] is False and camera.controls["ColourGains"] == (1.8, 1.5)
    frame = source.read()
    assert frame is not None and frame.shape == (720, 1280, 3)
    source.close()
    assert not camera.started


def test_without_picamera2_the_error_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "picamera2", None)
    with pytest.raises(SourceError, match="picamera2") as exc:
        open_source("picamera2")
    assert "\n" not in str(exc.value)
