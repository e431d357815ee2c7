"""The tally as the dashboard explains it: ranking, tie-break by empty spaces, shared wins."""

from __future__ import annotations

from web.views import city_cells, tally_view


def player(name, total, empty):
    return {"name": name, "vp": total, "full_city": 0, "coins": 0, "logs": 0, "churches": 0, "cannons": 0,
            "total": total, "empty_spaces": empty}


def test_clear_winner():
    view = tally_view({"players": [player("A", 30, 0), player("B", 41, 2)], "winners": ["B"]})
    assert [p["name"] for p in view["players"]] == ["B", "A"] and [p["rank"] for p in view["players"]] == [1, 2]
    assert view["why"] == "B has the most VP (41)."


def test_tie_broken_by_empty_spaces():
    view = tally_view({"players": [player("A", 30, 1), player("B", 30, 4), player("C", 12, 9)], "winners": ["B"]})
    assert [p["name"] for p in view["players"]] == ["B", "A", "C"]
    assert "A and B tie on 30 VP" in view["why"] or "B and A tie on 30 VP" in view["why"]
    assert "B wins with more empty spaces (4)" in view["why"]


def test_shared_win():
    view = tally_view({"players": [player("A", 30, 2), player("B", 30, 2)], "winners": ["A", "B"]})
    assert "share the win" in view["why"] and [p["rank"] for p in view["players"]] == [1, 1]
    assert tally_view(None) is None


def test_city_cells_draw_each_kind_with_the_table_letters():
    city = ["#W....#", ".GGH...", ".G.3...", ".G..j..", ".......", ".......", "#.....#"]
    cells = {c["name"]: c for c in city_cells(city, letters={"j": "G"}, uncertain=["D4"], dispute=["E4"])}
    assert cells["A1"]["kind"] == "tower" and cells["B1"]["draw"] == "wall" and cells["B1"]["kind"] == "outer"
    assert cells["D2"]["draw"] == "house" and cells["D3"]["draw"] == "church" and cells["D3"]["label"] == "3"
    assert cells["E4"]["draw"] == "person" and cells["E4"]["label"] == "G"  # Italian juggler
    assert cells["D4"]["marks"] == ["uncertain"] and cells["E4"]["marks"] == ["dispute"]
    assert len(cells) == 49
