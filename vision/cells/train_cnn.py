"""Train the convolutional cell classifier and write ``vision/cells/cnn.npz``.

    .venv/bin/python -m vision.cells.train_cnn --seed 0   # about 10 min data (2 cores) + 30 min fit

writes the shipped weights: 10,000 training boards in four parts (seeds 1-4), 200 validation boards
(seed 10000), 14 epochs, channels 12-24-32, two PyTorch threads (validation cells misread: 0.38 %).
Twice the boards of the 5,000 (28 epochs) before, in the same number of steps; on 200 generated tables
(bench_frame's) under the camera at 75 cm cells misread 0.054 % instead of 0.094 % (not flagged
uncertain: 0.018 % instead of 0.040 %), boards read without error 97.8 % instead of 96.4 %; at 60 cm
0.018 % instead of 0.036 %, at 90 cm 0.32 % instead of 0.35 %; bench_cells 0.220 % instead of 0.256 %
(all with ../shared/reference-art, which the generator draws on when it is there).

These were the generator's first hands only. The shipped ``cnn.npz`` is now the same network trained on the
five hand families and those first hands together (``vision.cells.train_hands``, which calls ``train_on``);
this module's own entry point still trains on the first hands alone (a baseline for ``bench_cells``).

PyTorch is a training-time tool only (``pip install torch==2.13.0``, CPU build): the weights are
exported to a plain .npz and ``vision.cells.cnn`` runs them with NumPy. Synthetic boards only, plus scikit-learn's
``load_digits`` training split for church sizes (``dataset.load_digit_split``); the test split is
only ever used by ``vision.cells.evaluate`` and the benchmark.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from vision.cells.cnn import CNN_PATH, ConvTrunk, save_cnn
from vision.cells.dataset import load_digit_split, make_cell_set
from vision.cells.features import CROP_PX
from vision.cells.labels import GLYPH_CLASSES
from vision.cells.model import CellModel
from vision.cells.train import fit_temperature

DATA_PARTS = 4  # training boards come in this many parts of their own seeds, made side by side


def _cell_part(seed: int, n_boards: int) -> tuple[np.ndarray, np.ndarray]:
    digits_train, _ = load_digit_split()
    cells = make_cell_set(n_boards, np.random.default_rng(seed), digit_bitmaps=digits_train, bitmap_rate=0.2,
                          keep_crops=True)
    assert cells.crops is not None
    return cells.crops.astype(np.float16), cells.labels


def cell_crops_data(seed: int, n_boards: int, n_val_boards: int, cache: Path | None = None,
                    workers: int = DATA_PARTS) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(train crops, train labels, val crops, val labels); ``cache`` (.npz) keeps them between runs.

    The training boards are ``DATA_PARTS`` parts (seeds ``seed + 1``, ``seed + 2``, ...) and the
    validation boards have seed ``seed + 10000``: the same data whatever ``workers`` is.
    """
    if cache is not None and cache.is_file():
        with np.load(cache) as d:
            return d["train_x"], d["train_y"], d["val_x"], d["val_y"]
    jobs = [(seed + 1 + k, n_boards // DATA_PARTS + (k < n_boards % DATA_PARTS)) for k in range(DATA_PARTS)]
    jobs.append((seed + 10_000, n_val_boards))
    with ProcessPoolExecutor(max_workers=max(1, workers)) as pool:
        parts = list(pool.map(_cell_part, *zip(*jobs, strict=True)))
    train_parts, (val_x, val_y) = parts[:-1], parts[-1]
    out = (np.concatenate([x for x, _ in train_parts]), np.concatenate([y for _, y in train_parts]), val_x, val_y)
    if cache is not None:
        np.savez(cache, train_x=out[0], train_y=out[1], val_x=out[2], val_y=out[3])
    return out


# Measured at the camera's resolution (bench_cells, 2,000 training boards): 12-24-32 misread 0.27 % of
# cells, 8-16-32 0.39 % for 5 ms less a 4-board frame; 16-32-48 costs about 20 ms more a frame than
# 12-24-32. With 5,000 boards (the weights shipped before the 10,000) 12-24-32 misread 0.18 %.
CHANNELS = (12, 24, 32)
HIDDEN = 128
REPLAY_PER_CLASS = 12
SMEAR_RATE = 0.04  # drawings wiped out of recognition, taught as 'no idea' (uniform target)


def _torch_net(n_classes: int, channels: tuple[int, ...] = CHANNELS, batch_norm: bool = False,
               convs_per_stage: int = 1, global_average: bool = False) -> Any:
    """``batch_norm``: each convolution followed by batch normalisation (folded into it at ``export``).
    ``convs_per_stage`` convolutions of each of ``channels`` before each 2 x 2 max pool; ``global_average``: the
    last map averaged over its places (one value a channel) instead of flattened."""
    import torch.nn as nn

    layers: list[nn.Module] = []
    c_in = 1
    for c_out in channels:
        for _ in range(convs_per_stage):
            layers += [nn.Conv2d(c_in, c_out, 3, padding=1), *([nn.BatchNorm2d(c_out)] if batch_norm else []),
                       nn.ReLU()]
            c_in = c_out
        layers.append(nn.MaxPool2d(2))
    flat = channels[-1] * (1 if global_average else (CROP_PX // 2 ** len(channels)) ** 2)
    head = [*([nn.AdaptiveAvgPool2d(1)] if global_average else []), nn.Flatten(), nn.Dropout(0.1),
            nn.Linear(flat, HIDDEN), nn.ReLU(), nn.Dropout(0.2), nn.Linear(HIDDEN, n_classes)]
    return nn.Sequential(*layers, *head)


FAINT_RATE = 0.2  # drawings under glare or half dried out: ink at a quarter to three quarters of its contrast


THICKEN_RATE, THIN_RATE = 0.2, 0.15  # strokes of a broader or a finer marker than the one drawn
# Another person's strokes bend where ours run straight: a smooth random displacement (a 4 x 4 grid of
# offsets of up to ELASTIC_PX, interpolated over the crop) on this share of the cells (Simard et al.,
# 2003, on handwritten digits). The networks fitted before it was added were trained without it.
ELASTIC_RATE, ELASTIC_PX, ELASTIC_GRID = 0.6, 2.0, 4


def _augment(x: Any, generator: Any) -> Any:
    """Per group of 8: a random shift of up to 3 px (paper comes in at the edge), a small rotation, scale
    and shear (another hand's proportions); per cell: a smooth elastic bend (another hand's strokes), ink contrast (a fifth faint but still sharp: at 30-38
    px a cell, 8 of 11 misreads were faint drawings read as empty) and stroke width (a cell's ink grown or
    shrunk by a pixel, as another marker would draw it)."""
    import math

    import torch
    import torch.nn.functional as F

    n, size = len(x), x.shape[-1]
    groups = (n + 7) // 8
    on = generator.device  # draws where the batch is (a GPU's generator draws there)
    u = torch.rand((groups, 5), generator=generator, device=on)
    angle = (u[:, 0] - 0.5) * math.radians(16)
    scale = 0.9 + 0.2 * u[:, 1]
    shear = (u[:, 2] - 0.5) * 0.3
    shift = (u[:, 3:5] - 0.5) * (2 * 3 / size * 2)  # +-3 px in affine_grid's [-1, 1] units
    cos, sin = torch.cos(angle) / scale, torch.sin(angle) / scale
    theta = torch.stack([torch.stack([cos, -sin + shear, shift[:, 0]], 1),
                         torch.stack([sin, cos, shift[:, 1]], 1)], 1)
    theta = theta.repeat_interleave(8, 0)[:n]
    grid = F.affine_grid(theta, list(x.shape), align_corners=False)
    if ELASTIC_RATE > 0:
        coarse = ((torch.rand((n, 2, ELASTIC_GRID, ELASTIC_GRID), generator=generator, device=on) * 2 - 1)
                  * (ELASTIC_PX * 2 / size))
        coarse = coarse * (torch.rand((n, 1, 1, 1), generator=generator, device=on) < ELASTIC_RATE)
        field = F.interpolate(coarse, size=(size, size), mode="bicubic", align_corners=False)
        grid = grid + field.permute(0, 2, 3, 1)
    x = F.grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=False)
    width = torch.rand((n, 1, 1, 1), generator=generator, device=on)
    thick = F.max_pool2d(x, 3, stride=1, padding=1)
    thin = -F.max_pool2d(-x, 3, stride=1, padding=1)
    x = torch.where(width < THICKEN_RATE, thick, torch.where(width > 1 - THIN_RATE, thin, x))
    gain = 0.75 + 0.5 * torch.rand((n, 1, 1, 1), generator=generator, device=on)
    faint = torch.rand((n, 1, 1, 1), generator=generator, device=on) < FAINT_RATE
    gain = torch.where(faint, gain - 0.5, gain)
    return x * gain


def _smear(x: Any, labels: Any, generator: Any, n_classes: int) -> tuple[Any, Any]:
    """Soft targets; a few drawn cells blurred and faded past reading get a uniform target, so that a
    sleeve-wiped drawing comes out uncertain instead of confidently read as something."""
    import torch

    on = generator.device
    target = torch.nn.functional.one_hot(labels, n_classes).float()
    pick = (torch.rand(len(x), generator=generator, device=on) < SMEAR_RATE) & (labels != 0)
    if not bool(pick.any()):
        return x, target
    sigma = 2.5 + 2.5 * float(torch.rand(1, generator=generator, device=on))
    radius = int(3 * sigma)
    taps = torch.exp(-0.5 * (torch.arange(-radius, radius + 1, device=on) / sigma) ** 2)
    taps = taps / taps.sum()
    blurred = x[pick]
    blurred = torch.nn.functional.conv2d(blurred, taps.view(1, 1, 1, -1), padding=(0, radius))
    blurred = torch.nn.functional.conv2d(blurred, taps.view(1, 1, -1, 1), padding=(radius, 0))
    fade = 0.3 + 0.4 * torch.rand((len(blurred), 1, 1, 1), generator=generator, device=on)
    x = x.clone()
    x[pick] = blurred * fade
    target[pick] = 1.0 / n_classes
    return x, target


def load_weights(net: Any, path: Path) -> None:
    """Put a network file's weights (``export``'s layout) into a PyTorch net of the same shape, a residual one's blocks
    too (``_flat_modules``). A convolution followed by a batch normalisation (folded into it in the file) gets the folded
    kernel, and the normalisation becomes the identity at its running statistics (mean 0, variance 1, gain 1) with the
    folded bias as its shift: in eval mode the net reads as the file does."""
    import torch
    import torch.nn as nn

    trunk, head = ConvTrunk.load(path), CellModel.load(path)
    modules, _ = _flat_modules(net)
    convs = [(m, modules[k + 1] if k + 1 < len(modules) else None) for k, m in enumerate(modules) if isinstance(m, nn.Conv2d)]
    dense = [m for m in net if isinstance(m, nn.Linear)]
    with torch.no_grad():
        for (conv, after), kernel, bias in zip(convs, trunk.kernels, trunk.biases, strict=True):
            c_out, c_in = conv.weight.shape[:2]
            conv.weight.copy_(torch.from_numpy(kernel.reshape(3, 3, c_in, c_out).transpose(3, 2, 0, 1).copy()))
            shift = torch.from_numpy(bias)
            if isinstance(after, nn.BatchNorm2d):
                after.weight.fill_(1.0)
                after.running_mean.zero_()
                after.running_var.fill_(1.0 - after.eps)
                after.bias.copy_(shift)
                shift = torch.zeros_like(shift)
            if conv.bias is not None:
                conv.bias.copy_(shift)
        for layer, w, b in zip(dense, head.weights, head.biases, strict=True):
            layer.weight.copy_(torch.from_numpy(w.T.copy()))
            layer.bias.copy_(torch.from_numpy(b))


def _flat_modules(net: Any) -> tuple[list[Any], set[int]]:
    """(``net``'s layers in the order they run, residual blocks opened up; the places in it of the convolutions whose
    output has the block's input added before their ReLU: each block's last)."""
    import torch.nn as nn

    modules: list[Any] = []
    adds: set[int] = set()
    for m in net:
        if getattr(m, "adds_input", False):  # a residual block (``_teacher_net``): body, then input added, then out
            body = list(m.body)
            modules += body
            adds.add(len(modules) - 1 - next(k for k, b in enumerate(reversed(body)) if isinstance(b, nn.Conv2d)))
            modules.append(m.out)
        else:
            modules.append(m)
    return modules, adds


def export(net: Any) -> tuple[ConvTrunk, list[np.ndarray], list[np.ndarray]]:
    """(trunk, head weights, head biases) as NumPy arrays; a residual network's blocks too (``ConvTrunk.adds``)."""
    import torch.nn as nn

    modules, adding = _flat_modules(net)
    kernels, biases = [], []
    for k, conv in enumerate(modules):
        if not isinstance(conv, nn.Conv2d):
            continue
        w = conv.weight.detach().numpy().astype(np.float64)  # (out, in, 3, 3)
        b = np.zeros(w.shape[0]) if conv.bias is None else conv.bias.detach().numpy().astype(np.float64)
        norm = modules[k + 1] if k + 1 < len(modules) else None
        if isinstance(norm, nn.BatchNorm2d):  # folded in, at its running statistics (the net is in eval mode)
            gain = norm.weight.detach().numpy() / np.sqrt(norm.running_var.detach().numpy() + norm.eps)
            w = w * gain[:, None, None, None]
            b = (b - norm.running_mean.detach().numpy()) * gain + norm.bias.detach().numpy()
        kernels.append(w.transpose(2, 3, 1, 0).reshape(-1, w.shape[0]).astype(np.float32))  # (ky, kx, in)
        biases.append(b.astype(np.float32))
    conv_at = [k for k, m in enumerate(modules) if isinstance(m, nn.Conv2d)]
    pools = tuple(any(isinstance(m, nn.MaxPool2d) for m in modules[k:end])
                  for k, end in zip(conv_at, [*conv_at[1:], len(modules)], strict=True))
    global_average = any(isinstance(m, nn.AdaptiveAvgPool2d) for m in modules)
    dense = [m for m in net if isinstance(m, nn.Linear)]
    weights = [m.weight.detach().numpy().T.astype(np.float32).copy() for m in dense]
    head_biases = [m.bias.detach().numpy().astype(np.float32).copy() for m in dense]
    adds = tuple(k in adding for k in conv_at)
    trunk = ConvTrunk(tuple(kernels), tuple(biases), None if all(pools) else pools, global_average,
                      adds if any(adds) else None)
    return trunk, weights, head_biases


def train(seed: int, n_boards: int, n_val_boards: int, epochs: int, out: Path, cache: Path | None,
          threads: int = 2, channels: tuple[int, ...] = CHANNELS) -> None:
    t0 = time.perf_counter()
    train_x, train_y, val_x, val_y = cell_crops_data(seed, n_boards, n_val_boards, cache)
    print(f"data: {len(train_y)} train / {len(val_y)} val cells in {time.perf_counter() - t0:.0f} s")
    train_on(train_x, train_y, val_x, val_y, out=out, epochs=epochs, seed=seed, threads=threads, channels=channels)


def fit_batches(net: Any, n: int, batch_loss: Callable[[Any, Any], Any], *, epochs: int, seed: int,
                max_lr: float = 3e-3, batch: int = 128, device: str = "cpu") -> None:
    """Fit ``net`` (PyTorch) over ``epochs`` passes of ``n`` samples in shuffled batches of ``batch``: AdamW with a
    one-cycle rate; ``batch_loss(indices, generator)`` gives a batch's loss (``generator`` draws its
    augmentation, on ``device``). Leaves the net in eval mode."""
    import torch

    generator = torch.Generator(device=device).manual_seed(seed)
    steps = epochs * ((n + batch - 1) // batch)
    optimiser = torch.optim.AdamW(net.parameters(), lr=max_lr, weight_decay=1e-4)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=max_lr, total_steps=steps, pct_start=0.15)
    t0 = time.perf_counter()
    for epoch in range(epochs):
        net.train()
        order = torch.randperm(n, generator=generator, device=device)
        total = torch.zeros((), device=device)  # summed where the batches are: no wait for the GPU each step
        for start in range(0, n, batch):
            idx = order[start:start + batch]
            loss = batch_loss(idx, generator)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total += loss.detach() * len(idx)
        print(f"epoch {epoch + 1}/{epochs}: loss {float(total) / n:.4f} ({time.perf_counter() - t0:.0f} s)", flush=True)
    net.eval()


# A teacher for the small networks (Hinton, Vinyals and Dean, 2015, "Distilling the knowledge in a neural
# network"): a residual network many times their size, trained on the same crops where a GPU is lent
# (``--device cuda``), whose softened reading the small network then learns beside the labels. The Pi runs
# only the small network; the teacher is never exported. Tried at stop 49 on the letter stage's first shape: the
# teacher read loose's letters far better, the network distilled from it no better (``train_letters``' docstring);
# not tried on the deeper shape shipped since.
TEACHER_WIDTH = 64
DISTIL_TEMPERATURE = 4.0
DISTIL_LABEL_SHARE = 0.3  # of the small network's loss from the labels, the rest from the teacher


def _teacher_net(n_classes: int, width: int = TEACHER_WIDTH) -> Any:
    """Three stages of two residual blocks (``width``, twice and four times as many channels, 40 -> 20 -> 10 px),
    global average pooling and one dense layer."""
    import torch.nn as nn

    class Residual(nn.Module):
        adds_input = True  # (``export`` opens it up: ``_flat_modules``)

        def __init__(self, channels: int) -> None:
            super().__init__()
            self.body = nn.Sequential(nn.Conv2d(channels, channels, 3, padding=1, bias=False),
                                      nn.BatchNorm2d(channels), nn.ReLU(),
                                      nn.Conv2d(channels, channels, 3, padding=1, bias=False),
                                      nn.BatchNorm2d(channels))
            self.out = nn.ReLU()

        def forward(self, x: Any) -> Any:
            return self.out(x + self.body(x))

    def stage(c_in: int, c_out: int) -> list[nn.Module]:
        return [nn.Conv2d(c_in, c_out, 3, padding=1, bias=False), nn.BatchNorm2d(c_out), nn.ReLU(),
                Residual(c_out), Residual(c_out)]

    return nn.Sequential(*stage(1, width), nn.MaxPool2d(2), *stage(width, 2 * width), nn.MaxPool2d(2),
                         *stage(2 * width, 4 * width), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2),
                         nn.Linear(4 * width, n_classes))


def residual_width(path: Path) -> int:
    """The width of a residual network file (its first convolution's channels: ``_teacher_net``)."""
    return int(ConvTrunk.load(path).kernels[0].shape[1])


def keep_norms_frozen(net: Any) -> None:
    """Every batch normalisation of ``net`` kept in eval mode, whatever ``net.train()`` says: a network resumed from a
    folded file (``load_weights``) goes on at its running statistics, which a batch's own would overturn."""
    import types

    import torch.nn as nn

    for m in net.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.eval()
            m.train = types.MethodType(lambda self, mode=True: self, m)


def _augmented_batches(train_x: np.ndarray, train_y: np.ndarray,
                       device: str) -> tuple[int, Callable[[Any, Any], tuple[Any, Any]]]:
    """(how many crops, ``batch(indices, generator)``): the crops moved to ``device`` once, kept in half precision
    (as generated: six fits side by side fit in memory), and a batch of them augmented and smeared in single
    precision (inputs, class-probability targets)."""
    import torch

    x_all = torch.from_numpy(np.ascontiguousarray(train_x, dtype=np.float16)).unsqueeze(1).to(device)
    y_all = torch.from_numpy(train_y.astype(np.int64)).to(device)

    def batch(idx: Any, generator: Any) -> tuple[Any, Any]:
        return _smear(_augment(x_all[idx].float(), generator), y_all[idx], generator, len(GLYPH_CLASSES))

    return len(y_all), batch


def _half_precision(device: str) -> Any:
    """bfloat16 arithmetic on a GPU (the teacher's work), nothing elsewhere."""
    import torch

    return torch.autocast(device_type="cuda", dtype=torch.bfloat16, enabled=device.startswith("cuda"))


def train_teacher(train_x: np.ndarray, train_y: np.ndarray, *, epochs: int, seed: int, device: str = "cpu",
                  width: int = TEACHER_WIDTH, init: Path | None = None, max_lr: float = 2e-3) -> Any:
    """A teacher (``_teacher_net``) fitted on crops (n, CROP_PX, CROP_PX) with the small networks' augmentation
    and smearing; left on ``device`` in eval mode. ``init``: a residual network file to go on from (its width, not
    ``width``), its batch normalisations frozen (``keep_norms_frozen``)."""
    import torch

    torch.manual_seed(seed)
    net = _teacher_net(len(GLYPH_CLASSES), width if init is None else residual_width(init))
    if init is not None:
        load_weights(net, init)
        keep_norms_frozen(net)
    net = net.to(device)
    n, augmented = _augmented_batches(train_x, train_y, device)
    loss_fn = torch.nn.CrossEntropyLoss(label_smoothing=0.02)
    fast = _half_precision(device)

    def batch_loss(idx: Any, generator: Any) -> Any:
        x, target = augmented(idx, generator)
        with fast:
            logits = net(x)
        return loss_fn(logits.float(), target)

    fit_batches(net, n, batch_loss, epochs=epochs, seed=seed, max_lr=max_lr, batch=256, device=device)
    return net


def network_logits(net: Any, x: np.ndarray, device: str = "cpu", batch: int = 4096) -> np.ndarray:
    """A PyTorch network's logits (n, classes) of crops (n, CROP_PX, CROP_PX), in batches."""
    import torch

    out = []
    with torch.no_grad():
        for start in range(0, len(x), batch):
            chunk = torch.from_numpy(np.asarray(x[start:start + batch], np.float32)).unsqueeze(1).to(device)
            out.append(net(chunk).float().cpu().numpy())
    return np.concatenate(out) if out else np.zeros((0, len(GLYPH_CLASSES)), np.float32)


def train_on(train_x: np.ndarray, train_y: np.ndarray, val_x: np.ndarray, val_y: np.ndarray, *, out: Path,
             epochs: int, seed: int, threads: int = 2, channels: tuple[int, ...] = CHANNELS,
             temperature: float | None = None, trained_on: tuple[str, ...] = (), init: Path | None = None,
             max_lr: float = 3e-3, batch_norm: bool = False, device: str = "cpu", teacher: Any | None = None,
             convs_per_stage: int = 1, global_average: bool = False) -> None:
    """Fit the network on crops (n, CROP_PX, CROP_PX) and write it to ``out``. ``temperature``: use this
    one instead of fitting it on ``val_x`` (``train_hands`` fits it on hands the network never saw).
    ``init``: start from this network file's weights (same channels, no ``batch_norm``) instead of random ones.
    ``device``: where it is fitted ('cuda' where a GPU is lent; the file is the same kind either way).
    ``teacher``: a PyTorch network on ``device`` (``train_teacher``) whose softened reading of each augmented
    batch the network learns beside the labels (``DISTIL_LABEL_SHARE``). ``convs_per_stage``, ``global_average``:
    the network's shape (``_torch_net``)."""
    import torch
    import torch.nn.functional as F

    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    net = _torch_net(len(GLYPH_CLASSES), channels, batch_norm, convs_per_stage, global_average)
    if init is not None:
        load_weights(net, init)
    net = net.to(device)
    n, augmented = _augmented_batches(train_x, train_y, device)
    loss_fn = torch.nn.CrossEntropyLoss(label_smoothing=0.02)  # targets are class probabilities
    fast = _half_precision(device)

    def batch_loss(idx: Any, generator: Any) -> Any:
        x, target = augmented(idx, generator)
        logits = net(x)
        loss = loss_fn(logits, target)
        if teacher is None:
            return loss
        with torch.no_grad(), fast:
            taught = F.softmax(teacher(x).float() / DISTIL_TEMPERATURE, dim=1)
        soft = F.kl_div(F.log_softmax(logits / DISTIL_TEMPERATURE, dim=1), taught, reduction="batchmean")
        return DISTIL_LABEL_SHARE * loss + (1 - DISTIL_LABEL_SHARE) * DISTIL_TEMPERATURE ** 2 * soft

    fit_batches(net, n, batch_loss, epochs=epochs, seed=seed, max_lr=max_lr, device=device)
    save_network(net.cpu(), train_x, train_y, val_x, val_y, out=out, seed=seed, temperature=temperature,
                 trained_on=trained_on)


def save_network(net: Any, train_x: np.ndarray, train_y: np.ndarray, val_x: np.ndarray, val_y: np.ndarray, *,
                 out: Path, seed: int, temperature: float | None = None, trained_on: tuple[str, ...] = ()) -> None:
    """Write a fitted small network (PyTorch, on the CPU, eval mode) as ``out``: the trunk and head in NumPy's
    layout (checked against PyTorch's forward), a few training crops per class for teaching, and the
    temperature (fitted on ``val_x`` unless given)."""
    import torch

    n_classes = len(GLYPH_CLASSES)
    trunk, weights, biases = export(net)
    # Weights go through float16 in the file: export the trunk as it will be read back.
    trunk = ConvTrunk(tuple(k.astype(np.float16).astype(np.float32) for k in trunk.kernels), trunk.biases, trunk.pools,
                      trunk.global_average, trunk.adds)
    features = trunk.features(train_x[:1].astype(np.float32))
    n_features = features.shape[1]
    picks: list[int] = []
    pick_rng = np.random.default_rng(seed + 1)
    for label in range(n_classes):
        where = np.flatnonzero(train_y == label)
        if len(where):
            picks.extend(pick_rng.choice(where, min(REPLAY_PER_CLASS, len(where)), replace=False))
    head = CellModel(mean=np.zeros(n_features, np.float32), scale=np.ones(n_features, np.float32),
                     weights=tuple(weights), biases=tuple(biases), temperature=1.0,
                     replay_x=trunk.features(train_x[picks].astype(np.float32)), replay_y=train_y[picks])
    head = CellModel(**{**head.__dict__, "weights": tuple(w.astype(np.float16).astype(np.float32) for w in weights)})
    val_features = trunk.features(val_x.astype(np.float32))
    with torch.no_grad():
        torch_logits = net(torch.from_numpy(val_x[:256].astype(np.float32)).unsqueeze(1)).numpy()
    drift = np.abs(head.logits(val_features[:256]) - torch_logits).max()
    print(f"NumPy forward vs PyTorch: max logit difference {drift:.4f}")
    if temperature is None:
        temperature = fit_temperature(head, val_features, val_y)
    head = CellModel(**{**head.__dict__, "temperature": temperature})
    save_cnn(out, trunk, head, trained_on)
    predicted = head.probabilities(val_features).argmax(axis=1)
    print(f"val cell error {np.mean(predicted != val_y):.4%}, temperature {temperature:.2f}, "
          f"model {out.stat().st_size / 1024:.0f} KiB", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Train the convolutional cell classifier (needs PyTorch).")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--boards", type=int, default=10000, help="training boards (45 cells each)")
    parser.add_argument("--val-boards", type=int, default=200)
    parser.add_argument("--epochs", type=int, default=14)
    parser.add_argument("--out", type=Path, default=CNN_PATH)
    parser.add_argument("--threads", type=int, default=2,
                        help="PyTorch threads (the shipped weights were fitted with 2; sums in another order differ)")
    parser.add_argument("--channels", type=int, nargs="+", default=list(CHANNELS), help="per convolution")
    parser.add_argument("--cache", type=Path, default=None, help="keep the generated cells here (.npz)")
    args = parser.parse_args(argv)
    train(args.seed, args.boards, args.val_boards, args.epochs, args.out, args.cache, args.threads,
          tuple(args.channels))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
