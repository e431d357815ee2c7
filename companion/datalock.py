"""One service per data directory: an exclusive lock on ``DATA_DIR/companion.lock``.

Two services on one store would each replay the log into their own memory and interleave moves
from stale copies. ``flock`` is released by the kernel when the holder dies (kill -9, power cut), so a
crash never leaves a stale lock behind; the file only says who holds it.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import socket
import time
from pathlib import Path
from typing import Any

from companion.errors import UserError

LOCK_NAME = "companion.lock"


class DataDirBusy(UserError):
    """Another process holds the data directory."""


class DataDirLock:
    def __init__(self, data_dir: str | os.PathLike[str], purpose: str = "companion serve") -> None:
        self.dir = Path(data_dir)
        self.path = self.dir / LOCK_NAME
        self.purpose = purpose
        self._fd: int | None = None

    def holder(self) -> dict[str, Any]:
        """Who wrote the lock file last (the holder, while it is locked)."""
        try:
            return dict(json.loads(self.path.read_text(encoding="utf-8") or "{}"))
        except (OSError, ValueError, TypeError):
            return {}

    def acquire(self) -> DataDirLock:
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as exc:
            raise UserError(f"{self.path}: cannot create the lock file ({exc.strerror or exc})") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            who = self.holder()
            since = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(who["since"])) if "since" in who else "?"
            raise DataDirBusy(
                f"{self.dir}: in use by {who.get('purpose', 'another companion')} (pid {who.get('pid', '?')} "
                f"on {who.get('host', '?')}, since {since}); stop it first or choose another --data") from None
        info = {"pid": os.getpid(), "host": socket.gethostname(), "since": time.time(), "purpose": self.purpose}
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps(info).encode(), 0)
        self._fd = fd
        return self

    def release(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.ftruncate(self._fd, 0)
            os.close(self._fd)  # closing the descriptor releases the flock
            self._fd = None

    def __enter__(self) -> DataDirLock:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()
