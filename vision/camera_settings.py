"""Camera settings for the Raspberry Pi camera (picamera2): one TOML file, read by the code that opens it.

Why a file: a table's light and the camera's height are fixed once the companion is built, so exposure,
white balance and focus should be fixed too (auto modes drift as people lean over the table, and a drift
changes how the drawings look). ``python -m vision.camera_settings calibrate`` lets the camera settle in
auto mode once and writes the values it settled on, locked, into the data directory.

Where the file is looked for, first found wins (``load_camera_settings``):
  1. the ``path`` argument;
  2. ``$COMPANION_CAMERA_SETTINGS``;
  3. ``/var/lib/saint-malo-companion/camera.toml`` (written by calibration, survives updates);
  4. ``/etc/saint-malo-companion/camera.toml`` (installed from ``firmware_config/camera.toml``);
  5. the built-in ``DEFAULTS`` below.
Values missing from a file come from ``DEFAULTS``; unknown sections or keys are an error naming them.

For ``vision.sources`` (picamera2 path): ``start_picamera2(settings)`` configures and starts a camera,
or use ``picamera2_configuration(picam2, settings)`` and ``picamera2_controls(settings, available)``.
"""

from __future__ import annotations

import argparse
import copy
import math
import os
import sys
import time
import tomllib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from companion.errors import UserError

DATA_DIR = Path("/var/lib/saint-malo-companion")
SEARCH_PATHS: tuple[Path, ...] = (DATA_DIR / "camera.toml", Path("/etc/saint-malo-companion/camera.toml"))
ENV_VAR = "COMPANION_CAMERA_SETTINGS"

# libcamera's AfModeEnum values (picamera2 accepts the plain ints, so no libcamera import is needed here)
AF_MODE_MANUAL = 0
AF_MODE_CONTINUOUS = 2
# libcamera's AeFlickerModeEnum: Manual = 1 means "avoid flicker of the period given in AeFlickerPeriod"
AE_FLICKER_MANUAL = 1

DEFAULTS: dict[str, dict[str, Any]] = {
    "camera": {
        # what the vision pipeline reads: 1080p, the size the synthetic test tables are rendered at
        "size": [1920, 1080],
        # IMX708 (Camera Module 3) 2x2-binned mode: the WHOLE field of view at 1080p-ish cost; without it
        # picamera2 may pick a cropped mode and the wide lens loses the table's edges
        "sensor_size": [2304, 1296],
        # true: the boards are read from a second stream at sensor_size (copied only when a board is read), the
        # rest from ``size``. With the full-resolution mode ([4608, 2592], up to 14 fps) a cell is 70 px instead
        # of 29 at 75 cm, but on hands the networks never saw that read only a few cells more right than the
        # 1080p frame averaged down from the same picture (hardware.md), for 36 MB a buffer and untried on a Pi:
        # off by default
        "board_detail": False,
        # the table changes at human speed; 10 fps leaves CPU to the reader and allows long exposures
        "frame_rate": 10.0,
    },
    "exposure": {
        "mode": "auto",  # "auto" until calibrated, then "locked"
        "exposure_time_us": 10000,  # used when locked; a multiple of the mains half-period avoids banding
        "analogue_gain": 1.0,  # used when locked
        "mains_hz": 50,  # 50 (Europe) or 60 (Americas): auto exposure avoids flicker of lamps on the mains
    },
    "white_balance": {
        "mode": "auto",  # "auto" until calibrated, then "locked": the dice colours stay put
        "red_gain": 1.8,  # used when locked (libcamera ColourGains, red then blue)
        "blue_gain": 1.6,
    },
    "focus": {
        # "manual" holds the lens at lens_position: the table never moves, and continuous autofocus hunts
        # when a hand passes under the camera. "continuous" for a camera moved often. Camera Module 3 only.
        "mode": "manual",
        "lens_position": 1.33,  # dioptres = 1 / distance in metres: 1 / 0.75 m
    },
}

_MODES = {
    ("exposure", "mode"): ("auto", "locked"),
    ("white_balance", "mode"): ("auto", "locked"),
    ("focus", "mode"): ("manual", "continuous"),
}


def _check_value(source: str, section: str, key: str, value: object, default: object) -> object:
    where = f"{source}: [{section}] {key}"
    if (section, key) in _MODES:
        allowed = _MODES[(section, key)]
        if value not in allowed:
            raise UserError(f"{where} must be one of {', '.join(allowed)}, not {value!r}")
        return value
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise UserError(f"{where} must be true or false, not {value!r}")
        return value
    if isinstance(default, list):
        if (
            not isinstance(value, list)
            or len(value) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in value)
        ):
            raise UserError(f"{where} must be two positive whole numbers like [1920, 1080], not {value!r}")
        return list(value)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
        raise UserError(f"{where} must be a number >= 0, not {value!r}")
    if key in ("frame_rate", "analogue_gain", "red_gain", "blue_gain", "exposure_time_us") and value <= 0:
        raise UserError(f"{where} must be greater than 0, not {value!r}")
    if key == "mains_hz" and value not in (0, 50, 60):
        raise UserError(f"{where} must be 50, 60 or 0 (no flicker avoidance), not {value!r}")
    return value


def validate_settings(raw: Mapping[str, Any], source: str = "camera settings") -> dict[str, dict[str, Any]]:
    """Merge ``raw`` over ``DEFAULTS`` and check every value; ``UserError`` names the file and field."""
    settings = copy.deepcopy(DEFAULTS)
    for section, values in raw.items():
        if section not in DEFAULTS:
            raise UserError(f"{source}: unknown section [{section}] (known: {', '.join(DEFAULTS)})")
        if not isinstance(values, Mapping):
            raise UserError(f"{source}: [{section}] must be a table of settings")
        for key, value in values.items():
            if key not in DEFAULTS[section]:
                raise UserError(f"{source}: unknown setting [{section}] {key}")
            settings[section][key] = _check_value(source, section, key, value, DEFAULTS[section][key])
    camera = settings["camera"]
    if camera["board_detail"] and not all(s > f for s, f in zip(camera["sensor_size"], camera["size"], strict=True)):
        raise UserError(
            f"{source}: [camera] board_detail needs a sensor_size larger than size ({camera['sensor_size']} is not "
            f"larger than {camera['size']}); set board_detail = false for one stream"
        )
    exposure = settings["exposure"]
    frame_us = 1e6 / settings["camera"]["frame_rate"]
    if exposure["mode"] == "locked" and exposure["exposure_time_us"] > frame_us:
        raise UserError(
            f"{source}: [exposure] exposure_time_us {exposure['exposure_time_us']} is longer than one frame "
            f"({frame_us:.0f} us at {settings['camera']['frame_rate']} fps)"
        )
    return settings


def settings_path(path: str | os.PathLike[str] | None = None) -> Path | None:
    """The settings file that ``load_camera_settings`` would read (None: built-in defaults)."""
    if path is not None:
        return Path(path)
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env)
    for candidate in SEARCH_PATHS:
        if candidate.is_file():
            return candidate
    return None


def load_camera_settings(path: str | os.PathLike[str] | None = None) -> dict[str, dict[str, Any]]:
    """The camera settings: the file found (see module doc) over the built-in defaults."""
    chosen = settings_path(path)
    if chosen is None:
        return copy.deepcopy(DEFAULTS)
    try:
        raw = tomllib.loads(chosen.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UserError(f"{chosen}: camera settings file not found") from None
    except OSError as exc:
        raise UserError(f"{chosen}: cannot read camera settings ({exc.strerror})") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise UserError(f"{chosen}: not valid TOML ({str(exc).splitlines()[0]})") from None
    return validate_settings(raw, str(chosen))


def picamera2_controls(
    settings: Mapping[str, Mapping[str, Any]], available: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """libcamera controls for ``Picamera2.set_controls`` from validated settings.

    ``available``: the camera's ``camera_controls``; controls it does not know are left out (a USB-less
    Camera Module 2 has no autofocus, older libcamera builds have no flicker control).
    """
    camera, exposure = settings["camera"], settings["exposure"]
    white_balance, focus = settings["white_balance"], settings["focus"]
    frame_us = round(1e6 / float(camera["frame_rate"]))
    controls: dict[str, Any] = {"FrameDurationLimits": (frame_us, frame_us)}
    if exposure["mode"] == "locked":
        controls.update(
            AeEnable=False,
            ExposureTime=int(exposure["exposure_time_us"]),
            AnalogueGain=float(exposure["analogue_gain"]),
        )
    else:
        controls["AeEnable"] = True
        if exposure["mains_hz"]:
            # lamps flicker at twice the mains frequency: 10 000 us at 50 Hz, 8 333 us at 60 Hz
            controls.update(AeFlickerMode=AE_FLICKER_MANUAL, AeFlickerPeriod=round(1e6 / (2 * exposure["mains_hz"])))
    if white_balance["mode"] == "locked":
        controls.update(
            AwbEnable=False, ColourGains=(float(white_balance["red_gain"]), float(white_balance["blue_gain"]))
        )
    else:
        controls["AwbEnable"] = True
    if focus["mode"] == "manual":
        controls.update(AfMode=AF_MODE_MANUAL, LensPosition=float(focus["lens_position"]))
    else:
        controls["AfMode"] = AF_MODE_CONTINUOUS
    if available is not None:
        controls = {name: value for name, value in controls.items() if name in available}
    return controls


def picamera2_configuration(picam2: Any, settings: Mapping[str, Mapping[str, Any]]) -> Any:
    """A video configuration for ``picam2`` (a ``Picamera2``) from the settings.

    "RGB888" in picamera2 is laid out B, G, R in memory: exactly OpenCV's BGR, no conversion needed.
    """
    camera = settings["camera"]
    sensor = {"output_size": tuple(camera["sensor_size"]), "bit_depth": 10}
    streams: dict[str, Any] = {"main": {"size": tuple(camera["size"]), "format": "RGB888"}, "buffer_count": 2}
    if camera["board_detail"]:
        # The full picture is "main" (picamera2's larger stream), the frame the pipeline reads "lores" (YUV420:
        # the one format a Pi 4's second stream has). A third buffer: the source holds the frame's request
        # until the next frame, in case a board is read from it.
        streams = {"main": {"size": tuple(camera["sensor_size"]), "format": "RGB888"},
                   "lores": {"size": tuple(camera["size"]), "format": "YUV420"}, "buffer_count": 3}
    # few buffers: the reader always wants the newest frame, not a queue of stale ones
    try:
        return picam2.create_video_configuration(sensor=sensor, **streams)
    except TypeError:  # picamera2 older than 0.3.13 has no sensor= argument; it then picks the mode itself
        return picam2.create_video_configuration(**streams)


def start_picamera2(
    settings: Mapping[str, Mapping[str, Any]] | None = None,
    camera_factory: Callable[[], Any] | None = None,
) -> Any:
    """Open, configure and start the Pi camera with the settings; returns the running ``Picamera2``.

    Frames: ``picam2.capture_array("main")`` (BGR, ``settings["camera"]["size"]``); with ``board_detail``, the
    frame is the "lores" stream (YUV420, ``size``) and "main" the whole sensor (BGR, ``sensor_size``).
    """
    if settings is None:
        settings = load_camera_settings()
    if camera_factory is None:
        try:
            from picamera2 import Picamera2  # Debian's python3-picamera2, only on a Raspberry Pi
        except ImportError as exc:
            raise UserError(f"picamera2 is not available ({exc}); on a Pi: apt install python3-picamera2") from None
        camera_factory = Picamera2
    picam2 = camera_factory()
    picam2.configure(picamera2_configuration(picam2, settings))
    picam2.set_controls(picamera2_controls(settings, getattr(picam2, "camera_controls", None)))
    picam2.start()
    return picam2


def locked_from_metadata(
    settings: Mapping[str, Mapping[str, Any]], metadata: Mapping[str, Any]
) -> dict[str, dict[str, Any]]:
    """Settings with exposure, white balance (and focus, when given) locked at what the camera reports."""
    locked = copy.deepcopy(dict(settings))
    frame_us = 1e6 / locked["camera"]["frame_rate"]
    try:
        exposure_us = int(metadata["ExposureTime"])
        gain = float(metadata["AnalogueGain"])
        red, blue = (float(g) for g in metadata["ColourGains"])
    except (KeyError, TypeError, ValueError) as exc:
        raise UserError(f"camera metadata lacks exposure or colour gains ({exc})") from None
    locked["exposure"].update(mode="locked", exposure_time_us=min(exposure_us, int(frame_us)), analogue_gain=gain)
    locked["white_balance"].update(mode="locked", red_gain=round(red, 4), blue_gain=round(blue, 4))
    lens = metadata.get("LensPosition")
    if lens is not None:
        locked["focus"]["lens_position"] = round(float(lens), 3)
    return validate_settings(locked, "calibration")


def _toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return repr(value)


def dumps_settings(settings: Mapping[str, Mapping[str, Any]], header: str = "") -> str:
    """TOML text for the settings (flat sections of numbers, strings and number pairs)."""
    lines = [f"# {line}" for line in header.splitlines()]
    for section, values in settings.items():
        lines += ["", f"[{section}]"]
        lines += [f"{key} = {_toml_value(value)}" for key, value in values.items()]
    return "\n".join(lines).lstrip("\n") + "\n"


def save_camera_settings(settings: Mapping[str, Mapping[str, Any]], path: str | os.PathLike[str], header: str = "") -> None:
    """Write the settings atomically (a power cut mid-write leaves the old file)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(target.suffix + ".tmp")
    tmp.write_text(dumps_settings(settings, header), encoding="utf-8")
    os.replace(tmp, target)


def calibrate(
    out: str | os.PathLike[str],
    settings: Mapping[str, Mapping[str, Any]] | None = None,
    camera_factory: Callable[[], Any] | None = None,
    settle_seconds: float = 4.0,
) -> dict[str, dict[str, Any]]:
    """Let the camera settle in auto exposure / white balance / focus, then save those values locked."""
    base = copy.deepcopy(dict(settings if settings is not None else load_camera_settings()))
    auto = copy.deepcopy(base)
    auto["exposure"]["mode"] = "auto"
    auto["white_balance"]["mode"] = "auto"
    picam2 = start_picamera2(auto, camera_factory)
    try:
        if base["focus"]["mode"] == "manual" and "AfTrigger" in (getattr(picam2, "camera_controls", None) or {}):
            # one autofocus sweep on the table, so the locked lens position is the measured one
            picam2.set_controls({"AfMode": 1, "AfTrigger": 0})
        time.sleep(settle_seconds)
        metadata = picam2.capture_metadata()
    finally:
        picam2.close()
    locked = locked_from_metadata(base, metadata)
    save_camera_settings(
        locked, out, f"Written by `python -m vision.camera_settings calibrate` on {time.strftime('%Y-%m-%d %H:%M')}.\n"
        "Run it again after changing the lights or the camera height; delete this file to go back to auto."
    )
    return locked


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision.camera_settings", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("show", help="print the settings in effect and the libcamera controls they give")
    p.add_argument("--settings", default=None, help="settings file (default: searched, see module doc)")
    p = sub.add_parser("calibrate", help="settle in auto mode, then lock exposure, white balance and focus")
    p.add_argument("--settings", default=None, help="settings file to start from")
    p.add_argument("--out", default=str(DATA_DIR / "camera.toml"))
    p.add_argument("--settle", type=float, default=4.0, help="seconds to let auto exposure settle")
    args = parser.parse_args(argv)
    try:
        if args.command == "show":
            settings = load_camera_settings(args.settings)
            print(f"# from {settings_path(args.settings) or 'built-in defaults'}")
            print(dumps_settings(settings), end="")
            print(f"# picamera2 controls: {picamera2_controls(settings)}")
        else:
            locked = calibrate(args.out, load_camera_settings(args.settings), settle_seconds=args.settle)
            print(f"saved to {args.out}:")
            print(dumps_settings(locked), end="")
    except UserError as exc:
        print(f"camera settings: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
