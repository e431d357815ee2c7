"""debug: contact sheet of single cells per style (unwarped), for eyeballing.

    python vision/synth/other_renderer/sheet.py OUT.png [SEED]
"""
import os
import sys

import cv2
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import render as R

fonts = R.FontBank()
rng = np.random.default_rng(int(sys.argv[2]) if len(sys.argv) > 2 else 0)
s = 90
rows = []
for key, tab in [('W', R.WALL), ('G', R.CRATE), ('H', R.HOUSE), ('3', R.CHURCH), ('m', R.PERSON)]:
    row = []
    for st in tab:
        hand = R.make_hand(rng, fonts)
        sym = key if key not in '3m' else (str(rng.integers(1, 6)) if key == '3' else 'cspamjn'[rng.integers(7)])
        a, name = R.render_cell(sym, hand, rng, fonts, s, 'top', style=st)
        P = a.shape[0]
        img = np.full((P, P, 3), 235, np.float32)
        col = np.array(R.INK[hand['color']], np.float32)
        img = img * (1 - a[..., None]) + col * a[..., None]
        o = int(R.PAD * s)
        cv2.rectangle(img, (o, o), (o + s, o + s), (150, 150, 150), 1)
        row.append(img[o - 10:o + s + 10, o - 10:o + s + 10])
    while len(row) < 13:
        row.append(np.full_like(row[0], 255))
    rows.append(np.hstack(row))
out = np.vstack(rows).astype(np.uint8)
cv2.imwrite(sys.argv[1], cv2.cvtColor(out, cv2.COLOR_RGB2BGR))
