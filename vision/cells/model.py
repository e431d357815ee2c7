"""The cell classifier at run time: a small MLP in plain NumPy, loaded from a committed .npz.

Either the whole classifier on hand-made features (``model.npz``, trained with scikit-learn by
``vision.cells.train``) or the dense head on top of the convolutional trunk (``cnn.npz``, trained with
PyTorch by ``vision.cells.train_cnn``); training libraries are dev dependencies only, never imported
here. Probabilities are a temperature-scaled softmax, the temperature fitted on held-out cells so that
a 0.9 means right about nine times in ten. ``fine_tune`` adapts the dense layers to a taught hand.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from vision.cells.labels import GLYPH_CLASSES

MODEL_PATH = Path(__file__).with_name("model.npz")


@dataclass(frozen=True)
class CellModel:
    mean: np.ndarray
    scale: np.ndarray
    weights: tuple[np.ndarray, ...]
    biases: tuple[np.ndarray, ...]
    temperature: float
    classes: tuple[str, ...] = GLYPH_CLASSES
    replay_x: np.ndarray | None = None  # a few standardised training samples per class (for teach)
    replay_y: np.ndarray | None = None

    @classmethod
    def load(cls, path: Path = MODEL_PATH) -> CellModel:
        with np.load(path) as data:
            n_layers = int(data["n_layers"])
            classes = tuple(str(c) for c in data["classes"])
            if classes != GLYPH_CLASSES:
                raise ValueError(f"{path}: model classes {classes} differ from {GLYPH_CLASSES}")
            return cls(
                mean=data["mean"].astype(np.float32),
                scale=data["scale"].astype(np.float32),
                weights=tuple(data[f"W{i}"].astype(np.float32) for i in range(n_layers)),
                biases=tuple(data[f"b{i}"].astype(np.float32) for i in range(n_layers)),
                temperature=float(data["temperature"]),
                classes=classes,
                replay_x=data["replay_x"].astype(np.float32) if "replay_x" in data else None,
                replay_y=data["replay_y"].astype(np.int64) if "replay_y" in data else None,
            )

    def save(self, path: Path, *, with_replay: bool = True) -> None:
        np.savez_compressed(path, **self.arrays(with_replay=with_replay))

    def arrays(self, *, with_replay: bool = True) -> dict[str, np.ndarray]:
        """What ``load`` reads back."""
        arrays: dict[str, np.ndarray] = {
            "n_layers": np.array(len(self.weights)),
            "classes": np.array(self.classes),
            "mean": self.mean.astype(np.float32),
            "scale": self.scale.astype(np.float32),
            "temperature": np.array(self.temperature),
        }
        for i, (w, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            arrays[f"W{i}"] = w.astype(np.float16)
            arrays[f"b{i}"] = b.astype(np.float32)
        if with_replay and self.replay_x is not None and self.replay_y is not None:
            arrays["replay_x"] = self.replay_x.astype(np.float16)
            arrays["replay_y"] = self.replay_y.astype(np.int16)
        return arrays

    def standardise(self, features: np.ndarray) -> np.ndarray:
        return (features - self.mean) / self.scale

    def logits(self, standardised: np.ndarray) -> np.ndarray:
        h = standardised
        for w, b in zip(self.weights[:-1], self.biases[:-1], strict=True):
            h = np.maximum(h @ w + b, 0.0)
        return h @ self.weights[-1] + self.biases[-1]

    def probabilities(self, features: np.ndarray, allowed: np.ndarray | None = None,
                      prior_shift: np.ndarray | None = None) -> np.ndarray:
        """Calibrated class probabilities; ``allowed`` (bool per class) zeroes impossible classes;
        ``prior_shift`` (per class) is added to the log-probabilities (``labels.letter_prior_shift``)."""
        z = self.logits(self.standardise(features)) / self.temperature
        if prior_shift is not None:
            z = z + prior_shift[None, :]
        if allowed is not None:
            z = np.where(allowed[None, :], z, -np.inf)
        z = z - z.max(axis=1, keepdims=True)
        p = np.exp(z)
        return p / p.sum(axis=1, keepdims=True)

    def fine_tune(self, features: np.ndarray, labels: np.ndarray, classes: np.ndarray, *, steps: int = 80,
                  lr: float = 1e-3, batch: int = 64, seed: int = 0) -> CellModel:
        """Every dense layer adapted to taught samples (raw features, labels among ``classes``: bool per
        class): ``steps`` Adam steps, each on ``batch`` taught samples and as many of the replay set's
        samples of ``classes``, so that what the network knew of the others' ways of drawing stays
        (``seat_hand.stage_head``). Without replay samples, on the taught samples alone."""
        x_new = self.standardise(np.asarray(features, np.float32))
        y_new = np.asarray(labels, np.int64)
        replay_x = np.zeros((0, x_new.shape[1]), np.float32)
        replay_y = np.zeros(0, np.int64)
        if self.replay_x is not None and self.replay_y is not None:
            kept = np.asarray(classes, bool)[self.replay_y]
            replay_x, replay_y = self.replay_x[kept], self.replay_y[kept]
        params = [p.astype(np.float32) for pair in zip(self.weights, self.biases, strict=True) for p in pair]
        m = [np.zeros_like(p) for p in params]
        v = [np.zeros_like(p) for p in params]
        rng = np.random.default_rng(seed)
        for step in range(1, steps + 1):
            taught = rng.integers(len(y_new), size=batch)
            replayed = rng.integers(len(replay_y), size=batch if len(replay_y) else 0)
            x = np.vstack([x_new[taught], replay_x[replayed]])
            y = np.concatenate([y_new[taught], replay_y[replayed]])
            grads = _backprop(params, x, y, np.ones(len(y), np.float32), len(self.classes))
            for i, g in enumerate(grads):
                m[i] = 0.9 * m[i] + 0.1 * g
                v[i] = 0.999 * v[i] + 0.001 * g * g
                m_hat = m[i] / (1 - 0.9**step)
                v_hat = v[i] / (1 - 0.999**step)
                params[i] = params[i] - lr * m_hat / (np.sqrt(v_hat) + 1e-8)
        return replace(self, weights=tuple(params[0::2]), biases=tuple(params[1::2]))


def _backprop(params: list[np.ndarray], x: np.ndarray, y: np.ndarray, w: np.ndarray,
              n_classes: int) -> list[np.ndarray]:
    weights, biases = params[0::2], params[1::2]
    activations = [x]
    h = x
    for wt, b in zip(weights[:-1], biases[:-1], strict=True):
        h = np.maximum(h @ wt + b, 0.0)
        activations.append(h)
    z = h @ weights[-1] + biases[-1]
    z = z - z.max(axis=1, keepdims=True)
    p = np.exp(z)
    p /= p.sum(axis=1, keepdims=True)
    delta = p
    delta[np.arange(len(y)), y] -= 1.0
    delta *= (w / len(y))[:, None]
    grads: list[np.ndarray] = []
    for layer in range(len(weights) - 1, -1, -1):
        grads.append(delta.sum(axis=0))  # bias
        grads.append(activations[layer].T @ delta + 1e-4 * weights[layer])  # weight, with L2
        if layer > 0:
            delta = (delta @ weights[layer].T) * (activations[layer] > 0)
    grads.reverse()  # now W0, b0, W1, b1, ... in the order of params
    return grads
