"""How long one score entry takes on the games kept by hand, at the end of a long game.

Each entry is checked against the replayed log, appended to the store (fsync'd), replayed again and the
page's panels rendered for the live pages, so its cost grows with the log. Printed: the median and the
95th percentile of an entry (Flask test client, no network) over a whole 4-player Castles of Tuscany game
of 298 entries and a 4-player Dice Settlers table of 40 tiles and 10 cards, each entry re-posted.

    .venv/bin/python benchmarks/bench_games.py
"""

from __future__ import annotations

import random
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from web import create_app  # noqa: E402


def timed_entries(client, headers, game_id, events):
    times = []
    for event in events:
        t0 = time.perf_counter()
        response = client.post(f"/play/{game_id}/event", json=event, headers=headers)
        times.append((time.perf_counter() - t0) * 1000)
        assert response.status_code == 200, response.json
    return times


def report(name, times):
    times = sorted(times)
    p95 = times[int(0.95 * (len(times) - 1))]
    print(f"{name}: {len(times)} entries, median {statistics.median(times):.1f} ms, p95 {p95:.1f} ms, "
          f"last {times[-1]:.1f} ms max")


def main() -> int:
    rng = random.Random(1)
    with tempfile.TemporaryDirectory() as data:
        app = create_app({"DATA_DIR": data})
        service = app.extensions["table"]
        client = app.test_client()
        token = re.search(r'name="csrf-token" content="([^"]+)"', client.get("/setup").text).group(1)
        headers = {"X-CSRF-Token": token, "X-Table-Pin": service.pin}

        def start(game, names):
            form = {f"player{i}": n for i, n in enumerate(names)}
            form.update(game=game, pin=service.pin, csrf_token=token)
            return int(client.post("/setup", data=form).headers["Location"].rsplit("/", 1)[1])

        names = ["Anna", "Benno", "Clara", "Dario"]
        game_id = start("castles-of-tuscany", names)
        events = []
        for _ in range(3):
            events += [{"type": "points", "player": rng.randrange(4), "track": rng.choice(["green", "green", "orange"]),
                        "points": rng.choice([1, 2, 3, 6])} for _ in range(97)]
            events.append({"type": "scoring"})
        events += [{"type": "final", "player": k, "empty_spaces": 3, "leftovers": {"marble": 1}} for k in range(4)]
        report("castles-of-tuscany", timed_entries(client, headers, game_id, events))

        game_id = start("dice-settlers", names)
        events = [{"type": "tile", "tile": t, "tents": [rng.randrange(4) for _ in names], "house": None}
                  for t in range(1, 41)]
        events += [{"type": "tech", "name": f"Card {k}", "vp": k, "markers": [k % 4]} for k in range(10)]
        events += [{"type": "player", "player": k, "dice_owned": 9 + k, "vp_tokens": 10 * k} for k in range(4)]
        events = events * 3  # each entry again: the latest word counts, the log grows
        report("dice-settlers", timed_entries(client, headers, game_id, events))
        service.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
