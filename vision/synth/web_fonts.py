"""Handwriting fonts from the npm registry (Fontsource's packages of Google Fonts), for training and measuring.

    .venv/bin/python -m vision.synth.web_fonts          # fetch them into WEB_FONT_DIR (npm, about a minute)

(``COMPANION_WEB_FONTS`` names another folder.)

Debian packages about forty handwriting fonts, and the five families of ``vision.synth.hands`` use most of
them. Google Fonts' handwriting category holds many more people's hands (Caveat, Patrick Hand, Indie
Flower, Gochi Hand, the Edu school hands ...), and Fontsource publishes each one as an npm package with its
Latin letters as WOFF files, which Pillow's FreeType reads. ``bench_hands --new-hands`` reads the shipped
reader on nine of them that no network learns (``NEW_HAND_FONTS``). 85 others are the second pool
(``WEB_FONTS``, ``hands.WEB_POOL``: the letter and church stages learn from it), 95 more the third (scripts and
school models: ``CURSIVE_FONTS``, ``hands.CURSIVE_POOL``; tried on the letter stage, not shipped). The product
and the tests never need them, so ``.ci/run`` fetches none. No family uses any of them: a family left out stays
new to every network.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tarfile
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

# Fontsource package names (``@fontsource/<name>``). None of them is a family's font, nor one the first
# training pool already draws from Debian (Kristi, Dancing Script, Kaushan Script, Cabin Sketch, Comic Neue,
# Klee One, Yusei Magic; Nanum Pen, Leckerli One, Lobster ... are left out here for that).
WEB_FONTS: tuple[str, ...] = (
    "amatic-sc", "annie-use-your-telescope", "architects-daughter", "bad-script", "beth-ellen", "calligraffitti",
    "caveat", "caveat-brush", "cedarville-cursive", "cherry-cream-soda", "chilanka", "comic-relief", "coming-soon",
    "cookie", "covered-by-your-grace", "crafty-girls", "dawning-of-a-new-day", "dekko", "delicious-handrawn",
    "delius", "edu-nsw-act-foundation", "edu-qld-beginner", "edu-sa-beginner", "edu-vic-wa-nt-beginner",
    "finger-paint", "fuzzy-bubbles", "gaegu", "gamja-flower", "give-you-glory", "gloria-hallelujah", "gochi-hand",
    "grape-nuts", "handlee", "happy-monkey", "hi-melody", "homemade-apple", "indie-flower", "itim",
    "just-another-hand", "just-me-again-down-here", "kalam", "kite-one", "la-belle-aurore", "londrina-solid",
    "loved-by-the-king", "mali", "mansalva", "marck-script", "mouse-memoirs", "mynerve", "nerko-one", "neucha",
    "nothing-you-could-do", "oooh-baby", "over-the-rainbow", "pangolin", "patrick-hand", "permanent-marker",
    "playpen-sans", "poor-story", "rancho", "reenie-beanie", "rock-salt", "satisfy", "schoolbell", "sedgwick-ave",
    "sedgwick-ave-display", "shadows-into-light", "shadows-into-light-two", "shantell-sans", "short-stack",
    "single-day", "square-peg", "sriracha", "sue-ellen-francisco", "swanky-and-moo-moo", "the-girl-next-door",
    "unkempt", "vibur", "waiting-for-the-sunrise", "walter-turncoat", "yellowtail", "yomogi", "zen-kurenaido",
    "zeyada",
)
# A third pool (``hands.CURSIVE_POOL``): joined-up and script hands, school handwriting models of twenty-one
# countries (Playwrite) and of Australia's states (the Edu fonts), and casual pen hands, none a family's, a pool's
# or a new hand's. Loose's and round's misreads come mostly from a thin script (Kristi) and a school cursive
# (Ecolier) unlike anything the first two pools hold. (Molle has no Latin WOFF file on Fontsource.)
CURSIVE_FONTS: tuple[str, ...] = (
    "kirang-haerang", "merienda", "gluten", "patrick-hand-sc", "delius-unicase", "delius-swash-caps", "long-cang",
    "zhi-mang-xing", "liu-jian-mao-cao", "ma-shan-zheng", "darumadrop-one", "solitreo", "mea-culpa", "fuggles",
    "great-vibes", "allura", "alex-brush", "sacramento", "parisienne", "tangerine", "italianno", "rochester",
    "meddon", "mrs-saint-delafield", "qwigley", "ruthie", "norican", "niconne", "pacifico", "playball", "arizonia",
    "bilbo", "clicker-script", "condiment", "dr-sugiyama", "felipa", "grand-hotel", "herr-von-muellerhoff",
    "lovers-quarrel", "mr-dafoe", "mr-de-haviland", "quintessential", "seaweed-script", "stalemate", "style-script",
    "yesteryear", "charm", "ms-madi", "comforter", "ephesis", "hurricane", "licorice", "moon-dance", "my-soul",
    "send-flowers", "updock", "caramel", "corinthia", "grey-qo", "kolker-brush", "meie-script", "puppies-play",
    "the-nautigal", "twinkle-star", "allison", "ingrid-darling", "babylonica", "edu-tas-beginner",
    "edu-au-vic-wa-nt-hand", "edu-nsw-act-cursive", "edu-qld-hand", "edu-sa-hand", "edu-vic-wa-nt-hand",
    "edu-au-vic-wa-nt-pre", "playwrite-fr-moderne", "playwrite-it-moderna", "playwrite-es", "playwrite-de-grund",
    "playwrite-us-trad", "playwrite-nl", "playwrite-pl", "playwrite-cz", "playwrite-hu", "playwrite-dk-loopet",
    "playwrite-no", "playwrite-ie", "playwrite-nz", "playwrite-za", "playwrite-vn", "playwrite-ar", "playwrite-mx",
    "playwrite-br", "playwrite-ro", "playwrite-hr", "playwrite-is",
)
# Hands no network is ever trained on, the shipped one included (``hands.NEW_HANDS``): the shipped reader's own
# figure on letters it never saw (``bench_hands --new-hands``). Everyday print handwriting, none a family's or
# a pool's font.
NEW_HAND_FONTS: tuple[str, ...] = (
    "sunshiney", "kranky", "love-ya-like-a-sister", "east-sea-dokdo", "cute-font", "hachi-maru-pop", "yeon-sung",
    "sofadi-one", "kavivanar",
)
FETCHED_FONTS = (*WEB_FONTS, *CURSIVE_FONTS, *NEW_HAND_FONTS)  # what ``main`` fetches
WEB_FONT_DIR = Path(os.environ.get("COMPANION_WEB_FONTS", Path.home() / ".cache" / "companion" / "web-fonts"))
PREFIX = "fontsource:"  # how a family's ``letters`` names one of them


def web_font_file(letters: str) -> Path:
    """``fontsource:caveat`` -> the fetched WOFF file."""
    return WEB_FONT_DIR / f"{letters.removeprefix(PREFIX)}.woff"


_LATIN_WOFF = re.compile(r"files/[a-z0-9-]+-latin-(\d+)-normal\.woff$")


def latin_regular(names: list[str]) -> str | None:
    """Of a package's file names, the Latin WOFF whose weight is nearest the regular 400."""
    found = [(abs(int(m.group(1)) - 400), name) for name in names if (m := _LATIN_WOFF.search(name))]
    return min(found)[1] if found else None


def fetch(name: str, dest: Path = WEB_FONT_DIR) -> Path:
    """``npm pack`` one Fontsource package and keep its regular Latin WOFF as ``dest/<name>.woff``."""
    dest.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run(["npm", "pack", f"@fontsource/{name}"], cwd=tmp, capture_output=True, text=True)
        archives = list(Path(tmp).glob("*.tgz"))
        if done.returncode != 0 or not archives:
            raise RuntimeError(f"npm pack @fontsource/{name} failed: {done.stderr.strip().splitlines()[-1:]}")
        with tarfile.open(archives[0]) as tar:
            member = latin_regular(tar.getnames())
            if member is None:
                raise RuntimeError(f"@fontsource/{name} has no Latin WOFF file")
            data = tar.extractfile(member)
            assert data is not None
            out = dest / f"{name}.woff"
            out.write_bytes(data.read())
    return out


def missing_web_fonts(dest: Path = WEB_FONT_DIR) -> list[str]:
    return [name for name in FETCHED_FONTS if not (dest / f"{name}.woff").is_file()]


def main() -> int:
    missing = missing_web_fonts()
    try:
        with ThreadPoolExecutor(max_workers=8) as pool:  # npm spends its time waiting on the registry
            list(pool.map(fetch, missing))
    except (RuntimeError, OSError) as err:
        print(f"web_fonts: {err}", file=sys.stderr)
        return 1
    print(f"web_fonts: {len(FETCHED_FONTS)} fonts in {WEB_FONT_DIR} ({len(missing)} fetched now)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
