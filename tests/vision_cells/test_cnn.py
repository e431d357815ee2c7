"""The forward pass of the convolutional cell classifier (on ONNX Runtime, on OpenCV's network runtime and with NumPy),
checked against a plain loop."""

from __future__ import annotations

import pickle
import shutil
import sys
import threading
from itertools import pairwise
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.layout import ALL_CELLS, LAYOUT
from vision.cells import cnn
from vision.cells.cnn import CNN_PATH, ConvTrunk, save_cnn
from vision.cells.features import cell_crops, ink_maps, shifted_cell_crops
from vision.cells.labels import GLYPH_CLASSES
from vision.cells.model import MODEL_PATH, CellModel
from vision.cells.reader import (
    AGREEMENT_BELOW,
    DRAWABLE_INDEX,
    LETTER_OR_DIGIT_CLASS,
    LOOK_BELOW,
    SECOND_LOOK_BELOW,
    CellReader,
    agreement,
    look_path_for,
    model_fingerprint,
)
from vision.synth.board import random_city, render_board
from vision.synth.drawings import Hand


def _direct_conv_relu(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, added: np.ndarray | None = None) -> np.ndarray:
    """x (h, w, c_in), weight (c_out, c_in, 3, 3) as PyTorch keeps it: 'same' conv (``added`` added to it), ReLU,
    by loops."""
    h, w, _ = x.shape
    padded = np.pad(x, ((1, 1), (1, 1), (0, 0)))
    out = np.zeros((h, w, len(weight)))
    for y in range(h):
        for xx in range(w):
            patch = padded[y:y + 3, xx:xx + 3].transpose(2, 0, 1)  # (c_in, 3, 3)
            out[y, xx] = (weight * patch[None]).sum(axis=(1, 2, 3)) + bias
    return np.maximum(out if added is None else out + added, 0)


def _pool(x: np.ndarray) -> np.ndarray:
    h, w, c = x.shape
    return x.reshape(h // 2, 2, w // 2, 2, c).max(axis=(1, 3))


@pytest.fixture(params=["onnxruntime", "opencv", "numpy"])
def runtime(request, monkeypatch):
    """Each trunk test three times: on ONNX Runtime (the default), on OpenCV's network runtime and with NumPy (what
    runs where neither can)."""
    monkeypatch.setattr(cnn, "RUNTIMES", () if request.param == "numpy" else (request.param,))
    return request.param


def _ran_on(trunk: ConvTrunk) -> str:
    net = getattr(trunk._runtime, "net", None)
    return net.runtime if isinstance(net, cnn.TrunkNetwork) else "numpy"


def _random_trunk(seed: int, channels: tuple[int, ...], pools: tuple[bool, ...] | None = None,
                  global_average: bool = False, adds: tuple[bool, ...] | None = None,
                  ) -> tuple[ConvTrunk, list[np.ndarray], list[np.ndarray]]:
    """A trunk of random weights, and its weights and biases as PyTorch keeps them (for ``_direct_features``)."""
    rng = np.random.default_rng(seed)
    weights = [rng.normal(0, 0.5, (c_out, c_in, 3, 3)) for c_in, c_out in pairwise(channels)]
    biases = [rng.normal(0, 0.1, len(w)) for w in weights]
    trunk = ConvTrunk(tuple(w.transpose(2, 3, 1, 0).reshape(-1, len(w)).astype(np.float32) for w in weights),
                      tuple(b.astype(np.float32) for b in biases), pools, global_average, adds)
    return trunk, weights, biases


def _direct_features(crop: np.ndarray, weights: list[np.ndarray], biases: list[np.ndarray],
                     pools: tuple[bool, ...] | None = None, global_average: bool = False,
                     adds: tuple[bool, ...] | None = None) -> np.ndarray:
    """One crop (h, w) or (h, w, c) through the trunk by loops: flattened channel-first, or averaged; ``adds``: which
    convolutions have the input of the one before them added before their ReLU (a residual block's second)."""
    x = (crop[..., None] if crop.ndim == 2 else crop).astype(np.float64)
    inputs = []
    for i, (w, b) in enumerate(zip(weights, biases, strict=True)):
        inputs.append(x)
        x = _direct_conv_relu(x, w, b, inputs[i - 1] if adds is not None and adds[i] else None)
        x = _pool(x) if pools is None or pools[i] else x
    return x.mean(axis=(0, 1)) if global_average else x.transpose(2, 0, 1).ravel()


def test_trunk_matches_direct_convolution(runtime):
    trunk, weights, biases = _random_trunk(0, (1, 3, 4))
    crops = np.random.default_rng(10).random((2, 8, 12)).astype(np.float32)
    got = trunk.features(crops)
    assert _ran_on(trunk) == runtime
    for crop, row in zip(crops, got, strict=True):
        np.testing.assert_allclose(row, _direct_features(crop, weights, biases), rtol=1e-4, atol=1e-5)


def test_deeper_trunk_matches_direct_convolution(runtime):
    """The letter stage's shape: two convolutions before each pool, the last map averaged over its places."""
    pools = (False, True, False, True)
    trunk, weights, biases = _random_trunk(2, (1, 3, 3, 4, 4), pools, global_average=True)
    crops = np.random.default_rng(12).random((3, 8, 12)).astype(np.float32)
    got = trunk.features(crops)
    assert got.shape == (3, 4) and _ran_on(trunk) == runtime
    for crop, row in zip(crops, got, strict=True):
        np.testing.assert_allclose(row, _direct_features(crop, weights, biases, pools, True), rtol=1e-4, atol=1e-5)


def test_a_residual_trunk_matches_direct_convolution(runtime):
    """The close-look stages' residual networks: a block's second convolution has the block's input added before its ReLU,
    then pooled (a stem, a block, a pool, a stem, a block, the last map averaged)."""
    pools = (False, False, True, False, False, False)
    adds = (False, False, True, False, False, True)
    trunk, weights, biases = _random_trunk(5, (1, 3, 3, 3, 4, 4, 4), pools, global_average=True, adds=adds)
    crops = np.random.default_rng(15).random((3, 8, 12)).astype(np.float32)
    got = trunk.features(crops)
    assert got.shape == (3, 4) and _ran_on(trunk) == runtime
    for crop, row in zip(crops, got, strict=True):
        np.testing.assert_allclose(row, _direct_features(crop, weights, biases, pools, True, adds), rtol=1e-4,
                                   atol=1e-5)
    # Without the additions it is another network: the test tells them apart.
    plain = _direct_features(crops[0], weights, biases, pools, True)
    assert not np.allclose(got[0], plain, rtol=1e-3, atol=1e-3)


def test_a_trunk_of_colour_crops_matches_direct_convolution(runtime):
    """The dice faces' trunk reads three channels a crop (n, h, w, 3)."""
    trunk, weights, biases = _random_trunk(4, (3, 4, 2))
    crops = np.random.default_rng(14).random((3, 8, 8, 3)).astype(np.float32)
    got = trunk.features(crops)
    assert _ran_on(trunk) == runtime
    for crop, row in zip(crops, got, strict=True):
        np.testing.assert_allclose(row, _direct_features(crop, weights, biases), rtol=1e-4, atol=1e-5)


def _shipped_trunks() -> list[Path]:
    from vision.dice.faces import faces_path

    cells = CNN_PATH.parent
    names = ("cnn", "cnn_second", "look", "letters", "churches", "letters_residual", "churches_residual")
    return [cells / f"{name}.npz" for name in names] + [faces_path()]


@pytest.mark.parametrize("name", ["onnxruntime", "opencv"])
def test_every_shipped_trunk_runs_on_each_runtime_as_it_does_with_numpy(name, monkeypatch):
    """ONNX Runtime is what a frame's networks run on, OpenCV's runtime where it is missing (``onnx`` and
    ``onnxruntime`` are dependencies, so both are always there): each shipped trunk, of every shape, gives NumPy's
    features on each, whatever the batch's size."""
    monkeypatch.setattr(cnn, "RUNTIMES", (name,))
    rng = np.random.default_rng(5)
    for path in _shipped_trunks():
        trunk = ConvTrunk.load(path)
        channels = trunk.kernels[0].shape[0] // 9
        for n in (1, 7, 30):
            crops = rng.random((n, 40, 40) if channels == 1 else (n, 40, 40, channels)).astype(np.float32) * 2
            got = trunk.features(crops)
            assert _ran_on(trunk) == name, path.name
            np.testing.assert_allclose(got, trunk.features_numpy(crops), rtol=1e-4, atol=1e-4, err_msg=path.name)


def test_a_batch_larger_than_the_runtimes_goes_through_in_pieces_and_comes_out_whole(monkeypatch):
    """OpenCV's network keeps the memory of the largest batch it saw, so a large one (a seat's teaching) goes
    through ``RUNTIME_BATCH`` crops at a time: the features are those of one batch, in order."""
    trunk = ConvTrunk.load(CNN_PATH)
    crops = np.random.default_rng(9).random((11, 40, 40)).astype(np.float32) * 2
    whole = trunk.features_numpy(crops)
    monkeypatch.setattr(cnn, "RUNTIME_BATCH", 4)
    pieces = trunk.features(crops)
    assert _ran_on(trunk) == "onnxruntime" and pieces.shape == whole.shape
    np.testing.assert_allclose(pieces, whole, rtol=1e-4, atol=1e-4)


def test_boards_read_side_by_side_each_run_their_own_network():
    """A frame's boards are read on threads at once (``TableReader._start_cells``): each thread runs a network of
    its own, and every reading is what one thread alone gives."""
    trunk = ConvTrunk.load(CNN_PATH)
    rng = np.random.default_rng(6)
    batches = [rng.random((12, 40, 40)).astype(np.float32) * 2 for _ in range(4)]
    expected = [trunk.features(b) for b in batches]
    got: dict[int, list[np.ndarray]] = {}
    nets: dict[int, object] = {}

    def read(k: int) -> None:
        got[k] = [trunk.features(batches[(k + j) % 4]) for j in range(8)]
        nets[k] = trunk._runtime.net

    threads = [threading.Thread(target=read, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k in range(4):
        for j, features in enumerate(got[k]):
            np.testing.assert_allclose(features, expected[(k + j) % 4], rtol=1e-5, atol=1e-5)
    assert len({id(n) for n in nets.values()}) == 4 and all(n.runtime == "onnxruntime" for n in nets.values())


def test_without_onnx_a_trunk_runs_with_numpy(monkeypatch):
    """Where ``onnx`` is not installed, the trunk is read with NumPy, and gives the same features."""
    trunk = ConvTrunk.load(CNN_PATH)
    crops = np.random.default_rng(7).random((5, 40, 40)).astype(np.float32)
    on_opencv = trunk.features(crops)
    monkeypatch.setitem(sys.modules, "onnx", None)  # import onnx now raises ImportError
    alone = ConvTrunk.load(CNN_PATH)
    assert cnn.trunk_graph(alone) is None
    np.testing.assert_allclose(alone.features(crops), on_opencv, rtol=1e-4, atol=1e-4)
    assert _ran_on(alone) == "numpy" and alone._runtime.net is False


def test_without_onnxruntime_a_trunk_runs_on_opencvs_runtime(monkeypatch):
    """Where ``onnxruntime`` is not installed (no wheel for a machine), OpenCV's runtime runs the trunk: the same
    features."""
    trunk = ConvTrunk.load(CNN_PATH)
    crops = np.random.default_rng(11).random((6, 40, 40)).astype(np.float32)
    first = trunk.features(crops)
    assert _ran_on(trunk) == "onnxruntime"
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # import onnxruntime now raises ImportError
    without = ConvTrunk.load(CNN_PATH)
    np.testing.assert_allclose(without.features(crops), first, rtol=1e-4, atol=1e-4)
    assert _ran_on(without) == "opencv"


def test_a_graph_no_runtime_can_read_leaves_the_trunk_to_numpy_and_is_not_tried_again(monkeypatch):
    trunk = ConvTrunk.load(CNN_PATH)
    crops = np.random.default_rng(12).random((4, 40, 40)).astype(np.float32)
    tried: list[bytes] = []

    def broken(t: ConvTrunk) -> bytes:
        tried.append(b"not a graph")
        return tried[-1]

    monkeypatch.setattr(cnn, "trunk_graph", broken)
    for _ in range(3):
        np.testing.assert_allclose(trunk.features(crops), trunk.features_numpy(crops))
    assert _ran_on(trunk) == "numpy" and trunk._runtime.net is False and len(tried) == 1
    with pytest.raises(ValueError, match="unknown network runtime"):
        cnn.TrunkNetwork.on("tensorflow", b"")


def test_a_trunk_survives_pickling_with_a_runtime_of_its_own():
    trunk = ConvTrunk.load(CNN_PATH)
    crops = np.random.default_rng(8).random((3, 40, 40)).astype(np.float32)
    before = trunk.features(crops)
    back = pickle.loads(pickle.dumps(trunk))
    assert getattr(back._runtime, "net", None) is None  # built afresh where it is run
    np.testing.assert_allclose(back.features(crops), before, rtol=1e-6, atol=1e-6)
    assert _ran_on(back) == "onnxruntime"


def test_deeper_trunk_survives_save_and_load(tmp_path):
    rng = np.random.default_rng(3)
    trunk = ConvTrunk((rng.normal(size=(9, 2)).astype(np.float32), rng.normal(size=(18, 3)).astype(np.float32)),
                      (np.zeros(2, np.float32), np.full(3, 0.1, np.float32)), (False, True), global_average=True)
    head = CellModel(mean=np.zeros(3, np.float32), scale=np.ones(3, np.float32),
                     weights=(rng.normal(size=(3, 17)).astype(np.float32),), biases=(np.zeros(17, np.float32),),
                     temperature=1.0)
    path = tmp_path / "letters.npz"
    save_cnn(path, trunk, head)
    back = ConvTrunk.load(path)
    assert back.pools == (False, True) and back.global_average and back.adds is None
    crops = rng.random((2, 8, 8)).astype(np.float32)
    np.testing.assert_allclose(back.features(crops), trunk.features(crops), rtol=2e-3, atol=2e-3)


def test_save_and_load_round_trip(tmp_path):
    rng = np.random.default_rng(1)
    trunk = ConvTrunk((rng.normal(size=(9, 2)).astype(np.float32),), (np.zeros(2, np.float32),))
    n_features = 2 * 4 * 4
    head = CellModel(mean=np.zeros(n_features, np.float32), scale=np.ones(n_features, np.float32),
                     weights=(rng.normal(size=(n_features, 17)).astype(np.float32),),
                     biases=(np.zeros(17, np.float32),), temperature=1.5)
    path = tmp_path / "cnn.npz"
    save_cnn(path, trunk, head)
    assert ConvTrunk.is_cnn_file(path)
    back = ConvTrunk.load(path)
    crops = rng.random((3, 8, 8)).astype(np.float32)
    np.testing.assert_allclose(back.features(crops), trunk.features(crops), rtol=2e-3, atol=2e-3)
    assert CellModel.load(path).temperature == 1.5


def test_reader_runs_the_shipped_cnn():
    assert CNN_PATH.is_file()
    reader = CellReader("en")
    assert reader.trunk is not None
    probs = reader.probabilities(np.full((448, 448, 3), 210, np.uint8))
    assert probs.shape == (49, 17) and np.allclose(probs.sum(axis=1), 1.0)
    # Blank paper reads as empty cells; the printed crates are part of the board, never read.
    printed = {ALL_CELLS.index(g) for g in LAYOUT.printed_crates}
    crate = GLYPH_CLASSES.index("G")
    assert probs.argmax(axis=1).tolist() == [crate if i in printed else 0 for i in range(49)]


def test_teach_file_of_the_older_mlp_is_ignored(tmp_path):
    """A teach file adapted from the feature MLP does not fit the CNN's head: read with the shipped model."""
    shutil.copy(MODEL_PATH, tmp_path / "teach.npz")
    reader = CellReader("en", tmp_path)
    assert not reader.taught and reader.trunk is not None


def test_teach_file_names_the_model_it_adapted(tmp_path):
    """A head adapted to another model's trunk is ignored even when the feature sizes agree (a model
    update of the same shape); one adapted to the shipped model is used."""
    head = CellModel.load(CNN_PATH)
    own = model_fingerprint(CNN_PATH)
    np.savez_compressed(tmp_path / "teach.npz", **head.arrays(with_replay=False), base_model=np.array("0" * 16))
    assert not CellReader("en", tmp_path).taught
    np.savez_compressed(tmp_path / "teach.npz", **head.arrays(with_replay=False), base_model=np.array(own))
    assert CellReader("en", tmp_path).taught


def test_batched_ink_maps_match_per_crop_percentile():
    """The batched paper level (one np.partition) is np.percentile's 80th, crop by crop."""
    rng = np.random.default_rng(2)
    crops = rng.integers(0, 256, (5, 40, 40)).astype(np.uint8)
    got = ink_maps(crops)
    for crop, maps in zip(crops, got, strict=True):
        paper = float(np.percentile(crop.astype(np.float32), 80)) + 1.0
        expected = np.clip((paper - crop.astype(np.float32)) / paper, 0.0, 1.0) * 2.0
        np.testing.assert_allclose(maps, expected, rtol=1e-6, atol=1e-6)


def test_one_batch_of_shifted_crops_equals_one_call_per_shift():
    rng = np.random.default_rng(3)
    board = (rng.random((448, 448)) * 255).astype(np.uint8)
    shifts = [(-3.0, 0.0), (0.0, 3.0)]
    cells = [0, 8, 48]
    batched = shifted_cell_crops(board, [(shift, i) for shift in shifts for i in cells])
    one_by_one = np.concatenate([cell_crops(board, shift, cells) for shift in shifts])
    np.testing.assert_array_equal(batched, one_by_one)
    assert not np.array_equal(batched[:3], batched[3:])  # the shift did move the crops


@pytest.mark.parametrize("side", [448, 7 * 30])
def test_shifted_crops_are_each_crops_own_resize(side):
    """The crops are cut and resized together (``shifted_cell_crops``: one column of crops, one resize): each is what
    cutting it alone and resizing it alone gives, at the board's edges too, shrunk (64 px a cell) or enlarged (30)."""
    from companion.layout import SIZE
    from vision.cells.features import CROP_PX, MARGIN

    rng = np.random.default_rng(4)
    board = (rng.random((side, side)) * 255).astype(np.uint8)
    wanted = [((float(dx), float(dy)), i) for dx, dy in [(-3.5, 0.0), (0.0, 2.5), (5.0, -5.0)] for i in (0, 6, 24, 42, 48)]
    cell = side / SIZE
    pad = int(np.ceil(MARGIN * cell)) + 1
    padded = cv2.copyMakeBorder(board, pad, pad, pad, pad, cv2.BORDER_REPLICATE)
    extent = int(round(cell * (1 + 2 * MARGIN)))
    expected = []
    for (dx, dy), index in wanted:
        row, col = divmod(index, SIZE)
        x = min(max(int(round(col * cell - MARGIN * cell + pad + dx)), 0), padded.shape[1] - extent)
        y = min(max(int(round(row * cell - MARGIN * cell + pad + dy)), 0), padded.shape[0] - extent)
        expected.append(cv2.resize(padded[y:y + extent, x:x + extent], (CROP_PX, CROP_PX), interpolation=cv2.INTER_AREA))
    np.testing.assert_array_equal(shifted_cell_crops(board, wanted), ink_maps(np.stack(expected)))


def _sure_of_walls(network: Path, out: Path) -> None:
    """A look network that reads every crop as a wall, whatever it shows."""
    with np.load(network) as data:
        arrays = {k: data[k] for k in data.files}
    last = max(int(k[1:]) for k in arrays if k.startswith("W") and k[1:].isdigit())
    arrays[f"W{last}"] = np.zeros_like(arrays[f"W{last}"])
    arrays[f"b{last}"] = np.where(np.arange(len(GLYPH_CLASSES)) == GLYPH_CLASSES.index("W"), 30.0, 0.0).astype(np.float32)
    np.savez_compressed(out, **arrays)


def test_the_look_network_reads_only_the_doubtful_cells(tmp_path):
    """With a look network next to the cell network (``look_path_for``), the cells the network still doubts
    after its second look (under ``LOOK_BELOW``) are averaged with the look network's reading; the others are
    left as they were."""
    rng = np.random.default_rng(19)  # a board with a cell under LOOK_BELOW and five doubtful above it (stop 79's reader)
    board = render_board(random_city(rng, fill=0.9), rng, cell_px=40, seat=0, hand=Hand.random(rng)).image
    alone = tmp_path / "alone"
    looked = tmp_path / "looked"
    for folder in (alone, looked):
        folder.mkdir()
        shutil.copy(CNN_PATH, folder / "cnn.npz")
    assert look_path_for(looked / "cnn.npz") == looked / "look.npz"
    _sure_of_walls(CNN_PATH, looked / "look.npz")
    plain = CellReader("en", model_path=alone / "cnn.npz")
    with_look = CellReader("en", model_path=looked / "cnn.npz")
    assert plain.look is None and with_look.look is not None
    before, after = plain.probabilities(board), with_look.probabilities(board)
    changed = np.flatnonzero(np.abs(after - before).max(axis=1) > 1e-9)
    asked = np.flatnonzero(before.max(axis=1) < LOOK_BELOW)
    assert len(asked) > 0
    # Every cell still under LOOK_BELOW after the network's second look was read by the look network too ...
    assert set(asked) <= set(changed)
    # ... and only those: the cells the network was sure of, or nearly, are as they were.
    assert set(changed) <= set(np.flatnonzero(before.max(axis=1) < SECOND_LOOK_BELOW))
    assert set(changed) == set(asked), (before.max(axis=1)[changed], LOOK_BELOW)
    assert len(changed) < len(DRAWABLE_INDEX) // 2
    wall = GLYPH_CLASSES.index("W")
    assert np.all(after[changed, wall] > before[changed, wall])


def test_agreement_is_high_only_where_both_readings_are_sure_of_the_same_class():
    sure_s = np.zeros((1, len(GLYPH_CLASSES)))
    sure_s[0, GLYPH_CLASSES.index("pS")], sure_s[0, GLYPH_CLASSES.index("pJ")] = 0.995, 0.005
    also_s = sure_s.copy()
    says_j = sure_s[:, ::-1].copy()
    says_j[0] = 0.0
    says_j[0, GLYPH_CLASSES.index("pJ")], says_j[0, GLYPH_CLASSES.index("pS")] = 0.9, 0.1
    rules_s_out = np.full((1, len(GLYPH_CLASSES)), 1.0 / len(GLYPH_CLASSES))
    rules_s_out[0, GLYPH_CLASSES.index("pS")] = 0.0
    assert agreement(sure_s, also_s)[0] == pytest.approx(0.995)  # the same reading twice: as sure as one
    assert agreement(sure_s, says_j)[0] < 0.9  # the second reader says J: the S is in doubt
    assert agreement(sure_s, rules_s_out)[0] == 0.0  # one reader rules the S out
    both_sure = sure_s.copy()
    both_sure[0, GLYPH_CLASSES.index("pS")], both_sure[0, GLYPH_CLASSES.index("pJ")] = 0.9999, 0.0001
    assert agreement(sure_s, both_sure)[0] > 0.995  # a surer second reader of the same class: surer together


def _hard_board(seed: int = 31) -> np.ndarray:
    """A board of letters and digits in a hand the shipped network reads with some doubt (loose's)."""
    rng = np.random.default_rng(seed)
    city = random_city(rng, fill=0.95)
    return render_board(city, rng, cell_px=40, seat=0, hand=Hand.random(rng, family="loose")).image


def test_a_letter_the_look_network_contradicts_is_doubted(tmp_path):
    """When the network file has a threshold for it (``uncertain_below_agreed``), a cell read as a letter or
    digit under ``AGREEMENT_BELOW`` is as sure as the network and the look network agree: a look network that
    sees a wall in every crop leaves every such cell uncertain, while a file without the threshold reads as
    before (its look network asked only about the cells still doubtful) and the readings stay the network's."""
    agreeing, contradicting, before = (tmp_path / name for name in ("agreeing", "contradicting", "before"))
    for folder in (agreeing, contradicting, before):
        folder.mkdir()
        shutil.copy(CNN_PATH, folder / "cnn.npz")
    shutil.copy(look_path_for(CNN_PATH), agreeing / "look.npz")
    _sure_of_walls(CNN_PATH, contradicting / "look.npz")
    _sure_of_walls(CNN_PATH, before / "look.npz")
    with np.load(CNN_PATH) as data:
        assert "uncertain_below_agreed" in data.files  # the shipped network has one
        arrays = {k: data[k] for k in data.files if k != "uncertain_below_agreed"}
    np.savez_compressed(before / "cnn.npz", **arrays)
    readers = {folder.name: CellReader("en", model_path=folder / "cnn.npz") for folder in (agreeing, contradicting, before)}
    assert readers["before"].agreed_uncertain_below is None and readers["agreeing"].agreed_uncertain_below is not None
    # The first of a few hard boards with three letters or more read in doubt (which board that is changes with
    # the shipped network's weights, not what is asserted of its letters).
    for seed in range(31, 41):
        board = _hard_board(seed)
        probs = readers["before"].probabilities(board)
        best, read_as = probs.max(axis=1), probs.argmax(axis=1)
        letters = [i for i in DRAWABLE_INDEX
                   if LETTER_OR_DIGIT_CLASS[read_as[i]] and LOOK_BELOW <= best[i] < AGREEMENT_BELOW]
        if len(letters) >= 3:
            break
    assert len(letters) >= 3
    names = [ALL_CELLS[i] for i in letters]
    reads = {name: reader.read(board) for name, reader in readers.items()}
    confidence = {name: np.array(conf).ravel() for name, (_, conf, _) in reads.items()}
    for name in readers:  # the readings themselves are the network's
        assert [reads[name][0][i // 7][i % 7] for i in letters] == [reads["before"][0][i // 7][i % 7] for i in letters]
    assert set(names) <= set(reads["contradicting"][2])
    assert np.all(confidence["contradicting"][letters] < 0.01)
    np.testing.assert_allclose(confidence["before"][letters], np.round(best[letters], 4))
    # A look network of its own kind agrees far more: every one of these cells surer than with the wall-seer.
    assert np.all(confidence["agreeing"][letters] > confidence["contradicting"][letters] + 0.3)
    # Cells the network is surer of than AGREEMENT_BELOW are not asked: their confidence is its own.
    sure = [i for i in DRAWABLE_INDEX if best[i] >= AGREEMENT_BELOW]
    np.testing.assert_allclose(confidence["contradicting"][sure], confidence["before"][sure])
