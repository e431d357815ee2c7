"""The camera thread: frames from the source, through vision, stable observations to the tracker."""

from __future__ import annotations

import threading
import time
from typing import Any

from web.service import TableService

FRAME_INTERVAL = 0.2  # seconds between frames: 5 per second is plenty for a table game


class CameraLoop(threading.Thread):
    """Reads ``spec`` (vision.sources spec) through a WatchedSource until stopped; never raises."""

    def __init__(self, service: TableService, spec: str, *, language: str = "en", data_dir: str | None = None,
                 hold_seconds: float = 1.0, frame_interval: float = FRAME_INTERVAL) -> None:
        super().__init__(name="camera", daemon=True)
        self.service = service
        self.spec = spec
        self.language = language
        self.data_dir = data_dir
        self.hold_seconds = hold_seconds
        self.frame_interval = frame_interval
        self.stop_event = threading.Event()

    def stop(self) -> None:
        self.stop_event.set()

    def _set_status(self, status: str, error: str = "") -> None:
        if (self.service.camera_status, self.service.camera_error) != (status, error):
            self.service.camera_status, self.service.camera_error = status, error
            self.service.publish()

    def run(self) -> None:
        try:
            from vision.camera_health import WatchedSource
            from vision.pipeline import TableReader
            from vision.stability import StabilityFilter
        except ImportError as exc:  # vision not installed completely: the dashboard still works by hand
            self._set_status("missing", f"vision unavailable ({exc.name})")
            return
        self.service.camera_spec = self.spec
        source: Any = WatchedSource(self.spec)
        reader = TableReader(language=self.language, data_dir=self.data_dir)
        stability = StabilityFilter(hold_seconds=self.hold_seconds)
        try:
            while not self.stop_event.is_set():
                started = time.monotonic()
                frame = source.read()
                self._set_status(str(source.status), str(source.last_error or ""))
                if frame is None:
                    tracker = self.service.tracker
                    if tracker is not None:
                        tracker.tick()
                    self.stop_event.wait(self.frame_interval)
                    continue
                try:
                    self.service.process_frame(frame, reader, stability, detail=source.detail)
                except Exception as exc:  # one bad frame must not stop the table
                    self._set_status("ok", f"frame skipped: {type(exc).__name__}: {exc}"[:200])
                self.stop_event.wait(max(0.0, self.frame_interval - (time.monotonic() - started)))
        finally:
            source.close()
