"""Camera sources behind one interface: every frame, live or replayed, goes through the same code.

``open_source(spec)`` understands:

- ``"picamera2"`` (optionally ``"picamera2:N"``): the Raspberry Pi camera; picamera2 is imported only here;
- ``"opencv:N"``: any device OpenCV can open (USB webcam N);
- a video file (anything OpenCV can decode);
- a folder of images (replayed in name order);
- a comma-separated list of image paths, or a Python list of paths (replay).

A source may also have ``detail()``: the last frame's moment at the camera's full resolution (the Pi camera
with ``board_detail``), which ``TableReader.read`` rectifies the boards from.

A bad spec raises :class:`SourceError` (a :class:`~companion.errors.UserError`) with one line naming it.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np

from companion.errors import UserError

IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"})
VIDEO_SUFFIXES = frozenset({".mp4", ".avi", ".mkv", ".mov", ".webm", ".m4v", ".mjpeg", ".mjpg", ".h264"})


class SourceError(UserError):
    """A camera or replay source that cannot be opened or read."""


class FrameSource(Protocol):
    name: str
    is_live: bool

    def read(self) -> np.ndarray | None:
        """The next BGR frame, or None when there is no frame now (live) or the replay has ended."""
        ...

    def close(self) -> None: ...


class ImageListSource:
    """Replays a list of image files, one frame per file, in the given order.

    An unreadable file is skipped with its name kept in ``failed`` (the replay goes on).
    """

    is_live = False

    def __init__(self, paths: Sequence[str | os.PathLike[str]], name: str | None = None) -> None:
        self.paths = [Path(p) for p in paths]
        self.name = name or (str(self.paths[0].parent) if self.paths else "empty list")
        self.failed: list[Path] = []
        self.current: Path | None = None
        self._next = 0

    def read(self) -> np.ndarray | None:
        while self._next < len(self.paths):
            path = self.paths[self._next]
            self._next += 1
            frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if frame is None:
                self.failed.append(path)
                continue
            self.current = path
            return frame
        return None

    def close(self) -> None:
        self._next = len(self.paths)


class OpenCVSource:
    """A video file or an OpenCV camera device."""

    def __init__(self, capture: cv2.VideoCapture, name: str, is_live: bool) -> None:
        self._capture = capture
        self.name = name
        self.is_live = is_live

    def read(self) -> np.ndarray | None:
        if self._capture is None:
            return None
        ok, frame = self._capture.read()
        if not ok or frame is None:
            return None
        if frame.ndim == 2:
            frame = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
        return frame

    def close(self) -> None:
        if self._capture is not None:
            self._capture.release()
            self._capture = None


class PiCameraSource:
    """The Raspberry Pi camera through picamera2 (only importable on a Pi)."""

    is_live = True

    def __init__(self, index: int = 0) -> None:
        # Size, exposure, white balance and focus come from the calibrated camera settings
        # (firmware_config/camera.toml, or the data directory's copy after `calibrate`): one place.
        from vision.camera_settings import load_camera_settings, start_picamera2

        try:
            from picamera2 import Picamera2  # only on a Pi, only when asked for
        except ImportError as exc:
            raise SourceError("picamera2: the picamera2 package is not installed (Raspberry Pi only)") from exc
        settings = load_camera_settings()
        try:
            self._camera = start_picamera2(settings, camera_factory=lambda: Picamera2(index))
        except UserError:
            raise
        except Exception as exc:  # the library raises many kinds; the person needs one line
            raise SourceError(f"picamera2: cannot open camera {index}: {exc}") from exc
        self.name = f"picamera2:{index}"
        # With board_detail the frame is the "lores" stream and the whole sensor stays in the frame's request
        # until the next frame: copied (36 MB) only if a board is read from it.
        self._board_detail = bool(settings["camera"]["board_detail"])
        self._width = int(settings["camera"]["size"][0])
        self._request: Any = None

    def read(self) -> np.ndarray | None:
        if self._camera is None:
            return None
        self._release()
        try:
            if not self._board_detail:
                # picamera2's "RGB888" is laid out B, G, R in memory: already OpenCV's order.
                return np.ascontiguousarray(self._camera.capture_array("main")[:, :, :3])
            request = self._camera.capture_request()
        except Exception:
            return None
        try:
            # YUV420 planes stacked (height * 3 / 2 rows); a padded row is cut back to the width.
            frame = cv2.cvtColor(request.make_array("lores"), cv2.COLOR_YUV2BGR_I420)[:, :self._width]
        except Exception:
            request.release()
            return None
        self._request = request
        return np.ascontiguousarray(frame)

    def detail(self) -> np.ndarray | None:
        """The last frame's moment from the whole sensor (BGR), or None without board_detail."""
        if self._request is None:
            return None
        try:
            return np.ascontiguousarray(self._request.make_array("main")[:, :, :3])
        except Exception:
            return None

    def _release(self) -> None:
        request, self._request = self._request, None
        if request is not None:
            with contextlib.suppress(Exception):  # a request already given back: nothing to do
                request.release()

    def close(self) -> None:
        self._release()
        if self._camera is not None:
            try:
                self._camera.stop()
                self._camera.close()
            finally:
                self._camera = None


def _image_list(paths: Sequence[str | os.PathLike[str]], name: str) -> ImageListSource:
    missing = [str(p) for p in paths if not Path(p).is_file()]
    if missing:
        raise SourceError(f"{missing[0]}: no such image file")
    if not paths:
        raise SourceError(f"{name}: no images to replay")
    return ImageListSource(paths, name=name)


def _quiet_capture(target: int | str) -> cv2.VideoCapture:
    """OpenCV and FFmpeg print their own warnings (to file descriptor 2) when a device or file cannot be
    opened; the person gets our one line instead, so they are sent to /dev/null for the open alone."""
    try:
        saved = os.dup(2)
    except OSError:
        return cv2.VideoCapture(target)
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 2)
            return cv2.VideoCapture(target)
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def open_source(spec: str | Sequence[str | os.PathLike[str]]) -> FrameSource:
    """Open a camera or a replay; raise SourceError with one line naming the problem."""
    if not isinstance(spec, str):
        return _image_list(list(spec), name=f"{len(spec)} images")
    spec = spec.strip()
    if not spec:
        raise SourceError("empty camera source")
    if spec == "picamera2" or spec.startswith("picamera2:"):
        index_text = spec.partition(":")[2] or "0"
        if not index_text.isdigit():
            raise SourceError(f"{spec}: camera number must be a whole number")
        return PiCameraSource(int(index_text))
    if spec.startswith("opencv:"):
        index_text = spec.partition(":")[2]
        if not index_text.isdigit():
            raise SourceError(f"{spec}: expected opencv:N with a device number N")
        capture = _quiet_capture(int(index_text))
        if not capture.isOpened():
            capture.release()
            raise SourceError(f"{spec}: no camera device {index_text}")
        return OpenCVSource(capture, spec, is_live=True)
    if "," in spec and not Path(spec).exists():
        return _image_list([p.strip() for p in spec.split(",") if p.strip()], name=spec)
    path = Path(spec)
    if path.is_dir():
        images = sorted(p for p in path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file())
        if not images:
            raise SourceError(f"{spec}: folder holds no images")
        return ImageListSource(images, name=spec)
    if not path.exists():
        raise SourceError(f"{spec}: no such camera, file or folder")
    if path.suffix.lower() in IMAGE_SUFFIXES:
        return _image_list([path], name=spec)
    capture = _quiet_capture(str(path))
    if not capture.isOpened():
        capture.release()
        raise SourceError(f"{spec}: not a video OpenCV can read")
    return OpenCVSource(capture, spec, is_live=False)
