"""One seat's hand, learned as the game goes: the drawings the table confirmed, read back as examples.

Every drawing of a move the table accepted as read, and every cell corrected by hand, is a labelled
example of how the person at that seat draws. A ``SeatHand`` keeps their ink maps (the crops the reader
reads, ``features.cell_crops``), embeds them with the reader's own network (the head's last hidden
layer: what the classifier separates the symbols on) and, when that seat's board is read, lets the
nearest examples vote next to the network:

    p(c) = (PRIOR_WEIGHT * p_network(c) + sum of w_i over the K nearest examples of class c)
           / (PRIOR_WEIGHT + sum of w_i over the K nearest examples)

with w_i in [0, 1] growing with the example's cosine similarity to the cell (0 below ``SIMILAR_FROM``).
So the network is a prior worth ``PRIOR_WEIGHT`` examples: one example can make a confident reading
(over 0.75) doubtful but never flip it, a cell unlike every example keeps the network's reading, and a class with
no examples keeps the network's share of what the examples leave. Nothing is retrained: the network is
untouched, and the examples are re-embedded whenever the reader's weights change (they are kept as ink,
not as embeddings).

Augmented views of one drawing (a teaching sheet's cells turned and scaled a little) share a
``drawing`` id and count as one example: the best-matching view votes, once.

From ``HEAD_FROM_DRAWINGS`` drawings on, the seat also reads with its own last layer (``seat_head``:
chesscog's few-shot step, on the layer that turns the head's embedding into classes, fitted in a fraction of
a second whenever the hand changes). The network's convolutions and hidden layer stay as they are, so the
examples' embeddings, and what the nearest examples vote, do not change.

The close-look stages (the letter and the church network, ``reader.SEAT_STAGES``) are fitted further: the
drawings a person labelled (a teaching sheet, corrections) fit both dense layers of each (``stage_head``), from
their close crops redrawn anew a few dozen times each (``redrawn``), since the letter network's last layer alone
separates a hand it never saw little better. Their convolutions stay as they are: plain NumPy, about half a
second a stage for a teaching sheet. A seat keeps the features of each drawing's redrawn crops (``redrawn_crops``,
seeded by the drawing's own ink, the first k the same whatever more are drawn), so a correction afterwards sends only
the corrected drawing through the convolutions: the letter stage's head fitted again at the cap took 0.69 s on the
frame thread with the deeper letter networks of stop 49, and takes about 19 ms since stop 50 (``bench_adapt``; the
first fit to a full hand about 0.7 s, as before).

Tried and not kept (2026-11-27, stop 39): the seat's persons voting on the letter stage's network as well (the same
vote, compared on the letter network's embedding of close crops cut from the kept ink maps; each network keeping its
own embeddings). On the letter network's embedding a cell's nearest drawing of its own hand's sheet has the right
letter about as often as the networks read it (round at seed 5151: 43 against 41 misread of 399 persons, only 16 of
them both). Teaching sheets (bench_adapt's teaching, dev seed 5151, 20 boards a player, quick, round, school and
loose) 1.57 -> 1.45 % misread; at bench_adapt's seed 9100 2.32 -> 2.20 %, at 5252 1.74 -> 1.71 %; but learning
during play got worse at 5252 (from turn 41 every drawing on the board 1.31 -> 1.83 %, new drawings 1.99 -> 3.23 %;
at 9100 0.79 -> 0.89 %): a misread that nobody noticed, learned as read, is a close neighbour of its own hand's
next drawings of that letter on a network that learned letters alone.

Tried and not kept (2026-11-28, stop 48): the stage heads fitted to close crops cut from the teaching sheet's photo
(and from the same jittered copies of it that make the sheet's ink maps), as the stages read a board, instead of
zoomed from the kept ink maps, which are softer (``close_look.close_from_cell_inks``). Stop 45 had measured it on
letters alone (school's, the letter network only: 14.0-14.6 -> 11.1-11.7 % misread). With the whole reader
(``bench_adapt``'s teaching sheets at dev seed 5151: quick, round, school and loose, 4 players, 20 boards a player)
the players' own boards misread 136 -> 135 of 13,120 cells (1.04 -> 1.03 %; untaught 1.75 %): the cell networks and
the seat's votes already make up most of the difference. Keeping a photo crop with every labelled drawing in the
store was not worth one cell in 13,000.

Tried at stop 51 (2026-11-28; teaching sheets of quick, round, school and loose at dev seed 7100, 4 players, 6 fresh
boards a player, 131 of 3,936 cells misread by the reader as it stood before this stop): the stage heads fitted
with 200 steps (``STAGE_STEPS``) 129, at a rate of 3e-3 (``STAGE_RATE``) 131, from 72 redraws a drawing
(``STAGE_REDRAWN``) 133, 200 steps with the stage's share at 0.75 130: none kept. With that share kept, the
network's reading against the nearest examples' votes (``PRIOR_WEIGHT``) at 1 or 4 instead of 2 (dev seeds 7600 and
8100): 36 -> 53 and 34, 108 -> 122 and 111: kept at 2. What was kept is the share itself: a stage head fitted to the
seat counts 0.75 of the letter or digit instead of 0.5 (``close_look.TAUGHT_WEIGHT``). Most of what is left there is
loose's letters written 5-8 px tall inside a thick ring at 24-46 px a cell: two of that seed's four loose players'
sheets are hard to read by eye too.
"""

from __future__ import annotations

import threading
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np

from companion.layout import ALL_CELLS
from companion.store import CARRIED_SOURCE
from vision.cells.features import CROP_PX, cell_crops
from vision.cells.labels import GLYPH_CLASSES, check_language, glyph_for_char

# Chosen on the classic generator's hands with stone walls and tents, and with Hershey letters (never on
# the hand families benchmarks/bench_adapt.py measures on).
PRIOR_WEIGHT = 2.0  # the network's reading counts as this many examples (over 1.67: one example never flips a reading of 0.8)
NEAREST = 5  # examples that vote for a cell
SIMILAR_FROM = 0.3  # cosine similarity under which an example does not vote at all
MAX_PER_CLASS = 40  # the newest examples of each class are kept (per seat)
INK_SCALE = 127.5  # ink maps (0..2) are kept as uint8
# The seat's own last layer (``seat_head``). Chosen with teaching sheets of the tidy, quick and school
# families read by networks that never saw them (seeds 4400, 5555 and 6666, never the benchmarks'), and checked
# on round and loose: fresh boards of that player misread 2.7 % -> 2.0 % (tidy, quick, school) and 7.0 % -> 5.1 %
# (round, loose), against 2.3 % and 6.0 % with the nearest examples alone; with both, 2.0 % and 4.7 %.
HEAD_STEPS = 300  # full-batch gradient steps (a hand at its cap: about 0.15 s, once after each move it learns)
HEAD_RATE = 0.5  # step size, relative to the examples' mean squared embedding
# How hard the layer is held to the network's own. 0.003-0.3 read alike on sheets (1.0: 3.6 % against
# 3.3 % on the three families), but with 1.0 a drawing labelled wrongly among 50 right ones flips its own
# confident reading in 3 of 20 cells instead of 10 (tests/vision_cells/test_seat_hand.py).
HEAD_L2 = 1.0
# The network's replay samples (a few training cells of every class) weigh as much as this many of the
# seat's drawings: a seat with two drawings of one class learns little more than the nearest examples
# give, while a teaching sheet (about 30 drawings) is barely held back (at equal weight the sheet's gain
# on round and loose halved).
REPLAY_DRAWINGS = 6.0
# A seat reads with its own last layer only from this many drawings on (a teaching sheet has 30; play
# reaches it in a few turns): before that the nearest examples alone vote, so that a lone drawing, even one
# labelled wrongly, never flips a confident reading (a layer fitted to one point moves that point anywhere).
HEAD_FROM_DRAWINGS = 12
# A close-look stage's head fitted to a seat (``stage_head``, the stages in ``reader.SEAT_STAGES``): both
# dense layers, from close crops redrawn anew, beside the network's replay samples, as Adam steps. Taken from
# the dev experiment of stop 45 (PyTorch, school's letters: untaught 17.8 %, the last layer alone 15.3 %, both
# dense layers from crops jittered anew each batch 11.1 %) and carried to NumPy unchanged but for the rate
# (1e-3 read school's letters 11.1 % against 12.1 % at 3e-4; 150 steps 11.9 %). Chosen on letters alone,
# seeds 5000-7999, never bench_adapt's.
# 36 redrawn crops a drawing read school's letters 11.6 % misread, 72 11.0 % in twice the time, 18 12.3 %.
STAGE_REDRAWN = 36  # redrawn crops of each drawing
STAGE_MOST_CROPS = 800  # ... at most this many in all (a hand with many corrections: fewer a drawing)
STAGE_STEPS = 80
STAGE_RATE = 1e-3
STAGE_BATCH = 64  # the seat's crops a step, and as many replay samples
# A close-look stage's head is fitted to a seat from this many labelled drawings of its kind on: a teaching sheet's
# 10 churches (and 14 letters); fewer than ``HEAD_FROM_DRAWINGS``, as half of every batch is the stage's replay
# samples however few the seat's drawings are. With both stages fitted from 10, own sheet at dev seeds 5151 and
# 5252 (loose at both, quick and school at 5252, 20 boards a player) 202 -> 166 misread of 13,120 cells, the
# churches' digits 48 -> 13.
STAGE_FROM_DRAWINGS = 10


class Embedder(Protocol):
    def embed(self, crops: np.ndarray) -> np.ndarray: ...


def head_embedding(model: Any, features: np.ndarray) -> np.ndarray:
    """The head's last hidden layer for raw features (the model's standardised input when it has none)."""
    h = model.standardise(features)
    for w, b in zip(model.weights[:-1], model.biases[:-1], strict=True):
        h = np.maximum(h @ w + b, 0.0)
    return np.asarray(h, np.float32)


def _unit(rows: np.ndarray) -> np.ndarray:
    return rows / (np.linalg.norm(rows, axis=1, keepdims=True) + 1e-6)


@dataclass(frozen=True)
class Snapshot:
    """A hand's examples embedded, each drawing's views side by side."""

    drawing_glyphs: np.ndarray  # class of each drawing
    starts: np.ndarray  # where each drawing's views start
    units: np.ndarray  # unit-length embedding of every view
    raw: np.ndarray  # the same embeddings as the head's hidden layer gives them
    view_glyphs: np.ndarray  # class of every view
    view_weights: np.ndarray  # 1 / views of its drawing: every drawing counts once


def seat_head(model: Any, embeddings: np.ndarray, glyphs: np.ndarray, weights: np.ndarray,
              allowed: np.ndarray) -> Any:
    """``model`` (a ``CellModel``) with its last layer fitted to one seat's examples: the few-shot step of
    chesscog, on the layer that turns the head's embedding into classes. Nothing else changes, so the
    network, its second looks and the embeddings the nearest examples vote on stay as they are.

    Cross-entropy of the seat's drawings (each drawing once, its views sharing its weight) and of the
    network's replay samples (``REPLAY_DRAWINGS``), plus ``HEAD_L2`` times the squared change of the layer,
    in ``HEAD_STEPS`` full-batch gradient steps from the network's own layer. Classes the language never uses
    stay out."""
    h = np.asarray(embeddings, np.float32)
    y = np.asarray(glyphs, np.int64)
    w = np.asarray(weights, np.float32)
    drawings = float(w.sum())
    if drawings <= 0:
        return model
    w = w / (drawings + REPLAY_DRAWINGS)
    if model.replay_x is not None and model.replay_y is not None and len(model.replay_y):
        replay = head_embedding(model, model.replay_x * model.scale + model.mean)
        h = np.vstack([h, replay])
        y = np.concatenate([y, model.replay_y.astype(np.int64)])
        w = np.concatenate([w, np.full(len(replay), REPLAY_DRAWINGS / (drawings + REPLAY_DRAWINGS) / len(replay))])
    keep = np.asarray(allowed, bool)[y]  # a letter the table's language never uses teaches nothing
    h, y, w = h[keep], y[keep], w[keep] / w[keep].sum()
    w0 = model.weights[-1].astype(np.float32)
    b0 = model.biases[-1].astype(np.float32)
    dw, db = np.zeros_like(w0), np.zeros_like(b0)
    step = HEAD_RATE / (float(np.mean(np.sum(h * h, axis=1))) + 1e-6)
    shut = ~np.asarray(allowed, bool)
    rows = np.arange(len(y))
    for _ in range(HEAD_STEPS):
        z = (h @ (w0 + dw) + b0 + db) / model.temperature
        z[:, shut] = -np.inf
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        p[rows, y] -= 1.0
        g = p * (w / model.temperature)[:, None]
        dw -= step * (h.T @ g + HEAD_L2 * dw)
        db -= HEAD_RATE * (g.sum(axis=0) + HEAD_L2 * db)
    weights = (*model.weights[:-1], (w0 + dw).astype(np.float32))
    biases = (*model.biases[:-1], (b0 + db).astype(np.float32))
    return replace(model, weights=weights, biases=biases)


def redrawn(crops: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Close crops (n, side, side) as the same hand might draw them another time and a camera see them: each
    turned (up to 8 degrees), scaled (0.9-1.1), sheared (up to 0.15), moved (up to 3 px), its strokes grown or
    thinned by a pixel (a fifth and a seventh of them: another marker), its ink at 0.75-1.25 of its contrast
    (a fifth of them half as strong again: glare, a drying marker). Much as the networks' training jitters
    (``vision.cells.train_cnn``, without its elastic bend), in NumPy and OpenCV."""
    side = crops.shape[-1]
    out = np.empty((len(crops), side, side), np.float32)
    grow = np.ones((3, 3), np.uint8)
    for k, crop in enumerate(np.asarray(crops, np.float32)):
        move = cv2.getRotationMatrix2D((side / 2, side / 2), float(rng.uniform(-8, 8)), float(rng.uniform(0.9, 1.1)))
        shear = float(rng.uniform(-0.15, 0.15))
        move[0, 1] += shear
        move[0, 2] -= shear * side / 2  # about the middle
        move[:, 2] += rng.uniform(-3, 3, 2)
        drawn = cv2.warpAffine(crop, move, (side, side), flags=cv2.INTER_LINEAR, borderValue=0.0)
        stroke = rng.random()
        if stroke < 0.2:
            drawn = cv2.dilate(drawn, grow)
        elif stroke > 0.85:
            drawn = cv2.erode(drawn, grow)
        out[k] = drawn * (rng.uniform(0.75, 1.25) - (0.5 if rng.random() < 0.2 else 0.0))
    return out


def redraw_counts(drawings: np.ndarray) -> np.ndarray:
    """How many redrawn crops each view of ``drawings`` (one drawing id a view) stands for: ``STAGE_REDRAWN`` a
    drawing, fewer when the hand has more than ``STAGE_MOST_CROPS`` in all, its views sharing them so that every
    drawing counts alike."""
    _, per_drawing = np.unique(np.asarray(drawings), return_inverse=True)
    views = np.bincount(per_drawing)
    each = max(1, min(STAGE_REDRAWN, STAGE_MOST_CROPS // len(views)))  # crops per drawing
    return -(-each // views[per_drawing])


def redrawn_crops(crop: np.ndarray, count: int) -> np.ndarray:
    """The first ``count`` redraws (``redrawn``) of one close crop, seeded by its own ink: the same whatever else the
    hand has, and the first k of any count the same k (each redraw takes as many draws of the generator)."""
    crop = np.asarray(crop, np.float32)
    return redrawn(np.repeat(crop[None], count, axis=0), np.random.default_rng(zlib.crc32(crop.tobytes())))


def stage_head(stage: Any, features: list[np.ndarray], glyphs: np.ndarray, allowed: np.ndarray) -> Any:
    """A close-look stage's head (``close_look.StageNetwork``) with both its dense layers fitted to one seat's
    drawings of the stage's kind: for each view, the stage's convolutions' features of its redrawn close crops
    (``redraw_counts`` of them, ``redrawn_crops``), of class ``glyphs``. The head learns them beside its replay
    samples (``CellModel.fine_tune``); the convolutions stay as they are. Classes the language never uses stay out.
    The same drawings give the same head."""
    classes = np.asarray(allowed, bool) & stage.look.classes
    glyphs = np.asarray(glyphs, np.int64)
    keep = np.flatnonzero(classes[glyphs])
    if not len(keep):
        return stage.head
    taken = np.concatenate([features[k] for k in keep]).astype(np.float32)
    labels = np.repeat(glyphs[keep], [len(features[k]) for k in keep])
    return stage.head.fine_tune(taken, labels, classes, steps=STAGE_STEPS, lr=STAGE_RATE, batch=STAGE_BATCH)


class SeatHand:
    """The examples of one seat's hand. Thread-safe (boards are read side by side); ``version`` changes
    with every change."""

    def __init__(self) -> None:
        self.glyphs: list[int] = []  # class index per example (one view of a drawing)
        self.drawings: list[int] = []  # views of one drawing share its id; ids grow with time
        self.keys: list[str] = []  # what the example stands for ("game:D4"): a new one with its key replaces it
        self.inks: list[np.ndarray] = []  # uint8 (CROP_PX, CROP_PX)
        # Whether a person said what the drawing is (a teaching sheet's cell, a correction, the reading the
        # players chose when asked: ``LABELLED_SOURCES``), not a move accepted as read: only those fit a
        # close-look stage's layer (``stage_model``).
        self.sure: list[bool] = []
        # How often the sure examples of each class changed (a move learned leaves them): a stage's head is fitted
        # again only when those of its kind changed (a wall corrected keeps the letter stage's).
        self.sure_changes = np.zeros(len(GLYPH_CLASSES), np.int64)
        self.version = 0
        self._units: list[np.ndarray | None] = []  # embeddings (not yet unit length), by the embedder below
        self._embedder: Any = None
        self._grouped: Snapshot | None = None  # _snapshot's answer...
        self._grouped_version = -1  # ...for this version
        self._head: tuple[tuple[Any, ...], Any] | None = None  # (what it was fitted for, seat_model's answer)
        self._stage_heads: dict[str, tuple[tuple[Any, ...], Any]] = {}  # stage name -> the same, stage_model's
        # stage name -> (the stage, a kept drawing's ink -> the features of its first redraws), for the next fit
        self._stage_redraws: dict[str, tuple[Any, dict[bytes, np.ndarray]]] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self.glyphs)

    def counts(self) -> dict[str, int]:
        """Distinct drawings per glyph class."""
        seen: dict[str, set[int]] = {}
        for g, d in zip(self.glyphs, self.drawings, strict=True):
            seen.setdefault(GLYPH_CLASSES[g], set()).add(d)
        return {g: len(ids) for g, ids in seen.items()}

    def add(self, glyph: str, crops: np.ndarray, *, drawing: int | None = None, key: str = "",
            sure: bool = False) -> int:
        """One drawing of ``glyph``: its ink map (CROP_PX, CROP_PX) or several views of it (n, ...), as
        ``features.cell_crops`` gives them (0..2), or as kept (uint8). An example with the same non-empty
        ``key`` is replaced. ``sure``: a person said what it is (``self.sure``). Returns the drawing's id."""
        views = np.asarray(crops)
        views = views[None] if views.ndim == 2 else views
        if views.dtype != np.uint8:
            views = _ink_u8(views)
        index = GLYPH_CLASSES.index(glyph)
        with self._lock:
            if key:
                self._remove(lambda k: self.keys[k] == key)
            drawing = drawing if drawing is not None else max(self.drawings, default=0) + 1
            for view in views:
                self.glyphs.append(index)
                self.drawings.append(drawing)
                self.keys.append(key)
                self.inks.append(view)
                self.sure.append(sure)
                self._units.append(None)
            self.sure_changes[index] += sure
            ids = list(dict.fromkeys(d for g, d in zip(self.glyphs, self.drawings, strict=True) if g == index))
            if len(ids) > MAX_PER_CLASS:
                # Only the newest drawings of a class stay: a long run of games stays small.
                old = set(sorted(ids)[:-MAX_PER_CLASS])
                self._remove(lambda k: self.glyphs[k] == index and self.drawings[k] in old)
            self.version += 1
        return drawing

    def forget(self, key: str) -> None:
        with self._lock:
            if key in self.keys:
                self._remove(lambda k: self.keys[k] == key)
                self.version += 1

    def _remove(self, drop: Any) -> None:
        kept = [k for k in range(len(self.glyphs)) if not drop(k)]
        kept_set = set(kept)
        for k in range(len(self.glyphs)):
            if self.sure[k] and k not in kept_set:
                self.sure_changes[self.glyphs[k]] += 1
        for name in ("glyphs", "drawings", "keys", "inks", "sure", "_units"):
            values = getattr(self, name)
            setattr(self, name, [values[k] for k in kept])

    def _snapshot(self, embedder: Embedder) -> Snapshot:
        """The examples as ``Snapshot`` (each drawing's views side by side), embedding the examples not
        embedded yet."""
        with self._lock:
            if self._embedder is not embedder:  # another network: every example is embedded again
                self._embedder, self._units = embedder, [None] * len(self.inks)
                self._grouped = None
            missing = [k for k, u in enumerate(self._units) if u is None]
            inks = np.stack([self.inks[k] for k in missing]).astype(np.float32) / INK_SCALE if missing else None
            glyphs, drawings = np.array(self.glyphs), np.array(self.drawings)
            units = list(self._units)
            version = self.version
            grouped = self._grouped if not missing and self._grouped_version == version else None
        if grouped is not None:
            return grouped
        if inks is not None:
            fresh = np.asarray(embedder.embed(inks), np.float32)
            for k, u in zip(missing, fresh, strict=True):
                units[k] = u
        order = np.argsort(drawings, kind="stable")
        starts = np.flatnonzero(np.r_[True, drawings[order][1:] != drawings[order][:-1]])
        raw = np.stack(units)[order]  # type: ignore[arg-type]
        views = np.diff(np.r_[starts, len(order)])
        grouped = Snapshot(glyphs[order][starts], starts, _unit(raw), raw, glyphs[order],
                           np.repeat(1.0 / views, views))
        with self._lock:
            if self.version == version and self._embedder is embedder:
                self._units = units
                self._grouped, self._grouped_version = grouped, version
        return grouped

    def seat_model(self, embedder: Embedder, model: Any, allowed: np.ndarray) -> Any:
        """``model`` with its last layer fitted to this hand (``seat_head``) once it has
        ``HEAD_FROM_DRAWINGS`` drawings, else ``model`` itself; kept until the hand changes."""
        with self._lock:
            key = (self.version, id(embedder), id(model), allowed.tobytes())
            if self._head is not None and self._head[0] == key:
                return self._head[1]
        snap = self._snapshot(embedder)
        enough = len(snap.drawing_glyphs) >= HEAD_FROM_DRAWINGS
        fitted = seat_head(model, snap.raw, snap.view_glyphs, snap.view_weights, allowed) if enough else model
        with self._lock:
            self._head = (key, fitted)
        return fitted

    def stage_model(self, stage: Any, allowed: np.ndarray) -> Any:
        """A close-look stage's head (``close_look.StageNetwork``: the letter or the church network) with its
        dense layers fitted to this hand's drawings of the stage's kind that a person labelled (``sure``: a
        teaching sheet, corrections) by ``stage_head``, from their close crops cut from the kept ink maps
        (``close_look.close_from_cell_inks``), once it has ``STAGE_FROM_DRAWINGS`` of them, else the stage's
        own head; kept until those drawings change (a move learned, or a wall corrected, keeps it).
        Moves accepted as read are left out: a letter misread unnoticed and learned as read is a close
        neighbour of its hand's next drawings of that letter on a network that learned letters alone (stop
        39; with them, learning during play at bench_adapt's seed 9100 misread 69 of 8,339 drawings from
        turn 41 against 66 without the stage layer)."""
        with self._lock:
            key = (tuple(self.sure_changes[stage.look.classes].tolist()), id(stage), allowed.tobytes())
            cached = self._stage_heads.get(stage.look.name)
            if cached is not None and cached[0] == key:
                return cached[1]
            every = np.asarray(self.glyphs, np.int64)
            rows = np.flatnonzero(stage.look.classes[every] & np.asarray(self.sure, bool))
            glyphs = every[rows]
            drawings = np.asarray(self.drawings, np.int64)[rows]
            inks = [self.inks[k] for k in rows]
        fitted = stage.head
        if inks and len(np.unique(drawings)) >= STAGE_FROM_DRAWINGS:
            used = np.asarray(allowed, bool)[glyphs]  # (a language's unused letters count as drawings, not crops)
            counts = np.zeros(len(glyphs), np.int64)
            if used.any():
                counts[used] = redraw_counts(drawings[used])
            fitted = stage_head(stage, self._redrawn_features(stage, inks, counts), glyphs, allowed)
        with self._lock:
            self._stage_heads[stage.look.name] = (key, fitted)
        return fitted

    def _redrawn_features(self, stage: Any, inks: list[np.ndarray], counts: np.ndarray) -> list[np.ndarray]:
        """For each kept ink map (uint8), the stage's convolutions' features of the first ``counts`` redraws of its
        close crop (``redrawn_crops``). The seat keeps them: only the redraws it has not read before go through
        the convolutions (a correction's drawing; more of each when the hand has fewer drawings)."""
        from vision.cells.close_look import close_from_cell_inks

        with self._lock:
            kept_stage, known = self._stage_redraws.get(stage.look.name, (None, {}))
            known = dict(known) if kept_stage is stage else {}  # another network: every drawing again
        keys = [ink.tobytes() for ink in inks]
        wanted: dict[bytes, int] = {}
        for key, count in zip(keys, counts, strict=True):
            wanted[key] = max(wanted.get(key, 0), int(count))
        short = [key for key, count in wanted.items() if len(known.get(key, ())) < count]
        if short:
            by_key = dict(zip(keys, inks, strict=True))
            crops = close_from_cell_inks(np.stack([by_key[key] for key in short]).astype(np.float32) / INK_SCALE,
                                         stage.look.zoom)
            new = [redrawn_crops(crop, wanted[key])[len(known.get(key, ())):] for key, crop in zip(short, crops,
                                                                                                  strict=True)]
            features = stage.trunk.features(np.concatenate(new))
            for key, part in zip(short, np.split(features, np.cumsum([len(n) for n in new])[:-1]), strict=True):
                had = known.get(key)
                known[key] = part if had is None else np.concatenate([had, part])
        with self._lock:
            self._stage_redraws[stage.look.name] = (stage, {key: known[key] for key in wanted if key in known})
        return [known.get(key, np.zeros((0, 0), np.float32))[:count] for key, count in zip(keys, counts, strict=True)]

    def adjust(self, probabilities: np.ndarray, embeddings: np.ndarray, embedder: Embedder) -> np.ndarray:
        """The network's (n, classes) probabilities for n cells, with this hand's nearest examples voting
        (``embeddings``: the same cells through ``embedder.embed``)."""
        if not self.glyphs:
            return probabilities
        snap = self._snapshot(embedder)
        drawing_glyph, starts, examples = snap.drawing_glyphs, snap.starts, snap.units
        similarity = _unit(np.asarray(embeddings, np.float32)) @ examples.T  # (n, views)
        # One vote per drawing: its best-matching view.
        best = similarity if len(starts) == len(examples) else np.maximum.reduceat(similarity, starts, axis=1)
        # A drawing votes with how much it looks like the cell: nothing under SIMILAR_FROM, 1 for the same.
        best = np.clip((best - SIMILAR_FROM) / (1.0 - SIMILAR_FROM), 0.0, 1.0) ** 2
        k = min(NEAREST, best.shape[1])
        nearest = np.argpartition(-best, k - 1, axis=1)[:, :k]
        n, classes = probabilities.shape
        rows = np.repeat(np.arange(n), k)
        votes = np.bincount(rows * classes + drawing_glyph[nearest].ravel(), best[rows, nearest.ravel()],
                            minlength=n * classes).reshape(n, classes)
        # A class the table's language never uses stays impossible.
        votes *= probabilities.sum(axis=0, keepdims=True) > 0
        mixed = PRIOR_WEIGHT * probabilities + votes
        return mixed / mixed.sum(axis=1, keepdims=True)


def _ink_u8(crop: np.ndarray) -> np.ndarray:
    """Ink maps (0..2, any shape) as kept: uint8."""
    return np.clip(np.round(np.asarray(crop, np.float32) * INK_SCALE), 0, 255).astype(np.uint8)


# Where a person said what a drawing is: a teaching sheet, a cell corrected by hand, the reading the players
# chose of two the rules left close (``Tracker.answer_question``). A move accepted as read is not one: a
# misread nobody noticed would be learned as what it was read as.
LABELLED_SOURCES = ("teach", "correction", "answer")


def labelled(source: str) -> bool:
    """Whether a person said what the drawing an example's ``source`` names is (``LABELLED_SOURCES``),
    carried from an earlier game or not."""
    return source.removeprefix(CARRIED_SOURCE) in LABELLED_SOURCES


def _key(game_id: int | None, cell: str, drawing: int) -> str:
    """A game's cell is one drawing (a correction replaces what its move taught); a teaching sheet's cell
    is one too; a carried drawing stands alone."""
    if not cell:
        return f"carried:{drawing}"
    return f"{'teach' if game_id is None else 'game'}:{cell}"


class TableHands:
    """Every seat's hand at one table for one game, kept in the game store (``companion.store``), so a
    restarted service reads with what it had learned: the game's examples (moves accepted as read, cells
    corrected by hand, drawings carried from the seat's last game) and the seat's teaching sheet.

    ``store`` None: in memory only (a benchmark, ``scan`` without a data directory)."""

    def __init__(self, store: Any, game_id: int | None, language: str = "en") -> None:
        self.store = store
        self.game_id = game_id
        self.language = check_language(language)
        self._hands: dict[int, SeatHand] = {}
        self._lock = threading.Lock()
        if store is None:
            return
        rows = store.hand_examples(game_id)
        by_drawing: dict[tuple[int, int], list[dict[str, Any]]] = {}
        for row in rows:
            by_drawing.setdefault((row["seat"], row["drawing"]), []).append(row)
        for (seat, drawing), views in by_drawing.items():
            inks = np.stack([np.frombuffer(v["ink"], np.uint8).reshape(CROP_PX, CROP_PX) for v in views])
            first = views[0]
            self.seat(seat).add(first["glyph"], inks, drawing=drawing,
                                key=_key(first["game_id"], first["cell"], drawing),
                                sure=labelled(first["source"]))

    @classmethod
    def taught(cls, data_dir: str | Path, language: str = "en") -> TableHands | None:
        """The teaching sheets kept in ``data_dir``'s game store (``companion teach``), in memory: what
        ``scan --data`` reads with. None when there is no store there or it taught nothing."""
        from companion.store import GameStore, store_path

        if not store_path(data_dir).is_file():
            return None
        with GameStore(data_dir) as store:
            hands = cls(store, None, language)
        hands.store = None
        return hands if hands._hands else None

    def seat(self, seat: int) -> SeatHand:
        with self._lock:
            return self._hands.setdefault(seat, SeatHand())

    def hand(self, seat: int) -> SeatHand | None:
        """The seat's hand, None while it has no examples."""
        hand = self._hands.get(seat)
        return hand if hand is not None and len(hand) else None

    def learn(self, seat: int, rectified: np.ndarray, cells: Mapping[str, str], source: str) -> int:
        """Cells of a board (``rectified``, as read) whose drawings the table confirmed: cell -> item in
        city notation ('.' for empty). ``source``: "move" (accepted as read), "answer" (the reading the
        players chose when asked) or "correction". Returns how many were kept."""
        hand = self.seat(seat)
        learned = 0
        for cell, item in cells.items():
            if cell not in ALL_CELLS:
                continue
            glyph = glyph_for_char(item, self.language)
            ink = _ink_u8(cell_crops(rectified, cells=[ALL_CELLS.index(cell)])[0])
            drawing = None
            if self.store is not None:
                drawing = self.store.replace_hand_examples(self.game_id, seat, cell, source, glyph, [ink.tobytes()])
            hand.add(glyph, ink, drawing=drawing, key=f"game:{cell}", sure=labelled(source))
            learned += 1
        return learned

    def forget(self, seat: int, cells: Iterable[str]) -> None:
        """An undone move's drawings: what that move taught is forgotten, read or chosen when asked
        (corrections stay)."""
        hand = self._hands.get(seat)
        for cell in cells:
            if self.store is not None:
                self.store.forget_hand_examples(self.game_id, seat, cell, ("move", "answer"))
            if hand is not None and self.store is not None:
                keep = [r for r in self.store.hand_examples(self.game_id, seat)
                        if r["game_id"] == self.game_id and r["cell"] == cell]
                if not keep:
                    hand.forget(f"game:{cell}")
            elif hand is not None:
                hand.forget(f"game:{cell}")

    def teach(self, seat: int, drawings: Mapping[str, tuple[str, np.ndarray]]) -> int:
        """A teaching sheet of this seat: cell -> (glyph, views of its drawing (n, CROP_PX, CROP_PX)).
        Replaces what an earlier sheet of the seat taught for these cells. Kept for every game."""
        hand = self.seat(seat)
        for cell, (glyph, views) in drawings.items():
            inks = _ink_u8(np.asarray(views))
            drawing = None
            if self.store is not None:
                drawing = self.store.replace_hand_examples(None, seat, cell, "teach", glyph,
                                                           [i.tobytes() for i in inks])
            hand.add(glyph, inks, drawing=drawing, key=f"teach:{cell}", sure=True)
        return len(drawings)
