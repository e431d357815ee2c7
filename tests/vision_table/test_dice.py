from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.dice.geometry import DIE_MM_RANGE, TRAY_LAYOUT, believable_die_mm
from vision.dice.reader import (
    DIE_PX,
    PX_PER_MM,
    DiceReader,
    TrayView,
    darkest_channel,
    measure_die,
    segment_dice,
)
from vision.marker_plane import detect_markers
from vision.observation import DIE_FACES, DOUBTFUL_DIE_BELOW
from vision.synth.dice import TrayLook, tray_scene
from vision.synth.table import px_per_mm_at


@pytest.fixture
def reader() -> DiceReader:
    return DiceReader()  # a test's own: a reader remembers the dice it measured (``dice_side``)


def _read(reader: DiceReader, frame: np.ndarray):
    return reader.read(frame)  # the tray's markers looked for as the pipeline does (a second look)


def test_every_face_read_at_random_rotations(reader):
    rng = np.random.default_rng(101)
    wrong = 0
    for k in range(24):
        # All five dice show the same face: a miss on any face shows up directly.
        face = DIE_FACES[k % len(DIE_FACES)]
        frame, dice, _ = tray_scene(rng, [face] * 5, touching=False)
        readings = _read(reader, frame)
        assert readings is not None
        assert len(readings) == 5
        wrong += sum(r.face != face for r in readings)
    assert wrong == 0


def test_touching_dice_are_split_and_read(reader):
    rng = np.random.default_rng(202)
    exact = 0
    for _ in range(20):
        faces = [DIE_FACES[int(i)] for i in rng.integers(0, 6, 5)]
        frame, dice, _ = tray_scene(rng, faces, touching=True)
        readings = _read(reader, frame)
        assert readings is not None and len(readings) == 5
        exact += sorted(r.face for r in readings) == sorted(faces)
    assert exact >= 19


def test_dice_are_found_where_they_lie(reader):
    rng = np.random.default_rng(303)
    frame, dice, _ = tray_scene(rng, ["log", "crate", "wall", "cross", "head"], touching=False)
    readings = _read(reader, frame)
    tops = np.array([d.top_mm for d in dice])
    for r in readings:
        nearest = int(np.argmin(np.hypot(*(tops - np.array(r.centre)).T)))
        assert np.hypot(*(tops[nearest] - np.array(r.centre))) < 4.0
        assert r.face == dice[nearest].face
        assert 0.0 <= r.confidence <= 1.0


def test_empty_tray_reads_no_dice_and_no_tray_reads_none(reader):
    rng = np.random.default_rng(404)
    frame, _, _ = tray_scene(rng, [], touching=False)
    assert _read(reader, frame) == ()
    blank = np.full((400, 600, 3), 120, np.uint8)
    assert reader.read(blank) is None


def test_segmentation_counts_dice_blob_by_blob():
    rng = np.random.default_rng(505)
    for n in (1, 3, 5):
        frame, dice, _ = tray_scene(rng, ["swords"] * n, touching=True)
        tray = DiceReader.__new__(DiceReader).rectify(frame)
        assert tray is not None
        blobs = segment_dice(tray)
        assert len(blobs) == n
        tops = np.array([d.top_mm for d in dice]) * PX_PER_MM
        for blob in blobs:
            assert np.min(np.hypot(*(tops - np.array(blob.centre)).T)) < 5 * PX_PER_MM


# Rectified trays (2.5 px/mm, held-out synthetic views) that the reader once got wrong, with the face
# and top-face centre (mm) of every die. Drawn by the generator before its dice's tops lay square on their
# bodies (each top was turned against its cube, which no real die does and the die measurement does not
# model): read with the dice's size given, 16 mm.
_HARD_TRAYS = {
    # Four dice packed in one blob (they hide each other's sides, so its area says three) and a lone die.
    "dice_packed_four.jpg": [("log", 61.5, 114.3), ("cross", 49.1, 99.3), ("wall", 72.8, 73.0),
                             ("head", 58.4, 83.2), ("wall", 230.1, 54.0)],
    # Dim light; a cross touching a pair of swords: the split put its crop on the gap ("wall").
    "dice_dim_touching.jpg": [("swords", 56.9, 47.9), ("cross", 129.5, 91.1), ("log", 223.7, 107.4),
                              ("cross", 64.4, 70.3), ("swords", 208.6, 81.9)],
    # A colour cast tints the shaded sides lilac: taken for symbols, they pulled every crop off its face.
    "dice_cast_sides.jpg": [("swords", 172.6, 40.1), ("swords", 127.5, 101.6), ("swords", 141.0, 141.3),
                            ("swords", 162.6, 95.8), ("wall", 111.8, 144.5)],
    # Seen from 90 cm (0.8 px/mm in the frame): four dice in a row, which the blob's area counts as three;
    # the fourth's symbol, blurred, was too faint to add a die.
    "dice_far_four_in_a_row.jpg": [("wall", 70.4, 103.0), ("log", 86.7, 106.2), ("crate", 110.0, 120.5),
                                   ("swords", 126.4, 116.9), ("wall", 198.2, 110.5)],
    # Seen from 90 cm: a chain of four, likewise.
    "dice_far_chain_of_four.jpg": [("swords", 173.6, 68.9), ("log", 163.4, 55.7), ("log", 151.0, 40.1),
                                   ("crate", 145.3, 24.2), ("swords", 87.3, 81.5)],
}


@pytest.mark.parametrize("name", sorted(_HARD_TRAYS))
def test_hard_trays_are_read_die_by_die(reader, name):
    tray = cv2.imread(str(Path(__file__).parent / "data" / name))
    truth = _HARD_TRAYS[name]
    _assert_read_die_by_die(reader.read_tray(tray, die_mm=16.0), truth, within_mm=2.5)


def _assert_read_die_by_die(readings, truth: list[tuple[str, float, float]], within_mm: float) -> None:
    """Every reading lies within ``within_mm`` of a true die's top and shows its face; every die is read once."""
    tops = np.array([(x, y) for _, x, y in truth])
    found = []
    for r in readings:
        dist = np.hypot(*(tops - np.array(r.centre)).T)
        nearest = int(np.argmin(dist))
        assert dist[nearest] < within_mm, (r, truth[nearest])
        assert r.face == truth[nearest][0], (r, truth[nearest])
        found.append(nearest)
    assert sorted(found) == list(range(len(truth)))


def test_a_die_whose_symbol_is_unseen_is_still_placed():
    # Whiten one die's symbol: the blob's area still counts it, the others' symbols give the lean.
    rng = np.random.default_rng(606)
    frame, dice, _ = tray_scene(rng, ["crate", "log", "head", "wall", "cross"], touching=True)
    tray = DiceReader.__new__(DiceReader).rectify(frame)
    assert tray is not None
    tops = np.array([d.top_mm for d in dice]) * PX_PER_MM
    x, y = np.round(tops[1]).astype(int)
    around = tray[y - 15:y + 15, x - 15:x + 15].reshape(-1, 3)
    white = around[np.argmax(around.min(axis=1))]
    cv2.circle(tray, (int(x), int(y)), int(0.35 * DIE_PX), tuple(int(v) for v in white), -1)
    blobs = segment_dice(tray)
    assert len(blobs) == 5
    for top in tops:
        assert min(np.hypot(*(np.array(b.centre) - top)) for b in blobs) < 4 * PX_PER_MM


def test_tray_views_come_from_every_height_the_camera_hangs_at():
    """hardware.md: 60-90 cm above the table (0.86 px/mm at 90), 50 cm over a small one."""
    rng = np.random.default_rng(808)
    centre = np.array([[[120.0, 80.0]], [[121.0, 80.0]], [[120.0, 81.0]]])
    scales = []
    for _ in range(40):
        _, _, to_frame = tray_scene(rng, [], effects=False)
        # Frame pixels per tray millimetre at the tray's centre (the view's tilt shrinks it by 10 % at most).
        o, x, y = cv2.perspectiveTransform(centre, to_frame)[:, 0]
        scales.append(np.sqrt(abs(np.linalg.det(np.array([x - o, y - o])))))
    assert min(scales) < 0.9 and max(scales) > 1.5
    assert sum(s < px_per_mm_at(75.0) for s in scales) >= 8  # about a third of the views from 75-90 cm


def test_trays_seen_from_the_camera_at_its_highest_are_read(reader):
    """From 90 cm (+-10 %) a die is 12-15 px a side in the frame and the tray's markers 14-19 px (each die
    within 5 mm of its top: the tray's size, measured from its stickers, is good to about 1 %)."""
    rng = np.random.default_rng(910)
    right = 0
    for _ in range(20):
        frame, dice, _ = tray_scene(rng, px_per_mm=px_per_mm_at(90.0) * rng.uniform(0.9, 1.1))
        readings = _read(reader, frame)
        assert readings is not None and len(readings) == len(dice)
        tops = np.array([d.top_mm for d in dice])
        for r in readings:
            dist = np.hypot(*(tops - np.array(r.centre)).T)
            nearest = int(np.argmin(dist))
            right += dist[nearest] < 5.0 and r.face == dice[nearest].face
    assert right == 100


def test_tray_markers_too_small_for_the_first_look_are_found_by_the_second():
    """From 90 cm the first look often finds only one or two of the tray's markers: two far apart put the
    others 10-50 px off, and a blurred 15 px marker decodes at twice its size where three times fails.
    Of 140 trays, those that showed one or two markers (19 when written; 18 then found all four)."""
    recovered = partial = 0
    for seed in range(20, 160):
        rng = np.random.default_rng(seed)
        frame, _, to_frame = tray_scene(rng, px_per_mm=px_per_mm_at(90.0))
        if not 1 <= len(set(detect_markers(frame)) & set(TRAY_LAYOUT.marker_origins)) <= 2:
            continue
        partial += 1
        found = detect_markers(frame, (TRAY_LAYOUT,))
        recovered += all(
            marker_id in found and np.abs(found[marker_id] - cv2.perspectiveTransform(
                TRAY_LAYOUT.marker_corners_mm(marker_id)[None].astype(np.float64), to_frame)[0]).max() < 2.5
            for marker_id in TRAY_LAYOUT.marker_origins)
    assert partial >= 12
    assert recovered >= partial - 2


@pytest.mark.parametrize("seed", [301, 304])
def test_a_tray_located_from_three_markers_is_straightened_by_the_fourth_sticker(reader, seed):
    """From 90 cm three markers put the tray's fourth corner millimetres off (its perspective drawn from
    markers of 15 px); the fourth marker's square, seen in its sticker, puts the dice back in place."""
    rng = np.random.default_rng(seed)
    frame, dice, _ = tray_scene(rng, px_per_mm=px_per_mm_at(90.0))
    markers = detect_markers(frame, (TRAY_LAYOUT,))
    assert set(TRAY_LAYOUT.marker_origins) <= set(markers)
    tops = np.array([d.top_mm for d in dice])
    reader = DiceReader(reader.classifier)
    whole = reader.read(frame, markers)  # the tray seen whole first (measured), then one covered
    assert whole is not None
    for hidden in TRAY_LAYOUT.marker_origins:
        readings = reader.read(frame, {m: c for m, c in markers.items() if m != hidden})
        assert readings is not None and len(readings) == len(dice)
        for r in readings:
            dist = np.hypot(*(tops - np.array(r.centre)).T)
            nearest = int(np.argmin(dist))
            # Where the tray seen whole puts it (its size is measured to about 1 %: up to 2 mm across the
            # tray, and a symbol's middle lies up to 1 mm off its top's), and the same die read so.
            assert dist[nearest] < 4.0, (hidden, r, dice[nearest])
            same = min(whole, key=lambda w: np.hypot(*np.subtract(w.centre, r.centre)))
            assert np.hypot(*np.subtract(same.centre, r.centre)) < 0.5, (hidden, r, same)
            assert r.face == dice[nearest].face, (hidden, r, dice[nearest])


def test_a_die_whose_top_lies_half_beyond_the_floor_is_doubtful(reader):
    """A table under the camera at 75 cm, the tray near the frame's edge: the die by the near wall leans
    out so far that half its top face (a head) lies beyond the floor; what is left looked like a cross and
    was read as one, for sure. Read from the floor alone (this picture was drawn clipped there) it is now
    doubtful, and the four whole dice are read as before."""
    tray = cv2.imread(str(Path(__file__).parent / "data" / "dice_top_beyond_the_floor.jpg"))
    readings = sorted(reader.read_tray(tray, die_mm=16.0), key=lambda r: r.centre[1])
    assert len(readings) == 5
    edge = readings[-1]
    assert edge.centre[1] > 155 and edge.confidence < 0.6
    whole = readings[:-1]
    assert sorted(r.face for r in whole) == ["cross", "cross", "cross", "log"]
    assert min(r.confidence for r in whole) >= DOUBTFUL_DIE_BELOW


def test_a_die_leaning_out_over_the_wall_is_read_from_beyond_the_floor(reader):
    """The same table as above, as the camera saw it (tray cut out of the frame): the head's top face
    lies half beyond the floor's edge. The tray is rectified with a margin, where its symbol is whole.
    (Drawn before the dice's tops lay square on their bodies: read with their size given, as above.)"""
    frame = cv2.imread(str(Path(__file__).parent / "data" / "dice_top_over_the_wall.jpg"))
    reader = DiceReader(reader.classifier, die_mm=16.0)
    readings = reader.read(frame)
    assert readings is not None
    assert sorted(r.face for r in readings) == ["cross", "cross", "cross", "head", "log"]
    assert min(r.confidence for r in readings) > 0.9
    head = next(r for r in readings if r.face == "head")
    assert head.centre[1] > TRAY_LAYOUT.height_mm  # its top's centre beyond the floor
    # From the floor alone it was cut in half and doubtful (see the test above).
    alone = reader.read_tray(DiceReader.__new__(DiceReader).rectify(frame), die_mm=16.0)
    edge = max(alone, key=lambda r: r.centre[1])
    assert edge.face != "head" or edge.confidence < 0.6


@pytest.mark.parametrize("name, faces", [
    ("dice_side_face_by_the_wall_head.jpg", ["head", "log", "log", "swords", "swords"]),
    ("dice_side_face_by_the_wall_crate.jpg", ["crate", "cross", "log", "swords", "wall"]),
    ("dice_side_face_in_the_tray.jpg", ["cross", "cross", "head", "head", "head"]),
    ("dice_top_hidden_in_a_cluster.jpg", ["cross", "log", "swords", "swords", "wall"]),
])
def test_a_die_showing_only_its_side_on_the_floor_is_read_from_its_top_beyond(reader, name, faces):
    """Whole tables under the camera at 75 cm (``TableSpec.random``, seeds 999 and bench_dice's, trays cut out of
    the frames): a die far from the camera shows a long side face, its top a die and more away (twice out over
    the floor's edge, once by a sticker). The blob's middle lay on that blank side, which was read as a cross
    for sure. A blank face is never a top: its symbol is looked for, within a die and a half. The last: a swords
    and a wall touching by the floor's edge, both tops out over it, counted one die by the surplus rule until stop
    62 (the wall's top then placed on the floor by the lean and read as a head, doubtful), both dice since."""
    frame = cv2.imread(str(Path(__file__).parent / "data" / name))
    readings = _read(reader, frame)
    assert readings is not None
    assert sorted(r.face for r in readings) == faces
    assert min(r.confidence for r in readings) > 0.9


def test_a_faint_side_face_is_not_taken_for_the_top(reader):
    """A whole table under the camera at 75 cm (bench_dice's whole tables, table 10; the tray cut out of the frame):
    a cross by the tray's far corner shows a long grey side face, and its blob's middle lay on it. That crop is not
    blank (the side's texture reaches 0.72 of its white), so its symbol was not looked for, and it was read as a
    wall, doubtful for being faint. A faint crop is looked for again as a blank one is, within a die and a half, and
    the crop that shows more ink is kept: the cross's own top, read for sure."""
    frame = cv2.imread(str(Path(__file__).parent / "data" / "dice_side_face_faint.jpg"))
    readings = _read(reader, frame)
    assert readings is not None
    assert sorted(r.face for r in readings) == ["cross", "cross", "log", "wall", "wall"]
    assert min(r.confidence for r in readings) > 0.9


def test_a_gap_walled_in_by_packed_dice_is_not_taken_for_the_top(reader):
    """The smallest tray, 14 mm dice, the camera 90 cm up (bench_dice's same table, beige floor, the fifth throw; the
    frame cut round the tray): a faint log packed among three dice. The beige floor seen through the gap between it
    and a crate is walled in by their white, a clearer mark than the log's own symbol 9 mm away, so the gap was taken
    for the log's top and read as a wall for sure (the face network said wall; the features' classifier log or wall).
    Two clear marks within a die in a packed blob are both read, and the one both readers agree on more is the top:
    the log, where it lies."""
    frame = cv2.imread(str(Path(__file__).parent / "data" / "dice_gap_beside_a_faint_log.jpg"))
    readings = _read(reader, frame)
    assert readings is not None
    assert sorted(r.face for r in readings) == ["crate", "head", "head", "log", "wall"]
    log = next(r for r in readings if r.face == "log")
    assert log.confidence >= DOUBTFUL_DIE_BELOW
    assert np.hypot(log.centre[0] - 102.3, log.centre[1] - 115.2) < 3.0  # the generator's top, in tray mm
    # (the faint wall alone on the floor stays doubtful, as before)
    assert [r.face for r in readings if r.confidence < DOUBTFUL_DIE_BELOW] == ["wall"]


@pytest.mark.parametrize("name, faces, top, sure", [
    # (bench_dice's whole tables 77 and 129, the trays cut out of the frames: the generator's top, in tray mm)
    ("dice_top_far_beyond_the_floor_head.jpg", ["cross", "head", "head", "log", "swords"], (67.9, 166.0), True),
    ("dice_top_far_beyond_the_floor_cross.jpg", ["cross", "cross", "head", "head", "log"], (179.2, 168.3), False),
    ("dice_top_turned_away.jpg", ["crate", "cross", "log", "log", "swords"], "log", True),
    # (bench_frame's roll of table 10: the second swords' top cut by the edge, its middle just inside the floor)
    ("dice_top_cut_by_the_floors_edge.jpg", ["cross", "log", "swords", "swords", "wall"], "swords", True),
])
def test_a_top_far_out_over_the_floors_edge_is_found(reader, name, faces, top, sure):
    """Whole tables under the camera at 75 cm, the tray near the frame's edge, the camera leaning in from the far
    side: a die packed among others by the floor's edge shows its top out over the edge, and the floor only its
    side faces, so its symbol was not seen on the floor. It was placed by the lean measured on dice elsewhere in
    the tray, on a side face 2.8 to 3.8 dice from its top, and read from that blank or off-centre crop, doubtful
    (a log each time, which it was in the third picture only). A top not found where it was placed is looked for
    by the floor's edge or beyond it, up to FAR_TOP_SEARCH dice away: no other die's symbol lies unclaimed there, and
    a corner sticker's pattern is not taken. The cross's top reaches beyond the rectified margin too: found, and
    doubtful for being cut. The last: two touching swords, the second's top cut by the floor's edge, 2 dice from the
    side face it was placed on."""
    frame = cv2.imread(str(Path(__file__).parent / "data" / name))
    readings = _read(reader, frame)
    assert readings is not None
    assert sorted(r.face for r in readings) == faces
    doubtful = [r for r in readings if r.confidence < DOUBTFUL_DIE_BELOW]
    if not isinstance(top, str):  # the generator's top
        found = min(readings, key=lambda r: np.hypot(r.centre[0] - top[0], r.centre[1] - top[1]))
        assert np.hypot(found.centre[0] - top[0], found.centre[1] - top[1]) < 3.0
        # (on the cross's table a log is doubtful too: its two readers each read another face)
        assert (doubtful == []) if sure else (found in doubtful)
    else:  # the face found by the edge: its top's centre beyond the floor, or within a die of its edge
        assert doubtful == []
        assert max(r.centre[1] for r in readings if r.face == top) > TRAY_LAYOUT.height_mm - 16.0


def test_a_die_whose_top_is_nowhere_in_view_is_doubtful(reader):
    """The last picture above with the log's top, out over the floor's edge, painted over with the table's colour
    (as a tray's rim or a hand would hide it): the floor shows its side faces only, and its symbol is nowhere. Read
    from the blank side (the classifier has no class for it: it once said cross, for sure), it is doubtful, and the
    four others are read as before. (This test once held that picture as it is, taken for a log whose top was
    turned away, and three dice packed on a black floor whose wall's top is found out over the floor's edge since
    stop 62: the tests above.)"""
    frame = cv2.imread(str(Path(__file__).parent / "data" / "dice_top_hidden_beyond_the_floor.jpg"))
    readings = _read(reader, frame)
    assert readings is not None and len(readings) == 5
    doubtful = [r for r in readings if r.confidence < DOUBTFUL_DIE_BELOW]
    assert len(doubtful) == 1
    assert sorted(r.face for r in readings if r not in doubtful) == ["crate", "cross", "log", "swords"]


@pytest.mark.parametrize("name, dice", [
    # bench_dice's trays as a webcam sends them (14 mm dice; the tray cut out of the frame, kept lossless): the
    # generator's faces and tops (tray mm)
    ("dice_readers_disagree_green_felt.png", [("log", (130, 67)), ("swords", (179, 75)), ("cross", (55, 123)),
                                              ("log", (83, 43)), ("swords", (104, 62))]),
    ("dice_readers_disagree_light_wood.png", [("log", (22, 69)), ("log", (132, 21)), ("cross", (147, 95)),
                                              ("cross", (171, 63)), ("swords", (147, 126))]),
])
def test_a_face_the_two_readers_read_differently_is_doubtful(reader, name, dice):
    """A blurred swords, read by the features' classifier as a swords or a cross and by the face network as a wall:
    their product said wall, 0.69 and 0.73, sure enough for the tracker to take. A face the two readers do not both
    read, each on its own, is doubtful; so every die read wrong here is (and a right one or two with it: the
    price)."""
    frame = cv2.imread(str(Path(__file__).parent / "data" / name))
    readings = _read(reader, frame)
    assert readings is not None and len(readings) == len(dice)
    wrong = 0
    for r in readings:
        face, _ = min(dice, key=lambda d: np.hypot(d[1][0] - r.centre[0], d[1][1] - r.centre[1]))
        if r.face != face:
            wrong += 1
            assert r.confidence < DOUBTFUL_DIE_BELOW, (r, face)
    assert wrong >= 1  # (the swords read as a wall: what this test is about)


def test_a_symbol_barely_darker_than_the_white_is_doubtful(reader):
    """A 20 x 14 cm beige tray of 14 mm dice, washed out and blurred (bench_dice's seed): a purple cross faded to two
    pale specks was read as a log, for sure. Its darkest pixels are 0.77 of the die's white: faint, doubtful, as
    are the wall and log beside it (0.68 and 0.76); the two green heads, clear, are read for sure."""
    frame = cv2.imread(str(Path(__file__).parent / "data" / "dice_faint_symbols.jpg"))
    readings = _read(reader, frame)
    assert readings is not None and len(readings) == 5
    sure = [r for r in readings if r.confidence >= DOUBTFUL_DIE_BELOW]
    assert sorted(r.face for r in sure) == ["head", "head"]


def test_a_blank_face_is_told_from_a_faint_symbol():
    """``blank_face``: a side face (one grey, lit from one side) has no symbol; a top with a faint grey wall
    has one."""
    from vision.dice.features import CROP_PX, FaceInk
    from vision.dice.reader import blank_face

    side = np.full((CROP_PX, CROP_PX, 3), 170, np.uint8)
    side[:, CROP_PX // 2:] = 185
    assert blank_face(FaceInk(side))
    top = np.full((CROP_PX, CROP_PX, 3), 235, np.uint8)
    cv2.rectangle(top, (12, 14), (28, 26), (150, 150, 150), -1)  # 0.64 of the white: the faintest symbols
    assert not blank_face(FaceInk(top))


# --- any plain tray: the tray and the dice measured in the picture (issue 13, part 7) ---


def _right(readings, dice, within_mm: float = 4.0) -> int:
    """Dice read right: each reading near a die's top face, of its face, no die counted twice."""
    tops = np.array([d.top_mm for d in dice])
    used: set[int] = set()
    for r in readings or ():
        dist = np.hypot(*(tops - np.array(r.centre)).T)
        j = int(np.argmin(dist))
        if dist[j] < within_mm and j not in used and r.face == dice[j].face:
            used.add(j)
    return len(used)


def test_a_light_grey_floor_reads_every_die(reader):
    """A tester's light grey trays gave no die at all: the dice were told from the floor by a level a fixed
    step above the floor's, above the dice's own white on a light floor. Light grey is held out of
    training."""
    rng = np.random.default_rng(1301)
    right = total = 0
    for _ in range(12):
        frame, dice, _ = tray_scene(rng, look=TrayLook("light grey"))
        readings = _read(reader, frame)
        assert readings is not None and len(readings) == len(dice)
        right += _right(readings, dice)
        total += len(dice)
    assert right == total


@pytest.mark.parametrize(("width", "height", "die"), [(200.0, 140.0, 14.0), (300.0, 200.0, 20.0)])
def test_the_smallest_and_largest_trays_with_their_dice_are_read(reader, width, height, die):
    """The ends of the kit's range (table-kit.md: 20 x 14 to 30 x 20 cm, dice of 14-20 mm), which training
    never sees, on floors it never sees."""
    rng = np.random.default_rng(1302 + int(die))
    right = total = 0
    for k in range(10):
        floor = ("beige", "dark green felt", "light grey", "orange", "purple")[k % 5]
        frame, dice, _ = tray_scene(rng, look=TrayLook(floor, width, height, die))
        readings = _read(reader, frame)
        assert readings is not None and len(readings) == len(dice)
        right += _right(readings, dice)
        total += len(dice)
        # A 14 mm die seen from 90 cm is 11-12 px: one blurred cross here (its arms two grey blobs) reads
        # near even between cross and wall. A die read wrong must at least be doubtful.
        wrong = len(dice) - _right(readings, dice)
        assert sum(r.confidence < DOUBTFUL_DIE_BELOW for r in readings) >= wrong
    assert right >= total - 1


def test_the_tray_is_measured_from_its_stickers():
    """Its floor's size from the markers in its corners (20 mm squares): within 2.5 % on trays of 20-30 cm
    seen from 48-90 cm; with a sticker covered, the tray last measured whole holds."""
    rng = np.random.default_rng(1303)
    reader = DiceReader.__new__(DiceReader)
    for _ in range(12):
        size = (float(rng.uniform(200, 300)), float(rng.uniform(140, 200)))
        frame, _, _ = tray_scene(rng, [], look=TrayLook("mid grey", *size))
        plane = reader.locate(frame)
        assert plane is not None
        measured = (plane.layout.width_mm, plane.layout.height_mm)
        assert abs(measured[0] / size[0] - 1) < 0.025 and abs(measured[1] / size[1] - 1) < 0.025, (measured, size)
    markers = detect_markers(frame, (TRAY_LAYOUT,))
    top_only = {m: c for m, c in markers.items() if m in (20, 21)}
    plane = reader.locate(frame, top_only)
    assert plane is not None
    assert (plane.layout.width_mm, plane.layout.height_mm) == measured  # remembered
    reader.tray_mm = None
    plane = reader.locate(frame, top_only)  # nothing remembered: the width measured, the reference height
    assert plane is not None and plane.layout.height_mm == TRAY_LAYOUT.height_mm
    assert abs(plane.layout.width_mm / size[0] - 1) < 0.03


def test_the_dice_are_measured_in_the_picture():
    """The dice's side from their blobs (any floor, tray and dice of 14-20 mm): within 1 mm on every tray,
    and the tray is then read with its dice DIE_PX a side."""
    rng = np.random.default_rng(1304)
    reader = DiceReader.__new__(DiceReader)
    errors = []
    for k in range(16):
        die = float(rng.uniform(14, 20))
        floor = ("light grey", "beige", "black", "dark green felt")[k % 4]
        frame, _, _ = tray_scene(rng, look=TrayLook(floor, float(rng.uniform(200, 300)), float(rng.uniform(140, 200)), die))
        reader.forget()  # each tray another table, its dice another size
        plane = reader.locate(frame)
        assert plane is not None
        measured = measure_die(plane.rectify(frame, PX_PER_MM), TrayView(plane.layout))
        assert measured is not None
        errors.append(measured - die)
        view, _, _ = reader.view_surround(frame, plane)
        assert abs(view.die_mm / die - 1) < 0.04 + 1.0 / 14, (view.die_mm, die)
    assert max(abs(e) for e in errors) < 1.0, errors


def test_dice_under_stickers_smaller_than_the_kits_are_measured_and_read():
    """The tray's millimetres are its stickers' (``measure_tray``): stickers that came out at 16 mm instead of the
    kit's 20 (printed at another scale) make a 28 x 19 cm floor measure 35 x 23.75 and its 19 mm dice 23.75 mm, past
    the 23 mm believed on a tray of the kit's sizes. The floor measured past the kit's largest tray stretches what is
    believed as much (``believable_die_mm``): the dice are measured (they were read as 16 mm dice, and a sword read as a
    log) and every die is read right. On a tray of the kit's sizes the top stays 23 mm."""
    assert believable_die_mm(300.0, 200.0) == believable_die_mm(160.0, 240.0) == DIE_MM_RANGE
    assert believable_die_mm(350.0, 237.5)[1] == pytest.approx(DIE_MM_RANGE[1] * 237.5 / 200.0)
    assert believable_die_mm(237.5, 350.0) == believable_die_mm(350.0, 237.5)  # a tray turned a quarter
    for floor in ("dark green felt", "beige", "light wood", "black"):
        look = TrayLook(floor, 350.0, 237.5, 23.75)
        rng = np.random.default_rng(2381)
        for _ in range(2):
            frame, dice, _ = tray_scene(rng, look=look)
            measured = _measured_die(frame)
            assert measured is not None and abs(measured - look.die_mm) < 2.0, (floor, measured)
            readings = DiceReader().read(frame)  # each tray another table: nothing remembered
            assert readings is not None
            assert sorted(r.face for r in readings) == sorted(d.face for d in dice), floor


def test_the_reference_tray_is_drawn_as_before():
    """The generator's new parameters leave the reference tray as it was for a seed: the same throw and
    view (recorded from the generator before them)."""
    frame, dice, to_frame = tray_scene(np.random.default_rng(77), effects=False)
    assert frame.shape == (560, 720, 3)
    assert [(d.face, round(d.centre_mm[0], 3), round(d.centre_mm[1], 3), round(d.angle_deg, 3)) for d in dice] == [
        ("log", 107.165, 52.141, 77.816), ("head", 123.72, 52.263, 81.715), ("cross", 188.951, 76.028, 17.299),
        ("cross", 172.78, 71.997, 19.484), ("head", 190.924, 121.411, 6.192)]
    assert np.allclose(to_frame, [[-0.7332, 0.5392, 445.6323], [-0.5446, -0.7255, 259.4393], [0, 0, 1]], atol=1e-4)
    again, dice_again, _ = tray_scene(np.random.default_rng(77), effects=False, look=TrayLook())
    assert np.array_equal(frame, again) and dice == dice_again


def _nth_scene(seed: int, look: TrayLook, n: int, px_per_mm: float | None = None):
    """The n-th tray (from 0) drawn from ``seed``."""
    rng = np.random.default_rng(seed)
    for _ in range(n + 1):
        scene = tray_scene(rng, look=look, px_per_mm=px_per_mm)
    return scene


def test_a_sticker_square_is_found_when_white_bits_break_its_border():
    """Blurred from afar on a dark floor, the Otsu level splits a marker's one-module black border where
    its white bits meet it: its dark outline is notched or in pieces and was not taken for the square
    (the fourth sticker of a 30 x 20 cm tray went unseen, the tray measured 3 % short). The hole the
    sticker's white rim rings is whole."""
    from vision.dice.geometry import tray_layout
    from vision.dice.reader import marker_squares
    from vision.marker_plane import marker_image

    layout = tray_layout(300.0, 200.0)
    tray = np.full((round(200 * PX_PER_MM), round(300 * PX_PER_MM), 3), (20, 45, 15), np.uint8)  # dark felt
    side, rim = round(20 * PX_PER_MM), round(3.5 * PX_PER_MM)
    for marker_id, (x, y) in layout.marker_origins.items():
        x0, y0 = round(x * PX_PER_MM), round(y * PX_PER_MM)
        tray[y0 - rim:y0 + side + rim, x0 - rim:x0 + side + rim] = 235
        tray[y0:y0 + side, x0:x0 + side] = np.where(marker_image(marker_id, side)[:, :, None] > 0, 235, 15)
        module = side / 6  # a white bit run through the left border
        cv2.rectangle(tray, (x0, y0 + round(2 * module)), (x0 + round(1.5 * module), y0 + round(3 * module)),
                      (235, 235, 235), -1)
    tray = cv2.GaussianBlur(tray, (0, 0), 1.5)
    squares = marker_squares(tray, TrayView(layout))
    assert set(squares) == set(layout.marker_origins)
    for printed, seen in squares.values():
        assert np.abs(seen - printed).max() <= 0.6  # (the printed square's pixels span its centre +- 0.5)


@pytest.mark.parametrize(("seed", "undecoded"), [(1418, 20), (1427, 21)])
def test_a_sticker_that_does_not_decode_still_measures_the_tray(seed, undecoded):
    """A 30 x 20 cm tray from 90 cm whose fourth sticker is seen but not decoded: three markers measured it
    2-4 % off (9-11 mm: dice by the far wall read 6-8 mm from their place), and since their sides are fitted as
    lines (``refine_marker_corners``) 0.6-1.0 % off. The fourth sticker's square, found in the floor the three
    rectify, measures it within 1 % and better than the three (0.15-0.20 %)."""
    from vision.dice.reader import locate_tray

    look = TrayLook("dark green felt", 300.0, 200.0, 20.0)
    frame, _, _ = tray_scene(np.random.default_rng(seed), look=look, px_per_mm=px_per_mm_at(90.0))
    markers = detect_markers(frame, (TRAY_LAYOUT,))
    three = {m: c for m, c in markers.items() if m != undecoded}

    def error(plane) -> float:
        return max(abs(plane.layout.width_mm / look.width_mm - 1), abs(plane.layout.height_mm / look.height_mm - 1))

    by_three = error(locate_tray(three, None, cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)))
    reader = DiceReader.__new__(DiceReader)
    plane = reader.locate(frame, three)
    assert plane is not None and set(plane.markers_seen) == set(TRAY_LAYOUT.marker_origins)
    assert error(plane) < 0.01
    assert error(plane) < by_three / 2


@pytest.mark.parametrize("misfit", [20, 21, 22, 23])
def test_a_sticker_decoded_off_the_trays_plane_is_left_out(misfit):
    """A board's sticker decoded as a tray's, the real one unseen (the benchmark renderer's seed 14, table 35: 7.8 of its
    sides off where the plane of all four put it): the tray measured 37 x 32 cm and its dice were not read. The sticker
    the plane puts farthest off, past half its side, is left out and the tray measured by the other three; four that fit
    are all kept."""
    from vision.dice.reader import locate_tray, measure_tray

    look = TrayLook("dark green felt", 240.0, 160.0, 16.0)
    frame, _, _ = tray_scene(np.random.default_rng(1418), look=look)
    markers = {m: c for m, c in detect_markers(frame, (TRAY_LAYOUT,)).items() if m in TRAY_LAYOUT.marker_origins}
    assert set(markers) == set(TRAY_LAYOUT.marker_origins)
    kept = locate_tray(markers)
    assert kept is not None and set(kept.markers_seen) == set(TRAY_LAYOUT.marker_origins)
    centre = markers[misfit].mean(axis=0)
    moved = {**markers, misfit: (markers[misfit] - centre) * 1.9 + centre + np.array([260.0, 310.0], np.float32)}
    size = measure_tray(moved)
    assert size is None or max(abs(size[0] / look.width_mm - 1), abs(size[1] / look.height_mm - 1)) > 0.1  # the premise
    plane = locate_tray(moved)
    assert plane is not None and misfit not in plane.markers_seen and len(plane.markers_seen) == 3
    # Three stickers' corners as the detector gave them measure a tray a few per cent off; the reader then finds the
    # fourth sticker's square where the three put it (``undecoded_marker``) and measures the tray whole.
    assert abs(plane.layout.width_mm / look.width_mm - 1) < 0.08
    assert abs(plane.layout.height_mm / look.height_mm - 1) < 0.08
    reader = DiceReader.__new__(DiceReader)
    whole = reader.locate(frame, moved)
    assert whole is not None and set(whole.markers_seen) == set(TRAY_LAYOUT.marker_origins)
    assert abs(whole.layout.width_mm / look.width_mm - 1) < 0.01
    assert abs(whole.layout.height_mm / look.height_mm - 1) < 0.01


def test_a_marker_side_is_refitted_where_its_white_bits_meet_the_border():
    """A 30 x 20 cm tray's sticker whose inner white bits, blurred, lie beside its black border: the
    border's black was taken from the profiles' first samples (that white), the halfway level came out
    above the border and the side was not refitted: a corner 1.6 px off, the tray measured 2.3 % long."""
    from vision.dice.geometry import tray_layout
    from vision.dice.reader import refine_marker_corners

    look = TrayLook("blue felt", 300.0, 200.0, 20.0)
    frame, _, to_frame = _nth_scene(1787, look, 7)
    markers = detect_markers(frame, (TRAY_LAYOUT,))
    truth = cv2.perspectiveTransform(tray_layout(300.0, 200.0).marker_corners_mm(22)[None].astype(np.float64), to_frame)[0]
    assert np.abs(markers[22] - truth).max() > 1.4
    refined = refine_marker_corners(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), markers[22])
    assert np.abs(refined - truth).max() < 0.8



def test_a_marker_side_turned_off_the_printed_one_is_refitted_as_a_line():
    """A 30 x 20 cm black tray from far (``bench_dice``'s seed: its black floor's 12th tray of that size), its
    stickers 16-18 px a side on a dark table: the detector's top-left sticker is turned a few degrees off the printed
    one, and moving each side outwards as it was left every corner 1.2-1.5 px off; the tray measured 2.5 % long and
    the plane put a die by the far wall 6.3 mm from its place (bench_dice counts a die right within 6 mm). Each side's
    crossings fitted with a line put the corners under 0.9 px, the tray 2.0 % long and that die 5.2 mm off: a
    sticker 17 px a side is a short ruler for a 30 cm tray (0.4 px on its side is 2.5 %)."""
    from vision.dice.geometry import tray_layout
    from vision.dice.reader import locate_tray, refine_marker_corners

    look = TrayLook("black", 300.0, 200.0, 20.0)
    frame, dice, to_frame = _nth_scene(20_262_136, look, 11)
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    markers = detect_markers(frame, (TRAY_LAYOUT,))
    assert set(markers) == set(TRAY_LAYOUT.marker_origins)
    truth = cv2.perspectiveTransform(tray_layout(300.0, 200.0).marker_corners_mm(20)[None].astype(np.float64), to_frame)[0]
    assert np.abs(markers[20] - truth).max() > 1.5  # the detector's corners
    refined = refine_marker_corners(gray, markers[20])
    assert np.linalg.norm(refined - truth, axis=1).max() < 0.9
    plane = locate_tray(markers, None, gray)
    assert plane is not None
    assert abs(plane.layout.width_mm / look.width_mm - 1) < 0.022
    assert abs(plane.layout.height_mm / look.height_mm - 1) < 0.015
    tops = np.array([d.top_mm for d in dice], np.float64)
    placed = cv2.perspectiveTransform(cv2.perspectiveTransform(tops[None], to_frame), plane.homography)[0]
    assert np.linalg.norm(placed - tops, axis=1).max() < 5.5


def test_the_floor_between_dice_packed_against_the_wall_is_no_symbol():
    """A beige 26 x 14 cm tray (``bench_dice``'s seed: its beige floor's 63rd tray of any size): four dice packed
    against the top wall, their outline closed along the floor's edge round the floor left between two heads and the
    wall. Beige is dark in the darkest channel, so that pocket was taken for a symbol (clearer than the log's thin
    bar): read as a log 15 mm from any die, doubtful, and the real log dropped. Floor-coloured pixels on the floor's
    edge are floor: every die is read where it lies."""
    frame = cv2.imread(str(Path(__file__).parent / "data" / "dice_pocket_by_the_wall.jpg"))
    truth = [("wall", (178.3, 22.9)), ("head", (192.1, 10.0)), ("head", (161.5, 8.1)), ("log", (157.5, 25.7)),
             ("head", (102.7, 51.2))]
    readings = DiceReader().read(frame)
    assert readings is not None and len(readings) == len(truth)
    for face, (x, y) in truth:
        nearest = min(readings, key=lambda r: np.hypot(r.centre[0] - x, r.centre[1] - y))
        assert np.hypot(nearest.centre[0] - x, nearest.centre[1] - y) < 3.0
        assert nearest.face == face and nearest.confidence >= DOUBTFUL_DIE_BELOW


def test_a_pair_of_small_dice_showing_one_symbol_is_not_taken_for_a_lone_die():
    """14 mm dice, two pairs touching and one alone: one pair's second symbol is faint, so the pair showed
    one clear symbol like a lone die; its symbol's offset from the pair's middle, taken for the camera's
    lean, made the lone die 8 mm and the dice were not measured (read as 16 mm). A lone die's blob is no
    larger than 1.5 times another's."""
    look = TrayLook("wood", 200.0, 140.0, 14.0)
    frame, _, _ = _nth_scene(568, look, 7)
    reader = DiceReader.__new__(DiceReader)
    plane = reader.locate(frame)
    assert plane is not None
    measured = measure_die(plane.rectify(frame, PX_PER_MM), TrayView(plane.layout))
    assert measured is not None and abs(measured - look.die_mm) < 1.0


def _measured_die(frame: np.ndarray) -> float | None:
    plane = DiceReader.__new__(DiceReader).locate(frame)
    assert plane is not None
    return measure_die(plane.rectify(frame, PX_PER_MM), TrayView(plane.layout))


def test_small_dice_whose_symbols_are_all_faint_are_measured():
    """14 mm dice from far on light wood: no lone die's symbol is clear (ink under EXTRA_SYMBOL_INK), so
    no die was measured and they were read as 16 mm dice. With fewer than two lone dice told by clear
    symbols, a lone die is told by any symbol it shows."""
    look = TrayLook("light wood", 200.0, 140.0, 14.0)
    measured = _measured_die(_nth_scene(6262, look, 51)[0])
    assert measured is not None and abs(measured - look.die_mm) < 1.0


def test_dice_that_all_touch_another_are_measured_by_their_symbols_spacing():
    """Every die of the tray touches another (no lone die to measure): two touching dice's tops are about a
    side apart, and the closest two symbols of one blob measure the side (the reference 16 mm before). A side and
    a little more: this tray's 14 mm dice measured 14.9 mm, and 15.0 mm since the tray's stickers are fitted as
    lines (``refine_marker_corners``, which measures trays closer to their size: the rectified view moved)."""
    look = TrayLook("beige", 200.0, 140.0, 14.0)
    frame, dice, _ = _nth_scene(6262, look, 30)
    tops = np.array([d.top_mm for d in dice])
    apart = np.hypot(*(tops[:, None] - tops[None]).transpose(2, 0, 1)) + np.eye(len(dice)) * 1e3
    assert (apart.min(axis=1) < 1.25 * look.die_mm).all()  # the premise: each die has a neighbour touching it
    measured = _measured_die(frame)
    assert measured is not None and abs(measured - look.die_mm) < 1.1


def test_small_dice_measured_short_from_far_are_believed():
    """14 mm dice on beige from 87 cm: blur eats their white edge and the lone die measures 11.7 mm. Under
    the 12 mm that was believed, the tray was read at the reference 16 mm and two touching pairs each as
    one die (three dice of five). Believed down to 10 mm, the tray reads all five."""
    look = TrayLook("beige", 200.0, 140.0, 14.0)
    frame, dice, _ = _nth_scene(20_261_125, look, 19)  # bench_dice: seed 20261124 + beige (its 2nd floor), 20th tray
    measured = _measured_die(frame)
    assert measured is not None and 10.0 <= measured < 12.0
    readings = DiceReader().read(frame)
    assert readings is not None
    assert sorted(r.face for r in readings) == sorted(d.face for d in dice)


def test_the_dice_measured_before_hold_for_a_frame_that_measures_none():
    """The dice do not change size during a game: a frame that measures none (here an empty tray) is read
    at the median of the sizes measured before, a single view's error is outvoted, and ``forget`` (another
    table) goes back to the reference dice."""
    look = TrayLook("black", 200.0, 140.0, 14.0)
    reader = DiceReader()
    frame, _, _ = _nth_scene(4411, look, 0)
    plane = reader.locate(frame)
    assert plane is not None
    view, _, _ = reader.view_surround(frame, plane)
    assert abs(view.die_mm - look.die_mm) < 1.0
    empty, _, _ = tray_scene(np.random.default_rng(4412), [], look=look)
    plane = reader.locate(empty)
    assert plane is not None and _measured_die(empty) is None
    view, _, _ = reader.view_surround(empty, plane)
    assert abs(view.die_mm - look.die_mm) < 1.0  # remembered, not the reference 16 mm
    reader.forget()
    view, _, _ = reader.view_surround(empty, plane)
    assert view.die_mm == pytest.approx(16.0)
    for side in (14.1, 13.9, 14.0):
        reader.dice_side(side)
    assert reader.dice_side(19.0) == pytest.approx(14.05)  # one stray measurement outvoted


def test_a_light_table_showing_along_the_floors_edge_is_no_die():
    """A light floor by a light table: the rectified floor's outer pixels mix in the table beyond (the
    tray measured a pixel short), and that rim, joined along the wall, was taken for a die lying there,
    which then took a real die's place among the five."""
    look = TrayLook("beige", 200.0, 140.0, 14.0)
    frame, _, _ = tray_scene(np.random.default_rng(5151), [], look=look)
    reader = DiceReader.__new__(DiceReader)
    floor = reader.rectify(frame)
    assert floor is not None and segment_dice(floor) == []
    floor[-3:, :] = 235  # the table beyond the wall, as white as a die
    assert segment_dice(floor) == []


def test_a_light_grey_floor_just_short_of_light_keeps_each_top_whole():
    """A light grey floor whose halfway level to the dice's white lay a grey step above the dark floors'
    level, so it was read as a dark floor but at as high a level: only the dice's tops cleared it, a head's
    top broke in two around its symbol, each piece smaller than a die, and the die was lost. Its pieces
    are joined as on a light floor whenever the level leaves only the tops."""
    rng = np.random.default_rng(2777)
    for _ in range(9):
        look = TrayLook("light grey", float(rng.uniform(200, 300)), float(rng.uniform(140, 200)), float(rng.uniform(14, 20)))
        frame, dice, _ = tray_scene(rng, look=look)
    readings = DiceReader().read(frame)
    assert readings is not None and len(readings) == len(dice) == 5
    assert _right(readings, dice) == 5


def test_packed_dice_counted_a_die_too_many_by_area_give_it_up_before_a_pair_of_clear_symbols():
    """Beige floor, 20 mm dice, the camera leaning in: two crosses side by side show so much of their sides
    that their blob's area counts three dice, six in all. The die too many was taken from the blob with the
    least area per die, a wall and a crate touching, with two clear symbols: the wall was lost and a die
    put between the crosses. A blob's count beyond its clear symbols is given up first."""
    rng = np.random.default_rng(5_002_009)
    for _ in range(12):
        look = TrayLook("beige", float(rng.uniform(200, 300)), float(rng.uniform(140, 200)), float(rng.uniform(14, 20)))
        frame, dice, _ = tray_scene(rng, look=look)
    readings = DiceReader().read(frame)
    assert sorted(d.face for d in dice) == ["crate", "cross", "cross", "head", "wall"]
    assert readings is not None and len(readings) == 5
    assert _right(readings, dice) == 5


def test_training_draws_far_views_and_labels_each_die_found_with_its_face():
    """Half the classifier's training trays are seen from 75-100 cm, beyond the camera's highest (where the
    dice are smallest and were confused), and each die found is labelled with the face of the die under it."""
    from vision.dice.reader import DiceClassifier
    from vision.dice.train import far_px_per_mm, labelled_features

    rng = np.random.default_rng(3)
    scales = np.array([far_px_per_mm(rng) for _ in range(200)])
    assert scales.max() <= px_per_mm_at(75.0) * 1.1 + 1e-9
    assert scales.min() < px_per_mm_at(90.0) * 0.9  # smaller than any view the camera gives
    x, y, stats, faces = labelled_features(6, seed=13, far_share=1.0)
    assert stats["dice"] == 30 and len(x) == len(y) == len(faces) >= 27
    agree = DiceClassifier().predict_proba(x).argmax(axis=1) == y
    assert agree.sum() >= len(y) - 1


def test_training_draws_trays_as_a_camera_sends_them_and_still_labels_their_dice():
    """``--processed-share``: those trays go through a camera's processing (demosaiced, sharpened, JPEG) before
    their dice are read, and each die found is labelled with its face as before."""
    from vision.dice.reader import DiceClassifier
    from vision.dice.train import labelled_features

    plain = labelled_features(4, seed=17)
    processed = labelled_features(4, seed=17, processed_share=1.0)
    assert processed.stats["dice"] == plain.stats["dice"] == 20 and len(processed.labels) >= 18
    assert not np.array_equal(plain.features[:5], processed.features[:5])  # other pixels, other features
    # Labelled right: the classifier reads most of them as labelled (a die labelled with a neighbour's face, or
    # by chance, would agree one time in six).
    agree = DiceClassifier().predict_proba(processed.features).argmax(axis=1) == processed.labels
    assert agree.sum() >= 0.85 * len(processed.labels)


def test_a_tray_sent_as_a_webcam_sends_it_is_the_same_tray():
    """``bench_dice --camera-processing``: the processing draws its randomness from the picture, so the trays and
    dice (and every tray after them) are those of the run without it; only the pixels differ."""
    look = TrayLook("orange", 260.0, 170.0, 16.0)
    plain_rng, processed_rng = np.random.default_rng(8), np.random.default_rng(8)
    for _ in range(2):
        plain, plain_dice, plain_h = tray_scene(plain_rng, look=look)
        processed, processed_dice, processed_h = tray_scene(processed_rng, look=look, camera_processing=True)
        assert [(d.face, d.top_mm) for d in plain_dice] == [(d.face, d.top_mm) for d in processed_dice]
        assert np.allclose(plain_h, processed_h) and plain.shape == processed.shape
        assert np.abs(plain.astype(np.int16) - processed.astype(np.int16)).mean() > 0.5


def test_a_lone_die_is_not_placed_on_a_smudge_taken_for_its_symbol():
    """A lone die whose symbol is unseen but shows a faint grey smudge by its corner: the smudge is enclosed
    by the die's white, so it passes for a symbol. It lies where no top face of that blob can be, given the
    camera's lean measured on the other dice, so the top is put where the lean says."""
    rng = np.random.default_rng(707)
    frame, dice, _ = tray_scene(rng, ["crate", "log", "head", "wall", "cross"], touching=False)
    tray = DiceReader.__new__(DiceReader).rectify(frame)
    assert tray is not None
    tops = np.array([d.top_mm for d in dice]) * PX_PER_MM
    x, y = tops[1]
    around = tray[int(y) - 15:int(y) + 15, int(x) - 15:int(x) + 15].reshape(-1, 3)
    white = tuple(int(v) for v in around[np.argmax(around.min(axis=1))])
    cv2.circle(tray, (int(round(x)), int(round(y))), int(0.35 * DIE_PX), white, -1)
    # Towards the top face's corner, 0.4 of a side from its centre.
    turn = np.deg2rad(dice[1].angle_deg + 45.0)
    smudge = (int(round(x + 0.4 * DIE_PX * np.cos(turn))), int(round(y + 0.4 * DIE_PX * np.sin(turn))))
    cv2.circle(tray, smudge, 5, tuple(int(0.5 * v) for v in white), -1)
    blobs = segment_dice(tray)
    assert len(blobs) == 5
    nearest = min(blobs, key=lambda b: np.hypot(*(np.array(b.centre) - tops[1])))
    assert np.hypot(*(np.array(nearest.centre) - tops[1])) < 3 * PX_PER_MM


# Rectified floors of bench_dice's processed trays (``--camera-processing``: demosaiced, sharpened, JPEG) that
# the finder once got wrong: (pixels a millimetre, the dice's side in mm as measured, every die's face and top
# centre in mm). 14 mm dice in a 20 x 14 cm tray.
_PROCESSED_TRAYS = {
    # A log die touching a wall die shows a side face at a slant, and a grey mark on that side had more ink
    # than the log's thin stroke: the pair was read as the wall and a die on the side face, 8 mm off.
    "dice_side_face_mark.jpg": (2.9013, 13.787, [("wall", 71.0, 73.1), ("log", 84.6, 65.8), ("swords", 91.0, 88.4),
                                                 ("wall", 77.1, 93.5), ("swords", 32.2, 71.2)]),
    # A lone head die whose face is unseen but for a faint shadow by its edge, taken for its symbol: the die
    # was put 10 mm off and read from the wrong place.
    "dice_shadow_for_symbol.jpg": (2.8783, 13.897, [("crate", 188.4, 82.7), ("cross", 77.0, 35.9),
                                                    ("head", 130.6, 82.8), ("swords", 142.6, 52.6),
                                                    ("cross", 23.1, 47.7)]),
}


@pytest.mark.parametrize("name", sorted(_PROCESSED_TRAYS))
def test_processed_trays_are_read_die_by_die(reader, name):
    px_per_mm, die_mm, truth = _PROCESSED_TRAYS[name]
    tray = cv2.imread(str(Path(__file__).parent / "data" / name))
    _assert_read_die_by_die(reader.read_tray(tray, px_per_mm=px_per_mm, die_mm=die_mm), truth, within_mm=3.0)


def test_packed_dice_whose_symbols_were_seen_keep_their_tops_when_one_is_not():
    """Pink floor, 18 mm dice as a webcam sends them, five packed in a row (bench_dice --camera-processing:
    pink, any size, the 6th tray). The pink floor between them joined their blob, one crate's symbol was not
    seen, and the blob was split by k-means over all five dice: two groups drifted off their clear symbols
    and a cross and a crate were each put 7 mm off (four errors). The dice whose symbols were seen keep their
    tops there; only the unseen one is placed from what is left of the blob."""
    rng = np.random.default_rng(20_261_124 + 2000 + 7)
    for _ in range(6):
        look = TrayLook("pink", float(rng.uniform(200, 300)), float(rng.uniform(140, 200)), float(rng.uniform(14, 20)))
        frame, dice, _ = tray_scene(rng, look=look, camera_processing=True)
    readings = DiceReader().read(frame)
    assert sorted(d.face for d in dice) == ["crate", "crate", "cross", "head", "wall"]
    assert readings is not None and len(readings) == 5
    assert _right(readings, dice, within_mm=3.0) == 5


def test_a_split_keeps_the_seen_dice_where_they_are():
    """``_split`` with fixed seeds: those groups stay round their seeds, the others take what is left."""
    from vision.dice.reader import _split

    ys, xs = np.mgrid[0:40, 0:120]  # three dice of 40 px in a row
    points = np.column_stack([xs.ravel(), ys.ravel()]).astype(np.float32)
    seeds = [(25.0, 20.0), (60.0, 20.0)]  # the first's symbol seen a little off its middle
    groups = _split(points, 3, seeds, fixed=2)
    assert sum(len(g) for g in groups) == len(points)
    free = groups[2].mean(axis=0)
    assert abs(free[0] - 100) < 4 and abs(free[1] - 20) < 1  # the third die, unseen
    for group, seed in zip(groups[:2], seeds, strict=True):
        # Every pixel of a seen die's group is nearer its seed than the free group's centre.
        assert np.all(np.hypot(*(group - seed).T) <= np.hypot(*(group - free).T) + 1.0)  # (its last move: < 1 px)
        assert len(group) > 0


def test_a_die_by_the_wall_does_not_take_its_neighbours_symbol():
    """Light wood, 14 mm dice (bench_dice: light wood, the smallest tray, the 26th tray): two heads touching
    by the far wall, the one by the wall showing no symbol on the floor. Looked for again beyond the floor
    (``top_beyond_floor``), the nearest symbol within a die was its neighbour's, and the two were read as
    one die twice. A symbol that is another die's top is not taken."""
    from vision.dice.reader import DieBlob, floor_levels, top_beyond_floor

    look = TrayLook("light wood", 200.0, 140.0, 14.0)
    frame, dice, _ = _nth_scene(20_261_124 + 4, look, 25)
    reader = DiceReader()
    readings = reader.read(frame)
    assert readings is not None and len(readings) == 5
    assert _right(readings, dice) == 5
    # The rule itself: the die by the wall, its first guess a die's side from the neighbour's top.
    plane = reader.locate(frame, detect_markers(frame, (TRAY_LAYOUT,)))
    view, surround, margin = reader.view_surround(frame, plane)
    floor = surround[margin:-margin, margin:-margin]
    heads = sorted((d.top_mm for d in dice if d.face == "head" and d.top_mm[1] < 30), key=lambda t: t[1])
    assert len(heads) == 2
    by_wall, neighbour = (np.array(t) * view.px_per_mm for t in heads)
    guess = DieBlob((float(by_wall[0]) - 2.0, float(by_wall[1]) + 2.0), 0.0, 1.0)
    levels = floor_levels(floor, view)
    alone = top_beyond_floor(surround, margin, guess, levels)
    beside = top_beyond_floor(surround, margin, guess, levels, (tuple(neighbour),))
    assert np.hypot(*np.subtract(beside.centre, neighbour)) > 0.5 * DIE_PX
    assert np.hypot(*np.subtract(alone.centre, neighbour)) < np.hypot(*np.subtract(beside.centre, neighbour))


def test_two_touching_dice_whose_symbols_join_are_read_as_two():
    """Blue felt, 14 mm dice as a webcam sends them (bench_dice --camera-processing: blue felt, the smallest
    tray, the 29th tray): a swords die leaning against a cross, its top in shade. Specks of the shaded top
    joined the swords and the cross into one dark patch, taken for one symbol between the two dice: one die
    read there, the other put beside it (three errors). A patch reaching farther than one symbol can is two."""
    look = TrayLook("blue felt", 200.0, 140.0, 14.0)
    rng = np.random.default_rng(20_261_124 + 10)
    for _ in range(29):
        frame, dice, _ = tray_scene(rng, look=look, camera_processing=True)
    readings = DiceReader().read(frame)
    assert readings is not None and len(readings) == 5
    assert _right(readings, dice) == 5


def test_a_dark_patch_reaching_beyond_one_symbol_is_split_in_two():
    from vision.dice.reader import _one_symbol_each

    canvas = np.zeros((120, 160), np.uint8)
    cv2.line(canvas, (30, 40), (55, 65), 1, 4)  # an X ...
    cv2.line(canvas, (30, 65), (55, 40), 1, 4)
    ys, xs = np.nonzero(canvas)
    assert len(_one_symbol_each(xs, ys, xs.mean(), ys.mean())) == 1  # one symbol: kept whole
    cv2.line(canvas, (75, 52), (105, 52), 1, 4)  # ... and a cross one die further, joined by a thin trail
    cv2.line(canvas, (90, 37), (90, 67), 1, 4)
    cv2.line(canvas, (55, 52), (75, 52), 1, 1)
    ys, xs = np.nonzero(canvas)
    parts = _one_symbol_each(xs, ys, xs.mean(), ys.mean())
    assert len(parts) == 2
    middles = sorted(float(xs[p].mean()) for p in parts)
    assert middles[0] < 55 < 75 < middles[1]


def test_dice_under_a_bluish_daylight_are_told_from_a_beige_floor_by_the_stickers_white():
    """The camera's white balance is locked at calibration (``vision.camera_settings``); daylight through a window
    later tints the table blue (red 0.8, blue 1.12 of the light calibrated for). The dice's white is then as
    colourful as a beige floor: without evening the colours to the stickers' white, five of six trays lost dice
    (two were read as no tray at all)."""
    rng = np.random.default_rng(11)
    faces = ["log", "crate", "wall", "cross", "head"]
    for _ in range(6):
        frame, _, _ = tray_scene(rng, faces, touching=False, look=TrayLook("beige"))
        daylight = np.clip(frame * np.array([1.12, 1.0, 0.8]), 0, 255).astype(np.uint8)
        readings = DiceReader().read(daylight)
        assert readings is not None
        assert sorted(r.face for r in readings) == sorted(faces)


def test_a_trays_darkest_channel_is_made_once_and_cannot_be_changed():
    """The tray read asks for one tray's darkest channel several times: the same array comes back, read-only (a caller
    that wrote into it would change every later one's), and another tray, even of the same shape, gets its own.
    Fails when it is made anew each time, given writable, or handed to another array."""
    rng = np.random.default_rng(3)
    tray = rng.integers(0, 256, (40, 60, 3), dtype=np.uint8)
    darkest = darkest_channel(tray)
    assert np.array_equal(darkest, tray.min(axis=2))
    assert darkest_channel(tray) is darkest and not darkest.flags.writeable
    with pytest.raises(ValueError):
        darkest[0, 0] = 0
    other = tray.copy()
    other[0, 0] = 255
    assert darkest_channel(other) is not darkest and darkest_channel(other)[0, 0] == 255
    assert np.array_equal(darkest_channel(tray[5:20, 5:30]), tray[5:20, 5:30].min(axis=2))


def test_a_sides_median_is_numpys():
    """``refine_marker_corners``' median of a side's crossings gives what ``np.median`` gives, to the bit, for odd
    and even counts (the two middle values' mean). Fails when an even count takes one middle value."""
    from vision.dice.reader import _median

    rng = np.random.default_rng(8)
    for count in range(1, 12):
        for _ in range(200):
            values = rng.normal(size=count) * rng.uniform(0.01, 10.0)
            assert _median(values) == float(np.median(values))
    assert _median(np.array([3.0, 1.0, 2.0, 10.0])) == 2.5
