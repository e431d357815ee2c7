"""Stable observation -> updated page in every connected browser, with 20 live pages on loopback.

The service runs in this process (a real threaded HTTP server); 20 server-sent-event clients run in a
separate process and report when each update arrives. For each observation that changes the game
(a roll in the tray, a drawing on a board) we time from ``tracker.observe`` to the moment the LAST of
the 20 clients has the new page, over a bounded number of turns of a bot game. Also prints the
service process's peak resident memory.

    .venv/bin/python benchmarks/bench_web.py [--clients 20] [--turns 40]
Targets: p95 <= 200 ms; memory <= 300 MB.
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


from companion.bots import mixed_table  # noqa: E402
from companion.layout import draw_on_city  # noqa: E402
from vision.observation import BoardReading, DieReading, Observation  # noqa: E402
from web import create_app  # noqa: E402
from web.service import TableService  # noqa: E402
from web.wsgi import make_table_server  # noqa: E402

CLIENT = r"""
import http.client, json, sys, threading, time
port, n = int(sys.argv[1]), int(sys.argv[2])
lock = threading.Lock()
def client(k):
    # each client its own loopback address, like twenty phones (the server caps live pages per address)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60, source_address=(f"127.0.1.{k + 1}", 0))
    conn.request("GET", "/events")
    resp = conn.getresponse()
    buf = b""
    while True:
        line = resp.fp.readline()
        if not line:
            return
        if line.startswith(b"data: "):
            version = json.loads(line[6:])["version"]
            with lock:
                print(k, version, time.time(), flush=True)
threads = [threading.Thread(target=client, args=(k,), daemon=True) for k in range(n)]
for t in threads: t.start()
time.sleep(3600)
"""

ONES = tuple(tuple(1.0 for _ in range(7)) for _ in range(7))


draw = draw_on_city


def observation(cities: list[list[str]], dice: list[str]) -> Observation:
    return Observation(boards=tuple(BoardReading(i, tuple(c), ONES) for i, c in enumerate(cities)),
                       dice=tuple(DieReading(f, 1.0) for f in dice))


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--turns", type=int, default=40)
    parser.add_argument("--demo-seconds", type=float, default=40.0,
                        help="also run `companion serve --demo` this long with the clients and read its memory")
    args = parser.parse_args()

    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # no line per request
    service = TableService(tempfile.mkdtemp(prefix="bench-web-"))
    app = create_app({"SERVICE": service})
    server = make_table_server(app, "127.0.0.1", 0)  # the production server `companion serve` runs
    threading.Thread(target=server.run, daemon=True).start()
    names = ["Anke", "Ben", "Carla", "Dario"]
    tracker = service.new_game(names)

    # client -> [(version, arrival time)]; a page that was busy may skip to a newer version (latest wins)
    arrivals: dict[int, list[tuple[int, float]]] = {}
    arrived = threading.Condition()
    clients = subprocess.Popen([sys.executable, "-c", CLIENT, str(int(server.effective_port)), str(args.clients)],
                               stdout=subprocess.PIPE, text=True)

    def collect() -> None:
        assert clients.stdout is not None
        for line in clients.stdout:
            k, version, at = line.split()
            with arrived:
                arrivals.setdefault(int(k), []).append((int(version), float(at)))
                arrived.notify_all()

    threading.Thread(target=collect, daemon=True).start()
    deadline = time.time() + 30
    while service.hub.clients < args.clients and time.time() < deadline:
        time.sleep(0.05)
    if service.hub.clients < args.clients:
        print(f"bench_web: only {service.hub.clients} of {args.clients} clients connected", file=sys.stderr)
        return 1

    def timed(obs: Observation) -> float | None:
        """Seconds from observe() to the last client having the update it caused (None: no update)."""
        before, changes = service.hub.version, tracker.version
        started = time.time()
        tracker.observe(obs)
        if tracker.version == changes:
            return None  # nothing changed for the game: no update is due
        target = before + 1

        def first_arrivals() -> list[float]:
            return [next(at for v, at in got if v >= target) for got in arrivals.values()
                    if any(v >= target for v, _ in got)]

        with arrived:
            ok = arrived.wait_for(lambda: len(first_arrivals()) >= args.clients, timeout=10)
            times = first_arrivals()
        if not ok:
            raise RuntimeError(f"update {target} reached only {len(times)} of {args.clients} clients")
        return max(times) - started

    bots = mixed_table(len(names))
    rng = random.Random(1)
    latencies: list[float] = []
    turns = 0
    try:
        while turns < args.turns and not tracker.finished:
            state = tracker.state
            action = bots[state.current_player].choose_action(state, rng).to_json()
            cities = [p.city for p in state.players]
            after = [draw(c, action["place"]) if i == action["player"] else c for i, c in enumerate(cities)]
            for obs in (observation(cities, action["dice"]), observation(after, action["dice"]),
                        observation(after, [])):
                latency = timed(obs)
                if latency is not None:
                    latencies.append(latency)
            if tracker.state.turn == state.turn:  # the camera could not explain it (e.g. logs turned): by hand
                tracker.enter_move(action)
            turns += 1
    finally:
        clients.kill()
        server.live_limit.stopping.set()  # the live streams end at their next event: now
        service.hub.publish(service.hub.payload)
        server.task_dispatcher.shutdown(timeout=2)
        server.close()

    with open("/proc/self/status") as f:
        rss_mb = next(int(line.split()[1]) for line in f if line.startswith("VmRSS")) / 1024
    peak_mb = max(rss_mb, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    p50, p95 = percentile(latencies, 0.5), percentile(latencies, 0.95)
    figures = {"clients": args.clients, "updates": len(latencies), "turns": turns,
               "p50_ms": round(p50 * 1000, 1), "p95_ms": round(p95 * 1000, 1),
               "max_ms": round(max(latencies) * 1000, 1), "rss_mb": round(rss_mb, 1), "peak_rss_mb": round(peak_mb, 1)}
    print(f"observation -> page in all {args.clients} browsers: p50 {figures['p50_ms']} ms, "
          f"p95 {figures['p95_ms']} ms (target <= 200), max {figures['max_ms']} ms over {len(latencies)} updates")
    print(f"service memory: {figures['rss_mb']} MB now, {figures['peak_rss_mb']} MB peak (target <= 300)")
    if args.demo_seconds > 0:
        demo_peak = demo_memory(args.clients, args.demo_seconds)
        figures["demo_peak_rss_mb"] = round(demo_peak, 1)
        print(f"`companion serve --demo` (vision + renderer) with {args.clients} pages for {args.demo_seconds:.0f} s: "
              f"{demo_peak:.1f} MB peak (target <= 300)")
        peak_mb = max(peak_mb, demo_peak)
    print(json.dumps(figures))
    return 0 if p95 <= 0.2 and peak_mb <= 300 else 1


def demo_memory(n_clients: int, seconds: float) -> float:
    """Peak resident memory (VmHWM, MB) of a real `companion serve --demo` process with live pages."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    data = tempfile.mkdtemp(prefix="bench-web-demo-")
    serve = subprocess.Popen([sys.executable, "-m", "companion", "serve", "--demo", "--host", "127.0.0.1",
                              "--port", str(port), "--data", data], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, env={**__import__("os").environ, "COMPANION_DEMO_PACE": "0.2"})
    clients = None
    try:
        import urllib.request

        deadline = time.time() + 30
        while time.time() < deadline:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1).read()
                break
            except OSError:
                time.sleep(0.2)
        clients = subprocess.Popen([sys.executable, "-c", CLIENT, str(port), str(n_clients)],
                                   stdout=subprocess.DEVNULL)
        time.sleep(seconds)
        with open(f"/proc/{serve.pid}/status") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("VmHWM")) / 1024
    finally:
        if clients is not None:
            clients.kill()
        serve.terminate()
        try:
            serve.wait(10)
        except subprocess.TimeoutExpired:
            serve.kill()


if __name__ == "__main__":
    raise SystemExit(main())
