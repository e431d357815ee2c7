"""The game store: every game is an append-only log of events in one SQLite file.

Why this shape: the log of moves *is* the game (state is its replay), so the store never updates a
move in place; undo and corrections are new events. SQLite in WAL mode with ``synchronous=FULL``
makes each committed transaction durable before it returns, so a power cut at any moment loses at
most a change that was never acknowledged. A change that writes several rows (a game and its start
event; the last move and the end) is one transaction (:meth:`GameStore.transaction`), so a kill
between them cannot leave a half-made game.

Every failure of the file reaches a person as one line naming the file and what to do
(``companion store check|repair|export``), never as "internal error".
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from companion.errors import UserError

SCHEMA_VERSION = 2
DB_NAME = "companion.sqlite3"
FILE_MODE = 0o600  # the store holds the table PIN and the session secret
# A hand's example carried from the seat's last game (``carry_hands``) is stored as ``carried:<its source>``.
CARRIED_SOURCE = "carried:"

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
    # Each seat's hand (vision.cells.seat_hand): drawings the table confirmed, as the reader's ink maps.
    # game_id NULL: a teaching sheet. Views of one drawing (a teaching sheet's augmented cells) share
    # ``drawing``.
    """
    CREATE TABLE hand_examples (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        game_id INTEGER REFERENCES games(id),
        seat INTEGER NOT NULL,
        cell TEXT NOT NULL,
        glyph TEXT NOT NULL,
        source TEXT NOT NULL,
        drawing INTEGER NOT NULL,
        ink BLOB NOT NULL,
        at REAL NOT NULL
    );
    CREATE INDEX hand_examples_by_seat ON hand_examples (seat, game_id);
    """,
)


class StoreError(UserError):
    """The store file cannot be used (unreadable, damaged, disk full, from a newer version)."""


class DiskFull(StoreError):
    """The disk is full: the change was not recorded (HTTP 507)."""

    status = 507


class StoreDamaged(StoreError):
    """A page or row of the store cannot be read (HTTP 500 would hide it: 503, with what to do)."""

    status = 503


def default_data_dir() -> Path:
    return Path(os.environ.get("COMPANION_DATA", "data"))


def store_path(path: str | os.PathLike[str] | None) -> Path:
    target = Path(path) if path is not None else default_data_dir()
    if target.suffix not in (".sqlite3", ".sqlite", ".db"):
        target = target / DB_NAME
    return target


def repair_hint(path: Path) -> str:
    return f"run `companion store check --data {path.parent}` (then `repair`; `export` saves the games as JSON)"


def _is_disk_full(exc: BaseException) -> bool:
    if isinstance(exc, OSError):
        return exc.errno in (errno.ENOSPC, errno.EDQUOT)
    code = getattr(exc, "sqlite_errorcode", None)
    return code == sqlite3.SQLITE_FULL or "disk is full" in str(exc) or "disk I/O error" in str(exc)


class GameStore:
    """Games and their events in ``DATA_DIR/companion.sqlite3`` (or the file given).

    One connection guarded by a lock: the web server's threads share it, and SQLite serialises
    writers anyway.
    """

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        target = store_path(path)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"{target.parent}: cannot create the data directory ({exc.strerror})") from None
        self.path = target
        self._lock = threading.RLock()
        self._depth = 0  # nesting of transaction()
        try:
            if not target.exists():  # made private before SQLite writes the PIN into it
                os.close(os.open(target, os.O_CREAT | os.O_WRONLY, FILE_MODE))
            self._private()
        except OSError as exc:
            raise StoreError(f"{target}: cannot open the game store ({exc.strerror or exc}); "
                             "check the folder's owner and free space") from None
        try:
            self._db = sqlite3.connect(target, check_same_thread=False, isolation_level=None, timeout=10)
        except sqlite3.Error as exc:
            raise StoreError(f"{target}: cannot open the game store ({exc}); check the file's owner") from None
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._migrate()
            self._private()
        except StoreError:
            self._db.close()
            raise
        except (sqlite3.Error, OSError) as exc:
            self._db.close()
            if _is_disk_full(exc):
                raise DiskFull(f"{target}: the disk is full; free some space and start again") from None
            raise StoreError(f"{target}: not a usable game store ({exc}); {repair_hint(target)}") from None

    def _private(self) -> None:
        for suffix in ("", "-wal", "-shm"):
            part = Path(str(self.path) + suffix)
            with contextlib.suppress(FileNotFoundError):
                if part.stat().st_mode & 0o077:
                    os.chmod(part, FILE_MODE)

    # -- transactions and errors --------------------------------------------------------------------
    def _failure(self, exc: BaseException, doing: str) -> StoreError:
        """One line for a person: which file, what happened, what to do."""
        if _is_disk_full(exc):
            return DiskFull(f"{self.path}: the disk is full, {doing} was not recorded; "
                            "free some space and try again")
        if isinstance(exc, sqlite3.DatabaseError) and not isinstance(exc, sqlite3.OperationalError | sqlite3.IntegrityError):
            return StoreDamaged(f"{self.path}: the store is damaged ({exc}); {repair_hint(self.path)}")
        if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
            return StoreError(f"{self.path}: the store is busy (another program holds it); try again")
        return StoreError(f"{self.path}: {doing} failed ({exc}); {repair_hint(self.path)}")

    @contextlib.contextmanager
    def transaction(self, doing: str = "the change") -> Iterator[None]:
        """Everything written inside is committed together or not at all. Nested calls join the
        outermost one. SQLite errors leave as :class:`StoreError` with what to do."""
        with self._lock:
            if self._depth:
                self._depth += 1
                try:
                    yield
                finally:
                    self._depth -= 1
                return
            try:
                self._db.execute("BEGIN IMMEDIATE")
            except (sqlite3.Error, OSError) as exc:
                raise self._failure(exc, doing) from None
            self._depth = 1
            try:
                yield
                self._db.execute("COMMIT")
            except BaseException as exc:
                # SQLite has already rolled back after some errors (a full disk): roll back only if open
                if self._db.in_transaction:
                    with contextlib.suppress(sqlite3.Error):
                        self._db.execute("ROLLBACK")
                if isinstance(exc, sqlite3.Error | OSError):
                    raise self._failure(exc, doing) from None
                raise
            finally:
                self._depth = 0

    def _read(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        with self._lock:
            try:
                return self._db.execute(sql, params).fetchall()
            except (sqlite3.Error, OSError) as exc:
                raise self._failure(exc, "reading") from None

    def _json(self, text: Any, where: str) -> Any:
        try:
            return json.loads(text)
        except (TypeError, ValueError):
            raise StoreDamaged(f"{self.path}: {where} is damaged (not JSON); {repair_hint(self.path)}") from None

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
        return int(self._read("PRAGMA user_version")[0][0])

    # -- games ------------------------------------------------------------------------------------
    def create_game(self, meta: dict[str, Any] | None = None, first_event: dict[str, Any] | None = None) -> int:
        """A new game; with ``first_event`` (the start) written in the same transaction."""
        now = time.time()
        with self.transaction("the new game"):
            cur = self._db.execute(
                "INSERT INTO games (created, updated, meta) VALUES (?, ?, ?)",
                (now, now, json.dumps(meta or {})),
            )
            game_id = int(cur.lastrowid or 0)
            if first_event is not None:
                self.append_event(game_id, first_event)
        return game_id

    def set_meta(self, game_id: int, **fields: Any) -> None:
        with self.transaction("the game's details"):
            meta = self.meta(game_id)
            meta.update(fields)
            self._db.execute(
                "UPDATE games SET meta = ?, updated = ? WHERE id = ?", (json.dumps(meta), time.time(), game_id)
            )

    def meta(self, game_id: int) -> dict[str, Any]:
        if not 0 < game_id < 2**63:  # SQLite's integers: a bigger number names no game
            raise KeyError(f"no game {game_id}")
        rows = self._read("SELECT meta FROM games WHERE id = ?", (game_id,))
        if not rows:
            raise KeyError(f"no game {game_id}")
        return dict(self._json(rows[0][0], f"game {game_id}'s details"))

    def has_game(self, game_id: int) -> bool:
        return bool(self._read("SELECT 1 FROM games WHERE id = ?", (game_id,)))

    def finish_game(self, game_id: int, tally: dict[str, Any]) -> None:
        now = time.time()
        with self.transaction("the end of the game"):
            self._db.execute(
                "UPDATE games SET finished = ?, tally = ?, updated = ? WHERE id = ?",
                (now, json.dumps(tally), now, game_id),
            )

    def reopen_game(self, game_id: int) -> None:
        """An undo after the end: the game is in progress again."""
        with self.transaction("the undo"):
            self._db.execute(
                "UPDATE games SET finished = NULL, tally = NULL, updated = ? WHERE id = ?", (time.time(), game_id)
            )

    def current_game(self) -> int | None:
        """The most recently created game that has not finished."""
        rows = self._read("SELECT id FROM games WHERE finished IS NULL ORDER BY id DESC LIMIT 1")
        return int(rows[0][0]) if rows else None

    def list_games(self) -> list[dict[str, Any]]:
        rows = self._read(
            "SELECT g.id, g.created, g.updated, g.meta, g.finished, g.tally,"
            " (SELECT COUNT(*) FROM events e WHERE e.game_id = g.id)"
            " FROM games g ORDER BY g.id DESC"
        )
        return [
            {
                "id": r[0],
                "created": r[1],
                "updated": r[2],
                "meta": self._json(r[3], f"game {r[0]}'s details"),
                "finished": r[4],
                "tally": self._json(r[5], f"game {r[0]}'s tally") if r[5] else None,
                "events": r[6],
            }
            for r in rows
        ]

    # -- events -----------------------------------------------------------------------------------
    def append_event(self, game_id: int, event: dict[str, Any]) -> int:
        """Append one event; durable on disk when this returns (or when the enclosing
        :meth:`transaction` commits). Returns its sequence number."""
        body = json.dumps(event, separators=(",", ":"))
        now = time.time()
        with self.transaction("the move"):
            if self._db.execute("SELECT 1 FROM games WHERE id = ?", (game_id,)).fetchone() is None:
                raise KeyError(f"no game {game_id}")
            seq = self._db.execute(
                "SELECT COALESCE(MAX(seq), 0) + 1 FROM events WHERE game_id = ?", (game_id,)
            ).fetchone()[0]
            self._db.execute(
                "INSERT INTO events (game_id, seq, at, body) VALUES (?, ?, ?, ?)", (game_id, seq, now, body)
            )
            self._db.execute("UPDATE games SET updated = ? WHERE id = ?", (now, game_id))
        return int(seq)

    def events(self, game_id: int) -> list[dict[str, Any]]:
        rows = self._read("SELECT seq, body FROM events WHERE game_id = ? ORDER BY seq", (game_id,))
        return [self._json(r[1], f"game {game_id} event {r[0]}") for r in rows]

    def event_rows(self, game_id: int) -> list[dict[str, Any]]:
        """Events with their sequence number and time (export)."""
        rows = self._read("SELECT seq, at, body FROM events WHERE game_id = ? ORDER BY seq", (game_id,))
        return [{"seq": r[0], "at": r[1], "event": self._json(r[2], f"game {game_id} event {r[0]}")} for r in rows]

    # -- seats' hands (vision.cells.seat_hand) -------------------------------------------------------
    def replace_hand_examples(self, game_id: int | None, seat: int, cell: str, source: str,
                              glyph: str, inks: list[bytes]) -> int:
        """Forget what was learned about ``cell`` of ``seat`` in this game (NULL: the teaching sheets), then
        keep ``inks`` (views of one drawing of ``glyph``, told by ``source``) instead. Returns the drawing's id."""
        now = time.time()
        drawing: int | None = None
        with self.transaction("the seat's hand"):
            self._db.execute("DELETE FROM hand_examples WHERE game_id IS ? AND seat = ? AND cell = ?",
                             (game_id, seat, cell))
            for ink in inks:
                cur = self._db.execute(
                    "INSERT INTO hand_examples (game_id, seat, cell, glyph, source, drawing, ink, at)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?)", (game_id, seat, cell, glyph, source, drawing or 0, ink, now))
                if drawing is None:
                    drawing = int(cur.lastrowid or 0)
                    self._db.execute("UPDATE hand_examples SET drawing = ? WHERE id = ?", (drawing, drawing))
        return drawing or 0

    def forget_hand_examples(self, game_id: int | None, seat: int, cell: str, sources: Sequence[str]) -> None:
        """Forget what any of ``sources`` said about ``cell`` of ``seat`` (an undone move's drawing)."""
        marks = ", ".join("?" * len(sources))
        with self.transaction("the seat's hand"):
            self._db.execute(f"DELETE FROM hand_examples WHERE game_id IS ? AND seat = ? AND cell = ? AND source IN ({marks})",
                             (game_id, seat, cell, *sources))

    def hand_examples(self, game_id: int | None, seat: int | None = None) -> list[dict[str, Any]]:
        """The examples of a game and the teaching sheets (``game_id`` NULL), oldest first."""
        query = ("SELECT seat, cell, glyph, source, drawing, ink, game_id FROM hand_examples"
                 " WHERE (game_id IS ? OR game_id IS NULL)")
        params: tuple[Any, ...] = (game_id,)
        if seat is not None:
            query += " AND seat = ?"
            params += (seat,)
        rows = self._read(query + " ORDER BY id", params)
        return [{"seat": r[0], "cell": r[1], "glyph": r[2], "source": r[3], "drawing": r[4], "ink": r[5],
                 "game_id": r[6]} for r in rows]

    def carry_hands(self, to_game: int, seats: list[int], per_glyph: int) -> int:
        """A new game starts from each seat's last hand: the newest ``per_glyph`` drawings of each symbol
        of the latest earlier game that taught the seat something (its own and those it carried) are
        copied. Returns how many examples."""
        copied = 0
        with self.transaction("the seats' hands"):
            for seat in seats:
                row = self._db.execute(
                    "SELECT MAX(game_id) FROM hand_examples WHERE seat = ? AND game_id IS NOT NULL"
                    " AND game_id != ?", (seat, to_game)).fetchone()
                if row is None or row[0] is None:
                    continue
                rows = self._db.execute(
                    "SELECT glyph, drawing, ink, source FROM hand_examples WHERE game_id = ? AND seat = ?"
                    " ORDER BY drawing, id", (row[0], seat)).fetchall()
                newest: dict[str, list[int]] = {}
                for glyph, drawing, _, _ in reversed(rows):
                    ids = newest.setdefault(glyph, [])
                    if drawing not in ids and len(ids) < per_glyph:
                        ids.append(drawing)
                keep = {d for ids in newest.values() for d in ids}
                new_ids: dict[int, int] = {}
                for glyph, drawing, ink, source in rows:  # oldest first, as they were learned
                    if drawing not in keep:
                        continue
                    # Carried, and still saying what told it (a person's correction stays a person's).
                    carried = CARRIED_SOURCE + source.removeprefix(CARRIED_SOURCE)
                    cur = self._db.execute(
                        "INSERT INTO hand_examples (game_id, seat, cell, glyph, source, drawing, ink, at)"
                        " VALUES (?, ?, '', ?, ?, ?, ?, ?)",
                        (to_game, seat, glyph, carried, new_ids.get(drawing, 0), ink, time.time()))
                    if drawing not in new_ids:
                        new_ids[drawing] = int(cur.lastrowid or 0)
                        self._db.execute("UPDATE hand_examples SET drawing = ? WHERE id = ?",
                                         (new_ids[drawing], new_ids[drawing]))
                    copied += 1
        return copied

    # -- settings (table PIN, chosen camera, ...) ---------------------------------------------------
    def get_setting(self, key: str, default: str | None = None) -> str | None:
        rows = self._read("SELECT value FROM settings WHERE key = ?", (key,))
        return rows[0][0] if rows else default

    def set_setting(self, key: str, value: str) -> None:
        with self.transaction("the setting"):
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
