"""Train the cell classifier and write ``vision/cells/model.npz``.

    .venv/bin/python -m vision.cells.train --seed 0

Synthetic boards only (many random hands), plus scikit-learn's bundled handwritten digits for church
sizes from the training side of an index split (``dataset.load_digit_split``); the test side is only
ever used by ``vision.cells.evaluate`` and the benchmark. scikit-learn is needed here, not at run time.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from vision.cells.dataset import CellSet, load_digit_split, make_cell_set
from vision.cells.labels import GLYPH_CLASSES
from vision.cells.model import MODEL_PATH, CellModel

REPLAY_PER_CLASS = 24


def fit_temperature(model: CellModel, features: np.ndarray, labels: np.ndarray) -> float:
    """The softmax temperature that minimises the held-out negative log-likelihood."""
    return temperature_for_logits(model.logits(model.standardise(features)), labels)


def temperature_for_logits(logits: np.ndarray, labels: np.ndarray, highest: float = 5.0, steps: int = 60) -> float:
    """The temperature (0.3 to ``highest``, log-spaced) that minimises the negative log-likelihood of raw
    logits."""
    best_t, best_nll = 1.0, np.inf
    for t in np.exp(np.linspace(np.log(0.3), np.log(highest), steps)):
        zt = logits / t
        zt = zt - zt.max(axis=1, keepdims=True)
        log_p = zt - np.log(np.exp(zt).sum(axis=1, keepdims=True))
        nll = -float(log_p[np.arange(len(labels)), labels].mean())
        if nll < best_nll:
            best_t, best_nll = float(t), nll
    return best_t


def _data(seed: int, n_boards: int, n_val_boards: int, cache: Path | None) -> tuple[CellSet, CellSet]:
    """Training and validation cells; ``cache`` (an .npz) saves regenerating them between experiments."""
    if cache is not None and cache.is_file():
        with np.load(cache) as d:
            return (CellSet(d["train_x"], d["train_y"], d["train_b"]), CellSet(d["val_x"], d["val_y"], d["val_b"]))
    digits_train, _ = load_digit_split()
    train_set = make_cell_set(n_boards, np.random.default_rng(seed), digit_bitmaps=digits_train, bitmap_rate=0.2)
    val_set = make_cell_set(n_val_boards, np.random.default_rng(seed + 10_000), digit_bitmaps=digits_train,
                            bitmap_rate=0.2)
    if cache is not None:
        np.savez(cache, train_x=train_set.features, train_y=train_set.labels, train_b=train_set.bitmap_digit,
                 val_x=val_set.features, val_y=val_set.labels, val_b=val_set.bitmap_digit)
    return train_set, val_set


def train(seed: int, n_boards: int, n_val_boards: int, hidden: tuple[int, ...], out: Path,
          cache: Path | None = None, alpha: float = 1e-2) -> CellModel:
    from sklearn.neural_network import MLPClassifier

    t0 = time.perf_counter()
    train_set, val_set = _data(seed, n_boards, n_val_boards, cache)
    print(f"data: {len(train_set.labels)} train / {len(val_set.labels)} val cells "
          f"in {time.perf_counter() - t0:.0f} s")
    mean = train_set.features.mean(axis=0)
    scale = train_set.features.std(axis=0) + 1e-3
    x = (train_set.features - mean) / scale
    t0 = time.perf_counter()
    mlp = MLPClassifier(hidden_layer_sizes=hidden, alpha=alpha, batch_size=256, learning_rate_init=1e-3,
                        max_iter=45, early_stopping=True, validation_fraction=0.1, n_iter_no_change=8,
                        random_state=seed)
    mlp.fit(x, train_set.labels)
    print(f"fit: {mlp.n_iter_} epochs in {time.perf_counter() - t0:.0f} s")
    # sklearn's classes_ are the labels present, sorted: make the output layer cover every class.
    weights = [w.astype(np.float32) for w in mlp.coefs_]
    biases = [b.astype(np.float32) for b in mlp.intercepts_]
    full_w = np.zeros((weights[-1].shape[0], len(GLYPH_CLASSES)), np.float32)
    full_b = np.full(len(GLYPH_CLASSES), -30.0, np.float32)
    for j, label in enumerate(mlp.classes_):
        full_w[:, label] = weights[-1][:, j]
        full_b[label] = biases[-1][j]
    weights[-1], biases[-1] = full_w, full_b
    picks = []
    pick_rng = np.random.default_rng(seed + 1)
    for label in range(len(GLYPH_CLASSES)):
        where = np.flatnonzero(train_set.labels == label)
        if len(where):
            picks.extend(pick_rng.choice(where, min(REPLAY_PER_CLASS, len(where)), replace=False))
    model = CellModel(mean=mean.astype(np.float32), scale=scale.astype(np.float32), weights=tuple(weights),
                      biases=tuple(biases), temperature=1.0, replay_x=x[picks].astype(np.float32),
                      replay_y=train_set.labels[picks])
    # Round-trip through float16 first so that the temperature is fitted on the weights shipped.
    model.save(out)
    model = CellModel.load(out)
    temperature = fit_temperature(model, val_set.features, val_set.labels)
    model = CellModel(**{**model.__dict__, "temperature": temperature})
    model.save(out)
    predicted = model.probabilities(val_set.features).argmax(axis=1)
    print(f"val cell error {np.mean(predicted != val_set.labels):.4%}, temperature {temperature:.2f}, "
          f"model {out.stat().st_size / 1024:.0f} KiB")
    return model


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Train the cell classifier.")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--boards", type=int, default=1600, help="training boards (45 cells each)")
    parser.add_argument("--val-boards", type=int, default=150)
    parser.add_argument("--hidden", type=int, nargs="+", default=[320])
    parser.add_argument("--out", type=Path, default=MODEL_PATH)
    parser.add_argument("--cache", type=Path, default=None, help="keep the generated cells here (.npz)")
    parser.add_argument("--alpha", type=float, default=1e-2, help="L2 penalty")
    args = parser.parse_args(argv)
    train(args.seed, args.boards, args.val_boards, tuple(args.hidden), args.out, args.cache, args.alpha)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
