"""The game store: every game is an append-only log of events in one SQLite file.

Why this shape: the log of moves *is* the game (state is its replay), so the store never updates a
move in place; undo and corrections are new events. SQLite in WAL mode with ``synchronous=FULL``
makes each committed append durable before ``append_event`` returns, so a power cut at any moment
loses at most an append that was never acknowledged.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from companion.errors import UserError

SCHEMA_VERSION = 1
DB_NAME = "companion.sqlite3"

# Each step upgrades the schema from version i to i + 1; never edit a step that has shipped.
_MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE games (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        created REAL NOT NULL,
        updated REAL NOT NULL,
        meta TEXT NOT NULL DEFAULT '{}',
        finished REAL,
        tally TEXT
    );
    CREATE TABLE events (
        game_id INTEGER NOT NULL REFERENCES games(id),
        seq INTEGER NOT NULL,
        at REAL NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (game_id, seq)
    );
    CREATE TABLE settings (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    """,
)


class StoreError(UserError):
    """The store file cannot be used (unreadable, not a database, from a newer version)."""


def default_data_dir() -> Path:
    return Path(os.environ.get("COMPANION_DATA", "data"))


class GameStore:
    """Games and their events in ``DATA_DIR/companion.sqlite3`` (or the file given).

    One connection guarded by a lock: the web server's threads share it, and SQLite serialises
    writers anyway.
    """

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        target = Path(path) if path is not None else default_data_dir()
        if target.suffix not in (".sqlite3", ".sqlite", ".db"):
            target = target / DB_NAME
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"{target.parent}: cannot create the data directory ({exc.strerror})") from None
        self.path = target
        self._lock = threading.RLock()
        try:
            self._db = sqlite3.connect(target, check_same_thread=False, isolation_level=None, timeout=10)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._migrate()
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{target}: not a usable game store ({exc})") from None

    # -- schema -----------------------------------------------------------------------------------
    def _migrate(self) -> None:
        with self._lock:
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise StoreError(
                    f"{self.path}: written by a newer companion (schema {version}, this one knows {SCHEMA_VERSION})"
                )
            for step in range(version, SCHEMA_VERSION):
                # executescript() would commit on its own; one statement at a time keeps the step atomic
                self._db.execute("BEGIN IMMEDIATE")
                for statement in _MIGRATIONS[step].split(";"):
                    if statement.strip():
                        self._db.execute(statement)
                self._db.execute(f"PRAGMA user_version = {step + 1}")
                self._db.execute("COMMIT")

    @property
    def schema_version(self) -> int:
        with self._lock:
            return int(self._db.execute("PRAGMA user_version").fetchone()[0])

    # -- games ------------------------------------------------------------------------------------
    def create_game(self, meta: dict[str, Any] | None = None) -> int:
        now = time.time()
        with self._lock:
            cur = self._db.execute(
                "INSERT INTO games (created, updated, meta) VALUES (?, ?, ?)",
                (now, now, json.dumps(meta or {})),
            )
            return int(cur.lastrowid or 0)

    def set_meta(self, game_id: int, **fields: Any) -> None:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                meta = self.meta(game_id)
                meta.update(fields)
                self._db.execute(
                    "UPDATE games SET meta = ?, updated = ? WHERE id = ?", (json.dumps(meta), time.time(), game_id)
                )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def meta(self, game_id: int) -> dict[str, Any]:
        with self._lock:
            row = self._db.execute("SELECT meta FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise KeyError(f"no game {game_id}")
        return dict(json.loads(row[0]))

    def finish_game(self, game_id: int, tally: dict[str, Any]) -> None:
        now = time.time()
        with self._lock:
            self._db.execute(
                "UPDATE games SET finished = ?, tally = ?, updated = ? WHERE id = ?",
                (now, json.dumps(tally), now, game_id),
            )

    def reopen_game(self, game_id: int) -> None:
        """An undo after the end: the game is in progress again."""
        with self._lock:
            self._db.execute(
                "UPDATE games SET finished = NULL, tally = NULL, updated = ? WHERE id = ?", (time.time(), game_id)
            )

    def current_game(self) -> int | None:
        """The most recently created game that has not finished."""
        with self._lock:
            row = self._db.execute(
                "SELECT id FROM games WHERE finished IS NULL ORDER BY id DESC LIMIT 1"
            ).fetchone()
        return int(row[0]) if row else None

    def list_games(self) -> list[dict[str, Any]]:
        with self._lock:
            rows = self._db.execute(
                "SELECT g.id, g.created, g.updated, g.meta, g.finished, g.tally,"
                " (SELECT COUNT(*) FROM events e WHERE e.game_id = g.id)"
                " FROM games g ORDER BY g.id DESC"
            ).fetchall()
        return [
            {
                "id": r[0],
                "created": r[1],
                "updated": r[2],
                "meta": json.loads(r[3]),
                "finished": r[4],
                "tally": json.loads(r[5]) if r[5] else None,
                "events": r[6],
            }
            for r in rows
        ]

    # -- events -----------------------------------------------------------------------------------
    def append_event(self, game_id: int, event: dict[str, Any]) -> int:
        """Append one event; durable on disk when this returns. Returns its sequence number."""
        body = json.dumps(event, separators=(",", ":"))
        now = time.time()
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                if self._db.execute("SELECT 1 FROM games WHERE id = ?", (game_id,)).fetchone() is None:
                    raise KeyError(f"no game {game_id}")
                seq = self._db.execute(
                    "SELECT COALESCE(MAX(seq), 0) + 1 FROM events WHERE game_id = ?", (game_id,)
                ).fetchone()[0]
                self._db.execute(
                    "INSERT INTO events (game_id, seq, at, body) VALUES (?, ?, ?, ?)", (game_id, seq, now, body)
                )
                self._db.execute("UPDATE games SET updated = ? WHERE id = ?", (now, game_id))
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return int(seq)

    def events(self, game_id: int) -> list[dict[str, Any]]:
        with self._lock:
            rows = self._db.execute(
                "SELECT body FROM events WHERE game_id = ? ORDER BY seq", (game_id,)
            ).fetchall()
        return [json.loads(r[0]) for r in rows]

    # -- settings (table PIN, chosen camera, ...) ---------------------------------------------------
    def get_setting(self, key: str, default: str | None = None) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
        return row[0] if row else default

    def set_setting(self, key: str, value: str) -> None:
        with self._lock:
            self._db.execute(
                "INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (key, value),
            )

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> GameStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
