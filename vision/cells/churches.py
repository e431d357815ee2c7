"""The church stage: a church's digit read once more, by a network that learned church digits alone.

After person letters, the misreads left on a hand never seen are church digits (a loose hand's 1 with a cross
beside it read as a 4, a 4 as a 1, a 5 as a 3): about a quarter of them on the families left out. The digit
is drawn anywhere in the church (in the nave, beside the cross, under it, in a box: ``draw_church``'s styles),
so the crop is not the letter stage's close middle but the cell without the margin the cell networks read
around it (``CHURCH_ZOOM`` of its side, at the same 40 px); what this stage adds is a network that reads
nothing but church digits (``vision.cells.train_letters --stage churches``), averaged with the cell networks'
reading as the letter stage's is (``close_look``).

Measured (``benchmarks/bench_hands.py``, seed 4242, each family read by the cell, look, letter and church networks
that never saw it; ``--no-churches`` the same without this stage): cells misread 5.49 -> 5.19 % over the five
families (tidy 0.45 -> 0.45, quick 2.03 -> 1.99, round 6.46 -> 6.38, school 5.33 -> 5.16, loose 13.17 -> 11.95 %),
misread without doubt 0.07 % either way, right cells doubted 32.2 -> 31.8 %; scikit-learn's test digits drawn
into the churches (never trained on) read right quick 93.1 -> 96.6, round 98.5 -> 100, school 86.1 -> 91.1,
loose 88.6 -> 92.0 % (tidy 97.6 % either way). On 150 boards a family at another seed (9300), taken before the
benchmark was run: loose 11.33 -> 10.76 %, school 5.64 -> 5.33 %, round 4.42 -> 4.34 %, quick 2.63 -> 2.59 %.

Trained again (2026-11-27) with the second pool of fonts as well (``WEB_POOL``: the digits of 85 of Google
Fonts' handwriting fonts, none a family's; 800 boards), after the letter networks were (``letters``). At seed
9300 (150 boards a family, the new letter networks in both): loose 10.07 -> 9.82 % (its 1 read as a 4: 56 -> 40
cells), round 4.11 -> 3.92 %, school 4.70 -> 4.49 %, quick 2.11 -> 2.02 %, tidy 0.47 -> 0.49 % (one cell). The
benchmark's figures are in hardware.md.

Trained again (2026-11-28, stop 50) in the letter stage's deeper shape: two convolutions before each pool and the
last map averaged over its places (``train_letters``' docstring), the same crops. Each family's church crops read
by the network without it: 0.55-8.03 % misread against 0.62-9.88 % (loose's the most). The head now learns from 48
averaged features instead of 1,200 places, so fitting a seat's church head to 800 redrawn crops
(``seat_hand.stage_head``) took half as long here (1.7 against 3.4 s, on a loaded machine), though the convolutions
cost about 3.6 times the arithmetic a church (a full frame of four boards about 11 ms more, hardware.md).
Tried and not kept: leaving out the churches whose digit the cell networks already give 0.999 or more (29 % of
them at seed 9300): the same cells misread, but one more of round's misread without doubt (0.049 -> 0.065 %), as the
stage's reading also lowers a wrong digit's confidence; from 0.99 on (53 % left out), loose misread 8.41 -> 8.46 %.

Trained again (stop 52, 2026-11-28) with a third of the pools' hands writing the 1 with a long up-stroke
(``HandFamily.flagged_ones``, ``Hand.flagged_one``): the 1 much of Europe writes, a roof more than a stick, which
few fonts draw. Seen first among loose's misreads (its Delphine 1 read as a 4), so loose's figures are not blind to
this change; no family's hand writes it, and the networks learned it from the pools alone (the families' crops are
the very ones of stop 50). Each family's church crops read by the network without it: tidy 0.55 -> 0.50 %, quick
1.57 -> 1.49 %, round 3.03 -> 2.57 %, school 4.09 -> 3.63 %, loose 8.03 -> 7.54 % (its 4 read as a 1 243 -> 209,
its 1 as a 4 218 -> 211). The whole reader at the development seed (9300, 150 boards a family): 3.71 -> 3.61 % of
the cells misread (tidy 0.39 -> 0.36, quick 1.56 -> 1.56, round 4.16 -> 4.05, school 4.05 -> 3.92, loose 8.39 ->
8.18 %), without doubt 0.013 % either way with the doubt thresholds of stop 50 (0.023 % with those fitted again for
these networks, loose 0.016 -> 0.065 %). The benchmark's figures are in hardware.md.

Taught again (stop 80, 2026-12-07), going on from its weights: the church crops of the four training renderers
(``vision/synth/*_renderer``) beside the generator's sets (``train_other_renderer --stage churches``; the command is the
letter stage's with ``--stage churches``). The benchmark renderer's spent seeds 1, 6, 9, 10: churches misread 99 -> 89
of 1,650, all cells 428 -> 418; its untouched seed 12: 23 -> 23 of 407 churches, 113 cells as before; our own new hands
(``bench_hands --new-hands --seed 9300``) 3.05 -> 3.01 %. Its residual network is as it was.
"""

from __future__ import annotations

import numpy as np

from vision.cells.close_look import CloseLook
from vision.cells.labels import GLYPH_CLASSES

# A church is drawn 0.5-0.85 of a cell across (the hand's size), a little off centre: 0.9 keeps all of it
# and leaves out the printed grid lines the whole cell's crop shows.
CHURCH_ZOOM = 0.9
# Read when the cell networks give churches at least this much of a cell, as the letter stage's persons.
CHURCH_FROM = 0.5
# The church network's share in which digit a church is: an even split, as the letter stage's, set before
# any measurement.
CHURCH_WEIGHT = 0.5
CHURCH_CLASS = np.array([g in "12345" for g in GLYPH_CLASSES])
# No panel (it gained nothing), but the shipped reader's doubtful churches are read by the stage's residual network
# too, which has half the say (``close_look.DEEP_SHARE``, where its figures are).
# A church whose digit the cell networks already read at least CHURCH_SURE_FROM sure (of the churches' share) is not
# read again: on the generator's tables that is about a third of the stage's crops (``bench_frame``'s boards: 14.8 ->
# 11.3 close crops a board, letters and churches, about 1 ms a board on one thread), and on the hands never trained on
# it changed nothing measured (stop 59, 2026-11-29): ``bench_hands --no-shipped`` 4.26 % misread, 0.07 % without
# doubt, every family the same; the nine new hands at the dev seeds 2.50 / 2.33 / 2.46 %, without doubt 0.03 / 0.00 /
# 0.02 %, as before. From 0.99 loose's cells misread without doubt went 0.20 -> 0.24 %. The letter stage has no such
# cut: its reading of a letter the cell networks were sure of is what doubts many a wrong one (from 0.999, round's
# misread without doubt 0.00 -> 0.16 %, from 0.9999 the same).
CHURCH_SURE_FROM = 0.999
CHURCHES = CloseLook("churches", CHURCH_CLASS, CHURCH_ZOOM, CHURCH_FROM, CHURCH_WEIGHT, deep=True,
                     sure_from=CHURCH_SURE_FROM)
