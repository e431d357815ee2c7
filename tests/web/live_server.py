"""The dashboard on a real port inside the test process (werkzeug's threaded server), so a browser test
can change the game through the tracker directly and watch the open pages follow."""

from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path
from typing import Any

import pytest
from werkzeug.serving import make_server

from web import create_app
from web.service import TableService

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
PHONE = {"width": 390, "height": 844}
ARTEFACTS = Path(os.environ.get("SCREENSHOT_DIR") or Path(__file__).resolve().parents[2] / "test-artefacts" / "phone")


def chromium_or_skip() -> Any:
    """playwright's sync API over Debian's Chromium; a missing browser fails under CI, else skips."""
    problem = None
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        problem, sync_playwright = "the playwright package is not installed", None
    if problem is None and not (os.path.exists(CHROMIUM) or shutil.which("chromium")):
        problem = "Chromium is not installed (apt-get install chromium)"
    if problem:
        if os.environ.get("CI") == "true":
            pytest.fail(f"browser test cannot run under CI: {problem}")
        pytest.skip(problem)
    return sync_playwright


def executable() -> str:
    return CHROMIUM if os.path.exists(CHROMIUM) else str(shutil.which("chromium"))


class LiveServer:
    """One TableService behind a real HTTP port; restart() starts a new service on the same data and port."""

    def __init__(self, data_dir: Path, port: int = 0) -> None:
        self.data_dir = data_dir
        self.service = TableService(str(data_dir))
        self.app = create_app({"SERVICE": self.service, "SERVE_HOST": "127.0.0.1", "SERVE_PORT": port})
        self.server = make_server("127.0.0.1", port, self.app, threaded=True)
        self.port = self.server.server_port
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def pin(self) -> str:
        return self.service.pin

    @property
    def tracker(self) -> Any:
        return self.service.tracker

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.service.close()

    def restart(self) -> LiveServer:
        self.stop()
        return LiveServer(self.data_dir, self.port)


def shoot(page: Any, name: str) -> Path:
    """A full-page screenshot kept as a test artefact (git-ignored folder, or $SCREENSHOT_DIR)."""
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTEFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def overflow(page: Any) -> int:
    """How many pixels the page is wider than the screen (0: no sideways scrolling)."""
    return int(page.evaluate("document.documentElement.scrollWidth - window.innerWidth"))
