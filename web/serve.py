"""``companion serve``: the table service and dashboard (camera, demo, or hand entry only)."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from types import FrameType

from werkzeug.serving import make_server

from companion.errors import UserError
from web import create_app
from web.service import TableService

CAMERA_SETTLE_SECONDS = 3.0  # a drawing must stay unchanged this long before it is judged


def data_dir_of(args: argparse.Namespace) -> str:
    return args.data or os.environ.get("COMPANION_DATA") or "data"


def banner(pin: str, host: str, port: int, data_dir: str, mode: str) -> str:
    shown = "localhost" if host in ("0.0.0.0", "::", "") else host
    return (f"Saint Malo table companion ({mode})\n"
            f"  dashboard: http://{shown}:{port}/\n"
            f"  data:      {os.path.abspath(data_dir)}\n"
            f"  TABLE PIN: {pin}   (needed to change anything; keep it at the table)\n")


def cmd_serve(args: argparse.Namespace) -> int:
    data_dir = data_dir_of(args)
    if not 0 < args.port < 65536:
        raise UserError(f"--port {args.port}: choose a port between 1 and 65535")
    demo = bool(getattr(args, "demo", False))
    settle = 0.0 if demo or not args.camera else CAMERA_SETTLE_SECONDS
    service = TableService(data_dir, settle_seconds=settle)
    app = create_app({"SERVICE": service})
    try:
        server = make_server(args.host, args.port, app, threaded=True)
    except OSError as exc:
        raise UserError(f"cannot listen on {args.host}:{args.port} ({exc.strerror or exc})") from None
    background: list[threading.Thread] = []
    if demo:
        from companion.demo import DemoTable

        pace = float(os.environ.get("COMPANION_DEMO_PACE", "1.0"))
        background.append(DemoTable(service, pace=pace, seed=int(os.environ.get("COMPANION_DEMO_SEED", "7"))))
        mode = "demo"
    elif args.camera:
        from web.camera_loop import CameraLoop

        language = service.tracker.language if service.tracker else "en"
        background.append(CameraLoop(service, args.camera, language=language, data_dir=data_dir))
        service.camera_spec = args.camera
        mode = f"camera {args.camera}"
    else:
        mode = "no camera: moves entered by hand"
    print(banner(service.pin, args.host, server.server_port, data_dir, mode), flush=True)
    for thread in background:
        thread.start()

    def _stop(signum: int, frame: FrameType | None) -> None:
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, _stop)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        for thread in background:
            stop = getattr(thread, "stop", None)
            if stop:
                stop()
        server.server_close()
        service.close()
    print("companion serve: stopped", file=sys.stderr)
    return 0
