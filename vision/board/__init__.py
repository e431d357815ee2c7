"""Finding city boards in a frame (by the kit's markers, or alone by the board's outline)."""

from vision.board.locate import (
    LocatedBoard,
    StickerPlaces,
    detect_markers,
    find_boards,
    find_single_board,
    rectified_from_detail,
)

__all__ = ["LocatedBoard", "StickerPlaces", "detect_markers", "find_boards", "find_single_board", "rectified_from_detail"]
