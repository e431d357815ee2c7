"""The store under damage: a full disk, damaged rows and pages, file modes, the data-directory lock,
and `companion store check|repair|export` / `companion pin`."""

from __future__ import annotations

import json
import os
import random
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from companion.cli import main
from companion.datalock import DataDirBusy, DataDirLock
from companion.rules import FACES, GameState, random_action
from companion.store import DiskFull, GameStore, StoreDamaged
from companion.tracker import Tracker
from web.service import TableService

REPO = Path(__file__).resolve().parents[2]
NAMES = ["Anke", "Bo"]


def log_delivery(tracker: Tracker, seed: int = 0) -> dict:
    """A legal move for whoever is on turn (a random bot's choice with random dice)."""
    rng = random.Random(seed * 1000 + tracker.event_count)
    dice = rng.choices(FACES, k=5)
    return random_action(tracker.state, dice, rng).to_json()


def game_with_moves(data: Path, moves: int) -> int:
    with GameStore(data) as store:
        tracker = Tracker.start_game(store, NAMES)
        for _ in range(moves):
            assert tracker.enter_move(log_delivery(tracker)).legal
        return tracker.game_id


def test_store_file_and_lock_file_are_private(tmp_path: Path) -> None:
    with GameStore(tmp_path) as store:
        store.set_setting("table_pin", "123456")
        assert stat.S_IMODE(os.stat(store.path).st_mode) == 0o600
        wal = Path(str(store.path) + "-wal")
        assert not wal.exists() or stat.S_IMODE(wal.stat().st_mode) == 0o600
    os.chmod(tmp_path / "companion.sqlite3", 0o644)  # a store from an older version: made private on open
    GameStore(tmp_path).close()
    assert stat.S_IMODE(os.stat(tmp_path / "companion.sqlite3").st_mode) == 0o600
    with DataDirLock(tmp_path) as lock:
        assert stat.S_IMODE(lock.path.stat().st_mode) == 0o600


def test_a_full_disk_refuses_the_change_and_loses_nothing(tmp_path: Path) -> None:
    store = GameStore(tmp_path)
    tracker = Tracker.start_game(store, NAMES)
    pages = store._db.execute("PRAGMA page_count").fetchone()[0]
    store._db.execute(f"PRAGMA max_page_count = {pages}")  # the disk is full from now on
    played = 0
    with pytest.raises(DiskFull, match=r"companion.sqlite3: the disk is full, .* free some space"):
        for _ in range(500):  # a move and its undo, one row each; the page fills up within a few dozen
            if played % 2 == 0:
                assert tracker.enter_move(log_delivery(tracker)).legal
            else:
                tracker.undo()
            played += 1
    assert played < 500
    # the tracker still shows exactly what is on disk, and the table plays on once there is room
    assert len(store.events(tracker.game_id)) == played + 1 == tracker.event_count
    store._db.execute("PRAGMA max_page_count = 1000000")
    assert tracker.enter_move(log_delivery(tracker)).legal
    store.close()
    with GameStore(tmp_path) as again:
        assert len(again.events(tracker.game_id)) == played + 2


def damage_row(data: Path, game_id: int, seq: int) -> None:
    db = sqlite3.connect(data / "companion.sqlite3")
    db.execute("UPDATE events SET body = '{\"type\": \"mo' WHERE game_id = ? AND seq = ?", (game_id, seq))
    db.commit()
    db.close()


def test_a_damaged_row_is_one_line_naming_the_file_and_the_repair(tmp_path: Path, capsys) -> None:
    gid = game_with_moves(tmp_path, 6)
    damage_row(tmp_path, gid, 5)
    with pytest.raises(StoreDamaged, match=r"companion.sqlite3: .*game 1 event 5 is damaged.*companion store check"):
        TableService(str(tmp_path))
    assert main(["store", "check", "--data", str(tmp_path)]) == 2
    out, err = capsys.readouterr()
    assert "game 1 event 5: damaged" in out and "companion store repair" in err and err.count("\n") == 1
    assert main(["store", "repair", "--data", str(tmp_path)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert Path(report["backup"]).exists()  # the damaged file is kept, nothing silently lost
    assert main(["store", "check", "--data", str(tmp_path)]) == 0
    service = TableService(str(tmp_path))
    assert service.tracker is not None and service.tracker.event_count == 4  # start + moves before event 5
    service.close()


def test_a_damaged_page_is_salvaged_up_to_the_damage(tmp_path: Path, capsys) -> None:
    gid = game_with_moves(tmp_path, 3)
    with GameStore(tmp_path) as store:  # a long second game fills many pages
        tracker = Tracker.start_game(store, ["Cleo", "Dan", "Eve"])
        for _ in range(12):
            tracker.enter_move(log_delivery(tracker))
        second = tracker.game_id
        store._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        page_size = store._db.execute("PRAGMA page_size").fetchone()[0]
        pages = store._db.execute("PRAGMA page_count").fetchone()[0]
    raw = bytearray((tmp_path / "companion.sqlite3").read_bytes())
    last = (pages - 1) * page_size  # the newest events live on the last page
    raw[last:last + page_size] = b"\xa5" * page_size
    (tmp_path / "companion.sqlite3").write_bytes(bytes(raw))
    assert main(["store", "check", "--data", str(tmp_path)]) == 2
    capsys.readouterr()
    assert main(["store", "export", "--data", str(tmp_path)]) == 0  # export works on a damaged store
    exported = json.loads(capsys.readouterr().out)
    assert [g["id"] for g in exported["games"]][:1] == [gid]
    assert "table_pin" not in exported["settings"]
    assert main(["store", "repair", "--data", str(tmp_path)]) == 0
    capsys.readouterr()
    assert main(["store", "check", "--data", str(tmp_path)]) == 0
    with GameStore(tmp_path) as store:
        assert len(store.events(gid)) == 4  # the first game is whole
        for game in store.list_games():
            Tracker(store, game["id"])  # every kept game replays
        assert second in {g["id"] for g in store.list_games()} or len(store.list_games()) == 1


def test_a_store_that_is_not_sqlite_is_one_line_with_what_to_do(tmp_path: Path) -> None:
    (tmp_path / "companion.sqlite3").write_bytes(b"garbage" * 1000)
    proc = subprocess.run([sys.executable, "-m", "companion", "serve", "--data", str(tmp_path), "--port", str(free_port())],
                          capture_output=True, text=True, cwd=REPO, timeout=60)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert "companion.sqlite3" in proc.stderr and "companion store check" in proc.stderr


def test_export_writes_every_game_as_json(tmp_path: Path, capsys) -> None:
    gid = game_with_moves(tmp_path, 2)
    out = tmp_path / "games.json"
    assert main(["store", "export", "--data", str(tmp_path), "--out", str(out)]) == 0
    data = json.loads(out.read_text())
    game = data["games"][0]
    assert game["id"] == gid and [e["event"]["type"] for e in game["events"]] == ["start", "move", "move"]
    # the export is enough to rebuild the game
    state = GameState.new(NAMES)
    assert state.to_json()["players"][0]["logs"] == 2



def test_the_data_directory_admits_one_service(tmp_path: Path) -> None:
    first = DataDirLock(tmp_path, "companion serve on port 8000").acquire()
    with pytest.raises(DataDirBusy, match=rf"in use by companion serve on port 8000 \(pid {os.getpid()} "):
        DataDirLock(tmp_path).acquire()
    first.release()
    DataDirLock(tmp_path).acquire().release()  # released: free again


def test_pin_shows_the_table_pin_again(tmp_path: Path, capsys) -> None:
    service = TableService(str(tmp_path))
    pin = service.pin
    service.close()
    assert main(["pin", "--data", str(tmp_path)]) == 0
    assert capsys.readouterr().out.strip() == pin
    assert main(["pin", "--data", str(tmp_path / "nowhere")]) == 2


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_check_and_repair_know_the_hand_kept_games(tmp_path: Path, capsys) -> None:
    """A Castles of Tuscany game in the same store replays through its plugin, not the Saint Malo tracker."""
    from companion.games import get_game

    game_with_moves(tmp_path, 2)
    tuscany = get_game("castles-of-tuscany")
    with GameStore(tmp_path) as store:
        start = tuscany.live.start_event(["Anna", "Ben"], {})
        store.create_game({"game": tuscany.id, "players": start["players"]}, first_event=start)
    assert main(["store", "check", "--data", str(tmp_path)]) == 0
    assert capsys.readouterr().out.strip().endswith(": ok")
    assert main(["store", "repair", "--data", str(tmp_path)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["events_dropped"] == {} and report["games"] == 2
