"""``companion store check|repair|export`` and ``companion pin``: looking after the game store.

check   reads every page (SQLite's integrity check), every row and replays every game; exit 0 when
        all is well, 2 with one line per problem otherwise.
repair  keeps a copy of the damaged file, then rebuilds the store from everything still readable: each
        game up to its first unreadable or unreplayable event; a game whose last move ended it gets
        its end. Needs the data directory to itself (the service stopped).
export  every readable game as JSON (to standard output or --out FILE), even from a damaged store.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

from companion.datalock import DataDirLock
from companion.errors import UserError
from companion.store import DB_NAME, GameStore, StoreError, store_path

SECRET_KEYS = frozenset({"table_pin", "session_secret"})
MAX_SCAN_IDS = 100_000  # the most game ids or event numbers tried one by one around damaged pages


def data_dir_of(args: argparse.Namespace) -> Path:
    return Path(getattr(args, "data", None) or os.environ.get("COMPANION_DATA") or "data")


def _connect_readonly(path: Path) -> sqlite3.Connection:
    if not path.exists():
        raise UserError(f"{path}: there is no game store here (check --data)")
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
        return db
    except sqlite3.Error as exc:
        raise StoreError(f"{path}: not a readable SQLite file ({exc}); `companion store repair` cannot "
                         "recover it, restore a backup or start a new --data folder") from None


def _rows(db: sqlite3.Connection, sql: str, params: tuple[Any, ...] = ()) -> list[Any] | None:
    try:
        return db.execute(sql, params).fetchall()
    except sqlite3.Error:
        return None


def salvage(path: Path) -> tuple[list[dict[str, Any]], dict[str, str], list[str]]:
    """Every readable game with its events up to the first damaged one, the settings, and the problems."""
    db = _connect_readonly(path)
    problems: list[str] = []
    games: list[dict[str, Any]] = []
    try:
        rows = _rows(db, "SELECT id, created, updated, meta, finished, tally FROM games ORDER BY id")
        if rows is None:
            problems.append("the games table is damaged; reading games one by one")
            top = (_rows(db, "SELECT seq FROM sqlite_sequence WHERE name = 'games'") or [[MAX_SCAN_IDS]])[0][0]
            rows = []
            for gid in range(1, min(int(top), MAX_SCAN_IDS) + 1):
                got = _rows(db, "SELECT id, created, updated, meta, finished, tally FROM games WHERE id = ?", (gid,))
                if got is None:
                    problems.append(f"game {gid}: its row is unreadable")
                rows.extend(got or [])
        for gid, created, updated, meta_text, finished, tally_text in rows:
            try:
                meta = json.loads(meta_text)
            except (TypeError, ValueError):
                problems.append(f"game {gid}: its details are damaged (not JSON)")
                meta = {}
            tally = None
            if tally_text:
                try:
                    tally = json.loads(tally_text)
                except (TypeError, ValueError):
                    problems.append(f"game {gid}: its tally is damaged (not JSON)")
                    finished = None
            events: list[dict[str, Any]] = []
            ev_rows = _rows(db, "SELECT seq, at, body FROM events WHERE game_id = ? ORDER BY seq", (gid,))
            if ev_rows is None:
                ev_rows = []
                for seq in range(1, MAX_SCAN_IDS + 1):
                    got = _rows(db, "SELECT seq, at, body FROM events WHERE game_id = ? AND seq = ?", (gid, seq))
                    if not got:
                        problems.append(f"game {gid} event {seq}: unreadable (the page is damaged)")
                        break
                    ev_rows.extend(got)
            for expected, (seq, at, body) in enumerate(ev_rows, start=1):
                if seq != expected:
                    problems.append(f"game {gid} event {expected}: missing")
                    break
                try:
                    event = json.loads(body)
                    if not isinstance(event, dict):
                        raise ValueError
                except (TypeError, ValueError):
                    problems.append(f"game {gid} event {seq}: damaged (not a JSON object)")
                    break
                events.append({"seq": seq, "at": at, "event": event})
            games.append({"id": gid, "created": created, "updated": updated, "finished": finished,
                          "meta": meta, "tally": tally, "events": events})
        settings = {str(k): str(v) for k, v in (_rows(db, "SELECT key, value FROM settings") or [])}
        integrity = _rows(db, "PRAGMA integrity_check")
        if integrity is None:
            problems.append("the integrity check could not run (the file is badly damaged)")
        else:
            problems.extend(f"integrity: {r[0]}" for r in integrity if r[0] != "ok")
    finally:
        db.close()
    return games, settings, problems


def replay_game(store: GameStore, game_id: int) -> tuple[Any, dict[str, Any] | None, bool]:
    """(replayed game, its tally or None, whether it is over but lacks its end). Saint Malo replays through
    the tracker; a hand-kept game through its plugin. Raises what the replay raises."""
    from companion.games import SAINT_MALO, game_of, get_game, standing_events
    from companion.rules import is_terminal
    from companion.tracker import Tracker

    meta = store.meta(game_id)
    if game_of(meta) == SAINT_MALO:
        tracker = Tracker(store, game_id)
        over = tracker.tally is None and not meta.get("abandoned") and is_terminal(tracker.state)
        return tracker, tracker.tally, over
    live = get_game(game_of(meta)).live
    if live is None:
        raise UserError(f"game {game_id}: no way to replay a {game_of(meta)} game")
    sheet = live.replay(standing_events(store.events(game_id)))
    return sheet, (sheet.tally() or {}) if sheet.finished else None, False


REPLAY_ERRORS = (UserError, KeyError, TypeError, ValueError, AttributeError, IndexError)


def _replay_problem(store: GameStore, game_id: int) -> str | None:
    try:
        _game, _tally, over = replay_game(store, game_id)
    except REPLAY_ERRORS as exc:
        return f"game {game_id}: cannot be replayed ({exc})"
    return f"game {game_id}: over, but its end was never written" if over else None


def check(path: Path) -> list[str]:
    games, _settings, problems = salvage(path)
    if problems:
        return problems
    try:
        store = GameStore(path)
    except StoreError as exc:
        return [str(exc)]
    with store:
        for game in games:
            problem = _replay_problem(store, game["id"])
            if problem:
                problems.append(problem)
    return problems


def repair(path: Path) -> dict[str, Any]:
    """Rebuild ``path`` from what is readable; the old file is kept beside it. Returns what was done."""
    games, settings, problems = salvage(path)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    backup = path.with_name(f"{path.name}.damaged-{stamp}")
    for suffix in ("", "-wal", "-shm"):
        part = Path(str(path) + suffix)
        if part.exists():
            shutil.copy2(part, str(backup) + suffix)
            os.chmod(str(backup) + suffix, 0o600)
    fresh = path.with_name(f"repairing-{stamp}.sqlite3")
    dropped: dict[int, int] = {}
    with GameStore(fresh) as store:
        for key, value in settings.items():
            store.set_setting(key, value)
        for game in games:
            events = list(game["events"])
            if not events or events[0]["event"].get("type") != "start":
                dropped[game["id"]] = len(events)
                problems.append(f"game {game['id']}: no start event; left out (kept in {backup.name})")
                continue
            while events:
                with store.transaction("the repair"):
                    store._db.execute("DELETE FROM events WHERE game_id = ?", (game["id"],))
                    store._db.execute("DELETE FROM games WHERE id = ?", (game["id"],))
                    store._db.execute(
                        "INSERT INTO games (id, created, updated, meta, finished, tally) VALUES (?, ?, ?, ?, ?, ?)",
                        (game["id"], game["created"], game["updated"], json.dumps(game["meta"]), None, None))
                    store._db.executemany(
                        "INSERT INTO events (game_id, seq, at, body) VALUES (?, ?, ?, ?)",
                        [(game["id"], e["seq"], e["at"], json.dumps(e["event"], separators=(",", ":")))
                         for e in events])
                try:
                    replayed, tally, over = replay_game(store, game["id"])
                except REPLAY_ERRORS:
                    events.pop()  # the last event does not replay: drop it and try again
                    dropped[game["id"]] = dropped.get(game["id"], 0) + 1
                    continue
                if tally is not None:  # ended (and not taken back): finished, as the log says
                    store._db.execute("UPDATE games SET finished = ?, tally = ? WHERE id = ?",
                                      (game["finished"] or time.time(), json.dumps(tally), game["id"]))
                elif over:
                    replayed.finish_if_over()  # the last move's end, never written: written now
                break
        store._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    for suffix in ("-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(str(path) + suffix)
    os.replace(fresh, path)
    for suffix in ("-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(str(fresh) + suffix)
    return {"store": str(path), "backup": str(backup), "games": len(games) - sum(
        1 for g in games if g["id"] in dropped and dropped[g["id"]] >= len(g["events"])),
        "events_dropped": {str(k): v for k, v in dropped.items()}, "problems": problems}


def export(path: Path) -> dict[str, Any]:
    games, settings, problems = salvage(path)
    return {"store": str(path), "exported": time.time(), "problems": problems, "games": games,
            "settings": {k: v for k, v in settings.items() if k not in SECRET_KEYS}}


def cmd_store(args: argparse.Namespace) -> int:
    data_dir = data_dir_of(args)
    path = store_path(data_dir)
    if args.action == "check":
        problems = check(path)
        if problems:
            for line in problems:
                print(f"{path}: {line}")
            raise UserError(f"{path}: {len(problems)} problem(s); `companion store repair --data {data_dir}` "
                            "rebuilds the store from what is readable (a copy of the file is kept)")
        print(f"{path}: ok")
        return 0
    if args.action == "repair":
        with DataDirLock(data_dir, "companion store repair"):
            done = repair(path)
        print(json.dumps(done))
        return 0
    data = export(path)
    text = json.dumps(data, indent=1, ensure_ascii=False)
    if args.out in (None, "-"):
        print(text)
    else:
        try:
            Path(args.out).write_text(text + "\n", encoding="utf-8")
        except OSError as exc:
            raise UserError(f"{args.out}: cannot write ({exc.strerror or exc})") from None
        print(f"{len(data['games'])} games written to {args.out}", file=sys.stderr)
    return 0


def cmd_pin(args: argparse.Namespace) -> int:
    path = store_path(data_dir_of(args))
    db = _connect_readonly(path)
    try:
        row = _rows(db, "SELECT value FROM settings WHERE key = 'table_pin'")
    finally:
        db.close()
    if not row:
        raise UserError(f"{path}: no table PIN yet; `companion serve --data {path.parent}` makes one")
    print(row[0][0])
    return 0


__all__ = ["DB_NAME", "check", "cmd_pin", "cmd_store", "export", "repair", "salvage"]
