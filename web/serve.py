"""``companion serve``: the table service and dashboard (camera, demo, or hand entry only)."""

from __future__ import annotations

import argparse
import os
import signal
import socket
import sys
from types import FrameType
from typing import Any

from companion.datalock import DataDirLock
from companion.errors import UserError
from web import create_app
from web.service import TableService
from web.wsgi import make_table_server


def data_dir_of(args: argparse.Namespace) -> str:
    return args.data or os.environ.get("COMPANION_DATA") or "data"


def banner(pin: str, host: str, port: int, data_dir: str, mode: str) -> str:
    """What `serve` prints first: where phones open the dashboard (LAN addresses and a QR code), the PIN."""
    from web.netinfo import phone_urls, qr_text

    shown = "localhost" if host in ("0.0.0.0", "::", "") else host
    phones = phone_urls(host, port)
    lines = [f"Saint Malo table companion ({mode})",
             f"  dashboard: http://{shown}:{port}/   (on this machine)"]
    lines += [f"  phones:    {url}" for url in phones]
    lines += [f"  data:      {os.path.abspath(data_dir)}",
              f"  TABLE PIN: {pin}   (needed to change anything; keep it at the table; "
              f"`companion pin --data {data_dir}` shows it again)"]
    text = "\n".join(lines) + "\n"
    if phones:
        text += "  Scan with a phone on the same network:\n" + qr_text(phones[0])
    return text


def check_port_free(host: str, port: int) -> None:
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        raise UserError(f"--host {host}: cannot use this address ({exc.strerror or exc})") from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            raise UserError(f"cannot listen on {host}:{port} ({exc.strerror or exc})") from None


def cmd_serve(args: argparse.Namespace) -> int:
    data_dir = data_dir_of(args)
    if not 0 < args.port < 65536:
        raise UserError(f"--port {args.port}: choose a port between 1 and 65535")
    demo = bool(getattr(args, "demo", False))
    check_port_free(args.host, args.port)  # werkzeug would print two lines and exit 1 on its own
    if args.camera and not demo and args.camera != "none":
        from vision.sources import open_source

        open_source(args.camera).close()  # a camera that cannot be opened now: exit 2 with its reason
    # one service per data directory: a second would replay the log into its own copy and interleave moves
    lock = DataDirLock(data_dir, f"companion serve on port {args.port}").acquire()
    try:
        return _serve(args, data_dir, demo)
    finally:
        lock.release()


def _serve(args: argparse.Namespace, data_dir: str, demo: bool) -> int:
    service = TableService(data_dir)
    app = create_app({"SERVICE": service, "SERVE_HOST": args.host, "SERVE_PORT": args.port})
    try:
        server = make_table_server(app, args.host, args.port)
    except OSError as exc:
        raise UserError(f"cannot listen on {args.host}:{args.port} ({exc.strerror or exc})") from None
    background: list[Any] = []  # threads with a stop() method
    if demo:
        from companion.demo import DemoTable

        pace = float(os.environ.get("COMPANION_DEMO_PACE", "0.6"))
        background.append(DemoTable(service, pace=pace, seed=int(os.environ.get("COMPANION_DEMO_SEED", "7"))))
        service.demo = True
        mode = "demo"
    elif args.camera:
        mode = f"camera {args.camera}"
    else:
        mode = "no camera: moves entered by hand"
    print(banner(service.pin, args.host, server.effective_port, data_dir, mode), flush=True)
    for thread in background:
        thread.start()
    if args.camera and not demo:
        service.use_camera(args.camera, service.tracker.language if service.tracker else "en")

    def _stop(signum: int, frame: FrameType | None) -> None:
        server.live_limit.stopping.set()  # live pages end at their next event ...
        service.hub.publish(service.hub.payload)  # ... which is now, so their threads are free to stop
        raise KeyboardInterrupt  # waitress's loop runs in this (main) thread and ends on it

    signal.signal(signal.SIGTERM, _stop)
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        for thread in background:
            thread.stop()
        for thread in background:
            # Finished before the service closes: a daemon thread cut off inside OpenCV at exit aborts the
            # process ("terminate called without an active exception", 2 stops of 5 here), and one still
            # reading would write to a closed store.
            thread.join(timeout=5)
        server.task_dispatcher.shutdown(timeout=2)  # the workers first: none may write to a closed loop
        server.close()
        service.close()
    print("companion serve: stopped", file=sys.stderr)
    return 0
