"""WatchedSource: a camera that fails, goes away and comes back; reads never raise."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from companion.errors import UserError
from vision.camera_health import WatchedSource


class FakeCamera:
    """A live source whose 'device' can be unplugged: then read raises, like a driver error."""

    is_live = True

    def __init__(self, bench: Bench) -> None:
        self.bench = bench
        self.name = "fake:0"
        self.closed = False

    def read(self) -> np.ndarray | None:
        if not self.bench.plugged:
            raise OSError("device disconnected\nsecond line that must not show")
        if self.bench.silent:
            return None
        return np.full((4, 4, 3), self.bench.frame_value, np.uint8)

    def close(self) -> None:
        self.closed = True


class Bench:
    """The test's hand on the cable: opening succeeds only while plugged."""

    def __init__(self, plugged: bool = True) -> None:
        self.plugged = plugged
        self.silent = False
        self.frame_value = 7
        self.opens = 0
        self.open_times: list[float] = []
        self.cameras: list[FakeCamera] = []
        self.lock = threading.Lock()

    def open(self, spec: str) -> FakeCamera:
        with self.lock:
            self.open_times.append(time.monotonic())
            if not self.plugged:
                raise UserError(f"{spec}: no camera found")
            self.opens += 1
            camera = FakeCamera(self)
            self.cameras.append(camera)
            return camera


def _wait_for(predicate, timeout: float) -> float:
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if predicate():
            return time.monotonic() - start
        time.sleep(0.01)
    raise AssertionError(f"not within {timeout} s")


def test_reads_frames_when_the_camera_is_there():
    bench = Bench()
    with WatchedSource("fake:0", open_fn=bench.open, retry_seconds=0.05) as source:
        frame = source.read()
        assert frame is not None and int(frame[0, 0, 0]) == 7
        assert source.status == "ok" and source.last_error == ""
        assert source.health()["status"] == "ok"


def test_camera_lost_then_back_is_reported_and_picked_up_within_five_seconds():
    bench = Bench()
    source = WatchedSource("fake:0", open_fn=bench.open, retry_seconds=0.1)
    try:
        assert source.read() is not None
        bench.plugged = False
        assert source.read() is None  # the failure is swallowed ...
        assert source.status in ("reconnecting", "missing")  # ... and reported
        assert source.last_error == "OSError: device disconnected"
        assert bench.cameras[0].closed  # the dead handle is released
        _wait_for(lambda: source.status == "missing", 2.0)
        assert "no camera found" in source.last_error
        for _ in range(5):
            assert source.read() is None  # still no exception while missing
        bench.plugged = True
        bench.frame_value = 9
        back_after = _wait_for(lambda: source.status == "ok", 5.0)
        assert back_after < 5.0
        frame = source.read()
        assert frame is not None and int(frame[0, 0, 0]) == 9
        assert source.last_error == "" and source.reconnects == 1
    finally:
        source.close()


def test_missing_at_start_keeps_retrying_at_the_interval():
    bench = Bench(plugged=False)
    source = WatchedSource("fake:0", open_fn=bench.open, retry_seconds=0.1)
    try:
        assert source.status == "missing" and source.read() is None
        time.sleep(0.8)
        attempts = len(bench.open_times)
        assert 4 <= attempts <= 12, attempts  # about every 0.1 s, not a busy loop
        bench.plugged = True
        _wait_for(lambda: source.status == "ok", 5.0)
        assert source.read() is not None
    finally:
        source.close()


def test_a_live_source_that_stops_giving_frames_is_reopened():
    bench = Bench()
    source = WatchedSource("fake:0", open_fn=bench.open, retry_seconds=0.05, stall_seconds=0.2)
    try:
        bench.silent = True
        deadline = time.monotonic() + 3
        while source.reconnects == 0 and time.monotonic() < deadline:
            assert source.read() is None
            time.sleep(0.02)
        assert source.reconnects >= 1 and bench.opens >= 2
        assert "no frame" in source.last_error or source.status == "ok"
    finally:
        source.close()


def test_close_stops_retrying():
    bench = Bench(plugged=False)
    source = WatchedSource("fake:0", open_fn=bench.open, retry_seconds=0.05)
    source.close()
    attempts = len(bench.open_times)
    time.sleep(0.3)
    assert len(bench.open_times) == attempts


def test_status_can_be_read_from_another_thread_while_frames_flow():
    bench = Bench()
    source = WatchedSource("fake:0", open_fn=bench.open, retry_seconds=0.02)
    seen: set[str] = set()
    stop = threading.Event()

    def watch() -> None:
        while not stop.is_set():
            seen.add(source.health()["status"])

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        for i in range(300):
            bench.plugged = (i // 50) % 2 == 0
            source.read()
            time.sleep(0.002)
        bench.plugged = True
        _wait_for(lambda: source.status == "ok", 5.0)
    finally:
        stop.set()
        watcher.join()
        source.close()
    assert seen <= {"ok", "missing", "reconnecting"} and "ok" in seen


def test_default_open_uses_vision_sources(tmp_path):
    pytest.importorskip("vision.sources")
    source = WatchedSource(str(tmp_path / "no-such-video.mp4"), retry_seconds=0.05)
    try:
        assert source.read() is None
        assert source.status in ("missing", "reconnecting")
        assert source.last_error and "\n" not in source.last_error
    finally:
        source.close()
