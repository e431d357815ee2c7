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
from vision.cells.labels import check_language

MAX_PIXELS = 40_000_000        # a 12 MP camera photo is 12; a 20000x20000 PNG of 1 MB would decode to 1.2 GB
MAX_IMAGE_BYTES = 100_000_000
MIN_SIDE = 64                  # smaller cannot hold a readable board


def image_bytes(name: str) -> bytes:
    """The raw bytes of an image file (``-``: standard input), with one-line errors naming it."""
    if name == "-":
        data = sys.stdin.buffer.read(MAX_IMAGE_BYTES + 1)
        if not data:
            raise UserError("-: standard input is empty, not an image")
    else:
        path = Path(name)
        try:
            with path.open("rb") as f:
                data = f.read(MAX_IMAGE_BYTES + 1)
        except FileNotFoundError:
            raise UserError(f"{name}: no such file") from None
        except IsADirectoryError:
            raise UserError(f"{name}: not a file (a folder)") from None
        except PermissionError:
            raise UserError(f"{name}: permission denied (cannot read the file)") from None
        except OSError as exc:
            raise UserError(f"{name}: cannot read ({exc.strerror or exc})") from None
    if len(data) > MAX_IMAGE_BYTES:
        raise UserError(f"{name}: larger than {MAX_IMAGE_BYTES // 1_000_000} MB; not a table photo")
    return data


def check_image_header(data: bytes, name: str) -> tuple[int, int]:
    """Width and height from the file's header, refused before decoding when too large or too small."""
    import io
    import warnings

    from PIL import Image, UnidentifiedImageError

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # PIL's decompression-bomb warning: we decide below
            with Image.open(io.BytesIO(data)) as header:  # reads the header only
                width, height = header.size
    except Image.DecompressionBombError:
        raise UserError(f"{name}: too many pixels (at most {MAX_PIXELS // 1_000_000} MP)") from None
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError):
        raise UserError(f"{name}: not an image (PNG, JPEG, BMP, TIFF or WebP)") from None
    if width * height > MAX_PIXELS:
        raise UserError(f"{name}: {width}x{height} pixels is too large (at most {MAX_PIXELS // 1_000_000} MP)")
    if min(width, height) < MIN_SIDE:
        raise UserError(f"{name}: {width}x{height} pixels is too small to hold a board "
                        f"(at least {MIN_SIDE}x{MIN_SIDE})")
    return width, height


def _load_image(name: str) -> np.ndarray:
    data = image_bytes(name)
    check_image_header(data, name)
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise UserError(f"{name}: not an image OpenCV can read")
    return image


def cmd_scan(args: argparse.Namespace) -> int:
    from vision.board.locate import BOARD_LAYOUTS
    from vision.pipeline import TableReader

    language = check_language(getattr(args, "language", "en") or "en")
    reader = TableReader(language=language, data_dir=getattr(args, "data", None))
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
        for seat in observation.extra.get("doubled_seats", ()):
            ids = sorted(BOARD_LAYOUTS[seat].marker_origins)
            print(f"companion scan: {name}: two boards carry the stickers of seat {seat} (markers {ids[0]}-"
                  f"{ids[-1]}); neither is read", file=sys.stderr, flush=True)
        print(json.dumps(observation.to_json(image=name)), flush=True)
    return 2 if failed else 0


def cmd_teach(args: argparse.Namespace) -> int:
    import tempfile

    from vision.teach import teach_from_images

    paths: list[Path] = []
    scratch = tempfile.TemporaryDirectory(prefix="companion-teach-")
    for k, name in enumerate(args.images):
        data = image_bytes(name)
        check_image_header(data, name)
        if name == "-":  # the photo from standard input, as a file for the teacher
            path = Path(scratch.name) / f"stdin-{k}.img"
            path.write_bytes(data)
            paths.append(path)
        else:
            paths.append(Path(name))
    data_dir = getattr(args, "data", None)
    if data_dir is None:
        from companion.store import default_data_dir  # the same place the game store uses

        data_dir = default_data_dir()
    seat = getattr(args, "seat", None)
    if seat is not None and not 0 <= seat <= 4:
        raise UserError(f"--seat {seat}: seats are 0 to 4")
    language = check_language(getattr(args, "language", "en") or "en")
    try:
        summary = teach_from_images(paths, data_dir, language, seat=seat)
    finally:
        scratch.cleanup()
    print(json.dumps(summary))
    return 0
