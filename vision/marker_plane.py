"""Flat things on the table located by ArUco markers at known places (the dice tray, the pirate track).

Each plane is described in millimetres: where each of its markers' four corners lies on it. Any subset
of at least two markers found in the frame gives a homography from the frame to a top-down view of the
plane, so a die lying on one marker or a finger over another does not lose the tray.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from vision.imaging import unsharp_masked

# The kit's one ArUco dictionary (shared/table-kit.md): the printed sheet, the synthetic tables and
# every detector take it from here.
ARUCO_DICTIONARY = cv2.aruco.DICT_4X4_50
# The ids the kit prints: boards 0-19 (4 a seat), tray 20-23, track 24-27. Any other id "found" is a
# drawing that happens to decode (a hatched wall can), and it must not hide a lone board from the
# no-marker finder.
KIT_MARKER_IDS = range(28)


def marker_image(marker_id: int, side_px: int) -> np.ndarray:
    """The black-and-white marker, ``side_px`` square, no margin (uint8, 0 or 255)."""
    dictionary = cv2.aruco.getPredefinedDictionary(ARUCO_DICTIONARY)
    return cv2.aruco.generateImageMarker(dictionary, marker_id, side_px)


def make_detector() -> cv2.aruco.ArucoDetector:
    params = cv2.aruco.DetectorParameters()
    # Subpixel corners: the homographies of small planes (tray, track) need them.
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    # Corners refined over 2 px each way (half a module for tiny markers): the default third of a module
    # (1 px on our 1080p markers) leaves them about where the thresholded outline put them. Boards
    # located from their markers: 0.20 px from the truth instead of 0.31 (median, synthetic tables).
    params.cornerRefinementWinSize = 2
    params.relativeCornerRefinmentWinSize = 0.5
    # One adaptive-threshold window sized for the kit's markers (15-40 px a side in a 1080p frame,
    # 30-60 px in a photo of one board): as many markers found as the default three windows, in 40 %
    # of the time.
    params.adaptiveThreshWinSizeMin = 15
    params.adaptiveThreshWinSizeMax = 15
    # Darker than the local mean by 10 levels, not 7: far fewer specks of table grain and sensor noise
    # to trace (15 % less time), while a marker's black border stays far darker than that.
    params.adaptiveThreshConstant = 10
    # Outlines down to 0.02 of the frame's width around (38 px in 1080p: a marker of 10 px a side), not the
    # default 0.03 (14 px a side): under the reference camera at 75 cm a marker is 20 px and a tilted
    # board's far one 14-17, and 8 of 71 boards on 20 generated tables lost all four markers that way
    # (29 of 71 at 90 cm); with 0.02 none did. Bits sampled at 6 px a module, not 4: 4 more markers of
    # 284 at 90 cm.
    params.minMarkerPerimeterRate = 0.02
    params.perspectiveRemovePixelPerCell = 6
    return cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(ARUCO_DICTIONARY), params)


def make_fine_detector() -> cv2.aruco.ArucoDetector:
    """The detector of the fine look (``PlaneLayout.fine_look``): a threshold window of 7 px instead of 15,
    polygons approximated to 5 % of their outline instead of 3. A small marker (15-20 px) turned about
    45 degrees and blurred has a white rim of 2-3 px that the 15 px window's threshold joins to a dark floor
    and the black square, so its outline is never traced; the small window keeps the rim apart. On 504
    generated trays the first look missed 78 tray markers, this one alone 33 (no marker misplaced); it costs
    as much as the first look (about 5 ms on a 1080p frame)."""
    detector = make_detector()
    params = detector.getDetectorParameters()
    params.adaptiveThreshWinSizeMin = 7
    params.adaptiveThreshWinSizeMax = 7
    params.adaptiveThreshConstant = 7
    params.polygonalApproxAccuracyRate = 0.05
    detector.setDetectorParameters(params)
    return detector


def make_wide_detector() -> cv2.aruco.ArucoDetector:
    """The last look for a plane ``PlaneLayout.fine_look`` asks for that still shows fewer than three markers
    after the fine one: the kit's detector with OpenCV's own three threshold windows (3, 13 and 23 px, 7 levels
    darker), one finer and one coarser than the first two looks'. A 30 x 20 cm tray seen small and at a slant
    showed its two left stickers at 15 px, their white rim a pixel or two against a dark table: the 15 px and
    7 px windows joined the rim to the table, the 3 px and the 23 px ones each kept it apart for the upper one,
    and with three stickers the tray is measured whole (with two on one side its width is the reference tray's, and
    its dice were placed 6 cm off). Three windows cost about three first looks (3.3 times one, on 1080p frames),
    so it is made only when the tray shows one or two stickers, not when it shows none (maybe no tray)."""
    detector = make_detector()
    params = detector.getDetectorParameters()
    defaults = cv2.aruco.DetectorParameters()
    params.adaptiveThreshWinSizeMin = defaults.adaptiveThreshWinSizeMin
    params.adaptiveThreshWinSizeMax = defaults.adaptiveThreshWinSizeMax
    params.adaptiveThreshWinSizeStep = defaults.adaptiveThreshWinSizeStep
    params.adaptiveThreshConstant = defaults.adaptiveThreshConstant
    detector.setDetectorParameters(params)
    return detector


_MAKE_DETECTOR = {"kit": make_detector, "fine": make_fine_detector, "wide": make_wide_detector}
_DETECTORS: dict[str, cv2.aruco.ArucoDetector] = {}


def _detect(gray: np.ndarray, look: str = "kit") -> dict[int, np.ndarray]:
    """The kit's markers in view, one per id (the last the detector gives when it sees an id twice); ``look``:
    which detector (``_MAKE_DETECTOR``)."""
    return {i: quads[-1] for i, quads in _detect_all(gray, look).items()}


def _detect_all(gray: np.ndarray, look: str = "kit") -> dict[int, list[np.ndarray]]:
    """Every quad that decodes as one of the kit's ids: a drawing can decode as a sticker's id too."""
    detector = _DETECTORS.get(look)
    if detector is None:
        detector = _DETECTORS[look] = _MAKE_DETECTOR[look]()
    corners, ids, _ = detector.detectMarkers(gray)
    if ids is None:
        return {}
    found: dict[int, list[np.ndarray]] = {}
    for c, i in zip(corners, ids.ravel(), strict=True):
        if int(i) in KIT_MARKER_IDS:
            found.setdefault(int(i), []).append(c.reshape(4, 2).astype(np.float32))
    return found


def _settle_twins(found: dict[int, np.ndarray], seen: dict[int, list[np.ndarray]], layout: PlaneLayout) -> None:
    """An id of ``layout`` seen twice takes the quad where the plane's other markers (two or more found,
    none of them seen twice) put it. A camera-like picture of a board decoded a house drawn in it as one of
    its own stickers, the same size as the real one."""
    single = [m for m in layout.marker_origins if m in found and len(seen.get(m, ())) < 2]
    for m in layout.marker_origins:
        candidates = seen.get(m, [])
        if len(candidates) < 2 or len(single) < 2:
            continue
        plane = np.vstack([layout.marker_corners_mm(k) for k in single]).astype(np.float64)
        frame = np.vstack([found[k] for k in single]).astype(np.float64)
        plane_to_frame, _ = cv2.findHomography(plane, frame, 0)
        if plane_to_frame is None:
            continue
        expected = cv2.perspectiveTransform(layout.marker_corners_mm(m)[None].astype(np.float64), plane_to_frame)[0]
        found[m] = min(candidates, key=lambda quad: float(np.linalg.norm(quad - expected, axis=1).mean()))


# Two quads of one id whose middles lie this many of their sides apart are two stickers, not a sticker and a
# re-detection of its own edge: two boards' same tower stickers lie at least a board's width less a cell apart.
_APART_SIDES = 3.0


def doubled_ids(seen: Mapping[int, list[np.ndarray]]) -> set[int]:
    """The ids seen at two places at once (``_APART_SIDES``): the same sticker printed twice, or a drawing
    that decodes as one."""
    doubled = set()
    for marker_id, quads in seen.items():
        middles = [q.mean(axis=0) for q in quads]
        side = max(marker_side(q) for q in quads)
        if any(np.linalg.norm(a - b) > _APART_SIDES * side for k, a in enumerate(middles) for b in middles[k + 1:]):
            doubled.add(marker_id)
    return doubled


def marker_side(quad: np.ndarray) -> float:
    """A marker's mean side in pixels, from its four corners."""
    sides = quad - quad[[3, 0, 1, 2]]  # each corner less the one before it
    return float(np.sqrt((sides * sides).sum(axis=1)).mean())


# A plane's stickers are all printed the same size, and a 35 degree tilt makes the nearest at most about
# 1.6 times the farthest: one much smaller or larger than the others of its plane is not one of them.
_MISFIT_RATIO = 2.0
# ... unless one perspective puts every one of them where it is: each corner within this share of its marker's
# side of where the plane's homography from all of them puts it. A phone held close over a board at a slant sees
# the near stickers more than twice the far ones (bench_board's photos: 26 and 57 px), and every marker of such
# a board was dropped (3 photos of 150), while each corner lay within 0.04 of a side of that homography; a
# drawing decoded as a sticker lies where the plane has no sticker, many sides off.
_ONE_PERSPECTIVE_WITHIN = 0.2


def _one_perspective(found: dict[int, np.ndarray], seen: list[int], layout: PlaneLayout) -> bool:
    """Whether one homography of ``layout`` puts each of the ``seen`` markers (three or more) where it was found,
    within ``_ONE_PERSPECTIVE_WITHIN`` of its side: the stickers of one plane, however unlike their sizes."""
    plane = np.vstack([layout.marker_corners_mm(m) for m in seen]).astype(np.float64)
    frame = np.vstack([found[m] for m in seen]).astype(np.float64)
    homography, _ = cv2.findHomography(plane, frame, 0)
    if homography is None or not np.all(np.isfinite(homography)):
        return False
    put = cv2.perspectiveTransform(plane[None], homography)[0]
    off = np.linalg.norm(put - frame, axis=1).reshape(len(seen), 4).max(axis=1)
    return all(o <= _ONE_PERSPECTIVE_WITHIN * marker_side(found[m]) for o, m in zip(off, seen, strict=True))


def _drop_misfits(found: dict[int, np.ndarray], layout: PlaneLayout) -> None:
    """Forget a marker of ``layout`` whose size does not fit the others' (three or more seen) and that no
    perspective of the plane puts where it is (``_one_perspective``): a few pixels of a drawing that decode as a
    sticker's id. The second look then looks for the real one where it is. In a camera-like picture of a board one
    was 8 px a side among stickers of 35, the real one unseen, and the board came out five cells off."""
    seen = [m for m in layout.marker_origins if m in found]
    if len(seen) < 3:
        return
    sides = {m: marker_side(found[m]) for m in seen}
    misfits = []
    for m in seen:
        others = float(np.median([s for k, s in sides.items() if k != m]))
        if not others / _MISFIT_RATIO <= sides[m] <= others * _MISFIT_RATIO:
            misfits.append(m)
    # (The homography only when some size misfits: nearly every plane's stickers are alike.)
    if misfits and not _one_perspective(found, seen, layout):
        for m in misfits:
            del found[m]


# A plane of ``fine_look`` with fewer markers than this after the second look is looked for again over the
# whole frame (three markers measure a tray whole: its width and height).
_FINE_LOOK_BELOW = 3


def detect_markers(frame: np.ndarray, layouts: Sequence[PlaneLayout] = (), *,
                   doubled: set[int] | None = None) -> dict[int, np.ndarray]:
    """Marker id -> its 4 corners (TL, TR, BR, BL of the printed marker) in frame pixels, float32 (4, 2).

    Glare, a shadow or plain distance (a marker 15 px a side has modules of 2-3 px) can hide a marker
    from the whole-frame look: a plane of ``layouts`` that shows some but not all of its markers gets a
    second look just where each missing one should be, and a plane the table always shows
    (``PlaneLayout.fine_look``: the dice tray) that still shows fewer than three a fine look over the
    whole frame. So does any other plane that still shows just one: it is there, and one marker places
    nothing (a board needs two). Soft, small stickers (a board at 23-29 px a cell, pixels averaged as a
    camera's, a little blur) left 2 boards of 300 with one marker found; the fine look finds two or three.
    A plane of ``fine_look`` that shows one or two still gets a last, wide look (``make_wide_detector``). A soft frame
    (out of focus, ``_soft``) also gets a look at itself scaled up and sharpened (``_closer_look``), whose markers fill
    in what every other look missed.
    ``doubled``, when given, gets the ids the whole-frame look saw at two places at once (``doubled_ids``).
    """
    gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    seen = _detect_all(gray)
    if doubled is not None:
        doubled.update(doubled_ids(seen))
    # Out of focus (a webcam's fixed lens, a camera knocked), the stickers' modules run together: a look at the frame
    # scaled up and sharpened (``_closer_look``) finds what the looks below miss, and places what they leave short.
    closer = _closer_look(gray) if layouts and _soft(gray, seen) else {}
    found = {i: quads[-1] for i, quads in seen.items()}
    looks: dict[str, dict[int, np.ndarray]] = {}  # the fine and wide looks, each made at most once a frame
    for layout in layouts:
        _settle_twins(found, seen, layout)
        _drop_misfits(found, layout)
        _second_looks(gray, found, layout)
        _settle_twins(found, seen, layout)  # the second look may have found the markers that tell twins apart
        shown = sum(m in found for m in layout.marker_origins)
        for look in ("fine", "wide"):
            if not _wants_look(look, layout, shown):
                break
            if look not in looks:
                looks[look] = _detect(gray, look)
            more = {m: c for m, c in looks[look].items() if m in layout.marker_origins and m not in found}
            if more:
                found.update(more)
                _second_looks(gray, found, layout)
                shown = sum(m in found for m in layout.marker_origins)
        # Only what every other look missed: the closer look's corners are a little rougher than a second look's
        # from the frame itself (a board photographed small: 0.12 of a cell off at its far side against 0.03).
        more = {m: quads[-1] for m, quads in closer.items() if m in layout.marker_origins and m not in found}
        if more:
            found.update(more)
            _second_looks(gray, found, layout)
            _drop_misfits(found, layout)
    return found


def _closer_look(gray: np.ndarray) -> dict[int, list[np.ndarray]]:
    """``_detect_all`` of the frame scaled up twice and sharpened (``_CLOSER_SHARPEN``), corners in frame pixels."""
    big = unsharp_masked(cv2.resize(gray, None, fx=2, fy=2, interpolation=cv2.INTER_CUBIC), _CLOSER_SHARPEN,
                         _CLOSER_SHARPEN_SIGMA)
    # Pixel centres: x in the scaled frame is (x + 0.5) / 2 - 0.5 in the frame.
    return {i: [(quad + 0.5) / 2 - 0.5 for quad in quads] for i, quads in _detect_all(big).items()}


# A frame is soft when the markers the first look found have edges this gentle: the steepest step across a marker's
# edge (its 98th percentile of gradient, a pixel's step) under this share of the marker's contrast. bench_light's
# tables (seed 5150) as rendered: 0.50-0.56 (the frame's median over its largest markers); blurred by 0.6 px
# 0.42-0.45, by 0.7 px 0.40-0.42, by 0.8 px 0.37-0.40, by 1.0 px 0.33-0.39. A frame that shows no marker at all gets
# the closer look too.
_SOFT_EDGE_BELOW = 0.42
# A soft frame's closer look (``_closer_look``): the frame scaled up twice (cubic), plus this much of its difference
# from ...
_CLOSER_SHARPEN = 2.0
_CLOSER_SHARPEN_SIGMA = 3.0  # ... itself blurred by this much (1.5 px of the frame)


def _edge_steepness(gray: np.ndarray, quad: np.ndarray) -> float | None:
    """The steepest step across a marker's edges against its contrast (``_SOFT_EDGE_BELOW``); None when too small."""
    x0, y0 = np.maximum(np.floor(quad.min(axis=0)).astype(int) - 2, 0)
    x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 2
    patch = gray[y0:y1, x0:x1].astype(np.float32)
    if patch.shape[0] < 5 or patch.shape[1] < 5:
        return None
    step = cv2.magnitude(cv2.Sobel(patch, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(patch, cv2.CV_32F, 0, 1, ksize=3)).ravel()
    levels = patch.ravel()
    n = len(levels)
    low, high = np.partition(levels, (n // 20, n - 1 - n // 20))[[n // 20, n - 1 - n // 20]]
    steepest = np.partition(step, n - 1 - n // 50)[n - 1 - n // 50] / 8
    return float(steepest / max(float(high - low), 1.0))


# The markers whose edges say whether a frame is soft: the largest few (the steadiest measure, and the check stays
# well under a millisecond).
_SOFT_FROM_MARKERS = 6


def _soft(gray: np.ndarray, seen: dict[int, list[np.ndarray]]) -> bool:
    """Whether ``gray`` looks out of focus by the markers the first look found (``_SOFT_EDGE_BELOW``), or shows none."""
    largest = sorted((quads[-1] for quads in seen.values()), key=marker_side)[-_SOFT_FROM_MARKERS:]
    steepness = [s for s in (_edge_steepness(gray, quad) for quad in largest) if s is not None]
    return not steepness or float(np.median(steepness)) < _SOFT_EDGE_BELOW


def _wants_look(look: str, layout: PlaneLayout, shown: int) -> bool:
    """Whether a plane showing ``shown`` of its markers gets the ``look`` ("fine" or "wide") over the whole frame."""
    if look == "fine":
        return (layout.fine_look and shown < _FINE_LOOK_BELOW) or shown == 1
    # The wide look (about three first looks' time) only for a tray some sticker of which is seen, so not on every
    # frame of a table without one; a board or the track with one sticker after the fine look gets none.
    return layout.fine_look and 1 <= shown < _FINE_LOOK_BELOW


def _second_looks(gray: np.ndarray, found: dict[int, np.ndarray], layout: PlaneLayout) -> None:
    # One marker's guess is rough: what it finds then makes a better guess for the rest.
    for _ in range(2):
        seen = [m for m in layout.marker_origins if m in found]
        if not 1 <= len(seen) < len(layout.marker_origins) or not _look_for_missing(gray, found, layout):
            break


# A missing marker smaller than this (px a side) is looked for in its patch scaled up to about this size:
# the adaptive threshold and the bit sampling need modules of 4 px or more (at 24-30 px a board cell,
# 2-marker boards went from 21 of 150 to 7, with the look that starts from one marker).
_SECOND_LOOK_SIDE = 40.0


def _stretched_looks(patch: np.ndarray, side: float) -> Iterator[tuple[np.ndarray, float]]:
    """The patch as the second look sees it, each with its scale, made as they are tried: histogram
    equalised, then min-max stretched (each brings back washed-out markers the other misses: synthetic
    glare over one marker, 99 and 50 of 180, 121 together), then the stretch scaled up when the marker is
    small, then those sharpened."""
    stretched = cv2.normalize(patch, None, 0, 255, cv2.NORM_MINMAX)
    yield cv2.equalizeHist(patch), 1.0
    yield stretched, 1.0
    scale = float(np.ceil(_SECOND_LOOK_SIDE / side))
    # A blurred marker of 12-17 px (the tray at 90 cm) decodes at twice its size where three times fails
    # about as often as the other way round: both are tried.
    scales = sorted({min(scale, 2.0), scale} - {1.0})
    larger = [cv2.resize(stretched, None, fx=s, fy=s, interpolation=cv2.INTER_CUBIC) for s in scales]
    yield from zip(larger, scales, strict=True)
    # Blur (sigma up to a pixel) on a marker of 15-20 px turned about 45 degrees leaves its modules of 2-3
    # px too soft to decode at any scale; sharpened by half its blur (unsharp mask), most of them decode:
    # on 504 generated trays, tray markers missed after the second look went from 17 to 9 (the other 8
    # were trays with no marker found at all, see ``make_fine_detector``).
    for look, s in zip(larger, scales, strict=True):
        yield unsharp_masked(look, 0.5, s), s
    # A camera out of focus by a pixel and more leaves modules that half a blur's sharpening does not part: the
    # closer look's sharpening (``_CLOSER_SHARPEN``, at the patch's scale), tried last.
    for look, s in zip(larger, scales, strict=True):
        yield unsharp_masked(look, _CLOSER_SHARPEN, _CLOSER_SHARPEN_SIGMA / 2 * s), s


def _expected_from_one(marker: np.ndarray, layout: PlaneLayout, marker_id: int, seen_id: int) -> np.ndarray:
    """Where one marker puts another of its plane: the marker's own edges as the plane's axes (an affine
    guess; a homography from one small square extrapolates its corner noise wildly)."""
    corners = np.asarray(marker, np.float64)
    s = layout.marker_side_mm
    x_axis = ((corners[1] - corners[0]) + (corners[2] - corners[3])) / (2 * s)
    y_axis = ((corners[3] - corners[0]) + (corners[2] - corners[1])) / (2 * s)
    origin = corners.mean(axis=0) - (x_axis + y_axis) * s / 2
    sx, sy = layout.marker_origins[seen_id]
    offsets = layout.marker_corners_mm(marker_id).astype(np.float64) - (sx, sy)
    return origin + offsets[:, :1] * x_axis + offsets[:, 1:] * y_axis


def _look_for_missing(gray: np.ndarray, found: dict[int, np.ndarray], layout: PlaneLayout) -> bool:
    """Add to ``found`` the missing markers of ``layout`` seen in a patch around the places the markers
    already found put them, at each size the plane may have (``layout`` and its ``size_variants``). Three
    or more put them within a side; one alone, within about a fifth of the distance (a tilted plane shrinks
    away from the camera), and two small ones about as roughly (the plane's perspective drawn from their
    few pixels: tray markers of 15-19 px put the other two 10-50 px off), so their patch is wider. Whether
    any was added."""
    seen = [m for m in layout.marker_origins if m in found]
    sizes = (layout, *layout.size_variants)
    planes = [locate_plane(found, size, min_markers=2) for size in sizes]
    if planes[0] is None and len(seen) != 1:
        return False
    added = False
    height, width = gray.shape[:2]
    for marker_id in layout.marker_origins:
        if marker_id in found:
            continue
        guesses = []
        for size, plane in zip(sizes, planes, strict=True):
            if plane is not None:
                guesses.append(plane.to_frame(size.marker_corners_mm(marker_id)))
            elif len(seen) == 1:
                guesses.append(_expected_from_one(found[seen[0]], size, marker_id, seen[0]))
        guesses = [g for g in guesses if np.all(np.isfinite(g))]
        if not guesses:
            continue
        expected = guesses[0]  # at the layout's own size: the marker's size and the prediction's error
        side = marker_side(expected)
        if not 8 <= side <= max(width, height) / 4:
            continue
        # Margin all round for the prediction's error, and room for the threshold window.
        reach = side
        if planes[0] is None:
            reach += 0.2 * float(np.linalg.norm(expected.mean(axis=0) - found[seen[0]].mean(axis=0)))
        elif len(seen) == 2:
            reach += 0.3 * min(float(np.linalg.norm(expected.mean(axis=0) - found[m].mean(axis=0))) for m in seen)
        # Where this size puts it first (a patch just around it: its stretch is the marker's own, which a
        # washed-out marker needs), then anywhere the other sizes put it.
        hit = _look_at(gray, marker_id, expected[None], side, reach)
        if hit is None and len(guesses) > 1:
            hit = _look_at(gray, marker_id, np.array(guesses), side, reach)
        if hit is not None:
            found[marker_id] = hit
            added = True
    return added


def _look_at(gray: np.ndarray, marker_id: int, guesses: np.ndarray, side: float, reach: float) -> np.ndarray | None:
    """Marker ``marker_id`` in the patch within ``reach`` px of where ``guesses`` put it (each 4 corners:
    (guesses, 4, 2)), if seen there: its centre within ``reach`` of the box of the guessed centres."""
    height, width = gray.shape[:2]
    corners = guesses.reshape(-1, 2)
    x0, y0 = np.maximum(np.floor(corners.min(axis=0) - reach), 0).astype(int)
    x1, y1 = np.minimum(np.ceil(corners.max(axis=0) + reach), (width, height)).astype(int)
    if x1 - x0 < 2 * side or y1 - y0 < 2 * side:
        return None  # mostly outside the frame
    centres = guesses.mean(axis=1)
    low, high = centres.min(axis=0), centres.max(axis=0)
    patch = gray[y0:y1, x0:x1]
    for look, scale in _stretched_looks(patch, side):
        hit = _detect(look).get(marker_id)
        if hit is None:
            continue
        # Pixel centres: x in the scaled patch is (x + 0.5) / scale - 0.5 in the patch.
        hit = (hit + 0.5) / scale - 0.5 + np.array([x0, y0], np.float32)
        centre = hit.mean(axis=0)
        if np.linalg.norm(centre - np.clip(centre, low, high)) < reach:
            return hit.astype(np.float32)
    return None


@dataclass(frozen=True)
class PlaneLayout:
    """A rectangle of ``width_mm`` x ``height_mm`` with upright square markers at given places.

    ``marker_origins`` maps a marker id to the plane position (mm) of its top-left corner.
    ``size_variants``: the same plane (the same markers) at the other sizes it may have, for a plane that
    is the table's own (any dice tray of the kit's range, its stickers in its corners): markers missed by
    the first look are looked for wherever any of them puts them, not only where this size does (a 30 cm
    tray's far stickers lie 6 cm beyond a 24 cm one's).
    ``fine_look``: the table always shows this plane (the dice tray: a seat's board may be absent, the tray
    never is), so when its markers are not found it is worth a second whole-frame look (``detect_markers``).
    """

    width_mm: float
    height_mm: float
    marker_side_mm: float
    marker_origins: dict[int, tuple[float, float]]
    size_variants: tuple[PlaneLayout, ...] = ()
    fine_look: bool = False

    def marker_corners_mm(self, marker_id: int) -> np.ndarray:
        x, y = self.marker_origins[marker_id]
        s = self.marker_side_mm
        return np.array([[x, y], [x + s, y], [x + s, y + s], [x, y + s]], dtype=np.float32)


@dataclass(frozen=True)
class LocatedPlane:
    layout: PlaneLayout
    homography: np.ndarray  # frame pixels -> plane millimetres
    markers_seen: tuple[int, ...]

    def rectify(
        self, frame: np.ndarray, px_per_mm: float, region_mm: tuple[float, float, float, float] | None = None
    ) -> np.ndarray:
        """Top-down view of the plane at ``px_per_mm``; of its rectangle ``region_mm`` (x, y, width,
        height) only when given (the same pixels as that crop of the whole view, for less work)."""
        x, y, w, h = (0.0, 0.0, self.layout.width_mm, self.layout.height_mm) if region_mm is None else region_mm
        to_view = np.array([[px_per_mm, 0, -x * px_per_mm], [0, px_per_mm, -y * px_per_mm], [0, 0, 1]])
        size = (round(w * px_per_mm), round(h * px_per_mm))
        return cv2.warpPerspective(frame, to_view @ self.homography, size, flags=cv2.INTER_LINEAR)

    def shows(self, frame_shape: tuple[int, ...], region_mm: tuple[float, float, float, float]) -> bool:
        """Whether a frame of ``frame_shape`` shows the whole of the plane's rectangle ``region_mm`` (x, y, width,
        height): a plane pushed past the frame's edge is still found by the markers left in view, and rectified, what
        lies beyond the edge is the warp's fill, not the plane."""
        x, y, w, h = region_mm
        corners = np.array([[x, y, 1.0], [x + w, y, 1.0], [x + w, y + h, 1.0], [x, y + h, 1.0]])
        return bool(in_frame(corners @ np.linalg.inv(self.homography).T, frame_shape).all())

    def to_frame(self, points_mm: np.ndarray) -> np.ndarray:
        """Plane millimetres -> frame pixels."""
        inverse = np.linalg.inv(self.homography)
        pts = np.asarray(points_mm, dtype=np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, inverse).reshape(-1, 2)


def in_frame(points: np.ndarray, frame_shape: tuple[int, ...]) -> np.ndarray:
    """Which of the homogeneous points (n, 3) in frame pixels a frame of ``frame_shape`` shows: in front of the camera
    (a homography puts a point behind it at w <= 0) and within the frame's pixels."""
    points = np.asarray(points, np.float64)
    ahead = points[:, 2] > 0
    xy = points[:, :2] / np.where(ahead, points[:, 2], 1.0)[:, None]
    height, width = frame_shape[:2]
    return ahead & (xy >= -0.5).all(axis=1) & (xy <= np.array([width - 0.5, height - 0.5])).all(axis=1)


def locate_plane(markers: dict[int, np.ndarray], layout: PlaneLayout, min_markers: int = 2) -> LocatedPlane | None:
    seen = [m for m in layout.marker_origins if m in markers]
    if len(seen) < min_markers:
        return None
    src = np.concatenate([markers[m] for m in seen]).astype(np.float64)
    dst = np.concatenate([layout.marker_corners_mm(m) for m in seen]).astype(np.float64)
    homography, _ = cv2.findHomography(src, dst, 0)
    if homography is None or not np.all(np.isfinite(homography)):
        return None
    return LocatedPlane(layout, homography, tuple(seen))
