"""Camera settings: the shipped file loads, gives the right picamera2 controls, and bad files say why."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.errors import UserError
from vision import camera_settings as cs

FIRMWARE = Path(__file__).resolve().parents[2] / "firmware_config"


def test_shipped_file_loads_and_covers_every_setting():
    settings = cs.load_camera_settings(FIRMWARE / "camera.toml")
    raw = cs.tomllib.loads((FIRMWARE / "camera.toml").read_text())
    # the shipped file documents every setting, not only some
    assert {s: set(v) for s, v in raw.items()} == {s: set(v) for s, v in cs.DEFAULTS.items()}
    assert settings["camera"]["size"] == [1920, 1080]
    assert settings["focus"]["mode"] in ("manual", "continuous")


def test_controls_for_the_shipped_file():
    controls = cs.picamera2_controls(cs.load_camera_settings(FIRMWARE / "camera.toml"))
    assert controls["FrameDurationLimits"] == (100000, 100000)  # 10 fps, fixed
    assert controls["AeEnable"] is True and controls["AwbEnable"] is True  # not calibrated yet
    assert controls["AeFlickerMode"] == cs.AE_FLICKER_MANUAL and controls["AeFlickerPeriod"] == 10000  # 50 Hz
    assert controls["AfMode"] == cs.AF_MODE_MANUAL and controls["LensPosition"] == pytest.approx(1.33)
    assert "ExposureTime" not in controls and "ColourGains" not in controls


def test_locked_settings_give_fixed_exposure_white_balance_and_continuous_focus(tmp_path):
    path = tmp_path / "camera.toml"
    path.write_text(
        "[camera]\nframe_rate = 5\n"
        '[exposure]\nmode = "locked"\nexposure_time_us = 33333\nanalogue_gain = 2.5\nmains_hz = 60\n'
        '[white_balance]\nmode = "locked"\nred_gain = 2.1\nblue_gain = 1.4\n'
        '[focus]\nmode = "continuous"\n'
    )
    controls = cs.picamera2_controls(cs.load_camera_settings(path))
    assert controls == {
        "FrameDurationLimits": (200000, 200000),
        "AeEnable": False,
        "ExposureTime": 33333,
        "AnalogueGain": 2.5,
        "AwbEnable": False,
        "ColourGains": (2.1, 1.4),
        "AfMode": cs.AF_MODE_CONTINUOUS,
    }


def test_controls_unknown_to_the_camera_are_left_out():
    available = {"FrameDurationLimits": None, "AeEnable": None, "AwbEnable": None}  # e.g. no autofocus
    controls = cs.picamera2_controls(cs.DEFAULTS, available)
    assert set(controls) == set(available)


def test_search_order_env_then_data_dir_then_defaults(tmp_path, monkeypatch):
    data_file = tmp_path / "data.toml"
    data_file.write_text('[focus]\nmode = "continuous"\n')
    env_file = tmp_path / "env.toml"
    env_file.write_text("[camera]\nframe_rate = 2\n")
    monkeypatch.setattr(cs, "SEARCH_PATHS", (data_file, tmp_path / "etc.toml"))
    monkeypatch.delenv(cs.ENV_VAR, raising=False)
    assert cs.load_camera_settings()["focus"]["mode"] == "continuous"
    monkeypatch.setenv(cs.ENV_VAR, str(env_file))
    loaded = cs.load_camera_settings()
    assert loaded["camera"]["frame_rate"] == 2 and loaded["focus"]["mode"] == "manual"
    monkeypatch.delenv(cs.ENV_VAR)
    data_file.unlink()
    assert cs.load_camera_settings() == cs.DEFAULTS


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("[exposure]\nmode = 'fast'\n", "[exposure] mode"),
        ("[camera]\nsize = [1920]\n", "[camera] size"),
        ("[camera]\nframe_rate = 0\n", "[camera] frame_rate"),
        ("[focus]\nlens = 1\n", "[focus] lens"),
        ("[lights]\non = true\n", "[lights]"),
        ("[exposure]\nmode = 'locked'\nexposure_time_us = 500000\n", "exposure_time_us"),
        ("[camera\n", "not valid TOML"),
    ],
)
def test_bad_files_name_the_field(tmp_path, text, names):
    path = tmp_path / "camera.toml"
    path.write_text(text)
    with pytest.raises(UserError) as err:
        cs.load_camera_settings(path)
    message = str(err.value)
    assert names in message and str(path) in message and "\n" not in message


def test_missing_explicit_file_is_a_user_error(tmp_path):
    with pytest.raises(UserError, match="not found"):
        cs.load_camera_settings(tmp_path / "nope.toml")


class FakePicamera2:
    """Records what the settings code asks of a Picamera2."""

    def __init__(self) -> None:
        self.camera_controls = {name: None for name in (
            "FrameDurationLimits", "AeEnable", "ExposureTime", "AnalogueGain", "AwbEnable", "ColourGains",
            "AfMode", "AfTrigger", "LensPosition")}  # an older libcamera: no flicker controls
        self.calls: list[tuple[str, object]] = []

    def create_video_configuration(self, **kwargs: object) -> dict:
        return {"video": kwargs}

    def configure(self, config: object) -> None:
        self.calls.append(("configure", config))

    def set_controls(self, controls: dict) -> None:
        self.calls.append(("set_controls", dict(controls)))

    def start(self) -> None:
        self.calls.append(("start", None))

    def capture_metadata(self) -> dict:
        return {"ExposureTime": 18000, "AnalogueGain": 1.7, "ColourGains": (2.05, 1.55), "LensPosition": 1.21}

    def close(self) -> None:
        self.calls.append(("close", None))


def test_start_picamera2_configures_full_sensor_1080p_and_applies_controls():
    camera = FakePicamera2()
    assert cs.start_picamera2(cs.DEFAULTS, camera_factory=lambda: camera) is camera
    (step1, config), (step2, controls), (step3, _) = camera.calls
    assert (step1, step2, step3) == ("configure", "set_controls", "start")
    video = config["video"]
    assert video["main"] == {"size": (1920, 1080), "format": "RGB888"} and "lores" not in video
    assert video["sensor"]["output_size"] == (2304, 1296) and video["buffer_count"] == 2
    assert "AeFlickerMode" not in controls  # this camera does not know it
    assert controls["AfMode"] == cs.AF_MODE_MANUAL


def test_board_detail_reads_the_frame_from_lores_and_keeps_the_whole_sensor_in_main(tmp_path):
    path = tmp_path / "camera.toml"
    path.write_text("[camera]\nboard_detail = true\nsensor_size = [4608, 2592]\n")
    camera = FakePicamera2()
    cs.start_picamera2(cs.load_camera_settings(path), camera_factory=lambda: camera)
    video = camera.calls[0][1]["video"]
    # The frame the pipeline reads is 1080p (lores); the boards come from the whole sensor (main).
    assert video["lores"] == {"size": (1920, 1080), "format": "YUV420"}
    assert video["main"] == {"size": (4608, 2592), "format": "RGB888"}
    assert video["sensor"]["output_size"] == (4608, 2592) and video["buffer_count"] == 3


@pytest.mark.parametrize(("text", "says"), [
    ("[camera]\nboard_detail = true\nsensor_size = [1920, 1080]\n", "board_detail needs a sensor_size larger than size"),
    ("[camera]\nboard_detail = 1\n", "board_detail must be true or false"),
])
def test_board_detail_settings_that_cannot_work_say_why(tmp_path, text, says):
    path = tmp_path / "camera.toml"
    path.write_text(text)
    with pytest.raises(UserError, match=says) as exc:
        cs.load_camera_settings(path)
    assert "\n" not in str(exc.value)


def test_calibrate_locks_what_the_camera_settled_on(tmp_path):
    camera = FakePicamera2()
    out = tmp_path / "var" / "camera.toml"
    cs.calibrate(out, cs.DEFAULTS, camera_factory=lambda: camera, settle_seconds=0)
    assert ("close", None) in camera.calls
    reloaded = cs.load_camera_settings(out)  # the written file is valid and read back
    assert reloaded["camera"]["board_detail"] is False  # written as TOML's false, not Python's False
    assert reloaded["exposure"] == {"mode": "locked", "exposure_time_us": 18000, "analogue_gain": 1.7, "mains_hz": 50}
    assert reloaded["white_balance"] == {"mode": "locked", "red_gain": 2.05, "blue_gain": 1.55}
    assert reloaded["focus"]["lens_position"] == pytest.approx(1.21)
    controls = cs.picamera2_controls(reloaded)
    assert controls["AeEnable"] is False and controls["ColourGains"] == (2.05, 1.55)
