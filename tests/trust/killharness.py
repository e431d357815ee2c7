"""kill -9 at random points of every write path, then restart and count what survived.

A parent process forks a child that plays a table through the real store and tracker: new games (a game
and its start event; the old game set aside), moves, undos, corrections and games played to their end
(the last move and the end event). The child reports every acknowledged change on a pipe. It dies by
SIGKILL either at a chosen SQL statement (before or after it runs: inside a transaction, between the
statements of one change, after the COMMIT but before the acknowledgement) or at a random moment chosen by
the parent. After each kill the parent opens the store as a restarting service would and checks:

- the service starts: every game replays, the game in progress opens, a game over has its end;
- no acknowledged change is lost: each game holds at least the events acknowledged for it;
- every game has its start event.

Run alone for the figures:  .venv/bin/python tests/trust/killharness.py --kills 1000
"""

from __future__ import annotations

import argparse
import json
import os
import random
import select
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from companion.rules import FACES, is_terminal, random_action  # noqa: E402
from companion.store import GameStore  # noqa: E402
from companion.tracker import Tracker  # noqa: E402

OPS = ("setup", "move", "move", "move", "undo", "correct", "end")
NAMES = [["Anke", "Bo"], ["Cleo", "Dan", "Eve"]]


class KillingConnection:
    """The store's SQLite connection, counting statements; SIGKILLs its process at statement ``kill_at``."""

    def __init__(self, db: Any, kill_at: int | None, after: bool) -> None:
        self._db = db
        self._kill_at = kill_at
        self._after = after
        self.count = 0

    def _tick(self, before: bool) -> None:
        if self._kill_at is not None and self.count == self._kill_at and before != self._after:
            os.kill(os.getpid(), signal.SIGKILL)

    def execute(self, *args: Any) -> Any:
        self.count += 1
        self._tick(True)
        result = self._db.execute(*args)
        self._tick(False)
        return result

    def executemany(self, *args: Any) -> Any:
        self.count += 1
        self._tick(True)
        result = self._db.executemany(*args)
        self._tick(False)
        return result

    def __getattr__(self, name: str) -> Any:
        return getattr(self._db, name)


def open_table(store: GameStore) -> Tracker | None:
    """What a restarting service does (web.service.TableService): the game in progress, or the last one."""
    game_id = store.current_game()
    if game_id is None:
        finished = [g for g in store.list_games() if g.get("finished")]
        game_id = finished[0]["id"] if finished else None
    if game_id is None:
        return None
    tracker = Tracker(store, game_id)
    tracker.finish_if_over()
    return tracker


def child(data: Path, seed: int, kill_at: int | None, after: bool, ack_fd: int) -> None:
    rng = random.Random(seed)
    store = GameStore(data)
    store._db = KillingConnection(store._db, kill_at, after)  # type: ignore[assignment]

    def ack(tracker: Tracker, op: str) -> None:
        os.write(ack_fd, (json.dumps([tracker.game_id, tracker.event_count, op]) + "\n").encode())

    tracker = open_table(store)
    for _ in range(40):
        op = rng.choice(OPS) if tracker is not None and not tracker.finished else "setup"
        if op == "setup":
            old = tracker
            with store.transaction("the new game"):
                tracker = Tracker.start_game(store, rng.choice(NAMES))
                if old is not None and not old.finished:
                    store.set_meta(old.game_id, abandoned=True)
        elif op in ("move", "end"):
            for _ in range(1 if op == "move" else 400):
                if tracker.finished:
                    break
                dice = rng.choices(FACES, k=5)
                action = random_action(tracker.state, dice, rng).to_json()
                tracker.enter_move(action)
                if op == "end" and not tracker.finished:
                    ack(tracker, "move")
        elif op == "undo":
            if tracker.last_move_seq is None:
                continue
            tracker.undo(expected=tracker.last_move_seq)
        elif op == "correct":
            drawn = [(a["player"], p["cell"]) for s, a in tracker.move_actions.items() if s in tracker.move_seqs
                     for p in a.get("place", [])]
            if not drawn:
                continue
            player, cell = rng.choice(drawn)
            tracker.correct_cell(player, cell, rng.choice("WGH1c"), expected=tracker.event_count)
        ack(tracker, op)
    os._exit(0)


def verify(data: Path, acked: dict[int, int]) -> list[str]:
    """What a restart finds wrong; [] when all is well."""
    problems: list[str] = []
    try:
        with GameStore(data) as store:
            for game in store.list_games():
                events = store.events(game["id"])
                if not events or events[0].get("type") != "start":
                    problems.append(f"game {game['id']} has no start event")
                    continue
                tracker = Tracker(store, game["id"])
                if tracker.tally is None and not game["meta"].get("abandoned") and is_terminal(tracker.state) \
                        and game["id"] != store.current_game():
                    problems.append(f"game {game['id']} is over without its end")
            for game_id, count in acked.items():
                have = len(store.events(game_id)) if store.has_game(game_id) else 0
                if have < count:
                    problems.append(f"game {game_id}: {count} events acknowledged, {have} on disk")
            open_table(store)  # the service starts
    except Exception as exc:  # any failure to restart is what this harness looks for
        problems.append(f"restart failed: {type(exc).__name__}: {exc}")
    return problems


def run(kills: int, seed: int = 0, per_store: int = 25, max_statement: int = 60) -> dict[str, Any]:
    rng = random.Random(seed)
    stats = {"kills": 0, "by_statement": 0, "by_timer": 0, "acknowledged": 0, "finished_before_kill": 0,
             "restarts_ok": 0, "problems": [], "seconds": 0.0}
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="kill9-") as tmp:
        data = Path(tmp) / "data0"
        acked: dict[int, int] = {}
        for k in range(kills):
            if k % per_store == 0:  # a fresh store now and then keeps each check quick
                data, acked = Path(tmp) / f"data{k}", {}
            by_statement = rng.random() < 0.6
            kill_at = rng.randint(1, max_statement) if by_statement else None
            read_fd, write_fd = os.pipe()
            pid = os.fork()
            if pid == 0:  # pragma: no cover - the child
                os.close(read_fd)
                try:
                    child(data, rng.randrange(1 << 30), kill_at, rng.random() < 0.5, write_fd)
                finally:
                    os._exit(3)
            os.close(write_fd)
            deadline = time.monotonic() + (rng.uniform(0.0, 0.25) if not by_statement else 10.0)
            buffer = b""
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    os.kill(pid, signal.SIGKILL)
                    break
                ready, _, _ = select.select([read_fd], [], [], left)
                if ready:
                    chunk = os.read(read_fd, 65536)
                    if not chunk:
                        break  # the child is gone (killed itself, or finished)
                    buffer += chunk
            while chunk := os.read(read_fd, 65536):
                buffer += chunk
            os.close(read_fd)
            _, status = os.waitpid(pid, 0)
            killed = os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
            if killed:
                stats["kills"] += 1
                stats["by_statement" if by_statement else "by_timer"] += 1
            else:
                stats["finished_before_kill"] += 1
            for line in buffer.decode().splitlines():
                game_id, count, _op = json.loads(line)
                acked[game_id] = max(acked.get(game_id, 0), count)
                stats["acknowledged"] += 1
            problems = verify(data, acked)
            if problems:
                stats["problems"].extend(f"kill {k}: {p}" for p in problems)
            else:
                stats["restarts_ok"] += 1
    stats["seconds"] = round(time.perf_counter() - t0, 1)
    return stats


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=250)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    stats = run(args.kills, args.seed)
    stats["problems"] = stats["problems"][:20]
    print(json.dumps(stats))
    return 1 if stats["problems"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
