"""The game store: durable appends, resume after a kill, versioned schema, clear errors."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from companion.store import SCHEMA_VERSION, GameStore, StoreError

REPO = Path(__file__).resolve().parents[2]


def test_events_come_back_in_order_and_games_are_listed(tmp_path: Path) -> None:
    with GameStore(tmp_path) as store:
        gid = store.create_game({"players": ["Anke", "Bo"]})
        for i in range(5):
            assert store.append_event(gid, {"type": "move", "n": i}) == i + 1
        assert [e["n"] for e in store.events(gid)] == [0, 1, 2, 3, 4]
        assert store.current_game() == gid
        listed = store.list_games()
        assert listed[0]["id"] == gid and listed[0]["events"] == 5
        assert listed[0]["meta"] == {"players": ["Anke", "Bo"]}


def test_finished_game_is_not_current_and_keeps_its_tally(tmp_path: Path) -> None:
    with GameStore(tmp_path) as store:
        first = store.create_game()
        store.finish_game(first, {"winners": ["Anke"]})
        assert store.current_game() is None
        second = store.create_game()
        assert store.current_game() == second
        by_id = {g["id"]: g for g in store.list_games()}
        assert by_id[first]["tally"] == {"winners": ["Anke"]}
        store.reopen_game(first)
        assert store.current_game() == second  # newest unfinished wins
        store.finish_game(second, {})
        assert store.current_game() == first


def test_meta_and_settings_update(tmp_path: Path) -> None:
    with GameStore(tmp_path) as store:
        gid = store.create_game({"a": 1})
        store.set_meta(gid, b=2)
        assert store.meta(gid) == {"a": 1, "b": 2}
        assert store.get_setting("pin") is None
        store.set_setting("pin", "1234")
        store.set_setting("pin", "5678")
        assert store.get_setting("pin") == "5678"


def test_store_uses_wal_and_a_versioned_schema(tmp_path: Path) -> None:
    with GameStore(tmp_path) as store:
        assert store.schema_version == SCHEMA_VERSION
        path = store.path
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    db.close()


def test_append_to_unknown_game_is_refused(tmp_path: Path) -> None:
    with GameStore(tmp_path) as store, pytest.raises(KeyError):
        store.append_event(99, {"type": "move"})


def test_not_a_database_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "companion.sqlite3"
    bad.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="not a usable game store"):
        GameStore(tmp_path)


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    GameStore(tmp_path).close()
    db = sqlite3.connect(tmp_path / "companion.sqlite3")
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.commit()
    db.close()
    with pytest.raises(StoreError, match="newer companion"):
        GameStore(tmp_path)


def test_every_acknowledged_event_survives_a_kill(tmp_path: Path) -> None:
    """A writer process is SIGKILLed mid-stream; every event it acknowledged is still there, in order."""
    writer = textwrap.dedent(
        f"""
        import sys
        sys.path.insert(0, {str(REPO)!r})
        from companion.store import GameStore
        store = GameStore({str(tmp_path)!r})
        gid = store.current_game() or store.create_game({{"players": ["A", "B"]}})
        i = 0
        while True:
            seq = store.append_event(gid, {{"type": "move", "n": i}})
            print(seq, flush=True)
            i += 1
        """
    )
    proc = subprocess.Popen([sys.executable, "-c", writer], stdout=subprocess.PIPE, text=True)
    acknowledged = 0
    assert proc.stdout is not None
    deadline = time.monotonic() + 30
    while acknowledged < 200 and time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        acknowledged = int(line)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert acknowledged >= 200
    with GameStore(tmp_path) as store:
        gid = store.current_game()
        assert gid is not None
        events = store.events(gid)
        assert len(events) >= acknowledged
        assert [e["n"] for e in events] == list(range(len(events)))
        # and the store keeps working after the crash
        store.append_event(gid, {"type": "move", "n": len(events)})
        assert json.loads(json.dumps(store.events(gid)[-1]))["n"] == len(events)
