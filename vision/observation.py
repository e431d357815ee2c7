"""What the camera saw, as plain data: the one thing ``vision`` hands to ``companion``.

Pure Python on purpose (no OpenCV, no NumPy) so the tracker and the rules side can import it freely.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field, replace
from typing import Any

from companion.layout import cell_index

DIE_FACES: tuple[str, ...] = ("log", "crate", "wall", "cross", "head", "swords")


@dataclass(frozen=True)
class BoardReading:
    """One city board in view.

    ``city`` is 7 strings of 7 characters in city notation (rules-reference.md); a cell read with
    low confidence still carries the best guess in ``city`` but is listed in ``uncertain``.
    ``confidence`` is 7 rows of 7 floats in [0, 1] (towers are 1.0).
    ``alternatives`` maps each drawable cell's name to its likeliest readings in city notation with their
    probabilities (``{"D4": {"c": 0.55, "j": 0.4, ".": 0.03}}``, at most a few, the rest is unlikely): the
    tracker weighs them against the rules when a move is drawn. Empty when the reader gives none.
    """

    seat: int
    city: tuple[str, ...]
    confidence: tuple[tuple[float, ...], ...]
    uncertain: tuple[str, ...] = ()
    # Board corners in the frame (A1, G1, G7, A7 outer corners), pixels; for overlays.
    corners: tuple[tuple[float, float], ...] = ()
    alternatives: dict[str, dict[str, float]] = field(default_factory=dict, compare=False, hash=False)
    # The rectified board image it was read from (a NumPy array, opaque here): when the table confirms a
    # drawing, the seat's hand learns it from these pixels (vision.cells.seat_hand).
    rectified: Any = field(default=None, compare=False, repr=False)
    # Cells the camera does not see (the board pushed past the frame's edge, or under or over another board): not
    # read ('.' in ``city``, confidence 0, listed in ``uncertain`` too, no alternatives). The tracker takes them as
    # the game has them.
    unseen: tuple[str, ...] = ()
    # Of ``unseen``, the cells under something lying on the board (a pen put down: ``vision.board.lying``), not
    # read while it lies there; the rest of ``unseen`` is out of view.
    covered: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "city": list(self.city), "uncertain": list(self.uncertain)}

    def with_unseen(self, cells: Collection[str]) -> BoardReading:
        """This reading with ``cells`` (names) out of the camera's view, as ``unseen`` says; the rest as read."""
        if not cells and not self.unseen:
            return self
        hidden = set(cells)
        city = [list(row) for row in self.city]
        confidence = [list(row) for row in self.confidence]
        for name in hidden:
            col, row = cell_index(name)
            city[row][col], confidence[row][col] = ".", 0.0
        return replace(self, city=tuple("".join(row) for row in city),
                       confidence=tuple(tuple(row) for row in confidence),
                       uncertain=tuple(dict.fromkeys([*self.uncertain, *sorted(hidden)])),
                       alternatives={k: v for k, v in self.alternatives.items() if k not in hidden},
                       unseen=tuple(sorted(hidden)))

    def with_covered(self, cells: Collection[str]) -> BoardReading:
        """This reading with ``cells`` (names) under something lying on the board: not seen (``with_unseen``, beside
        the cells already out of view) and listed in ``covered``."""
        if not cells:
            return self
        return replace(self.with_unseen({*self.unseen, *cells}), covered=tuple(sorted(set(cells))))

    def sureness(self, cell: str) -> float:
        """``confidence`` of one cell, by name ("D4")."""
        col, row = cell_index(cell)
        return float(self.confidence[row][col])


# A die read with less confidence than this is doubtful: the stability filter makes it hold still longer
# before the roll is taken, and the camera view marks it.
DOUBTFUL_DIE_BELOW = 0.6


@dataclass(frozen=True)
class DieReading:
    face: str
    confidence: float
    centre: tuple[float, float] = (0.0, 0.0)  # its top face on the tray floor, millimetres
    in_frame: tuple[float, float] | None = None  # the same point in the frame, pixels; for overlays


@dataclass(frozen=True)
class Observation:
    """Everything read from one frame (or one stable stretch of frames).

    ``dice`` is None when the tray is not in view; ``pirate_boxes`` is None when the track is not.
    """

    boards: tuple[BoardReading, ...] = ()
    dice: tuple[DieReading, ...] | None = None
    pirate_boxes: int | None = None
    timestamp: float = 0.0
    frame_index: int = 0
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    def board(self, seat: int) -> BoardReading | None:
        for b in self.boards:
            if b.seat == seat:
                return b
        return None

    @property
    def dice_faces(self) -> list[str]:
        return [d.face for d in self.dice or ()]

    def to_json(self, image: str | None = None) -> dict[str, Any]:
        """The contract's ``scan`` line."""
        out: dict[str, Any] = {}
        if image is not None:
            out["image"] = image
        out["boards"] = [b.to_json() for b in sorted(self.boards, key=lambda b: b.seat)]
        out["dice"] = self.dice_faces
        if self.pirate_boxes is not None:
            out["pirate_boxes"] = self.pirate_boxes
        return out
