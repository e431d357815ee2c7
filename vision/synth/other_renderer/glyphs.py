"""Hand-made stroke skeletons for the person letters and church digits.

Every skeleton lives in a box [0,1]x[0,1] (x right, y down) and is a list of
strokes (arrays of points).  Each character has several structurally
different variants (one-stroke vs. several strokes, round vs. angular, with
or without bars/serifs).  `skeleton(ch, rng)` returns (strokes, aspect, variant).
"""
import numpy as np


def arc(cx, cy, rx, ry, a0, a1, n=None):
    if n is None:
        n = max(8, int(abs(a1 - a0) / 7))
    t = np.radians(np.linspace(a0, a1, n))
    return np.stack([cx + rx * np.cos(t), cy + ry * np.sin(t)], 1)


def L(*p):
    return np.array(p, float)


def cat(*a):
    return np.concatenate(a, 0)


# ---------------------------------------------------------------- upper case
def C1(r):
    g = r.uniform(35, 60)
    return [arc(.55, .5, .47, .5, -g, -360 + g)], .85


def C2(r):  # squarish C
    return [L((.95, .08), (.2, .02), (.04, .2), (.04, .8), (.2, .98), (.95, .92))], .8


def C3(r):  # C with a curl at the top end
    return [cat(arc(.78, .22, .1, .1, 90, -60)[::-1][:4], arc(.55, .5, .47, .5, -40, -325))], .85


def S1(r):
    return [cat(arc(.5, .26, .42, .25, -15, -270), arc(.5, .75, .46, .25, -90, 160))], .7


def S2(r):  # blocky S
    return [L((.92, .08), (.3, .02), (.06, .2), (.2, .45), (.8, .55), (.95, .8), (.7, .98), (.05, .92))], .7


def S3(r):  # small upper bowl, large lower bowl
    return [cat(arc(.52, .2, .33, .19, -10, -265), arc(.5, .68, .48, .3, -90, 150))], .72


def P1(r):
    return [L((.1, 1), (.1, 0)), cat(L((.1, .02), (.45, .02)), arc(.45, .27, .45, .25, -90, 90), L((.1, .52)))], .7


def P2(r):  # one stroke
    return [cat(L((.12, 1), (.1, .02)), arc(.45, .27, .45, .25, -90, 90), L((.08, .5)))], .7


def P3(r):  # open bowl, bigger
    return [L((.1, 1), (.08, 0)), arc(.42, .3, .5, .3, -110, 110)], .72


def A1(r):
    y = r.uniform(.5, .7)
    return [L((0, 1), (.5, 0), (1, 1)), L((.18, y), (.82, y))], .9


def A2(r):  # round top
    return [cat(L((.05, 1), (.05, .42)), arc(.5, .42, .45, .42, 180, 360), L((.95, 1))), L((.05, .62), (.95, .62))], .85


def A3(r):  # one stroke with loop crossbar
    return [L((0, 1), (.48, 0), (.95, 1)), L((.1, .72), (.9, .58))], .9


def M1(r):
    return [L((0, 1), (.02, 0), (.5, .62), (.98, 0), (1, 1))], 1.0


def M2(r):  # middle reaches baseline
    return [L((0, 1), (.1, 0), (.5, .95), (.9, 0), (1, 1))], 1.05


def M3(r):  # separate strokes
    return [L((0, 1), (0, 0)), L((0, 0), (.5, .55), (1, 0)), L((1, 0), (1, 1))], 1.0


def M4(r):  # round humps, tall
    return [cat(L((0, 1), (0, .1)), arc(.25, .3, .25, .25, 180, 360), L((.5, 1))),
            cat(L((.5, .35)), arc(.75, .3, .25, .25, 180, 360), L((1, 1)))], 1.0


def J1(r):
    return [cat(L((.72, 0), (.72, .72)), arc(.42, .72, .3, .28, 0, 170))], .65


def J2(r):  # with top bar
    return [cat(L((.72, .02), (.72, .72)), arc(.42, .72, .3, .28, 0, 170)), L((.25, .02), (1, .02))], .75


def J3(r):  # short hook
    return [cat(L((.6, 0), (.62, .8)), arc(.42, .8, .2, .2, 0, 150))], .55


def N1(r):
    return [L((0, 1), (0, 0), (1, 1), (1, 0))], .85


def N2(r):
    return [L((0, 1), (.02, 0)), L((.02, 0), (.98, 1)), L((.98, 1), (1, 0))], .85


def N3(r):  # slanted, round joins
    return [L((0, 1), (.1, .02), (.85, .95), (1, 0))], .9


# ---------------------------------------------------------------- lower case
def c1(r):
    return [arc(.55, .5, .47, .47, -40, -320)], .9


def c2(r):
    return [arc(.6, .5, .55, .48, -70, -300)], .85


def s1(r):
    return [cat(arc(.5, .27, .4, .25, -20, -270), arc(.5, .75, .44, .25, -90, 160))], .75


def s2(r):
    return [L((.9, .1), (.4, 0), (.1, .25), (.85, .7), (.6, 1), (.05, .9))], .75


def p1(r):
    return [L((.1, .02), (.1, 1)), arc(.48, .3, .38, .28, -160, 160)], .7


def p2(r):  # loop one stroke
    return [cat(L((.1, 1), (.1, .05)), arc(.45, .3, .38, .27, -150, 170))], .7


def a1(r):  # single story
    return [arc(.45, .55, .4, .42, -20, -380), L((.88, .12), (.88, .9), (.98, 1))], .9


def a2(r):  # double story
    return [cat(arc(.48, .28, .38, .26, -170, 0), L((.86, .95), (.98, 1))),
            arc(.5, .72, .38, .26, -20, -345)], .8


def a3(r):  # one stroke: bowl then stem
    return [cat(arc(.45, .55, .4, .42, -60, -390), L((.9, .1), (.9, 1)))], .9


def m1(r):
    return [L((0, .05), (0, 1)),
            cat(L((0, .3)), arc(.25, .3, .25, .25, 180, 360), L((.5, 1))),
            cat(L((.5, .3)), arc(.75, .3, .25, .25, 180, 360), L((1, 1)))], 1.2


def m2(r):  # one stroke
    return [cat(L((0, .05), (0, 1), (0, .35)), arc(.25, .35, .25, .3, 180, 360), L((.5, 1), (.5, .35)),
                arc(.75, .35, .25, .3, 180, 360), L((1, 1)))], 1.2


def j1(r):
    return [cat(L((.62, .3), (.62, .8)), arc(.36, .8, .26, .2, 0, 165)), L((.62, .03), (.63, .06))], .55


def j2(r):
    return [cat(L((.5, .3), (.58, .85)), arc(.35, .8, .23, .2, 20, 170)), L((.58, .05), (.62, .07))], .5


def n1(r):
    return [L((0, .05), (0, 1)), cat(L((0, .4)), arc(.45, .4, .45, .35, 180, 360), L((.9, 1)))], .85


def n2(r):  # one stroke
    return [cat(L((0, .05), (0, 1), (0, .4)), arc(.45, .4, .45, .35, 180, 360), L((.92, 1)))], .85


# ---------------------------------------------------------------- digits
def d11(r):
    return [L((.5, 0), (.5, 1))], .3


def d12(r):
    return [L((.15, .25), (.55, 0), (.55, 1))], .5


def d13(r):
    return [L((.15, .25), (.55, 0), (.55, 1)), L((.15, 1), (.9, 1))], .6


def d21(r):
    return [cat(arc(.5, .3, .42, .3, -175, 20), L((.05, 1), (.95, 1)))], .7


def d22(r):  # loop at the base
    return [cat(arc(.5, .28, .42, .28, -180, 10), L((.18, .88)), arc(.18, .93, .1, .07, -90, -330),
                L((.95, .98)))], .7


def d23(r):  # angular
    return [L((.05, .15), (.45, 0), (.9, .2), (.05, 1), (.95, .98))], .7


def d31(r):
    return [cat(arc(.45, .26, .42, .25, -160, 90), arc(.45, .74, .48, .26, -90, 160))], .65


def d32(r):  # flat top
    return [cat(L((.08, .02), (.9, .02), (.4, .4)), arc(.45, .7, .45, .3, -95, 160))], .65


def d33(r):  # two separate bowls
    return [arc(.45, .25, .4, .24, -160, 80), arc(.42, .74, .48, .26, -80, 160)], .65


def d41(r):
    return [L((.62, 0), (.05, .68), (.95, .68)), L((.72, .3), (.72, 1))], .75


def d42(r):  # one stroke closed
    return [L((.72, 1), (.72, 0), (.05, .66), (.97, .66))], .75


def d43(r):  # open top
    return [L((.15, 0), (.08, .6), (.92, .6)), L((.72, .05), (.72, 1))], .75


def d51(r):
    return [L((.88, .02), (.2, .02)), cat(L((.2, .02), (.15, .45)), arc(.48, .68, .42, .3, -135, 160))], .65


def d52(r):  # one stroke including the bar
    return [cat(L((.9, .02), (.18, .02), (.14, .45)), arc(.48, .68, .42, .3, -135, 160))], .65


def d53(r):  # bar added last, bowl flatter
    return [cat(L((.18, 0), (.12, .42)), arc(.5, .66, .44, .32, -145, 150)), L((.2, .0), (.9, -.03))], .65


SK = {
    'C': [C1, C2, C3], 'S': [S1, S2, S3], 'P': [P1, P2, P3], 'A': [A1, A2, A3],
    'M': [M1, M2, M3, M4], 'J': [J1, J2, J3], 'N': [N1, N2, N3],
    'c': [c1, c2], 's': [s1, s2], 'p': [p1, p2], 'a': [a1, a2, a3], 'm': [m1, m2],
    'j': [j1, j2], 'n': [n1, n2],
    '1': [d11, d12, d13], '2': [d21, d22, d23], '3': [d31, d32, d33], '4': [d41, d42, d43],
    '5': [d51, d52, d53],
}

# vertical placement of lowercase letters: (height factor, centre shift) relative to a cap letter
LOWER_META = {'c': (.68, .16), 's': (.68, .16), 'a': (.68, .16), 'm': (.68, .16), 'n': (.68, .16),
              'p': (1.0, .16), 'j': (1.0, .16)}


def skeleton(ch, rng):
    fs = SK[ch]
    k = int(rng.integers(len(fs)))
    strokes, aspect = fs[k](rng)
    # structural jitter: smooth random deformation of the letter box
    a = rng.normal(0, .06, 6)
    out = []
    for s in strokes:
        x, y = s[:, 0], s[:, 1]
        nx = x + a[0] * (y - .5) + a[1] * (x - .5) * (y - .5) + a[2] * np.sin(np.pi * y)
        ny = y + a[3] * (x - .5) + a[4] * (x - .5) * (y - .5) + a[5] * np.sin(np.pi * x)
        d = rng.normal(0, .025, 2)  # strokes do not meet exactly
        out.append(np.stack([nx + d[0], ny + d[1]], 1))
    return out, aspect * rng.uniform(.85, 1.15), k
