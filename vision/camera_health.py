"""A camera that may come and go: ``WatchedSource`` never raises on read and reopens the camera by itself.

A ribbon cable knocked loose or a USB webcam pulled out must not stop the companion: reads return None
while the camera is away, ``status`` says so for the dashboard, and a background thread tries to open it
again every ``retry_seconds`` so it is back within a few seconds of being plugged in.

Status: "ok" (frames come), "reconnecting" (just lost, or a reopen is being tried), "missing" (no camera;
the last attempt failed), "ended" (a video file or image folder has been played to its end, or its
files were deleted). ``last_error`` is one line saying why, "" when fine.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from typing import Any, Literal, Protocol

import numpy as np

Status = Literal["ok", "missing", "reconnecting", "ended"]


class FrameSourceLike(Protocol):
    """What ``vision.sources.open_source`` returns (see the team brief)."""

    name: str
    is_live: bool

    def read(self) -> np.ndarray | None: ...

    def close(self) -> None: ...


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    message = text[0] if text else ""
    line = f"{type(exc).__name__}: {message}" if message else type(exc).__name__
    return line[:200]


def _default_open(spec: str) -> FrameSourceLike:
    from vision.sources import open_source  # lazily: sources pulls in camera libraries

    return open_source(spec)


class WatchedSource:
    """Wraps ``vision.sources.open_source(spec)``; see the module doc.

    ``stall_seconds``: a live source that gives no frame for this long is taken as lost (a USB camera
    pulled out often returns nothing instead of raising).
    """

    def __init__(
        self,
        spec: str,
        open_fn: Callable[[str], FrameSourceLike] | None = None,
        retry_seconds: float = 1.0,
        stall_seconds: float = 3.0,
    ) -> None:
        self.spec = spec
        self.retry_seconds = retry_seconds
        self.stall_seconds = stall_seconds
        self._open_fn = open_fn or _default_open
        self._lock = threading.Lock()  # guards _source swaps and reads
        self._source: FrameSourceLike | None = None
        self._closed = threading.Event()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self._last_frame_time = time.monotonic()
        # plain attributes, replaced whole: the web server reads them without taking the lock
        self.status: Status = "reconnecting"
        self.last_error = ""
        self.since = time.time()  # when status last changed
        self.reconnects = 0
        if not self._try_open():
            self._start_reconnecting()

    # -- what the server reads ---------------------------------------------------------------------------
    @property
    def name(self) -> str:
        source = self._source
        return source.name if source is not None else self.spec

    @property
    def is_live(self) -> bool:
        source = self._source
        return bool(source.is_live) if source is not None else True

    def health(self) -> dict[str, Any]:
        """The camera's state for the dashboard, JSON-ready."""
        return {
            "source": self.spec,
            "status": self.status,
            "last_error": self.last_error,
            "since": self.since,
            "reconnects": self.reconnects,
        }

    def read(self) -> np.ndarray | None:
        """The next frame, or None (no camera now, no new frame, or a file source has ended). Never raises."""
        with self._lock:
            source = self._source
            if source is None:
                return None
            try:
                frame = source.read()
            except Exception as exc:  # whatever a driver throws, the server keeps running
                self._lose(exc)
                return None
            now = time.monotonic()
            if frame is not None:
                self._last_frame_time = now
                return frame
            if getattr(source, "is_live", True):
                if now - self._last_frame_time > self.stall_seconds:
                    self._lose(RuntimeError(f"no frame from {self.spec} for {self.stall_seconds:g} s"))
            else:  # a replay gives no more frames: it has ended (played out, or its files are gone)
                failed = getattr(source, "failed", None)
                self._set_status("ended", f"{self.spec}: {len(failed)} image(s) could not be read"
                                 if failed else f"{self.spec}: the replay has ended")
            return None

    def detail(self) -> np.ndarray | None:
        """The last frame's moment at the camera's full resolution, when the camera gives one (``PiCameraSource``
        with board_detail); None otherwise. Never raises."""
        with self._lock:
            detail = getattr(self._source, "detail", None)
            if not callable(detail):
                return None
            try:
                return detail()
            except Exception:  # the next read finds out whether the camera is still there
                return None

    def close(self) -> None:
        self._closed.set()
        self._wake.set()
        with self._lock:
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=5)
        with self._lock:
            self._close_source()

    def __enter__(self) -> WatchedSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- inside ------------------------------------------------------------------------------------------
    def _set_status(self, status: Status, error: str | None = None) -> None:
        if error is not None:
            self.last_error = error
        if status != self.status:
            self.status = status
            self.since = time.time()

    def _try_open(self, reconnect: bool = False) -> bool:
        try:
            source = self._open_fn(self.spec)
        except Exception as exc:  # SourceError for a missing camera, anything from a driver
            self._set_status("missing", _one_line(exc))
            return False
        with self._lock:
            if self._closed.is_set():
                source.close()
                return True
            self._close_source()
            self._source = source
            self._last_frame_time = time.monotonic()
            if reconnect:
                self.reconnects += 1  # before "ok" shows, so a reader never sees ok with the old count
            self._set_status("ok", "")
        return True

    def _close_source(self) -> None:
        source, self._source = self._source, None
        if source is not None:
            with contextlib.suppress(Exception):  # a vanished device may fail to close; it is gone anyway
                source.close()

    def _lose(self, exc: BaseException) -> None:
        """Called with the lock held: drop the source and let the reconnect thread bring it back."""
        self._close_source()
        self._set_status("reconnecting", _one_line(exc))
        self._start_reconnecting()

    def _start_reconnecting(self) -> None:
        """Start the reconnect thread unless it runs (called with the lock held, or before any thread)."""
        if self._closed.is_set():
            return
        if self._thread is not None:
            self._wake.set()
            return
        self._thread = threading.Thread(target=self._reconnect_loop, name=f"camera-reconnect:{self.spec}", daemon=True)
        self._thread.start()

    def _reconnect_loop(self) -> None:
        while not self._closed.is_set():
            with self._lock:
                if self._source is not None:
                    # back: the thread ends (under the lock, so a loss right now starts a new one)
                    self._thread = None
                    return
            if self._try_open(reconnect=True):
                continue
            self._wake.wait(self.retry_seconds)
            self._wake.clear()
