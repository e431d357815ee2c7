"""The demo's game logic over a whole game, fast: the same DemoTable with the camera replaced by a
perfect reader (the real vision path is exercised by test_through_frames and the browser test)."""

from __future__ import annotations

from companion.demo import DemoTable, illegal_variant
from companion.layout import empty_city
from companion.rules import Action, final_tally, judge
from vision.observation import BoardReading, DieReading, Observation
from web.service import TableService


class PerfectCamera:
    """Stands in for render_table + TableReader: the 'frame' is the table spec, read without error."""

    class TableSpec:
        def __init__(self, cities, dice, pirate_boxes, seed, language):
            self.cities, self.dice, self.pirate_boxes = cities, dice, pirate_boxes

    @staticmethod
    def render_table(spec, rng):
        return spec, None

    def reset(self) -> None:
        pass

    def read(self, spec) -> Observation:
        ones = tuple(tuple(1.0 for _ in range(7)) for _ in range(7))
        return Observation(boards=tuple(BoardReading(i, tuple(c), ones) for i, c in enumerate(spec.cities)),
                           dice=tuple(DieReading(f, 1.0) for f in spec.dice), pirate_boxes=spec.pirate_boxes)


class FastDemo(DemoTable):
    def _setup_vision(self) -> None:
        from vision.stability import StabilityFilter

        self.synth = PerfectCamera
        self.reader = PerfectCamera()
        self.stability = StabilityFilter(hold_frames=self.hold_frames)
        self.frame_rng = None


def test_demo_plays_a_whole_game_with_one_dispute_fixed_on_the_board(tmp_path):
    service = TableService(str(tmp_path))
    demo = FastDemo(service, pace=0.0, seed=7)
    demo.run()  # in this thread
    assert demo.error == ""
    tracker = service.tracker
    assert tracker.finished and tracker.tally == final_tally(tracker.state).to_json()
    assert demo.disputes_shown == 1
    disputes = [e for e in tracker.log if e.kind == "dispute"]
    assert len(disputes) == 1 and disputes[0].reasons[0]["rule"] in ("wall.outer_only", "crate.connected")
    assert any(e.kind == "resolved" and "fixed on the board" in e.text for e in tracker.log)
    moves = [e for e in tracker.log if e.kind == "move"]
    # a perfect camera explains every turn except log deliveries it cannot count (turned dice)
    assert sum(e.source == "camera" for e in moves) >= 0.9 * len(moves)
    listed = service.store.list_games()[0]
    assert listed["tally"] == tracker.tally and listed["finished"]
    service.close()


def test_illegal_variants_are_illegal():
    city = empty_city()
    state_walls = {"player": 0, "dice": ["wall", "wall", "log", "head", "swords"], "symbol": "wall", "turned": 0,
                   "place": [{"cell": "B1", "item": "W"}, {"cell": "C1", "item": "W"}], "logs": 0}
    from companion.rules import GameState

    state = GameState.new(["A", "B"])
    bad = illegal_variant(city, state_walls)
    verdict = judge(state, Action.from_json({**state_walls, "place": bad}))
    assert not verdict.legal and [e.rule for e in verdict.errors] == ["wall.outer_only"]
    crates = {**state_walls, "dice": ["crate", "crate", "log", "head", "swords"], "symbol": "crate",
              "place": [{"cell": "E5", "item": "G"}, {"cell": "E6", "item": "G"}]}
    bad = illegal_variant(city, crates)
    verdict = judge(state, Action.from_json({**crates, "place": bad}))
    assert not verdict.legal and "crate.connected" in [e.rule for e in verdict.errors]
    assert illegal_variant(city, {**state_walls, "symbol": "log", "place": []}) is None
