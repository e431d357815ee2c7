"""The face network: a die's top face read from its crop's pixels, beside the classifier on its features.

The classifier (``reader.DiceClassifier``) reads a face from measures of its symbol that do not depend on the
die's turn (ink, colour, rings, angular harmonics). Those measures are coarse where the symbol is a few pixels:
14 mm dice from 85-90 cm are 11-12 px a side, and what was left misread on the held-out floors was such faces
(a swords read as a wall, a wall as a log). A small convolutional network sees the crop itself, white-balanced
on the die's own white as the features are (``FaceInk``), and learned every turn of every face
(``vision.dice.train_faces``). The two readings are multiplied (a geometric mean), so a face is read sure only
where both see it.

Run with NumPy and OpenCV alone (``vision.cells.cnn.ConvTrunk``), as the cell networks are.
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib import resources
from pathlib import Path

import numpy as np

from vision.cells.cnn import ConvTrunk
from vision.dice.features import CROP_PX, FaceInk

FACES_FILE = "dice_faces.npz"
# Ink below the die's white, per colour channel: a little brighter than the white (glare) is kept as slightly
# negative, never more.
INK_FLOOR = -0.25


def faces_path() -> Path:
    return Path(str(resources.files("vision.dice").joinpath(FACES_FILE)))


def measured_inks(measured: Sequence[FaceInk]) -> np.ndarray:
    """(n, CROP_PX, CROP_PX, 3) float32: each measured crop's ink per channel against its die's white (0 on the
    white, 1 where a channel is black), the network's input."""
    out = np.empty((len(measured), CROP_PX, CROP_PX, 3), np.float32)
    for k, ink in enumerate(measured):
        np.clip(1.0 - ink.norm, INK_FLOOR, 1.0, out=out[k])
    return out


def face_inks(crops: Sequence[np.ndarray] | np.ndarray) -> np.ndarray:
    """``measured_inks`` of BGR top-face crops (CROP_PX square) not measured yet."""
    return measured_inks([FaceInk(np.asarray(crop)) for crop in crops])


class FaceNetwork:
    """A convolutional trunk and a dense head over it, from ``dice_faces.npz``; classes are ``DIE_FACES``."""

    def __init__(self, path: Path | None = None) -> None:
        path = path or faces_path()
        self.trunk = ConvTrunk.load(path)
        with np.load(path) as data:
            n = int(data["n_dense"])
            self.weights = tuple(data[f"dense_w{i}"].astype(np.float32) for i in range(n))
            self.biases = tuple(data[f"dense_b{i}"].astype(np.float32) for i in range(n))
            self.temperature = float(data["temperature"])
            self.classes = tuple(str(c) for c in data["classes"])

    def logits(self, inks: np.ndarray) -> np.ndarray:
        x = self.trunk.features(inks)
        for i, (w, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            x = x @ w + b
            if i < len(self.weights) - 1:
                np.maximum(x, 0.0, out=x)
        return x

    def predict_proba(self, inks: np.ndarray) -> np.ndarray:
        """(n, classes) probabilities of ``face_inks``' maps."""
        if len(inks) == 0:
            return np.zeros((0, len(self.classes)), np.float32)
        z = self.logits(inks) / self.temperature
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        return p / p.sum(axis=1, keepdims=True)


def save_face_network(path: Path, trunk: ConvTrunk, weights: list[np.ndarray], biases: list[np.ndarray],
                      temperature: float, classes: tuple[str, ...]) -> None:
    arrays: dict[str, np.ndarray] = dict(trunk.arrays())
    arrays["n_dense"] = np.array(len(weights))
    for i, (w, b) in enumerate(zip(weights, biases, strict=True)):
        arrays[f"dense_w{i}"] = w.astype(np.float16)
        arrays[f"dense_b{i}"] = b.astype(np.float32)
    arrays["temperature"] = np.array(temperature, np.float32)
    arrays["classes"] = np.array(classes)
    np.savez_compressed(path, **arrays)


def combined(features_proba: np.ndarray, face_proba: np.ndarray) -> np.ndarray:
    """The two readings of the same dice multiplied and scaled to sum to 1 (the geometric mean of each face's
    two probabilities, renormalised): sure only where both are."""
    p = np.sqrt(np.maximum(features_proba, 1e-12) * np.maximum(face_proba, 1e-12))
    return p / p.sum(axis=1, keepdims=True)
