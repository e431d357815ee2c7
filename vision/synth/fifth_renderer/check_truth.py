"""Check a fifth-renderer truth.jsonl: python check_truth.py DIR/truth.jsonl"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from glyphs import FORBIDDEN  # noqa: E402

TOWERS = {(0, 0), (0, 6), (6, 6), (6, 0)}
PRINTED = {(1, 1), (1, 2), (2, 1), (3, 1)}  # B2, C2, B3, B4
KINDS = {"W": "wall", "G": "crate", "H": "house"}
CHARS = set(".WGH12345cspamjn")


def kind_of(ch):
    return KINDS.get(ch, "church" if ch in "12345" else "person")


def check_line(rec):
    errors = []
    city, styles = rec["city"], rec["styles"]
    if len(city) != 7 or any(len(row) != 7 for row in city):
        return ["city is not 7 x 7"]
    if rec.get("seat") not in (0, 1, 2, 3):
        errors.append(f"bad seat {rec.get('seat')}")
    drawn = set()
    for r in range(7):
        for c in range(7):
            ch, name = city[r][c], f"{'ABCDEFG'[c]}{r + 1}"
            if (r, c) in TOWERS:
                if ch != "#":
                    errors.append(f"{name}: tower is {ch!r}")
                continue
            if ch not in CHARS:
                errors.append(f"{name}: unknown {ch!r}")
            if (r, c) in PRINTED:
                if ch != "G":
                    errors.append(f"{name}: printed crate is {ch!r}")
                continue
            outer = r in (0, 6) or c in (0, 6)
            if ch == "W" and not outer:
                errors.append(f"{name}: wall on an inner space")
            if ch != ".":
                drawn.add(name)
                style = styles.get(name)
                if style is None:
                    errors.append(f"{name}: no style")
                elif not style.startswith(kind_of(ch) + "."):
                    errors.append(f"{name}: style {style} for {ch!r}")
    for name, style in styles.items():
        if name not in drawn:
            errors.append(f"{name}: style for a cell not drawn")
        if "|font:" in style and style.split("|font:")[1] in FORBIDDEN:
            errors.append(f"{name}: forbidden font {style}")
    return errors


def main():
    path = Path(sys.argv[1])
    bad = 0
    count = 0
    for line in path.read_text().splitlines():
        rec = json.loads(line)
        count += 1
        for err in check_line(rec):
            bad += 1
            print(f"{rec['image']}: {err}")
    print(f"{count} boards, {bad} problems")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
