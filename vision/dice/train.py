"""Train the dice face classifier on synthetic trays: ``python -m vision.dice.train``.

Every training face goes through the same path as a real frame (markers -> the tray measured, and its
surround rectified at its dice's measured size -> split -> face crop -> features), so the classifier
learns what the reader really sees. Trays of the training floors and sizes only
(``vision.synth.dice.training_look``): the benchmark's held-out floors and sizes are never seen.
The network is tiny (features -> 48 ReLU -> 6) and trained with plain NumPy (Adam, full batch); the weights are written to
``vision/dice/dice_weights.npz``. Deterministic for a given ``--seed``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from vision.dice.reader import DiceReader, weights_path
from vision.observation import DIE_FACES
from vision.synth.dice import training_look, tray_scene

MATCH_MM = 6.0


def labelled_features(n_scenes: int, seed: int) -> tuple[np.ndarray, np.ndarray, dict[str, int]]:
    """Features and face indices of the dice the reader finds in ``n_scenes`` synthetic trays.

    A found die is labelled with the true die whose top face is nearest (within MATCH_MM); the counts of
    missed and spurious dice are returned for the evaluation.
    """
    rng = np.random.default_rng(seed)
    reader = DiceReader.__new__(DiceReader)  # no classifier needed to extract features
    xs: list[np.ndarray] = []
    ys: list[int] = []
    stats = {"scenes": 0, "no_tray": 0, "dice": 0, "missed": 0, "spurious": 0}
    for _ in range(n_scenes):
        frame, dice, _ = tray_scene(rng, look=training_look(rng))
        reader.forget()  # each scene another table: its dice measured afresh
        stats["scenes"] += 1
        stats["dice"] += len(dice)
        plane = reader.locate(frame)
        if plane is None:
            stats["no_tray"] += 1
            stats["missed"] += len(dice)
            continue
        view, surround, margin = reader.view_surround(frame, plane)
        blobs, _, features = reader.surround_faces(surround[margin:-margin, margin:-margin], surround, margin, view)
        tops = np.array([d.top_mm for d in dice])
        used: set[int] = set()
        for blob, feat in zip(blobs, features, strict=True):
            c = np.array(blob.centre) / view.px_per_mm
            dist = np.hypot(*(tops - c).T)
            j = int(np.argmin(dist))
            if dist[j] > MATCH_MM or j in used:
                stats["spurious"] += 1
                continue
            used.add(j)
            xs.append(feat)
            ys.append(DIE_FACES.index(dice[j].face))
        stats["missed"] += len(dice) - len(used)
    return np.array(xs, np.float32), np.array(ys, np.int64), stats


def train_mlp(x: np.ndarray, y: np.ndarray, seed: int, hidden: int = 48, epochs: int = 800) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    mean = x.mean(axis=0)
    scale = x.std(axis=0) + 1e-3
    xs = (x - mean) / scale
    n_classes = len(DIE_FACES)
    onehot = np.eye(n_classes, dtype=np.float32)[y]
    params = {
        "w1": rng.normal(0, np.sqrt(2 / x.shape[1]), (x.shape[1], hidden)).astype(np.float32),
        "b1": np.zeros(hidden, np.float32),
        "w2": rng.normal(0, np.sqrt(1 / hidden), (hidden, n_classes)).astype(np.float32),
        "b2": np.zeros(n_classes, np.float32),
    }
    moment1 = {k: np.zeros_like(v) for k, v in params.items()}
    moment2 = {k: np.zeros_like(v) for k, v in params.items()}
    lr, beta1, beta2, decay = 0.01, 0.9, 0.999, 1e-4
    for step in range(1, epochs + 1):
        pre = xs @ params["w1"] + params["b1"]
        hid = np.maximum(pre, 0)
        logits = hid @ params["w2"] + params["b2"]
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        d_logits = (p - onehot) / len(xs)
        grads = {"w2": hid.T @ d_logits + decay * params["w2"], "b2": d_logits.sum(axis=0)}
        d_hid = d_logits @ params["w2"].T * (pre > 0)
        grads["w1"] = xs.T @ d_hid + decay * params["w1"]
        grads["b1"] = d_hid.sum(axis=0)
        for k in params:
            moment1[k] = beta1 * moment1[k] + (1 - beta1) * grads[k]
            moment2[k] = beta2 * moment2[k] + (1 - beta2) * grads[k] ** 2
            m_hat = moment1[k] / (1 - beta1**step)
            v_hat = moment2[k] / (1 - beta2**step)
            params[k] -= lr * m_hat / (np.sqrt(v_hat) + 1e-8)
    return {"mean": mean, "scale": scale, **params, "classes": np.array(DIE_FACES)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", type=int, default=2000, help="synthetic trays to train on (5 dice each)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, default=weights_path())
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    x, y, stats = labelled_features(args.scenes, args.seed)
    print(f"features: {len(x)} dice from {stats['scenes']} trays in {time.perf_counter() - t0:.0f} s {stats}")
    t1 = time.perf_counter()
    weights = train_mlp(x, y, args.seed)
    np.savez_compressed(args.out, **weights)
    from vision.dice.reader import DiceClassifier

    train_acc = float((DiceClassifier(args.out).predict_proba(x).argmax(axis=1) == y).mean())
    print(f"trained in {time.perf_counter() - t1:.0f} s, training accuracy {train_acc:.5f}; wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
