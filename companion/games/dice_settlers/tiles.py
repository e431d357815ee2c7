"""Dice Settlers' map tiles, from the rulebook's ELENCO TESSERE (``seeds/004_*.txt``, last page).

"PV" is "higher/lower" (the controllers get the higher value, see scoring.py); "No" (the seven start
tiles, 17 and 21) scores nothing. The players column gives the smallest table the tile is used at:
"In 3 giocatori: Rimuovete le tessere 35-40; In 2 giocatori: Rimuovete le tessere 27-40".
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Tile:
    id: int
    terrain: str           # Pianura, Foresta, Montagna, Deserto, Collina
    min_players: int       # 2: tiles 1-26, 3: 27-34, 4: 35-40
    higher: int | None     # None: "No", no points
    lower: int | None
    ability: str           # Piazzamento, Controllo, Fabbrica, Presenza or "-"

    @property
    def scores(self) -> bool:
        return self.higher is not None

    @property
    def label(self) -> str:
        value = f"{self.higher}/{self.lower}" if self.scores else "no VP"
        return f"{self.id} · {self.terrain} · {value}"


# id, terrain, used from N players, PV ("No" -> None), ability type
_ROWS: tuple[tuple[int, str, int, str, str], ...] = (
    (1, "Pianura", 2, "No", "Piazzamento"), (2, "Pianura", 2, "No", "Controllo"),
    (3, "Foresta", 2, "No", "Piazzamento"), (4, "Foresta", 2, "No", "Controllo"),
    (5, "Montagna", 2, "No", "Piazzamento"), (6, "Montagna", 2, "No", "Controllo"),
    (7, "Deserto", 2, "No", "Piazzamento"),
    (8, "Deserto", 2, "4/0", "Piazzamento"), (9, "Deserto", 2, "5/0", "Fabbrica"),
    (10, "Collina", 2, "1/0", "Controllo"), (11, "Collina", 2, "4/3", "Fabbrica"),
    (12, "Deserto", 2, "1/0", "Controllo"), (13, "Collina", 2, "4/1", "Fabbrica"),
    (14, "Collina", 2, "6/0", "-"), (15, "Foresta", 2, "3/1", "Piazzamento"),
    (16, "Foresta", 2, "6/2", "Fabbrica"), (17, "Foresta", 2, "No", "Controllo"),
    (18, "Foresta", 2, "7/3", "-"), (19, "Montagna", 2, "3/1", "Piazzamento"),
    (20, "Montagna", 2, "9/5", "-"), (21, "Montagna", 2, "No", "Controllo"),
    (22, "Montagna", 2, "8/4", "Fabbrica"), (23, "Pianura", 2, "2/1", "Controllo"),
    (24, "Pianura", 2, "6/3", "-"), (25, "Pianura", 2, "5/2", "Fabbrica"),
    (26, "Pianura", 2, "3/1", "Piazzamento"),
    (27, "Deserto", 3, "1/0", "Controllo"), (28, "Collina", 3, "1/0", "Controllo"),
    (29, "Foresta", 3, "1/0", "Piazzamento"), (30, "Foresta", 3, "4/2", "Fabbrica"),
    (31, "Montagna", 3, "3/0", "Piazzamento"), (32, "Montagna", 3, "4/2", "Fabbrica"),
    (33, "Pianura", 3, "4/2", "Fabbrica"), (34, "Pianura", 3, "3/0", "Piazzamento"),
    (35, "Deserto", 4, "1/0", "Controllo"), (36, "Deserto", 4, "7/0", "-"),
    (37, "Collina", 4, "4/2", "Fabbrica"), (38, "Foresta", 4, "5/1", "Presenza"),
    (39, "Montagna", 4, "7/3", "Presenza"), (40, "Pianura", 4, "4/1", "Presenza"),
)


def _tile(row: tuple[int, str, int, str, str]) -> Tile:
    number, terrain, players, value, ability = row
    if value == "No":
        return Tile(number, terrain, players, None, None, ability)
    higher, lower = (int(v) for v in value.split("/"))
    return Tile(number, terrain, players, higher, lower, ability)


TILES: dict[int, Tile] = {row[0]: _tile(row) for row in _ROWS}


def tiles_in_play(n_players: int) -> list[Tile]:
    """The tiles of an n-player game (a solo game against the bot uses the 2-player map)."""
    return [t for t in TILES.values() if t.min_players <= max(2, n_players)]


# The technology cards the rulebook names (its four preset sets, SET DI TECNOLOGIE PREDEFINITI); their
# VP and costs are printed on the cards only, so the table enters the VP.
TECHNOLOGY_NAMES: tuple[str, ...] = tuple(sorted({
    "Stabilità", "Perlustratori", "Grandi Carri", "Scienze Forestali", "Corsa all'Oro", "Istruzione Generale",
    "Forza Lavoro Mobile", "Prosperità", "Costruttore", "Palizzata", "Quartiermasti", "Terre Espropriate",
    "Adattabilità", "Ingegneria Base", "Boom di Produzione", "Destino Manifesto", "Commercio Estero",
    "Voglia di Viaggiare", "Strumenti Migliori", "Tirocinio Marziale", "Governo Stabile", "Apripista",
    "Rivoluzione Industriale", "Università", "Cartografo", "Mura Cittadine", "Mappatura",
    "Esploratori Versatili", "Ingaggi Frequenti", "Missionari", "Turni di Lavoro", "Costituzione",
}))
