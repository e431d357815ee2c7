"""The convolutional trunk of the cell classifier (and of the other networks: the same shape of arrays), run on a
network runtime or with NumPy (this runs on the Pi).

Three 3 x 3 convolutions (batch norm folded in at export), each followed by ReLU and a 2 x 2 max
pool, turn an ink map (40 x 40, ``features.cell_crops``) into a feature vector (a trunk may also have two
convolutions before each pool and average its last map over its places: ``ConvTrunk.pools``); the dense head that
classifies it is a ``CellModel`` (same file), so calibration and teach-mode fine-tuning stay as they
were. Trained with PyTorch by ``vision.cells.train_cnn`` (training only; never imported here).

A trunk runs on a network runtime when one is there (``RUNTIMES``, best first), from an ONNX graph of its arrays
built in memory with the ``onnx`` package (``trunk_graph``): the same weights, read from the same ``.npz`` by NumPy,
nothing else shipped. Without ``onnx``, or where no runtime can run the graph, it runs here with NumPy
(``features_numpy``). The runtimes, measured on this 2-core machine:

- ONNX Runtime (``onnxruntime``), first since stop 56 (2026-11-28): three times OpenCV's speed on one core for the
  same features (to 2e-6): a crop of the cell network 193 -> 65 us, of the letter network 586 -> 198 us, of the look
  network 407 -> 132 us. Each thread has a session of its own on that thread alone (no pool of its own: the boards
  are already read side by side on the frame's cores; a pool of two threads a session doubled the frame's time).
- OpenCV's own runtime (``cv2.dnn``), which stop 55 brought in: on one core no faster than NumPy (a whole frame,
  boards and OpenCV held to one thread: 146.5 ms with NumPy, 159.1 ms on it), but a forward holds Python's lock for
  none of the network, where the NumPy path takes it between each of its steps (a frame of four boards on two
  threads: 115-123 -> 102-107 ms). The readings are the same on each.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.cells.model import CellModel

CNN_PATH = Path(__file__).with_name("cnn.npz")
# The networks trained without one hand family each (``vision.cells.train_hands``, ``train_letters``).
UNSEEN_DIR = CNN_PATH.with_name("unseen")
FEATURE_BATCH = 2048  # crops through the NumPy trunk at a time (a frame's are a few hundred)
# The network runtimes a trunk may run on, best first (the module docstring): each one not installed, or that cannot
# read the graph, is passed over; NumPy runs the trunk when none is left.
RUNTIMES: tuple[str, ...] = ("onnxruntime", "opencv")
# Crops through a runtime at a time. OpenCV's network keeps the memory of the largest batch it was given, each thread
# its own: the letter network after 2,048 crops held 493 MB (the NumPy path frees its 2 GB peak). ONNX Runtime's
# session, its memory arena off, holds none, but a batch's peak grows with it (the letter network in one batch of
# 2,048: 505 MB at the peak, in pieces of 256: 205 MB). A frame's batches are a few dozen crops; teaching a seat sends
# a few thousand.
RUNTIME_BATCH = 256

_blas_controller: object | None = None


@contextlib.contextmanager
def single_threaded_blas() -> Iterator[None]:
    """BLAS on one thread for the duration: a board's matrices are small, and on a busy 2-4 core
    machine (camera, web, dice) BLAS worker threads waiting for a core cost far more than they save
    (a 45-cell read measured 116 ms with 2 threads under load against 19 ms on one). Without
    ``threadpoolctl`` installed this does nothing."""
    global _blas_controller
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:
        yield
        return
    if _blas_controller is None:
        _blas_controller = ThreadpoolController()
    with _blas_controller.limit(limits=1, user_api="blas"):  # type: ignore[attr-defined]
        yield


@dataclass(frozen=True)
class ConvTrunk:
    kernels: tuple[np.ndarray, ...]  # (3 * 3 * c_in, c_out) each, rows ordered (ky, kx, c_in)
    biases: tuple[np.ndarray, ...]
    # Whether a 2 x 2 max pool follows each convolution (None: every one, as in the first networks), and whether
    # the last map is averaged over its places (the letter stage's deeper trunk) instead of flattened.
    pools: tuple[bool, ...] | None = None
    global_average: bool = False
    # Whether each convolution's output has the input of the convolution before it added before its ReLU (the second
    # convolution of a residual block, He et al. 2016: the close-look stages' residual networks); None: none has.
    adds: tuple[bool, ...] | None = None
    # Each thread's own network of this trunk (``TrunkNetwork``; a ``cv2.dnn.Net`` is not to be run by two threads at
    # once, and the boards of a frame are read side by side), or False where no runtime can run it.
    _runtime: threading.local = field(default_factory=threading.local, init=False, repr=False, compare=False)

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "_runtime"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for k, v in state.items():
            object.__setattr__(self, k, v)
        object.__setattr__(self, "_runtime", threading.local())

    def pooled(self, i: int) -> bool:
        return True if self.pools is None else self.pools[i]

    def added(self, i: int) -> bool:
        return False if self.adds is None else self.adds[i]

    @staticmethod
    def is_cnn_file(path: Path) -> bool:
        with np.load(path) as data:
            return "n_conv" in data

    @classmethod
    def load(cls, path: Path = CNN_PATH) -> ConvTrunk:
        with np.load(path) as data:
            n = int(data["n_conv"])
            return cls(kernels=tuple(data[f"conv_w{i}"].astype(np.float32) for i in range(n)),
                       biases=tuple(data[f"conv_b{i}"].astype(np.float32) for i in range(n)),
                       pools=tuple(bool(p) for p in data["conv_pool"]) if "conv_pool" in data else None,
                       global_average=bool(data["global_average"]) if "global_average" in data else False,
                       adds=tuple(bool(a) for a in data["conv_add"]) if "conv_add" in data else None)

    def arrays(self) -> dict[str, np.ndarray]:
        """What ``load`` reads back (to be saved next to the head's arrays)."""
        out: dict[str, np.ndarray] = {"n_conv": np.array(len(self.kernels))}
        for i, (k, b) in enumerate(zip(self.kernels, self.biases, strict=True)):
            out[f"conv_w{i}"] = k.astype(np.float16)
            out[f"conv_b{i}"] = b.astype(np.float32)
        if self.pools is not None:
            out["conv_pool"] = np.array(self.pools, np.int8)
        if self.global_average:
            out["global_average"] = np.array(1, np.int8)
        if self.adds is not None:
            out["conv_add"] = np.array(self.adds, np.int8)
        return out

    def features(self, crops: np.ndarray) -> np.ndarray:
        """Ink maps (n, h, w), or (n, h, w, channels) -> (n, c * h/8 * w/8) features, flattened channel-first like
        PyTorch (three pooled convolutions), or (n, c) with ``global_average``."""
        net = self._network() if len(crops) else None
        if net is None:
            return self.features_numpy(crops)
        x = np.asarray(crops, dtype=np.float32)
        x = x[:, None] if x.ndim == 3 else x.transpose(0, 3, 1, 2)
        out = [net.run(np.ascontiguousarray(x[i:i + RUNTIME_BATCH])).reshape(min(RUNTIME_BATCH, len(x) - i), -1)
               for i in range(0, len(x), RUNTIME_BATCH)]
        return out[0] if len(out) == 1 else np.concatenate(out)

    def _network(self) -> TrunkNetwork | None:
        """This thread's network of the trunk on the first of ``RUNTIMES`` that runs it; None when the trunk runs
        with NumPy (no runtime, no ``onnx``, or a graph no runtime could read: then never asked again)."""
        net = getattr(self._runtime, "net", None)
        if net is None:
            graph = trunk_graph(self) if RUNTIMES else None
            loaded = (TrunkNetwork.on(name, graph) for name in RUNTIMES) if graph is not None else ()
            net = self._runtime.net = next((n for n in loaded if n is not None), False)
        return net or None

    def features_numpy(self, crops: np.ndarray) -> np.ndarray:
        """``features`` computed here with NumPy and OpenCV's filters."""
        if len(crops) > FEATURE_BATCH:
            # The second layer's products take about 130 KB a crop: tens of thousands at once (training's
            # validation, calibration) would take gigabytes.
            return np.concatenate([self.features_numpy(crops[i:i + FEATURE_BATCH])
                                   for i in range(0, len(crops), FEATURE_BATCH)])
        x = np.ascontiguousarray(crops, dtype=np.float32)
        block_input = x  # the input of the convolution before this one (a residual block's, for its second)
        for i, (kernel, bias) in enumerate(zip(self.kernels, self.biases, strict=True)):
            conv_input = x
            # ReLU(x + b) is monotonic per channel, so pooling first gives the same result on a quarter
            # of the values (not with a residual's input added: it is pooled after).
            pool = self.pooled(i)
            if self.added(i):
                x = _conv3x3(x, kernel) + bias + block_input
                np.maximum(x, 0.0, out=x)
                x = _max_pool2(x) if pool else x
                block_input = conv_input
                continue
            if i == 0 and kernel.shape[0] == 9:
                x = _conv3x3_first(x, kernel, pool)
            else:
                x = _max_pool2(_conv3x3(x, kernel)) if pool else _conv3x3(x, kernel)
            x += bias
            np.maximum(x, 0.0, out=x)
            block_input = conv_input
        if self.global_average:
            return x.mean(axis=(1, 2))
        return np.ascontiguousarray(x.transpose(0, 3, 1, 2)).reshape(len(x), -1)


@dataclass(frozen=True)
class TrunkNetwork:
    """A trunk's graph loaded in one network runtime (``runtime``: one of ``RUNTIMES``), for one thread."""

    runtime: str
    run: Callable[[np.ndarray], np.ndarray]  # crops (n, c, h, w) float32 -> the graph's output

    @classmethod
    def on(cls, runtime: str, graph: bytes) -> TrunkNetwork | None:
        """The graph in ``runtime``; None where it is not installed or cannot read the graph."""
        if runtime == "onnxruntime":
            try:
                import onnxruntime
            except ImportError:
                return None
            options = onnxruntime.SessionOptions()
            # On the calling thread alone: the boards' threads are the parallelism (the module docstring).
            options.intra_op_num_threads = 1
            options.inter_op_num_threads = 1
            options.log_severity_level = 3  # errors only: what it cannot do is told by falling back
            # Each run's memory handed back: with the arena the session kept its largest batch's (the letter network:
            # 216 MB held after 2,048 crops in pieces of 256, 155 MB without), as fast.
            options.enable_cpu_mem_arena = False
            try:
                session = onnxruntime.InferenceSession(graph, options, providers=["CPUExecutionProvider"])
            except Exception:  # noqa: BLE001 (ONNX Runtime raises several classes of its own, from a private module)
                return None
            return cls(runtime, lambda x: session.run(None, {"crops": x})[0])
        if runtime == "opencv":
            try:
                net = cv2.dnn.readNetFromONNX(np.frombuffer(graph, np.uint8))
            except cv2.error:
                return None

            def forward(x: np.ndarray) -> np.ndarray:
                net.setInput(x)
                return net.forward()

            return cls(runtime, forward)
        raise ValueError(f"unknown network runtime {runtime!r} (one of onnxruntime, opencv)")


def trunk_graph(trunk: ConvTrunk) -> bytes | None:
    """The trunk as an ONNX model (serialised): each convolution with its bias, a ReLU, a 2 x 2 max pool where
    ``pooled``, the last map averaged over its places or flattened; the batch size left open. None without the
    ``onnx`` package."""
    try:
        from onnx import TensorProto, helper, numpy_helper
    except ImportError:
        return None
    nodes, weights, x = [], [], "crops"
    inputs: list[str] = []
    for i, (kernel, bias) in enumerate(zip(trunk.kernels, trunk.biases, strict=True)):
        inputs.append(x)
        c_in, c_out = kernel.shape[0] // 9, kernel.shape[1]
        # Kernel rows are ordered (ky, kx, c_in); ONNX wants (c_out, c_in, ky, kx).
        w = np.ascontiguousarray(kernel.reshape(3, 3, c_in, c_out).transpose(3, 2, 0, 1), np.float32)
        weights += [numpy_helper.from_array(w, f"w{i}"), numpy_helper.from_array(bias.astype(np.float32), f"b{i}")]
        nodes.append(helper.make_node("Conv", [x, f"w{i}", f"b{i}"], [f"conv{i}"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]))
        summed = f"conv{i}"
        if trunk.added(i):
            nodes.append(helper.make_node("Add", [f"conv{i}", inputs[i - 1]], [f"sum{i}"]))
            summed = f"sum{i}"
        nodes.append(helper.make_node("Relu", [summed], [f"relu{i}"]))
        x = f"relu{i}"
        if trunk.pooled(i):
            nodes.append(helper.make_node("MaxPool", [x], [f"pool{i}"], kernel_shape=[2, 2], strides=[2, 2]))
            x = f"pool{i}"
    if trunk.global_average:
        nodes.append(helper.make_node("GlobalAveragePool", [x], ["average"]))
        x = "average"
    nodes.append(helper.make_node("Flatten", [x], ["features"]))
    c_in = trunk.kernels[0].shape[0] // 9
    crops = helper.make_tensor_value_info("crops", TensorProto.FLOAT, ["n", c_in, "h", "w"])
    features = helper.make_tensor_value_info("features", TensorProto.FLOAT, ["n", "f"])
    graph = helper.make_graph(nodes, "trunk", [crops], [features], weights)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString()


def _conv3x3_first(crops: np.ndarray, kernel: np.ndarray, pool: bool = True) -> np.ndarray:
    """'Same' 3 x 3 convolution (no bias) of single-channel maps (n, h, w), 2 x 2 max-pooled if ``pool`` -> NHWC.

    A matrix product with only nine rows is slow (and badly threaded) in BLAS; ``cv2.filter2D`` on the
    crops stacked into one tall image, each with its own zero border, does the whole batch per channel.
    """
    n, h, w = crops.shape
    tiled = np.zeros((n, h + 2, w + 2), np.float32)
    tiled[:, 1:-1, 1:-1] = crops
    flat = tiled.reshape(n * (h + 2), w + 2)
    step = 2 if pool else 1
    out = np.empty((kernel.shape[1], n, h // step, w // step), np.float32)
    for o in range(kernel.shape[1]):
        # filter2D correlates (no kernel flip), like PyTorch's conv2d.
        filtered = cv2.filter2D(flat, cv2.CV_32F, kernel[:, o].reshape(3, 3), borderType=cv2.BORDER_CONSTANT)
        inner = filtered.reshape(n, h + 2, w + 2)[:, 1:-1, 1:-1]
        out[o] = _max_pool2(inner[..., None])[..., 0] if pool else inner
    return np.ascontiguousarray(out.transpose(1, 2, 3, 0))


def _conv3x3(x: np.ndarray, kernel: np.ndarray) -> np.ndarray:
    """'Same' 3 x 3 convolution (no bias) of an NHWC batch.

    The three horizontal neighbours side by side (3 copies, not im2col's 9), one matrix product with the
    three kernel rows side by side, then the three row products added one row apart: about a third
    faster than im2col for the second layer (60 crops: 4.1 ms against 6.7 on this machine).
    """
    n, h, w, c = x.shape
    c_out = kernel.shape[1]
    padded = np.zeros((n, h + 2, w + 2, c), np.float32)
    padded[:, 1:-1, 1:-1] = x
    columns = np.empty((n, h + 2, w, 3 * c), np.float32)
    for dx in range(3):
        columns[..., dx * c:(dx + 1) * c] = padded[:, :, dx:dx + w]
    # Kernel rows are ordered (ky, kx, c_in): one (3 c_in, c_out) block per ky, placed side by side.
    by_row = kernel.reshape(3, 3 * c, c_out).transpose(1, 0, 2).reshape(3 * c, 3 * c_out)
    products = (columns.reshape(-1, 3 * c) @ by_row).reshape(n, h + 2, w, 3, c_out)
    return products[:, 0:h, :, 0] + products[:, 1:h + 1, :, 1] + products[:, 2:h + 2, :, 2]


def _max_pool2(x: np.ndarray) -> np.ndarray:
    return np.maximum(np.maximum(x[:, 0::2, 0::2], x[:, 0::2, 1::2]), np.maximum(x[:, 1::2, 0::2], x[:, 1::2, 1::2]))


def save_cnn(path: Path, trunk: ConvTrunk, head: CellModel, trained_on: tuple[str, ...] = ()) -> None:
    """One .npz: the trunk's arrays next to the head's (``CellModel.load`` reads the head from it), and
    the hand families it was trained on (``trained_on_families``)."""
    extra = {"trained_on": np.array(list(trained_on), dtype=str)} if trained_on else {}
    np.savez_compressed(path, **trunk.arrays(), **head.arrays(), **extra)


def trained_on_families(path: Path) -> tuple[str, ...]:
    """The hand families (``vision.synth.hands``) a network file was trained on; () if it does not say."""
    with np.load(path) as data:
        return tuple(str(v) for v in data["trained_on"]) if "trained_on" in data else ()


def _stored_float(path: Path, key: str) -> float | None:
    with np.load(path) as data:
        return float(data[key]) if key in data else None


def uncertain_threshold(path: Path) -> float | None:
    """The confidence under which a network file's readings are doubtful, when calibrated on hands it never
    saw (``train_hands.set_calibration``); None when the file does not say."""
    return _stored_float(path, "uncertain_below")


def symbol_uncertain_threshold(path: Path) -> float | None:
    """The confidence under which a network file's letters and digits (``labels.LETTER_AND_DIGIT_GLYPHS``)
    are doubtful, fitted as ``uncertain_threshold`` is (``train_hands.symbol_doubt_threshold``); None when the
    file does not say (its ``uncertain_threshold`` then holds for every cell)."""
    return _stored_float(path, "uncertain_below_symbols")


def agreed_uncertain_threshold(path: Path) -> float | None:
    """The threshold for a letter or digit whose confidence is what the network and its look network agree on
    (``reader.agreement``), fitted as ``symbol_uncertain_threshold`` is; None when the file does not say (the
    reader then asks the look network only about the cells it doubts, as before)."""
    return _stored_float(path, "uncertain_below_agreed")
