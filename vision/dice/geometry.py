"""The dice tray as printed in the kit (table-kit.md): floor size, marker places, die size. Millimetres."""

from __future__ import annotations

from vision.marker_plane import PlaneLayout

DIE_MM = 16.0
TRAY_W_MM = 240.0
TRAY_H_MM = 160.0
TRAY_MARKER_MM = 20.0
_INSET = 4.0  # white sticker margin around each marker

# 20 top-left, 21 top-right, 22 bottom-right, 23 bottom-left, at the corners of the tray's floor.
TRAY_LAYOUT = PlaneLayout(
    width_mm=TRAY_W_MM,
    height_mm=TRAY_H_MM,
    marker_side_mm=TRAY_MARKER_MM,
    marker_origins={
        20: (_INSET, _INSET),
        21: (TRAY_W_MM - _INSET - TRAY_MARKER_MM, _INSET),
        22: (TRAY_W_MM - _INSET - TRAY_MARKER_MM, TRAY_H_MM - _INSET - TRAY_MARKER_MM),
        23: (_INSET, TRAY_H_MM - _INSET - TRAY_MARKER_MM),
    },
)
# Floor corners covered by the stickers (dice are not searched there).
STICKER_MM = TRAY_MARKER_MM + 2 * _INSET
