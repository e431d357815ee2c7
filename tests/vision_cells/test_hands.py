"""Families of hands: the generator draws the symbols in many ways, and the families are told apart so that
one can be left out of training and read as a stranger's hand."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from companion.layout import ALL_CELLS, LAYOUT
from vision.cells import train_hands
from vision.cells.churches import CHURCHES
from vision.cells.cnn import trained_on_families
from vision.cells.evaluate import evaluate, misread_sheet
from vision.cells.labels import GLYPH_CLASSES
from vision.cells.letters import LETTERS, letters_path_for
from vision.cells.reader import (
    DEFAULT_MODEL_PATH,
    INNER_INDEX,
    OUTER_WALL_PRIOR,
    TRAINING_WALLS_PER_CRATE,
    WALL_OVER_CRATE_ON_THE_EDGE,
    CellReader,
    apply_board_context,
    look_path_for,
)
from vision.cells.train_hands import (
    CLASSIC,
    CONFIDENT_MISREAD_TARGET,
    agreed_confidence,
    cache_name,
    doubt_threshold,
    symbol_doubt_threshold,
    unseen_model_path,
    worst_family_threshold,
)
from vision.cells.train_other_renderer import FIFTH_RENDERER, FOURTH_RENDERER, OTHER_RENDERER, THIRD_RENDERER
from vision.synth import web_fonts
from vision.synth.drawings import CellPen, Hand, draw_symbol
from vision.synth.hands import (
    CURSIVE_POOL,
    FAMILY_NAMES,
    HAND_FAMILIES,
    NEW_HANDS,
    TRAINING_POOL,
    WEB_POOL,
    HandFamily,
    family,
    font_glyph,
    font_path,
    missing_fonts,
)


def test_the_handwriting_fonts_are_installed():
    """Training and the leave-one-hand-out benchmark draw letters from Debian's handwriting fonts
    (.ci/run installs them): without them a family would silently fall back to the stroke font."""
    assert missing_fonts() == []


@pytest.mark.parametrize("kind", ["walls", "crates", "churches", "houses", "circles"])
def test_every_drawing_style_belongs_to_two_families(kind):
    """Left out of training, a family still shares each way of drawing with another family: the benchmark
    measures a new hand, not a symbol nobody ever drew in training."""
    styles = {s for f in HAND_FAMILIES for s in getattr(f, kind)}
    for style in styles:
        owners = [f.name for f in HAND_FAMILIES if style in getattr(f, kind)]
        assert len(owners) >= 2, f"{kind} style {style} is drawn by {owners} only"


def test_no_letter_source_is_shared_between_families():
    sources = [src for f in HAND_FAMILIES for src in f.letters]
    assert len(sources) == len(set(sources))


@pytest.mark.parametrize("kind", ["walls", "crates", "churches", "houses", "circles"])
def test_the_training_pool_teaches_no_family_anything_of_its_own(kind):
    """Every network learns from the pool, the ones without a family too: it draws only styles that at least
    two families draw (and no family's font, below), so a family left out is still new."""
    for style in getattr(TRAINING_POOL, kind):
        owners = [f.name for f in HAND_FAMILIES if style in getattr(f, kind)]
        assert len(owners) >= 2, f"the pool draws {kind} style {style}, which only {owners} draw"


def _font_names(hands: tuple[HandFamily, ...]) -> set[str]:
    """Fonts by name, however they are fetched: Debian's files (``ComicNeue-Regular.otf``) and the npm
    registry's Google Fonts (``fontsource:comic-neue``) both give ``comicneue``."""
    names = set()
    for f in hands:
        for src in f.letters:
            if src.startswith(web_fonts.PREFIX):
                names.add(src.removeprefix(web_fonts.PREFIX).replace("-", ""))
            elif (path := font_path(src)) is not None:
                names.add(path.stem.lower().replace("-", "").split("regular")[0])
    return names


def _same_font(a: str, b: str) -> bool:
    return a.startswith(b) or b.startswith(a)


@pytest.mark.parametrize("pool", [TRAINING_POOL, WEB_POOL, CURSIVE_POOL], ids=lambda p: p.name)
def test_the_training_pools_share_no_font_and_are_never_left_out(pool):
    assert not set(pool.letters) & {src for f in HAND_FAMILIES for src in f.letters}
    assert pool.name not in FAMILY_NAMES and family(pool.name) is pool
    # The same hand under two names would teach a family's letters all the same.
    for mine in _font_names((pool,)):
        assert not any(_same_font(mine, own) for own in _font_names(HAND_FAMILIES)), mine


def test_the_new_hands_are_nobody_s_and_no_network_learned_them():
    """``bench_hands --new-hands`` reads the shipped reader on them: a font of a family or of a pool would be a
    hand it had learned, and the figure would not be a new hand's."""
    learned = _font_names((*HAND_FAMILIES, TRAINING_POOL, WEB_POOL, CURSIVE_POOL))
    for mine in _font_names((NEW_HANDS,)):
        assert not any(_same_font(mine, own) for own in learned), mine
    assert family(NEW_HANDS.name) is NEW_HANDS and NEW_HANDS.name not in FAMILY_NAMES
    for path in (DEFAULT_MODEL_PATH, look_path_for(DEFAULT_MODEL_PATH), letters_path_for(DEFAULT_MODEL_PATH),
                 CHURCHES.path_for(DEFAULT_MODEL_PATH), *(unseen_model_path(name) for name in FAMILY_NAMES)):
        assert NEW_HANDS.name not in trained_on_families(path), path.name


def test_a_web_font_is_the_regular_latin_woff_and_read_from_the_fetched_folder():
    names = ["package/files/caveat-latin-ext-400-normal.woff", "package/files/caveat-cyrillic-400-normal.woff",
             "package/files/caveat-latin-700-normal.woff", "package/files/caveat-latin-500-normal.woff",
             "package/files/caveat-latin-400-normal.woff2", "package/files/caveat-latin-400-italic.woff"]
    assert web_fonts.latin_regular(names) == "package/files/caveat-latin-500-normal.woff"
    assert web_fonts.latin_regular([*names, "package/files/caveat-latin-400-normal.woff"]).endswith("-400-normal.woff")
    assert web_fonts.latin_regular(names[:2]) is None
    assert font_path("fontsource:caveat") == web_fonts.WEB_FONT_DIR / "caveat.woff"
    assert len(set(web_fonts.WEB_FONTS)) == len(web_fonts.WEB_FONTS) == len(WEB_POOL.letters)
    assert len(set(web_fonts.CURSIVE_FONTS)) == len(web_fonts.CURSIVE_FONTS) == len(CURSIVE_POOL.letters)
    assert not set(web_fonts.CURSIVE_FONTS) & set(web_fonts.WEB_FONTS)  # each pool its own hands


def _family_read(n: int, wrong_at: list[float], rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Probabilities of two classes for ``n`` cells of class 0, all read right at 0.999 except misreads
    (class 1) with the given confidences."""
    best = np.full(n, 0.999)
    best[: len(wrong_at)] = wrong_at
    labels = np.zeros(n, np.int64)
    labels[: len(wrong_at)] = 1  # read as 0 with that confidence: wrong
    order = rng.permutation(n)
    return np.stack([best, 1 - best], axis=1)[order], labels[order]


def test_the_doubt_threshold_holds_the_hardest_hand_to_the_target():
    """Fitted on the families pooled, an easy hand makes room for a hard one's confident misreads; the
    threshold fitted family by family keeps each at the target (issue 13's is the worst family's)."""
    rng = np.random.default_rng(3)
    easy = _family_read(5000, [], rng)
    hard = _family_read(5000, [0.9] * 15 + [0.97] * 15, rng)  # 0.3 % misread at 0.97, the target 0.2 %
    pooled = doubt_threshold(np.concatenate([easy[0], hard[0]]), np.concatenate([easy[1], hard[1]]))
    worst = worst_family_threshold([easy, hard])
    assert pooled <= 0.97 < worst  # pooled, 0.15 % of all cells: the hard hand's 0.97 misreads pass as sure
    for probs, labels in (easy, hard):
        sure_and_wrong = (probs.argmax(axis=1) != labels) & (probs.max(axis=1) >= worst)
        assert sure_and_wrong.mean() <= CONFIDENT_MISREAD_TARGET


def _cells_read(n: int, read_as: str, truth: str, wrong_at: list[float]) -> tuple[np.ndarray, np.ndarray]:
    """``n`` cells read as ``read_as`` at 0.9999, of which ``len(wrong_at)`` were ``truth`` (misread) read at
    those confidences."""
    probs = np.zeros((n, len(GLYPH_CLASSES)))
    probs[:, GLYPH_CLASSES.index(read_as)] = 0.9999
    probs[: len(wrong_at), GLYPH_CLASSES.index(read_as)] = wrong_at
    probs[:, GLYPH_CLASSES.index(".") if read_as != "." else 1] += 1 - probs.max(axis=1)
    labels = np.full(n, GLYPH_CLASSES.index(read_as))
    labels[: len(wrong_at)] = GLYPH_CLASSES.index(truth)
    return probs, labels


def test_letters_and_digits_are_doubted_above_the_plain_ceiling():
    """A new hand's letter is misread with confidence (its J as another hand's S): the letters and digits get a
    threshold of their own above the plain classes' ceiling, and the plain classes keep theirs."""
    letters = _cells_read(3000, "pS", "pJ", [0.995] * 15)  # 0.25 % of all cells: J read as S at 0.995
    plain = _cells_read(3000, ".", "H", [0.95] * 3)  # 0.1 %, under the plain threshold anyway
    probs, labels = np.concatenate([letters[0], plain[0]]), np.concatenate([letters[1], plain[1]])
    plain_threshold = doubt_threshold(probs, labels)
    assert plain_threshold == train_hands.UNCERTAIN_BOUNDS[1]  # the ceiling binds: 0.2 % left at 0.99
    symbols = symbol_doubt_threshold(probs, labels, plain_threshold)
    assert 0.995 < symbols <= train_hands.SYMBOL_UNCERTAIN_CEILING
    doubted = probs.max(axis=1) < np.where(probs.argmax(axis=1) == GLYPH_CLASSES.index("pS"), symbols, plain_threshold)
    assert ((probs.argmax(axis=1) != labels) & ~doubted).mean() <= CONFIDENT_MISREAD_TARGET
    # A right empty space at 0.995 is not doubted: only letters and digits are held to more.
    assert not doubted[(labels == 0) & (probs.argmax(axis=1) == 0)].any()
    # Nothing to doubt among the letters: they stay at the plain threshold.
    assert symbol_doubt_threshold(*plain, plain_threshold) == plain_threshold


def test_the_look_networks_agreement_lets_a_letter_be_doubted_less(tmp_path):
    """Where the look network contradicts the misread letters (the J read as S) and agrees with the rest, the
    threshold fitted on the two networks' agreement keeps the confident misreads under the target at the plain
    threshold, where the network's own confidence needs a letter threshold over 0.995; ``set_calibration``
    writes it next to the others."""
    probs, labels = _cells_read(3000, "pS", "pJ", [0.995] * 15)
    probs[:15, GLYPH_CLASSES.index("pJ")], probs[:15, GLYPH_CLASSES.index(".")] = 0.004, 0.001  # J not ruled out
    look = probs.copy()
    look[:15] = 0.0
    look[:15, GLYPH_CLASSES.index("pJ")] = 0.9
    look[:15, GLYPH_CLASSES.index("pS")] = 0.1
    sure = agreed_confidence(probs, look)
    assert np.all(sure[:15] < 0.9) and np.allclose(sure[15:], probs[15:].max(axis=1))
    assert symbol_doubt_threshold(probs, labels, 0.99) > 0.995
    assert symbol_doubt_threshold(probs, labels, 0.99, confidence=sure) == 0.99
    # Contradicting every letter instead, the agreement doubts every letter but still fits at the plain threshold.
    with np.load(DEFAULT_MODEL_PATH) as data:
        arrays = {k: data[k] for k in data.files if k != "uncertain_below_agreed"}
    path = tmp_path / "cnn.npz"
    np.savez(path, **arrays)
    logits = np.log(np.maximum(probs, 1e-12))
    train_hands.set_calibration(path, [(logits, labels)] * 2, keep_temperature=True, looks=[look] * 2)
    with np.load(path) as data:
        assert 0.99 <= float(data["uncertain_below_agreed"]) < float(data["uncertain_below_symbols"])
    train_hands.set_calibration(path, [(logits, labels)], keep_temperature=True)
    with np.load(path) as data:
        assert "uncertain_below_agreed" in data.files  # kept from before: fitted only with look networks


def test_the_reader_doubts_a_letter_under_its_own_threshold(tmp_path):
    """The reader lists a letter read at 0.995 as uncertain when its network says letters need 0.999, and
    an empty space read at 0.995 not."""
    with np.load(DEFAULT_MODEL_PATH) as data:
        arrays = {k: data[k] for k in data.files}
    arrays["uncertain_below"] = np.array(0.99)
    arrays["uncertain_below_symbols"] = np.array(0.999)
    path = tmp_path / "cnn.npz"
    np.savez(path, **arrays)
    reader = CellReader("en", model_path=path)
    probs = np.zeros((49, len(GLYPH_CLASSES)))
    probs[:, GLYPH_CLASSES.index(".")] = 1.0
    letter, empty = ALL_CELLS.index("C3"), ALL_CELLS.index("D4")
    probs[letter] = 0.0
    probs[letter, GLYPH_CLASSES.index("pS")], probs[letter, GLYPH_CLASSES.index("pJ")] = 0.995, 0.005
    probs[empty, GLYPH_CLASSES.index(".")], probs[empty, GLYPH_CLASSES.index("H")] = 0.995, 0.005
    city, _, uncertain = reader._read(probs)
    assert city[2][2] == "s" and "C3" in uncertain and "D4" not in uncertain
    arrays.pop("uncertain_below_symbols")
    np.savez(path, **arrays)
    assert "C3" not in CellReader("en", model_path=path)._read(probs)[2]  # a file from before: one threshold


def test_a_family_given_more_fonts_is_drawn_again_not_read_from_the_cache(monkeypatch):
    before = cache_name(TRAINING_POOL.name, 3000, 0)
    assert before == cache_name(TRAINING_POOL.name, 3000, 0)  # the same definition finds its cells again
    assert before != cache_name(TRAINING_POOL.name, 1500, 0) != cache_name(TRAINING_POOL.name, 1500, 1)
    more = dataclasses.replace(TRAINING_POOL, letters=(*TRAINING_POOL.letters, "truetype/another/Hand.ttf"))
    monkeypatch.setattr(train_hands, "family", lambda name: more)
    assert cache_name(TRAINING_POOL.name, 3000, 0) != before


@pytest.mark.parametrize("name", FAMILY_NAMES)
def test_a_family_hand_keeps_to_its_family(name):
    fam = next(f for f in HAND_FAMILIES if f.name == name)
    rng = np.random.default_rng(3)
    for _ in range(30):
        hand = Hand.random(rng, family=name)
        assert hand.family == name
        assert hand.wall_style in fam.walls and hand.crate_style in fam.crates
        assert hand.church_style in fam.churches and hand.house_style in fam.houses
        assert hand.circle_style in fam.circles
        assert fam.stroke[0] <= hand.stroke <= fam.stroke[1]
        if hand.letter_font:
            assert hand.letter_font in {str(font_path(s)) for s in fam.letters}


def test_unknown_family_is_refused():
    with pytest.raises(ValueError, match="unknown hand family"):
        Hand.random(np.random.default_rng(0), family="nobody")


def test_font_letters_land_in_their_cell_in_lower_and_upper_case():
    hand = Hand(letter_font=str(font_path("truetype/fifthhorseman/dkg.ttf")), wobble=0.0, lowercase=1.0)
    mask = np.zeros((128, 128), np.uint8)
    pen = CellPen(mask, 32, 32, 64, hand, np.random.default_rng(1))
    draw_symbol(pen, "pM")
    inside = mask[32:96, 32:96]
    assert inside.sum() > 0 and mask.sum() == inside.sum()
    # The lower-case m is not the capital M of the same font.
    upper, lower = font_glyph(hand.letter_font, "M", 0), font_glyph(hand.letter_font, "m", 0)
    assert upper is not None and lower is not None and upper.shape != lower.shape


def _letter_ink_extent(hand: Hand, glyph: str) -> tuple[int, int]:
    """(width, height) in pixels of what ``hand`` writes inside a person's circle (the circle left out)."""
    mask = np.zeros((256, 256), np.uint8)
    pen = CellPen(mask, 0, 0, 256, hand, np.random.default_rng(1))
    pen.glyph(glyph[1], (0.3, 0.25, 0.4, 0.5))
    ys, xs = np.nonzero(mask > 127)
    return int(xs.max() - xs.min() + 1), int(ys.max() - ys.min() + 1)


@pytest.mark.parametrize("letters", ["truetype/fifthhorseman/dkg.ttf", ""])
def test_a_narrow_hand_writes_narrower_letters_of_the_same_height(letters):
    font = str(font_path(letters)) if letters else ""
    plain = Hand(letter_font=font, wobble=0.0, slant=0.0)
    w1, h1 = _letter_ink_extent(plain, "pN")
    w2, h2 = _letter_ink_extent(dataclasses.replace(plain, letter_width=0.55), "pN")
    assert abs(h2 - h1) <= 0.06 * h1  # as tall
    assert 0.45 < w2 / w1 < 0.7  # about 0.55 as wide (the pen's own width does not shrink)


def test_only_the_training_pools_write_the_long_flagged_one_and_draw_it_after_every_other_trait(monkeypatch):
    """About the pools' share of their hands write the 1 with a long flag, no family's or new hand's does; a pool's
    hand is the hand it would be without the trait, bar its flag (the trait is drawn last), and a family's hands are
    drawn as before. Fails when a family draws the trait, or drawing it moves the hand's other draws."""
    from vision.synth import hands as hands_module

    assert hands_module.NEW_HANDS.flagged_ones == 0.0 and all(f.flagged_ones == 0.0 for f in HAND_FAMILIES)
    pooled = [Hand.random(np.random.default_rng(k), family=TRAINING_POOL.name) for k in range(200)]
    share = np.mean([h.flagged_one > 0 for h in pooled])
    assert TRAINING_POOL.flagged_ones > 0 and abs(share - TRAINING_POOL.flagged_ones) < 0.1
    assert all(0.45 <= h.flagged_one <= 0.95 for h in pooled if h.flagged_one > 0)
    families = [Hand.random(np.random.default_rng(k), family=name) for k in range(20) for name in FAMILY_NAMES]
    assert not any(h.flagged_one for h in families)

    plain = {f.name: dataclasses.replace(f, flagged_ones=0.0) for f in (*HAND_FAMILIES, TRAINING_POOL)}
    monkeypatch.setattr(hands_module, "family", lambda name: plain[name])
    unflagged = [Hand.random(np.random.default_rng(k), family=TRAINING_POOL.name) for k in range(200)]
    assert [dataclasses.replace(h, flagged_one=0.0) for h in pooled] == unflagged
    assert [Hand.random(np.random.default_rng(k), family=name) for k in range(20) for name in FAMILY_NAMES] == families


def test_a_long_flagged_one_reaches_far_left_of_its_stem():
    """The flagged 1 is an up-stroke from low on the left to the top, then the stem: its ink spans much wider than
    the plain stroke 1 and reaches down the left side. Fails when the hand's flag is ignored."""
    plain = Hand(wobble=0.0, slant=0.0)
    widths = []
    for hand in (plain, dataclasses.replace(plain, flagged_one=0.9)):
        mask = np.zeros((256, 256), np.uint8)
        CellPen(mask, 0, 0, 256, hand, np.random.default_rng(1)).glyph("1", (0.3, 0.2, 0.4, 0.6))
        ys, xs = np.nonzero(mask > 127)
        widths.append(xs.max() - xs.min() + 1)
        left = xs < xs.min() + 0.2 * widths[-1]
        if hand.flagged_one:
            assert ys[left].min() > ys.min() + 0.25 * (ys.max() - ys.min())  # the flag's start lies well down
    assert widths[1] > 1.8 * widths[0]


def test_letter_widths_are_drawn_only_when_asked_for():
    """Training draws a width a hand; without ``letter_widths`` the boards (evaluations) are the same as ever."""
    from vision.cells.dataset import photographed_board

    city = ["#.....#", ".......", ".......", ".......", ".......", ".......", "#.....#"]
    boards = []
    for widths in (None, None, (0.55, 1.4)):
        drawn_by: list[Hand] = []
        photographed_board(city, np.random.default_rng(3), families=("round",), drawn_by=drawn_by,
                           letter_widths=widths)
        boards.append(drawn_by[0])
    assert boards[0] == boards[1] and boards[0].letter_width == 1.0
    assert boards[2].letter_width != 1.0 and 0.55 <= boards[2].letter_width <= 1.4
    assert dataclasses.replace(boards[2], letter_width=1.0) == boards[0]


def test_every_symbol_of_every_family_leaves_ink():
    rng = np.random.default_rng(5)
    for name in FAMILY_NAMES:
        for _ in range(6):
            hand = Hand.random(rng, family=name)
            for glyph in GLYPH_CLASSES[1:]:
                mask = np.zeros((96, 96), np.uint8)
                draw_symbol(CellPen(mask, 16, 16, 64, hand, rng), glyph)
                assert mask.sum() > 255 * 20, f"{name} drew nothing for {glyph}"


def test_walls_are_weighed_down_on_inner_spaces_and_up_on_outer_ones():
    """Walls stand on the outer spaces only: on an inner space a doubtful wall reads as the other symbol,
    a clear one stays a wall (and the rules engine says it is illegal); on an outer space, where walls are
    built far more often than crates are drawn, a box torn between the two leans to the wall, and a clear
    crate stays a crate. Against a crate a wall there is weighed more than against the other readings: a house's
    share is what ``OUTER_WALL_PRIOR`` alone leaves it."""
    wall, crate, house = (GLYPH_CLASSES.index(g) for g in "WGH")
    probs = np.full((49, len(GLYPH_CLASSES)), 1e-4)
    outer_spaces = sorted(LAYOUT.outer_cells - set(LAYOUT.towers) - set(LAYOUT.printed_crates))
    inner, clear_inner = INNER_INDEX[0], INNER_INDEX[1]
    outer, clear_outer, housed = (ALL_CELLS.index(c) for c in outer_spaces[:3])
    for i in (inner, outer):
        probs[i, wall], probs[i, crate] = 0.45, 0.55
    probs[clear_inner, wall] = 0.999
    probs[clear_outer, crate] = 0.97
    probs[clear_outer, wall] = 0.03
    probs[housed, wall], probs[housed, crate], probs[housed, house] = 0.3, 0.3, 0.4
    house_alone = 0.4 / (probs[housed].sum() + (OUTER_WALL_PRIOR - 1) * 0.3)
    apply_board_context(probs)
    assert probs[inner].argmax() == crate and probs[inner, wall] < 0.1
    assert probs[outer].argmax() == wall
    odds = OUTER_WALL_PRIOR * WALL_OVER_CRATE_ON_THE_EDGE
    assert probs[outer, wall] / probs[outer, crate] == pytest.approx(odds * 0.45 / 0.55)
    assert probs[housed, wall] / probs[housed, crate] == pytest.approx(odds)
    assert probs[housed, house] == pytest.approx(house_alone)
    assert probs[clear_inner].argmax() == wall
    assert probs[clear_outer].argmax() == crate
    assert np.allclose(probs[[inner, clear_inner, outer, clear_outer, housed]].sum(axis=1), 1.0)


def test_ci_installs_every_font_package():
    from pathlib import Path

    from vision.synth.hands import FONT_PACKAGES

    ci = (Path(__file__).resolve().parents[2] / ".ci" / "run").read_text()
    assert [p for p in FONT_PACKAGES if p not in ci] == []


def test_each_unseen_network_was_trained_without_its_family_and_the_shipped_one_on_all():
    for name in FAMILY_NAMES:
        # The network that reads a family in bench_hands, the look network that reads its doubtful cells
        # again, the letter network that reads its persons' letters and the church network that reads its
        # churches' digits: none may have seen the family, or the figure is not a new hand's.
        unseen = unseen_model_path(name)
        # ... nor the letter stage's residual network that reads its doubtful letters again.
        deep = LETTERS.deep_for(unseen)
        assert deep is not None, f"no residual letter network without {name}"
        # ... nor the church stage's, where there is one (``CloseLook.deep_for``).
        church_deep = CHURCHES.deep_for(unseen)
        for path in (unseen, look_path_for(unseen), letters_path_for(unseen), CHURCHES.path_for(unseen), deep,
                     *([church_deep] if church_deep is not None else [])):
            families = trained_on_families(path)
            assert families and name not in families, f"{path.name} saw {families}"
    # The shipped reader's networks: every family and the generator's first hands (the demo's, the tests').
    for path in (DEFAULT_MODEL_PATH, look_path_for(DEFAULT_MODEL_PATH), letters_path_for(DEFAULT_MODEL_PATH),
                 CHURCHES.path_for(DEFAULT_MODEL_PATH)):
        assert {*FAMILY_NAMES, CLASSIC} <= set(trained_on_families(path)) <= {
            *FAMILY_NAMES, CLASSIC, TRAINING_POOL.name, WEB_POOL.name, CURSIVE_POOL.name, OTHER_RENDERER,
            THIRD_RENDERER, FOURTH_RENDERER, FIFTH_RENDERER}, path.name
    # The other renderers' boards taught the shipped cell and look networks only: no network without a family saw
    # them, so the leave-one-out figures stay our generator's alone.
    for renderer in (OTHER_RENDERER, THIRD_RENDERER):
        assert renderer in trained_on_families(DEFAULT_MODEL_PATH)
        assert renderer in trained_on_families(look_path_for(DEFAULT_MODEL_PATH))
        assert not any(renderer in trained_on_families(unseen_model_path(name)) for name in FAMILY_NAMES)
    # The fourth's and the fifth's taught the look network (stops 76 and 79; the cell network so taught read no better).
    for renderer in (FOURTH_RENDERER, FIFTH_RENDERER):
        assert renderer in trained_on_families(look_path_for(DEFAULT_MODEL_PATH))
        assert not any(renderer in trained_on_families(look_path_for(unseen_model_path(name))) for name in FAMILY_NAMES)


@pytest.mark.parametrize("family", ["school", "loose"])
def test_a_hand_never_trained_on_is_read_or_reported_uncertain(family):
    """Honest confidence: boards of a family read by the network that never saw it, its doubt threshold
    fitted on the other families only, family by family. Its misreads (8-15 % of these two families' cells,
    bench_hands) are reported uncertain instead of guessed, and it still reads most cells without doubt
    (bench_hands measures it on 60 boards a family; this checks 12)."""
    reader = CellReader("en", model_path=unseen_model_path(family))
    report = evaluate(reader, 12, 777, languages=("en", "it"), families=(family,), walls_outer_only=True)
    assert report.boards == 12
    confident = (report.cell_errors - report.errors_flagged) / report.cells
    assert confident <= 0.005, report.lines()
    assert report.right_flagged / report.cells <= 0.5, report.lines()


def test_a_hand_names_where_its_letters_come_from():
    assert Hand(letter_font=str(font_path("truetype/breip/Breip.ttf"))).letter_source == "Breip"
    assert Hand(font=3).letter_source == "hershey:3"
    assert Hand().letter_source == "strokes"


def test_the_misreads_are_split_by_the_hands_letters_and_add_up():
    """``bench_hands --by-font``: every board's cells and misreads go to the letter source of the hand that drew
    it, so the split adds up to the family's figures, and each source is one of the family's."""
    reader = CellReader("en", model_path=unseen_model_path("round"))
    report = evaluate(reader, 6, 4343, languages=("en", "it"), families=("round",), walls_outer_only=True)
    split = report.per_letter_source
    assert sum(cells for cells, _, _ in split.values()) == report.cells
    assert sum(wrong for _, wrong, _ in split.values()) == report.cell_errors
    assert sum(confident for _, _, confident in split.values()) == report.cell_errors - report.errors_flagged
    round_sources = {Hand(letter_font=str(font_path(s))).letter_source for s in family("round").letters}
    assert set(split) <= round_sources and len(split) >= 2


def test_the_misread_sheet_shows_each_wrong_cell_as_the_reader_had_it():
    """``bench_hands --misread-sheet``: every wrong cell is kept with its own pixels (those of the board it was read
    from), what was drawn, what was read and whether it was doubted, and the sheet has a tile for each."""
    reader = CellReader("en", model_path=unseen_model_path("loose"))
    kept = evaluate(reader, 4, 4343, languages=("en",), families=("loose",), walls_outer_only=True,
                    keep_misreads=True)
    again = evaluate(reader, 4, 4343, languages=("en",), families=("loose",), walls_outer_only=True)
    assert again.misreads == [], "nothing kept unless asked"
    assert len(kept.misreads) == kept.cell_errors == again.cell_errors > 0
    assert sum(m.doubted for m in kept.misreads) == kept.errors_flagged
    assert all(m.truth != m.read for m in kept.misreads)
    side = kept.misreads[0].crop.shape[0]
    assert all(m.crop.shape[:2] == (side, side) and m.crop.std() > 3 for m in kept.misreads), "a cell, with ink in it"
    sheet = misread_sheet(kept.misreads, columns=5, tile_px=40)
    assert sheet.shape[1] == 5 * 40 and sheet.shape[0] % (40 + 18) == 0
    assert sheet.shape[0] // (40 + 18) == -(-len(kept.misreads) // 5)
    assert misread_sheet([]) is None


def test_walls_are_built_on_the_outer_spaces_far_more_often_than_crates_are_drawn_there():
    """Why the reader weighs walls up on outer spaces (``OUTER_WALL_PRIOR``, and against a crate there
    ``WALL_OVER_CRATE_ON_THE_EDGE``): at a table, a state a round, an outer space holds a wall about three times as
    often as a drawn crate (200 games of the bots: 21 % against 7 %), where the networks' training crops hold them
    about equally (``TRAINING_WALLS_PER_CRATE``). By Bayes' rule the weight on a wall's odds against a crate is the
    table's ratio over the crops'; were the bots to build fewer walls, the weight would be too high."""
    import random

    from companion.bots import mixed_table
    from companion.simulate import play_game

    fixed = set(LAYOUT.towers) | set(LAYOUT.printed_crates)
    outer = [ALL_CELLS.index(c) for c in LAYOUT.outer_cells if c not in fixed]
    walls = crates = 0
    rng = random.Random(4)
    for game in range(20):
        players = 2 + game % 3
        record: list[dict] = []
        play_game(players, mixed_table(players, seed=game), rng, record=record)
        for step in record[::players]:
            for player in step["state"]["players"]:
                drawn = "".join(player["city"])
                walls += sum(drawn[i] == "W" for i in outer)
                crates += sum(drawn[i] == "G" for i in outer)
    assert walls / crates / TRAINING_WALLS_PER_CRATE >= OUTER_WALL_PRIOR * WALL_OVER_CRATE_ON_THE_EDGE, (walls, crates)
