"""A dry-erase marker left lying on a city board, as a player puts it down after drawing.

A capped marker is a cylinder 115-145 mm long and 10-17 mm across (a slim pen to a chisel-tip whiteboard marker):
a barrel in the ink's colour, or white or grey with a cap in the ink's colour, the cap a little wider than the
barrel and sometimes clipped. Seen from above it is a shaded band, brighter where the lamp shines off it and darker
at its sides, with a soft shadow on the board beside it. Drawn in a picture of its own and laid on a board by the
table renderer (``vision.synth.table.TableSpec.pen_on``).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

# Ink colours of the markers (BGR): black, blue, red, green (table-kit.md).
INKS: tuple[tuple[int, int, int], ...] = ((40, 38, 36), (150, 70, 25), (40, 40, 190), (60, 130, 40))
_BARRELS: tuple[tuple[int, int, int], ...] = ((235, 235, 232), (205, 208, 210), (90, 92, 95))
CAP_EXTRA_MM = 1.5  # the cap is this much wider than the barrel


@dataclass(frozen=True)
class PenLook:
    length_mm: float
    diameter_mm: float
    cap_mm: float  # the cap's length, at one end
    barrel: tuple[int, int, int]
    cap: tuple[int, int, int]
    clip: bool
    # Where it lies, in the board's millimetres (its picture's top-left corner at 0, 0): its middle, and the
    # direction of its length (degrees from the board's rows).
    centre_mm: tuple[float, float]
    angle_deg: float

    @staticmethod
    def random(rng: np.random.Generator, board_mm: float) -> PenLook:
        ink = INKS[int(rng.integers(len(INKS)))]
        barrel = ink if rng.random() < 0.45 else _BARRELS[int(rng.integers(len(_BARRELS)))]
        margin = 0.25 * board_mm
        return PenLook(length_mm=float(rng.uniform(115, 145)), diameter_mm=float(rng.uniform(10, 17)),
                       cap_mm=float(rng.uniform(32, 50)), barrel=barrel, cap=ink, clip=bool(rng.random() < 0.5),
                       centre_mm=(float(rng.uniform(margin, board_mm - margin)),
                                  float(rng.uniform(margin, board_mm - margin))),
                       angle_deg=float(rng.uniform(0, 180)))

    @property
    def width_mm(self) -> float:
        return self.diameter_mm + CAP_EXTRA_MM


def render_pen(look: PenLook, px_per_mm: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The pen seen from above (BGR float32) and its alpha (uint8), ``length_mm`` by ``width_mm``."""
    w = max(8, round(look.length_mm * px_per_mm))
    h = max(4, round(look.width_mm * px_per_mm))
    cap_px = round(look.cap_mm * px_per_mm)
    barrel_half = look.diameter_mm / 2 * px_per_mm
    mid = (h - 1) / 2
    across = np.arange(h, dtype=np.float32) - mid
    # A cylinder lit from above and a little to one side: darker at its sides, a highlight off its middle.
    highlight_at = float(rng.uniform(-0.35, 0.35))
    shine = float(rng.uniform(0.25, 0.6))

    def light_across(half: float) -> np.ndarray:
        t = np.clip(across / max(half, 1.0), -1, 1)
        return 0.55 + 0.45 * np.sqrt(1 - t * t) + shine * np.exp(-((t - highlight_at) ** 2) / (2 * 0.12**2))

    image = np.empty((h, w, 3), np.float32)
    image[:, :] = np.array(look.barrel, np.float32)
    image[:, :cap_px] = np.array(look.cap, np.float32)
    light = np.empty((h, w), np.float32)
    light[:, :] = light_across(barrel_half)[:, None]
    light[:, :cap_px] = light_across(h / 2)[:, None]
    image *= np.minimum(light, 1.0)[:, :, None]
    image += (np.maximum(light - 1.0, 0.0) * 255)[:, :, None]  # what shines off it is the lamp's colour
    alpha = np.zeros((h, w), np.uint8)
    b, c, cy = round(barrel_half), round(h / 2), round(mid)
    cv2.rectangle(alpha, (cap_px, cy - b), (w - 1 - b, cy + b), 255, -1)  # the barrel, its far end rounded
    cv2.circle(alpha, (w - 1 - b, cy), b, 255, -1)
    cv2.rectangle(alpha, (c, 0), (cap_px, h - 1), 255, -1)  # the cap, a little wider, its end rounded too
    cv2.ellipse(alpha, (c, cy), (c, c), 0, 90, 270, 255, -1)
    if look.clip:
        clip_w = max(2, round(3 * px_per_mm))
        y0 = cy + round(rng.uniform(-0.3, 0.3) * c) - clip_w // 2
        image[y0:y0 + clip_w, round(0.15 * cap_px):round(1.25 * cap_px)] = np.array(look.cap, np.float32) * 0.8
    return np.clip(cv2.GaussianBlur(image, (0, 0), 0.6), 0, 255), alpha
