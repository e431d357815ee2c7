"""Small image statistics shared by the readers (NumPy only)."""

from __future__ import annotations

import numpy as np


def percentile_last_axis(values: np.ndarray, percentile: float) -> np.ndarray:
    """``np.percentile(values, percentile, axis=-1)`` (linear interpolation) with one ``np.partition``
    instead of a full sort: the paper level of many crops or boxes at once. float64 out."""
    size = values.shape[-1]
    position = (size - 1) * percentile / 100
    low = int(np.floor(position))
    high = min(low + 1, size - 1)
    ranked = np.partition(values, (low, high), axis=-1)
    below, above = ranked[..., low].astype(np.float64), ranked[..., high].astype(np.float64)
    return below + (above - below) * (position - low)
