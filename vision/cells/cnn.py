"""The convolutional trunk of the cell classifier, run with NumPy only (this runs on the Pi).

Three 3 x 3 convolutions (batch norm folded in at export), each followed by ReLU and a 2 x 2 max
pool, turn an ink map (40 x 40, ``features.cell_crops``) into a feature vector; the dense head that
classifies it is a ``CellModel`` (same file), so calibration and teach-mode fine-tuning stay as they
were. Trained with PyTorch by ``vision.cells.train_cnn`` (training only; never imported here).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from vision.cells.model import CellModel

CNN_PATH = Path(__file__).with_name("cnn.npz")


@dataclass(frozen=True)
class ConvTrunk:
    kernels: tuple[np.ndarray, ...]  # (3 * 3 * c_in, c_out) each, rows ordered (ky, kx, c_in)
    biases: tuple[np.ndarray, ...]

    @staticmethod
    def is_cnn_file(path: Path) -> bool:
        with np.load(path) as data:
            return "n_conv" in data

    @classmethod
    def load(cls, path: Path = CNN_PATH) -> ConvTrunk:
        with np.load(path) as data:
            n = int(data["n_conv"])
            return cls(kernels=tuple(data[f"conv_w{i}"].astype(np.float32) for i in range(n)),
                       biases=tuple(data[f"conv_b{i}"].astype(np.float32) for i in range(n)))

    def arrays(self) -> dict[str, np.ndarray]:
        """What ``load`` reads back (to be saved next to the head's arrays)."""
        out: dict[str, np.ndarray] = {"n_conv": np.array(len(self.kernels))}
        for i, (k, b) in enumerate(zip(self.kernels, self.biases, strict=True)):
            out[f"conv_w{i}"] = k.astype(np.float16)
            out[f"conv_b{i}"] = b.astype(np.float32)
        return out

    def features(self, crops: np.ndarray) -> np.ndarray:
        """Ink maps (n, h, w) -> (n, c * h/8 * w/8) features, flattened channel-first like PyTorch."""
        x = crops.astype(np.float32)[..., None]  # NHWC
        for kernel, bias in zip(self.kernels, self.biases, strict=True):
            x = _max_pool2(_conv3x3_relu(x, kernel, bias))
        return np.ascontiguousarray(x.transpose(0, 3, 1, 2)).reshape(len(x), -1)


def _conv3x3_relu(x: np.ndarray, kernel: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """'Same' 3 x 3 convolution of an NHWC batch as one matrix product (im2col), then ReLU."""
    n, h, w, c = x.shape
    padded = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    # Nine shifted copies side by side: columns ordered (ky, kx, c_in) like the kernel's rows.
    columns = np.concatenate([padded[:, dy:dy + h, dx:dx + w] for dy in range(3) for dx in range(3)], axis=3)
    out = columns.reshape(n * h * w, 9 * c) @ kernel
    out += bias
    return np.maximum(out, 0.0, out=out).reshape(n, h, w, -1)


def _max_pool2(x: np.ndarray) -> np.ndarray:
    return np.maximum(np.maximum(x[:, 0::2, 0::2], x[:, 0::2, 1::2]), np.maximum(x[:, 1::2, 0::2], x[:, 1::2, 1::2]))


def save_cnn(path: Path, trunk: ConvTrunk, head: CellModel) -> None:
    """One .npz: the trunk's arrays next to the head's (``CellModel.load`` reads the head from it)."""
    np.savez_compressed(path, **trunk.arrays(), **head.arrays())
