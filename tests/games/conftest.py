"""Fixtures for the games kept by hand: an app over a fresh data directory, a table client with its
CSRF token and PIN, a live server in a thread for the browser, and the rulebook examples as STATE.json."""

from __future__ import annotations

import re
import threading
from typing import Any

import pytest
from werkzeug.serving import make_server

from web import create_app


@pytest.fixture
def app(tmp_path):
    app = create_app({"DATA_DIR": str(tmp_path / "data")})
    yield app
    app.extensions["table"].close()


@pytest.fixture
def service(app):
    return app.extensions["table"]


class Table:
    """A phone at the table: knows its CSRF token and the PIN; entries go as JSON like the page's script."""

    def __init__(self, client: Any, pin: str) -> None:
        self.client = client
        self.pin = pin
        page = client.get("/setup")
        self.token = re.search(r'name="csrf-token" content="([^"]+)"', page.text).group(1)

    def headers(self, pin: str | None = "ok", token: str | None = "ok") -> dict[str, str]:
        out = {}
        if pin is not None:
            out["X-Table-Pin"] = self.pin if pin == "ok" else pin
        if token is not None:
            out["X-CSRF-Token"] = self.token if token == "ok" else token
        return out

    def new_game(self, game: str, names: list[str], **extra: Any) -> Any:
        data = {f"player{i}": n for i, n in enumerate(names)}
        data.update({"game": game, "pin": self.pin, "csrf_token": self.token}, **extra)
        return self.client.post("/setup", data=data)

    def start(self, game: str, names: list[str]) -> int:
        response = self.new_game(game, names)
        assert response.status_code == 303, response.text
        return int(response.headers["Location"].rsplit("/", 1)[1])

    def enter(self, game_id: int, event: dict[str, Any], **headers: Any) -> Any:
        return self.client.post(f"/play/{game_id}/event", json=event, headers=self.headers(**headers))

    def ok(self, game_id: int, event: dict[str, Any]) -> dict[str, Any]:
        response = self.enter(game_id, event)
        assert response.status_code == 200, response.json
        return response.json

    def undo(self, game_id: int) -> Any:
        return self.client.post(f"/play/{game_id}/undo", json={}, headers=self.headers())

    def state(self, game_id: int) -> dict[str, Any]:
        response = self.client.get(f"/play/{game_id}/state")
        assert response.status_code == 200
        return response.json


@pytest.fixture
def table(app, service):
    return Table(app.test_client(), service.pin)


@pytest.fixture
def live_server(app):
    """The app on a real socket (threads, like ``companion serve``), for the browser."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    thread.join(5)
