"""Fixtures for the dashboard: an app over a fresh data directory, a client holding a CSRF token."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from companion.bots import GreedyBot, RandomBot
from web import create_app

WALL_MOVE = {"player": 0, "dice": ["wall", "wall", "log", "head", "swords"], "symbol": "wall", "turned": 0,
             "place": "B1=W C1=W", "logs": 0}


def form_move(**change: Any) -> dict[str, Any]:
    """WALL_MOVE as the dashboard's form posts it (one field per die)."""
    data = {k: v for k, v in WALL_MOVE.items() if k != "dice"}
    data.update({f"die{i}": d for i, d in enumerate(WALL_MOVE["dice"])})
    data.update(change)
    return data


@pytest.fixture
def app(tmp_path):
    app = create_app({"DATA_DIR": str(tmp_path / "data"), "TESTING": False})
    yield app
    app.extensions["table"].close()


@pytest.fixture
def service(app):
    return app.extensions["table"]


class Table:
    """A browser session at the table: knows its CSRF token, may know the PIN."""

    def __init__(self, client: Any, pin: str) -> None:
        self.client = client
        self.pin = pin
        page = client.get("/setup")
        self.token = re.search(r'name="csrf-token" content="([^"]+)"', page.text).group(1)

    def post(self, path: str, data: dict[str, Any] | None = None, *, pin: str | None = "ok",
             token: str | None = "ok", as_json: bool = False) -> Any:
        data = dict(data or {})
        headers = {}
        pin_value = self.pin if pin == "ok" else pin
        token_value = self.token if token == "ok" else token
        if as_json:
            if pin_value is not None:
                headers["X-Table-Pin"] = pin_value
            if token_value is not None:
                headers["X-CSRF-Token"] = token_value
            return self.client.post(path, json=data, headers=headers)
        if pin_value is not None:
            data["pin"] = pin_value
        if token_value is not None:
            data["csrf_token"] = token_value
        return self.client.post(path, data=data)

    def new_game(self, names: list[str], **extra: Any) -> Any:
        data = {f"player{i}": n for i, n in enumerate(names)}
        data.update({k: str(v) for k, v in extra.items()})
        return self.post("/setup", data)


@pytest.fixture
def table(app, service):
    return Table(app.test_client(), service.pin)


@pytest.fixture
def stranger(app, service):
    """Another phone: its own session, which has not given the PIN yet."""
    return Table(app.test_client(), service.pin)


@pytest.fixture
def game(table):
    response = table.new_game(["Anke", "Ben", "Carla"])
    assert response.status_code == 303
    return table


def play_to_the_end(tracker: Any, seed: int = 4) -> None:
    bots = [GreedyBot(seed), RandomBot(seed + 1), GreedyBot(seed + 2)]
    rng = random.Random(seed)
    while not tracker.finished:
        state = tracker.state
        action = bots[state.current_player].choose_action(state, rng).to_json()
        assert tracker.enter_move(action).legal
