"""Stroke skeletons of the digits 1-5 and the person letters, in the variants people really write.

Each variant is a list of polylines in a unit-ish box (x right, y down); they are fitted to a target box.
"""

from __future__ import annotations

import numpy as np

from vision.synth.sixth_renderer.pen import P, Pts, arc


def _cat(*parts: Pts) -> Pts:
    return np.vstack(parts)


DIGITS: dict[str, dict[str, list[Pts]]] = {
    "1": {
        "bar": [P(0.5, 0, 0.5, 1)],
        "flag": [P(0.22, 0.28, 0.5, 0, 0.5, 1)],
        "flag_base": [P(0.22, 0.28, 0.5, 0, 0.5, 1), P(0.2, 1, 0.8, 1)],
        "long_flag": [P(0.1, 0.45, 0.55, 0, 0.55, 1)],
    },
    "2": {
        "round": [_cat(arc(0.5, 0.3, 0.32, 0.3, 195, 380), P(0.12, 1, 0.9, 1))],
        "loop": [_cat(arc(0.5, 0.3, 0.32, 0.3, 200, 375), P(0.2, 0.9), arc(0.22, 0.88, 0.1, 0.1, 0, 300),
                      P(0.35, 0.98, 0.9, 0.98))],
        "angular": [P(0.15, 0.2, 0.4, 0, 0.75, 0.05, 0.8, 0.35, 0.12, 1, 0.9, 1)],
    },
    "3": {
        "round": [_cat(arc(0.45, 0.26, 0.32, 0.26, 200, 450), arc(0.45, 0.74, 0.36, 0.26, -90, 160))],
        "flat_top": [_cat(P(0.15, 0, 0.82, 0, 0.4, 0.42), arc(0.45, 0.7, 0.36, 0.3, -100, 160))],
        "two_strokes": [arc(0.45, 0.26, 0.32, 0.26, 200, 450), arc(0.45, 0.74, 0.36, 0.26, -90, 160)],
    },
    "4": {
        "closed": [P(0.62, 1, 0.62, 0, 0.08, 0.68, 0.92, 0.68)],
        "open": [P(0.25, 0, 0.12, 0.62, 0.92, 0.62), P(0.72, 0.05, 0.72, 1)],
        "open_cross": [P(0.3, 0, 0.12, 0.6, 0.95, 0.6), P(0.7, 0.25, 0.7, 1)],
    },
    "5": {
        "joined": [_cat(P(0.8, 0, 0.25, 0, 0.2, 0.45), arc(0.45, 0.68, 0.34, 0.32, -125, 150))],
        "flag_apart": [_cat(P(0.25, 0.02, 0.2, 0.45), arc(0.45, 0.68, 0.34, 0.32, -125, 150)),
                       P(0.3, 0, 0.85, -0.02)],
        "angular": [_cat(P(0.8, 0, 0.2, 0, 0.2, 0.42, 0.7, 0.45, 0.8, 0.75, 0.6, 1, 0.15, 0.9))],
    },
}

LETTERS: dict[str, dict[str, list[Pts]]] = {
    "C": {"upper": [arc(0.5, 0.5, 0.45, 0.5, -40, -320)]},
    "c": {"lower": [arc(0.5, 0.5, 0.45, 0.45, -40, -320)]},
    "S": {"upper": [_cat(arc(0.5, 0.26, 0.36, 0.26, -15, -270), arc(0.5, 0.74, 0.38, 0.26, -90, 165))]},
    "s": {"lower": [_cat(arc(0.5, 0.26, 0.36, 0.26, -15, -270), arc(0.5, 0.74, 0.38, 0.26, -90, 165))]},
    "P": {"upper": [P(0.2, 1, 0.2, 0), _cat(P(0.2, 0.02, 0.55, 0.02), arc(0.55, 0.27, 0.3, 0.25, -90, 90),
                                         P(0.2, 0.52))]},
    "p": {"lower": [P(0.2, 0.3, 0.2, 1.25), arc(0.48, 0.58, 0.3, 0.28, 0, 360)]},
    "A": {"upper": [P(0.05, 1, 0.5, 0, 0.95, 1), P(0.25, 0.6, 0.75, 0.6)],
          "upper_flat": [P(0.05, 1, 0.35, 0, 0.65, 0, 0.95, 1), P(0.2, 0.55, 0.8, 0.55)]},
    "a": {"single": [arc(0.45, 0.62, 0.34, 0.36, -20, 340), P(0.8, 0.25, 0.8, 1)],
          "double": [_cat(arc(0.48, 0.3, 0.3, 0.25, -160, 0), P(0.78, 0.9, 0.86, 1.0)),
                     arc(0.5, 0.75, 0.28, 0.22, -10, 350)]},
    "M": {"upper": [P(0.05, 1, 0.12, 0, 0.5, 0.65, 0.88, 0, 0.95, 1)],
          "upper_straight": [P(0.1, 1, 0.1, 0, 0.5, 0.6, 0.9, 0, 0.9, 1)]},
    "m": {"lower": [P(0.08, 0.3, 0.08, 1), _cat(arc(0.29, 0.5, 0.21, 0.2, 180, 360), P(0.5, 1)),
                    _cat(arc(0.71, 0.5, 0.21, 0.2, 180, 360), P(0.92, 1))]},
    "N": {"upper": [P(0.12, 1, 0.12, 0, 0.88, 1, 0.88, 0)]},
    "n": {"lower": [P(0.15, 0.3, 0.15, 1), _cat(arc(0.5, 0.55, 0.35, 0.25, 180, 360), P(0.85, 1))]},
    "J": {"upper": [_cat(P(0.65, 0, 0.65, 0.72), arc(0.42, 0.72, 0.23, 0.26, 0, 165))],
          "upper_bar": [P(0.25, 0, 0.95, 0), _cat(P(0.65, 0, 0.65, 0.72), arc(0.42, 0.72, 0.23, 0.26, 0, 165))]},
    "j": {"lower": [_cat(P(0.6, 0.3, 0.6, 0.9), arc(0.4, 0.9, 0.2, 0.25, 0, 160)), P(0.6, 0.05, 0.61, 0.09)]},
}


def fit(strokes: list[Pts], x: float, y: float, w: float, h: float, slant: float, rot: float) -> list[Pts]:
    """Strokes scaled (aspect kept) and centred into the box, sheared by ``slant``, turned ``rot`` degrees."""
    allp = np.vstack(strokes)
    lo, hi = allp.min(0), allp.max(0)
    size = np.maximum(hi - lo, 1e-3)
    s = min(w / size[0], h / size[1])
    c = (lo + hi) / 2
    a = np.radians(rot)
    R = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    out = []
    for st in strokes:
        q = (st - c) * s
        q[:, 0] -= slant * q[:, 1]
        out.append(q @ R.T + np.array([x + w / 2, y + h / 2]))
    return out
