#!/usr/bin/env python3
"""Score `companion scan` on a set rendered by render.py.

Usage: python score.py DIR [--companion PATH] [--chunk 20] [--scan-json FILE]
"""
import argparse
import collections
import json
import os
import subprocess
import sys

import cv2
import numpy as np

TOWERS = {(0, 0), (6, 0), (6, 6), (0, 6)}
PRINTED = {(1, 1), (2, 1), (1, 2), (1, 3)}
DRAWABLE = [(c, r) for r in range(7) for c in range(7) if (c, r) not in TOWERS and (c, r) not in PRINTED]


def cls(ch):
    return {"W": "wall", "G": "crate", "H": "house", ".": "empty"}.get(
        ch, "church digit" if ch in "12345" else ("person " + ch if ch in "cspamjn" else "other " + ch))


def cell_name(c, r):
    return "ABCDEFG"[c] + str(r + 1)


def run_scan(companion, paths, chunk):
    out = {}
    for i in range(0, len(paths), chunk):
        part = paths[i:i + chunk]
        p = subprocess.run([companion, "scan", "--language", "en"] + part, capture_output=True, text=True)
        if p.returncode != 0:
            print(f"scan exit {p.returncode}: {p.stderr.strip()[:300]}", file=sys.stderr)
        lines = [t for t in p.stdout.splitlines() if t.strip().startswith("{")]
        for path, line in zip(part, lines, strict=False):
            rec = json.loads(line)
            out[os.path.basename(rec.get("image", path))] = rec
    return out


def pct(a, b):
    return f"{100.0 * a / b:5.1f}% ({a}/{b})" if b else "   n/a"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--companion", default="/work/main/.venv/bin/companion")
    ap.add_argument("--chunk", type=int, default=20)
    ap.add_argument("--scan-json", help="reuse a saved scan output (JSON lines) instead of running the product")
    a = ap.parse_args()
    with open(os.path.join(a.dir, "truth.jsonl")) as fh:
        truth = [json.loads(t) for t in fh if t.strip()]
    if a.scan_json:
        scans = {}
        with open(a.scan_json) as fh:
            for t in fh:
                if t.strip().startswith("{"):
                    r = json.loads(t)
                    scans[os.path.basename(r["image"])] = r
    else:
        scans = run_scan(a.companion, [os.path.join(a.dir, t["image"]) for t in truth], a.chunk)
        with open(os.path.join(a.dir, "scan.jsonl"), "w") as fh:
            for t in truth:
                if t["image"] in scans:
                    fh.write(json.dumps(scans[t["image"]]) + "\n")

    drawn = found = 0
    missing, extra = [], []
    tot = collections.Counter()
    by_hand = collections.defaultdict(collections.Counter)
    by_cls = collections.defaultdict(collections.Counter)
    conf = collections.Counter()
    by_style = collections.defaultdict(collections.Counter)
    perfect = 0
    dice_right = dice_total = dice_imgs = dice_imgs_ok = 0
    misread = []   # (image, grid_corners, c, r, true, read, uncertain, hand)
    for t in truth:
        s = scans.get(t["image"])
        if s is None:
            print("no scan output for", t["image"])
            s = {"boards": [], "dice": None}
        got = {b["seat"]: b for b in s.get("boards", [])}
        seats = {b["seat"] for b in t["boards"]}
        for seat in got:
            if seat not in seats:
                extra.append("{} seat {}".format(t["image"], seat))
        for b in t["boards"]:
            drawn += 1
            g = got.get(b["seat"])
            if g is None:
                missing.append(f"{t['image']} seat {b['seat']} ({b['hand']}, rot {b.get('rotation')})")
                continue
            found += 1
            unc = set(g.get("uncertain", []))
            bad = 0
            for c, r in DRAWABLE:
                tr = b["city"][r][c]
                try:
                    rd = g["city"][r][c]
                except (IndexError, KeyError, TypeError):
                    rd = "?"
                u = cell_name(c, r) in unc
                ok = tr == rd
                for C in (tot, by_hand[b["hand"]], by_cls[cls(tr)]):
                    C["cells"] += 1
                    C["wrong"] += not ok
                    C["wrong_sure"] += (not ok) and not u
                    C["right"] += ok
                    C["right_unc"] += ok and u
                st = b.get("styles", {}).get(cell_name(c, r))
                if st:
                    key = "{} / {}".format(cls(tr) if tr not in "12345" and tr not in "cspamjn" else ("church" if tr in "12345" else "person"), st)
                    by_style[key]["cells"] += 1
                    by_style[key]["wrong"] += not ok
                    by_style[key]["wrong_sure"] += (not ok) and not u
                if not ok:
                    bad += 1
                    conf[(tr, rd)] += 1
                    misread.append((t["image"], b["grid_corners"], c, r, tr, rd, u, b["hand"]))
            by_hand[b["hand"]]["boards"] += 1
            by_hand[b["hand"]]["perfect"] += bad == 0
            perfect += bad == 0
        if t.get("dice"):
            dice_imgs += 1
            rd = collections.Counter(s.get("dice") or [])
            tr = collections.Counter(t["dice"])
            m = sum((rd & tr).values())
            dice_right += m
            dice_total += len(t["dice"])
            dice_imgs_ok += rd == tr

    print(f"== {a.dir}: {len(truth)} images")
    print(f"boards found / drawn: {found} / {drawn}")
    print(f"drawable cells of found boards: {tot['cells']}")
    print("  cells misread:                      {}".format(pct(tot["wrong"], tot["cells"])))
    print("  cells misread, NOT listed uncertain: {}".format(pct(tot["wrong_sure"], tot["cells"])))
    print(f"  boards read with no misread cell:   {pct(perfect, found)}")
    print("  right cells listed uncertain:       {}".format(pct(tot["right_unc"], tot["right"])))
    print("\nby hand:                 boards  misread           misread-not-uncertain  perfect boards   right-but-uncertain")
    for h in sorted(by_hand):
        C = by_hand[h]
        print(f"  {h:<22s} {C['boards']:3d}   {pct(C['wrong'], C['cells']):<18s} {pct(C['wrong_sure'], C['cells']):<22s} "
              f"{pct(C['perfect'], C['boards']):<16s} {pct(C['right_unc'], C['right'])}")
    print("\nby true class:           misread             misread-not-uncertain   right-but-uncertain")
    for k in sorted(by_cls):
        C = by_cls[k]
        print(f"  {k:<22s} {pct(C['wrong'], C['cells']):<20s} {pct(C['wrong_sure'], C['cells']):<23s} "
              f"{pct(C['right_unc'], C['right'])}")
    print("\nby drawing style:        misread             misread-not-uncertain")
    for k in sorted(by_style):
        C = by_style[k]
        print(f"  {k:<22s} {pct(C['wrong'], C['cells']):<20s} {pct(C['wrong_sure'], C['cells'])}")
    print("\ntop confusions (true -> read: count):")
    for (tr, rd), n in conf.most_common(20):
        print(f"  {tr} -> {rd}: {n}")
    if dice_imgs:
        print(f"\ndice right: {pct(dice_right, dice_total)}; trays read fully right: {pct(dice_imgs_ok, dice_imgs)}")
    print(f"\nboards drawn but not returned: {len(missing)}")
    for m in missing:
        print("  ", m)
    print(f"boards returned under a seat not drawn: {len(extra)}")
    for m in extra:
        print("  ", m)
    contact_sheet(a.dir, misread)


def contact_sheet(d, misread, tile=120, per_row=12, limit=600):
    if not misread:
        return
    misread = misread[:limit]
    imgs = {}
    tiles = []
    for name, gc, c, r, tr, rd, u, _hand in misread:
        if name not in imgs:
            imgs[name] = cv2.imread(os.path.join(d, name))
        im = imgs[name]
        # grid (0..7 cells) -> photo; crop the cell with a quarter cell of context, upright
        src = np.float32([[0, 0], [7, 0], [7, 7], [0, 7]])
        H = cv2.getPerspectiveTransform(src, np.float32(gc))
        k = tile / 1.5
        T = np.array([[1 / k, 0, c - 0.25], [0, 1 / k, r - 0.25], [0, 0, 1]])
        crop = cv2.warpPerspective(im, H @ T, (tile, tile), flags=cv2.INTER_CUBIC | cv2.WARP_INVERSE_MAP)
        lab = np.full((22, tile, 3), 255, np.uint8)
        cv2.putText(lab, "{}>{}{}".format(tr, rd, " ?" if u else ""), (4, 16), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 200) if not u else (0, 120, 0), 1, cv2.LINE_AA)
        tiles.append(np.vstack([lab, crop]))
    rows = []
    for i in range(0, len(tiles), per_row):
        row = tiles[i:i + per_row]
        row += [np.full_like(tiles[0], 255)] * (per_row - len(row))
        rows.append(np.hstack(row))
    cv2.imwrite(os.path.join(d, "misread.png"), np.vstack(rows))
    first = f", first {limit}" if len(misread) == limit else ""
    print(f"contact sheet: {os.path.join(d, 'misread.png')} ({len(misread)} misread cells{first})")


if __name__ == "__main__":
    main()
