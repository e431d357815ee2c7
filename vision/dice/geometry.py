"""The dice tray as printed in the kit (table-kit.md): floor size, marker places, die size. Millimetres.

The kit's stickers are printed to scale, but the tray and the dice are the table's own: any flat tray of
about 20 x 14 to 30 x 20 cm, dice of 14-20 mm. ``TRAY_LAYOUT`` and ``DIE_MM`` are the reference set
(24 x 16 cm, 16 mm dice); the reader measures the tray it sees (``tray_layout`` of the measured size,
``vision.dice.reader.measure_tray``) and its dice (``vision.dice.reader.measure_die``).
"""

from __future__ import annotations

from dataclasses import replace

from vision.marker_plane import PlaneLayout

DIE_MM = 16.0
TRAY_W_MM = 240.0
TRAY_H_MM = 160.0
TRAY_MARKER_MM = 20.0
_INSET = 4.0  # white sticker margin around each marker
# The trays the reader is made for (table-kit.md); a measurement outside is not believed.
TRAY_MM_RANGE = (100.0, 420.0)
# The dice measured are believed within DIE_MM_RANGE: tables use dice of 14-20 mm (table-kit.md), but blur
# eats a small die's white edge from far (14 mm dice from 87 cm measure 11-12 mm; not believed, they were
# read as the reference 16 mm and a touching pair as one die). A die is read at the side measured, not
# raised to 14 mm: the dice classifier learned far dice as their measured side shows them (a green felt
# tray's 14 mm dice measured 13 mm and read at 14 had three faces wrong). Outside it, a blob misjudged.
# On a floor nearly as light as the dice a side under 13 mm is not believed either (``reader.believed_die``).
DIE_MM_RANGE = (10.0, 23.0)
# The millimetres are the stickers' (``reader.measure_tray`` takes its scale from their squares, TRAY_MARKER_MM): a table
# whose tray stickers came out smaller than the kit's 20 mm (printed at another scale, another kit's) sees everything on
# its floor as much larger, 20 mm dice under 16 mm stickers as 25 mm, and its tray too. A tray measured past the kit's
# largest (LARGEST_TRAY_MM) says so, and the dice's top is stretched as much (``believable_die_mm``). Two trays of the
# benchmark renderer's seed 13 (stickers of 16-22 mm) measured 31 x 24 and 32 x 23 cm and their dice 23.5 and 36 mm:
# not believed, read as 16 mm dice, the first misread a wall as a cross; stretched 1.19 and 1.17 times, the first is
# read right (the second is still a blob misjudged). A plain 26 mm top for every tray believed a reference tray's blob
# misjudged at 25.9 mm (``test_a_top_far_out_over_the_floors_edge_is_found``'s first picture): not done.
LARGEST_TRAY_MM = (300.0, 200.0)


def believable_die_mm(width_mm: float, height_mm: float) -> tuple[float, float]:
    """The dice's sides believed on a tray floor measured ``width_mm`` x ``height_mm`` in its stickers' millimetres:
    DIE_MM_RANGE, its top stretched as much as the floor is measured past the kit's largest tray either way round."""
    long, short = max(width_mm, height_mm), min(width_mm, height_mm)
    stretch = max(1.0, long / LARGEST_TRAY_MM[0], short / LARGEST_TRAY_MM[1])
    return DIE_MM_RANGE[0], DIE_MM_RANGE[1] * stretch


def tray_layout(width_mm: float = TRAY_W_MM, height_mm: float = TRAY_H_MM) -> PlaneLayout:
    """A tray floor of ``width_mm`` x ``height_mm`` with the kit's stickers pushed into its corners:
    20 top-left, 21 top-right, 22 bottom-right, 23 bottom-left."""
    return PlaneLayout(
        width_mm=float(width_mm),
        height_mm=float(height_mm),
        marker_side_mm=TRAY_MARKER_MM,
        marker_origins={
            20: (_INSET, _INSET),
            21: (width_mm - _INSET - TRAY_MARKER_MM, _INSET),
            22: (width_mm - _INSET - TRAY_MARKER_MM, height_mm - _INSET - TRAY_MARKER_MM),
            23: (_INSET, height_mm - _INSET - TRAY_MARKER_MM),
        },
    )


# The trays of the kit's range (table-kit.md: about 20 x 14 to 30 x 20 cm), a little beyond: a sticker the
# first look misses is looked for wherever a tray of these sizes puts it (``PlaneLayout.size_variants``);
# looked for only where the reference tray puts it, a 30 x 20 cm tray's far stickers (6 cm farther) were
# missed, its size taken as the reference's and its dice read at wrong places.
TRAY_SEARCH_MM = ((190.0, 315.0), (133.0, 210.0))
TRAY_LAYOUT = replace(tray_layout(), fine_look=True, size_variants=tuple(
    tray_layout(w, h) for w in TRAY_SEARCH_MM[0] for h in TRAY_SEARCH_MM[1]))
# Which side of the floor each marker's origin is measured from (1: from the right / bottom edge).
MARKER_FROM_FAR_SIDE = {20: (0, 0), 21: (1, 0), 22: (1, 1), 23: (0, 1)}
# Floor corners covered by the stickers (dice are not searched there).
STICKER_MM = TRAY_MARKER_MM + 2 * _INSET
MARKER_INSET_MM = _INSET
