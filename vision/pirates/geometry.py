"""The pirate track block as the kit marks it (table-kit.md): 6 rows x 10 boxes, markers 24-27 at its
corners (just outside the block, upright). Millimetres on the main board."""

from __future__ import annotations

from vision.marker_plane import PlaneLayout

ROWS = 6
COLUMNS = 10
BOX_PITCH_MM = 16.0  # box to box
BOX_MM = 12.0  # printed box side
MARKER_MM = 20.0  # as big as the tray's: the track often lies at the far edge of the view
BLOCK_X_MM = 24.0  # where the block of boxes starts on the plane (after marker + gap)
BLOCK_Y_MM = 24.0
BLOCK_W_MM = COLUMNS * BOX_PITCH_MM
BLOCK_H_MM = ROWS * BOX_PITCH_MM
PLANE_W_MM = BLOCK_X_MM * 2 + BLOCK_W_MM
PLANE_H_MM = BLOCK_Y_MM * 2 + BLOCK_H_MM
STRENGTHS = (1, 3, 6, 8, 10, 12)

# 24 top-left, 25 top-right, 26 bottom-right, 27 bottom-left.
TRACK_LAYOUT = PlaneLayout(
    width_mm=PLANE_W_MM,
    height_mm=PLANE_H_MM,
    marker_side_mm=MARKER_MM,
    marker_origins={
        24: (0.0, 0.0),
        25: (PLANE_W_MM - MARKER_MM, 0.0),
        26: (PLANE_W_MM - MARKER_MM, PLANE_H_MM - MARKER_MM),
        27: (0.0, PLANE_H_MM - MARKER_MM),
    },
)


def box_centre_mm(row: int, column: int) -> tuple[float, float]:
    return (BLOCK_X_MM + (column + 0.5) * BOX_PITCH_MM, BLOCK_Y_MM + (row + 0.5) * BOX_PITCH_MM)
