"""The ``companion`` command: one entry point, one sub-command per job (see shared contract.md).

Each sub-command lives in the module that owns its job; this file only parses arguments and turns
errors into one line on standard error with the contract's exit status, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Callable, Sequence

from companion.errors import UserError

# sub-command -> "module:function" taking the parsed arguments and returning an exit status
HANDLERS: dict[str, str] = {
    "serve": "web.serve:cmd_serve",
    "scan": "vision.cli:cmd_scan",
    "tally": "companion.commands:cmd_tally",
    "check": "companion.commands:cmd_check",
    "simulate": "companion.commands:cmd_simulate",
    "kit": "vision.kit:cmd_kit",
    "teach": "vision.cli:cmd_teach",
    "store": "companion.store_tools:cmd_store",
    "pin": "companion.store_tools:cmd_pin",
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="companion", description="Saint Malo table companion: reads the table, judges moves, keeps the score."
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("serve", help="run the table service and dashboard")
    p.add_argument("--demo", action="store_true", help="replay a synthetic game instead of a camera")
    p.add_argument("--camera", metavar="SOURCE", default=None,
                   help="picamera2, opencv:0, a video file, an image folder or a list of images")
    p.add_argument("--host", default="0.0.0.0")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--data", metavar="DIR", default=None, help="data directory for the game store")

    p = sub.add_parser("scan", help="read images and print one JSON line each")
    p.add_argument("images", nargs="+", metavar="IMAGE")
    p.add_argument("--language", default="en", help="person letters: en, it, fr, es")
    p.add_argument("--data", metavar="DIR", default=None, help="data directory (taught handwriting)")

    p = sub.add_parser("tally", help="print the final tally of a table state")
    p.add_argument("state", metavar="STATE.json")
    p.add_argument("--game", default=None, metavar="GAME",
                   help="saint-malo (the default), castles-of-tuscany or dice-settlers")

    p = sub.add_parser("check", help="judge one player's action")
    p.add_argument("state", metavar="STATE.json")
    p.add_argument("action", metavar="ACTION.json")

    p = sub.add_parser("simulate", help="play complete games with built-in bots")
    p.add_argument("--players", type=int, required=True)
    p.add_argument("--games", type=int, required=True)
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--bots", default=None, help="comma-separated bot names per seat: random, greedy")

    p = sub.add_parser("kit", help="write the printable marker sheet")
    p.add_argument("--out", required=True, metavar="FILE", help=".pdf or .png")
    p.add_argument("--seats", type=int, default=5)

    p = sub.add_parser("teach", help="teach the reader each player's handwriting from photos of teaching sheets")
    p.add_argument("images", nargs="+", metavar="IMAGE")
    p.add_argument("--data", metavar="DIR", default=None)
    p.add_argument("--language", default="en", help="person letters on the sheets: en, it, fr, es")
    p.add_argument("--seat", type=int, default=None,
                   help="whose sheet: a photo without markers is this seat's (default 0); with markers, only this seat")

    p = sub.add_parser("store", help="check, repair or export the game store")
    p.add_argument("action", choices=("check", "repair", "export"))
    p.add_argument("--data", metavar="DIR", default=None, help="data directory of the game store")
    p.add_argument("--out", metavar="FILE", default=None, help="export: write the JSON here, not to stdout")

    p = sub.add_parser("pin", help="show the table PIN again")
    p.add_argument("--data", metavar="DIR", default=None, help="data directory of the game store")
    return parser


def _handler(command: str) -> Callable[[argparse.Namespace], int] | None:
    module_name, func_name = HANDLERS[command].split(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name and (exc.name == module_name or module_name.startswith(exc.name + ".")):
            return None
        raise
    return getattr(module, func_name, None)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not args.command:
        parser.print_help()
        return 2
    try:
        handler = _handler(args.command)
        if handler is None:
            print(f"companion {args.command}: not yet available in this version", file=sys.stderr)
            return 2
        return int(handler(args) or 0)
    except UserError as exc:
        print(f"companion {args.command}: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # a bug, not bad input: still one line, unless asked for the trace
        if os.environ.get("COMPANION_DEBUG"):
            raise
        print(f"companion {args.command}: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
