"""``companion scan`` and ``companion teach``.

scan: one JSON line per image, in order (contract.md). An image that is missing or unreadable gets one
line on standard error naming it; the next images are still read, and the exit status is 2 at the end.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np

from companion.errors import UserError


def _load_image(name: str) -> np.ndarray:
    if name == "-":
        data = sys.stdin.buffer.read()
        image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR) if data else None
        if image is None:
            raise UserError("-: standard input is not an image")
        return image
    path = Path(name)
    if not path.exists():
        raise UserError(f"{name}: no such file")
    if not path.is_file():
        raise UserError(f"{name}: not a file")
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None:
        raise UserError(f"{name}: not an image OpenCV can read")
    return image


def cmd_scan(args: argparse.Namespace) -> int:
    from vision.pipeline import TableReader

    reader = TableReader(language=getattr(args, "language", "en") or "en", data_dir=getattr(args, "data", None))
    failed = 0
    for name in args.images:
        try:
            image = _load_image(name)
        except UserError as exc:
            print(f"companion scan: {exc}", file=sys.stderr, flush=True)
            failed += 1
            continue
        reader.reset()  # separate photos: never reuse the previous one's reading
        observation = reader.read(image)
        print(json.dumps(observation.to_json(image=name)), flush=True)
    return 2 if failed else 0


def cmd_teach(args: argparse.Namespace) -> int:
    from vision.teach import teach_from_images

    paths = [Path(p) for p in args.images]
    for path in paths:
        if not path.is_file():
            raise UserError(f"{path}: no such file")
    data_dir = getattr(args, "data", None)
    if data_dir is None:
        from companion.store import default_data_dir  # the same place the game store uses

        data_dir = default_data_dir()
    summary = teach_from_images(paths, data_dir, getattr(args, "language", "en") or "en")
    print(json.dumps(summary))
    return 0
