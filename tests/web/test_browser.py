"""The dashboard on a phone (Debian's Chromium at 390x844): every page fits without sideways scrolling,
a dispute appears on every open page and is overridden without a reload, tapping a cell corrects it,
an Italian table enters its juggler as G, and open pages follow a restarted server.

Each page's screenshot at phone size is kept as a test artefact (test-artefacts/phone/, git-ignored).
"""

from __future__ import annotations

import time

import pytest

from companion.layout import empty_city
from vision.observation import BoardReading, DieReading, Observation

from .conftest import play_to_the_end
from .live_server import CHROMIUM_ARGS, PHONE, LiveServer, chromium_or_skip, executable, overflow, shoot
from .service_process import ServiceProcess

SURE = tuple(tuple(1.0 for _ in range(7)) for _ in range(7))


@pytest.fixture(scope="module")
def browser():
    sync_playwright = chromium_or_skip()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=executable(), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def server(tmp_path):
    live = LiveServer(tmp_path / "data")
    yield live
    live.stop()


def phone(browser, width=PHONE["width"]):
    page = browser.new_page(viewport={"width": width, "height": PHONE["height"]})
    page.set_default_timeout(15_000)
    return page


def open_live(browser, server):
    page = phone(browser)
    page.goto(server.url + "/")
    page.locator("#live-state", has_text="live").wait_for()
    page.evaluate("window.__notReloaded = true")
    return page


def not_reloaded(page) -> bool:
    return bool(page.evaluate("window.__notReloaded === true"))


def inner_wall_dispute(tracker) -> None:
    """Anke draws a wall on D4, an inner space: the camera's drawing becomes a dispute."""
    start = empty_city()
    bad = list(start)
    bad[3] = bad[3][:3] + "W" + bad[3][4:]
    dice = tuple(DieReading(f, 1.0) for f in ("wall", "log", "log", "head", "swords"))
    tracker.observe(Observation(boards=(BoardReading(0, tuple(start), SURE),), dice=dice))
    tracker.observe(Observation(boards=(BoardReading(0, tuple(bad), SURE),), dice=dice))
    assert tracker.dispute is not None


def tap(page, player: int, cell: str) -> None:
    page.locator(f'svg.city[data-player="{player}"] g.cell[data-cell="{cell}"]').click()


def test_every_page_fits_a_phone_and_every_control_is_a_44px_target(browser, server):
    service = server.service
    service.new_game(["Anke", "Ben", "Carla"])
    play_to_the_end(server.tracker)
    finished = server.tracker.game_id
    pages = {"tally": "/", "past-game": f"/games/{finished}"}
    page = phone(browser)
    for width in (390, 360):
        page.set_viewport_size({"width": width, "height": PHONE["height"]})
        for name, path in pages.items():
            page.goto(server.url + path)
            assert page.locator("ol.tally li").count() == 3
            assert page.locator("ol.tally .total").first.is_visible()
            assert overflow(page) == 0, f"{path} scrolls sideways at {width} px"
            shoot(page, f"{name}-{width}")
    service.new_game(["Anke", "Ben", "Carla", "Dario", "Eva"])
    inner_wall_dispute(server.tracker)
    for width in (390, 360):
        page.set_viewport_size({"width": width, "height": PHONE["height"]})
        for name, path in {"table-dispute": "/", "new-game": "/setup", "camera": "/camera", "games": "/games",
                           "teach": "/teach"}.items():
            page.goto(server.url + path)
            assert overflow(page) == 0, f"{path} scrolls sideways at {width} px"
            shoot(page, f"{name}-{width}")
    # the New game page: the address for phones, and a QR code that reads as that address
    page.goto(server.url + "/setup")
    listed = page.locator(".addresses a").first.inner_text()
    assert listed == server.url + "/"
    import cv2
    import numpy as np

    picture = cv2.imdecode(np.frombuffer(page.locator(".qr svg").screenshot(), np.uint8), cv2.IMREAD_COLOR)
    bordered = cv2.copyMakeBorder(picture, 20, 20, 20, 20, cv2.BORDER_CONSTANT, value=(255,) * 3)
    # OpenCV's first QR detector misses a valid code for a few ports in a thousand (127.0.0.1:38077 among them,
    # every time); its ArUco-based one reads those, as a phone does.
    decoded, _, _ = cv2.QRCodeDetector().detectAndDecode(bordered)
    if not decoded:
        decoded, _, _ = cv2.QRCodeDetectorAruco().detectAndDecode(bordered)
    assert decoded == listed
    page.goto(server.url + "/")
    small = page.evaluate("""() => Array.from(document.querySelectorAll(
        'main button, main select, main input:not([type=hidden]):not([type=radio]):not([type=checkbox]), .pick .chip'))
        .filter(e => e.offsetParent !== null && e.getBoundingClientRect().height < 44)
        .map(e => e.outerHTML.slice(0, 80))""")
    assert small == []
    page.close()


def test_a_dispute_shows_on_every_open_page_and_is_overridden_without_a_reload(browser, server):
    server.service.new_game(["Anke", "Ben", "Carla"])
    first, second = open_live(browser, server), open_live(browser, server)
    assert first.locator("#override-form").count() == 0
    inner_wall_dispute(server.tracker)
    for page in (first, second):
        page.locator("#override-form").wait_for()
        assert "walls go only in the outer" in page.locator("#dispute").inner_text()
        assert page.locator("#dispute details.rule-ids").inner_text().strip() != ""  # ids only in details
    shoot(first, "dispute-live")
    form = first.locator("#override-form")
    form.locator("input[name=reason]").fill("we play it as drawn")
    form.locator("button").click()  # no PIN yet: refused inline, the reason kept
    first.locator("#override-form .form-msg.error", has_text="PIN").wait_for()
    assert first.locator("#override-form input[name=reason]").input_value() == "we play it as drawn"
    assert first.locator("#pin-bar").is_visible()
    first.locator("#pin-input").fill(server.pin)
    form.locator("button").click()
    for page in (first, second):
        page.locator("li.ev-override").first.wait_for()
        assert page.locator("#override-form").count() == 0
    assert server.tracker.dispute is None and server.tracker.current_player() == 1
    assert first.locator("#pin-bar").is_hidden()
    # the PIN is asked once per phone: taking the move back needs no PIN on the first phone ...
    first.locator("#undo-form button").click()
    first.locator("li.ev-undo", has_text="Taken back: Anke: wall").wait_for()
    second.locator("li.ev-undo").wait_for()
    assert first.locator("li.ev-override .verdict").inner_text() == "taken back"  # no longer "legal"
    assert server.tracker.current_player() == 0
    assert not_reloaded(first) and not_reloaded(second)
    shoot(first, "after-undo")


def test_tapping_a_cell_corrects_it_now_and_an_inner_wall_gets_a_clear_answer(browser, server):
    server.service.new_game(["Anke", "Ben"])
    citizen = {"player": 0, "dice": ["head", "head", "log", "cross", "swords"], "symbol": "head", "turned": 0,
               "place": [{"cell": "D4", "item": "c"}], "logs": 0}
    assert server.tracker.enter_move(citizen).legal
    page = open_live(browser, server)
    d4 = page.locator('svg.city[data-player="0"] g.cell[data-cell="D4"]')
    assert d4.get_attribute("data-item") == "c"
    tap(page, 0, "D4")
    dialog = page.locator("#picker")
    dialog.wait_for()
    assert "D4" in dialog.locator("h2").inner_text() and "Anke" in dialog.locator("h2").inner_text()
    shoot(page, "picker")
    dialog.locator(".pick", has=page.locator('input[value="s"]')).click()
    dialog.locator(".pin-field input").fill(server.pin)  # the dialog covers the page: its own PIN field
    dialog.locator("button[type=submit]").click()
    page.locator('svg.city[data-player="0"] g.cell[data-cell="D4"][data-item="s"]').wait_for()
    assert page.locator('svg.city[data-player="0"] g.cell[data-cell="D4"] text.letter').text_content() == "S"
    anke = server.tracker.state.players[0]
    assert anke.defence == 1 and anke.vp == 0  # a soldier, replayed: no citizen's VP
    assert server.tracker.aliases == {}  # no hidden standing rule
    # a wall on an inner space: a clear answer in the picker, nothing changes
    tap(page, 0, "D5")
    dialog.locator(".pick", has=page.locator('input[value="W"]')).click()
    dialog.locator("button[type=submit]").click()
    dialog.locator(".form-msg.error", has_text="inner space").wait_for()
    assert server.tracker.state.players[0] == anke
    assert not_reloaded(page)
    page.close()


def test_a_drawing_read_where_the_rules_forbid_it_is_asked_and_as_drawn_becomes_a_dispute(browser, server):
    """An inner wall the camera half takes for a crate (crates rolled): the question says which reading is
    not allowed and why; tapping it opens the dispute on the page without a reload."""
    server.service.new_game(["Anke", "Ben"])
    page = open_live(browser, server)
    start = empty_city()
    drawn = list(start)
    drawn[3] = drawn[3][:3] + "W" + drawn[3][4:]
    dice = tuple(DieReading(f, 1.0) for f in ("crate", "crate", "wall", "head", "swords"))
    alternatives = {"D4": {"W": 0.6, "G": 0.25, ".": 0.05}}
    server.tracker.observe(Observation(boards=(BoardReading(0, tuple(start), SURE),), dice=dice))
    server.tracker.observe(Observation(boards=(BoardReading(0, tuple(drawn), SURE, alternatives=alternatives),),
                                       dice=dice))
    question = page.locator("#question")
    question.wait_for()
    assert "one reading is not allowed" in question.inner_text()
    legal, as_drawn = question.locator("button.choice").all()
    assert legal.locator(".not-allowed").count() == 0
    assert "outer" in as_drawn.locator(".not-allowed").inner_text()
    shoot(page, "question-as-drawn")
    as_drawn.click()  # no PIN yet on this phone: asked for inline
    page.locator("#pin-bar").wait_for()
    page.locator("#pin-input").fill(server.pin)
    as_drawn.click()
    page.locator("#override-form").wait_for()
    assert "walls go only in the outer" in page.locator("#dispute").inner_text()
    assert page.locator("#question").count() == 0
    assert server.tracker.dispute is not None and server.tracker.question is None
    assert not_reloaded(page)
    shoot(page, "question-as-drawn-dispute")
    page.close()


def test_an_italian_table_enters_its_juggler_as_g_by_tapping(browser, server):
    page = phone(browser)
    page.goto(server.url + "/setup?lang=it")
    assert page.locator("h1", has_text="Nuova partita").is_visible()
    page.fill("input[name=player0]", "Giulia")
    page.fill("input[name=player1]", "Marco")
    page.select_option("select[name=language]", "it")
    page.fill("#pin-input", server.pin)
    page.locator("#setup-form button").click()
    page.wait_for_url(server.url + "/")
    page.locator("h2.turn", has_text="Turno").wait_for()
    assert server.tracker.language == "it"
    shoot(page, "italian-table")
    form = page.locator("#move-form")
    for i, face in enumerate(["head", "head", "head", "head", "log"]):
        form.locator(f"select[name=die{i}]").select_option(face)
    form.locator(".pick", has=page.locator('input[value="j"]')).click()
    assert form.locator(".pick", has=page.locator('input[value="j"]')).locator(".chip").inner_text() == "G"
    tap(page, 0, "D4")
    assert "D4" in form.locator(".drawn").inner_text()
    form.locator("button", has_text="Registra").click()
    page.locator('svg.city[data-player="0"] g.cell[data-cell="D4"][data-item="j"]').wait_for()
    assert page.locator('svg.city[data-player="0"] g.cell[data-cell="D4"] text.letter').text_content() == "G"
    assert server.tracker.state.players[0].city[3][3] == "j"
    assert "giocoliere (G)" in page.locator("section.log").inner_text()
    page.close()


def test_open_pages_follow_a_restarted_server(browser, tmp_path):
    """A killed and restarted service counts its updates from 1 again: the page takes the new epoch as news."""
    first = ServiceProcess(tmp_path / "data")
    page = None
    try:
        status, answer = first.post_json("/setup", {"players": ["Anke", "Ben"]})
        assert status == 200, answer
        move = {"player": 0, "dice": ["wall", "wall", "log", "head", "swords"], "symbol": "wall", "turned": 0,
                "place": [{"cell": "B1", "item": "W"}, {"cell": "C1", "item": "W"}], "logs": 0}
        for _ in range(4):  # updates, so the first run's counter runs well ahead of the second's
            assert first.post_json("/move", move)[0] == 200
            assert first.post_json("/undo", {})[0] == 200
        page = open_live(browser, first)
        assert int(page.locator("#dash").get_attribute("data-version")) > 5
        first.kill()
        second = ServiceProcess(tmp_path / "data", port=first.port)
        try:
            page.locator("#live-state", has_text="live").wait_for(timeout=20_000)
            status, answer = second.post_json("/move", move)
            assert status == 200, answer
            page.locator("li.ev-move:not(.undone)").first.wait_for(timeout=20_000)
            assert not_reloaded(page)
        finally:
            second.stop()
    finally:
        first.stop()
        if page is not None:
            page.close()


def test_the_demo_dispute_waits_for_the_table_is_overridden_and_the_demo_resumes_its_game(browser, tmp_path):
    env = {"COMPANION_DEMO_PACE": "0.2", "COMPANION_DEMO_SEED": "7"}
    demo = ServiceProcess(tmp_path / "data", demo=True, env=env)
    try:
        deadline = time.monotonic() + 300  # about 35 s on an idle machine
        while not demo.get_json("/healthz")["dispute"]:  # (/api/state would work out the options each time)
            assert time.monotonic() < deadline, "the demo raised no dispute"
            time.sleep(0.5)
        page = open_live(browser, demo)
        page.locator("#override-form").wait_for()
        time.sleep(4)  # longer than the demo used to keep it: the dispute stays until it is settled
        assert page.locator("#override-form").count() == 1 and demo.get_json("/healthz")["dispute"]
        page.locator("#pin-input").fill(demo.pin)
        page.fill("#override-form input[name=reason]", "we play it as drawn")
        page.locator("#override-form button").click()
        page.locator("li.ev-override").first.wait_for()
        moves = page.locator("li.ev-move").count()
        page.locator("li.ev-move").nth(moves).wait_for(timeout=60_000)  # the demo plays on
        assert not_reloaded(page)
        page.goto(demo.url + "/camera")
        page.locator("#camera-img").wait_for()
        assert page.evaluate("document.getElementById('camera-img').naturalWidth") > 0  # a frame, no broken image
        game = demo.get_json("/healthz")["game"]
        page.close()
    finally:
        demo.stop()
    again = ServiceProcess(tmp_path / "data", demo=True, env=env)
    try:
        deadline = time.monotonic() + 30
        while "resumes its game" not in again.log_path.read_text():
            assert time.monotonic() < deadline, again.log_path.read_text()
            time.sleep(0.2)
        assert again.get_json("/healthz")["game"] == game
    finally:
        again.stop()


def test_a_teaching_sheet_photographed_with_a_phone_is_taught_without_a_reload(browser, server, tmp_path):
    import cv2

    from .test_teach_page import sheet_photo

    server.service.new_game(["Anke", "Ben"])
    photo = tmp_path / "sheets.jpg"
    cv2.imwrite(str(photo), sheet_photo(seat=1))
    page = phone(browser)
    page.goto(server.url + "/camera")
    page.get_by_role("link", name="Teach the camera each player's handwriting").click()
    page.locator("#teach-form").wait_for()
    page.evaluate("window.__notReloaded = true")
    assert overflow(page) == 0
    assert page.locator("svg.city g.cell.outer[data-item=W]").count() == 2
    small = page.evaluate("""() => Array.from(document.querySelectorAll('main button, main select, main input[type=file]'))
        .filter(e => e.getBoundingClientRect().height < 44).map(e => e.outerHTML.slice(0, 80))""")
    assert small == []
    assert page.locator("#teach-camera").is_disabled()  # no camera picture in this test
    # No photo chosen yet: the answer says what to do, in the form, and nothing is taught.
    page.locator("#pin-input").fill(server.pin)
    page.locator("#teach-send-photo").click()
    page.locator("#teach-msg.error", has_text="Choose a photo of the teaching sheets").wait_for()
    page.locator("#teach-photo").set_input_files(str(photo))
    page.locator("#teach-send-photo").click()
    page.locator("#teach-msg", has_text="Seat 1 (Ben) taught").wait_for()
    assert "error" not in (page.locator("#teach-msg").get_attribute("class") or "")
    assert not_reloaded(page)
    assert page.locator("#pin-bar").is_hidden()  # the PIN was given once on this phone
    assert server.service.hands.hand(1) is not None and server.service.hands.hand(0) is None
    shoot(page, "teach-done")
    page.close()


def test_a_board_out_of_the_cameras_view_is_told_on_the_open_page_without_a_reload(browser, server):
    server.service.new_game(["Anke", "Ben"])
    page = open_live(browser, server)
    start = tuple(empty_city())
    edge = tuple(f"{col}{row}" for col in "FG" for row in range(1, 8) if f"{col}{row}" not in ("G1", "G7"))

    def seen(unseen: tuple[str, ...]) -> Observation:
        return Observation(boards=(BoardReading(0, start, SURE).with_unseen(unseen), BoardReading(1, start, SURE)))

    server.tracker.observe(seen(()))
    # Anke's board slides past the frame's edge: nothing in the game changes, but the open page says so at once.
    server.tracker.observe(seen(edge))
    page.locator("p.warning", has_text="The camera cannot see 12 spaces of Anke's board").wait_for()
    shoot(page, "board-out-of-view")
    server.tracker.observe(seen(()))
    page.locator("p.warning", has_text="cannot see").wait_for(state="detached")
    assert not_reloaded(page)


def test_a_pen_lying_on_a_board_and_a_camera_without_colour_are_told_on_the_open_page_without_a_reload(browser, server):
    server.service.new_game(["Anke", "Ben"])
    page = open_live(browser, server)
    start = tuple(empty_city())

    def seen(covered: tuple[str, ...], colourless: bool = False, light_floor: bool = False,
             tray_cut: bool = False) -> Observation:
        return Observation(boards=(BoardReading(0, start, SURE).with_covered(covered), BoardReading(1, start, SURE)),
                           extra={"colourless": colourless, "tray_floor_light": light_floor, "tray_cut": tray_cut})

    server.tracker.observe(seen(()))
    # A pen put down across Anke's board: the open page says where, and what to do.
    server.tracker.observe(seen(("C3", "D4", "E5")))
    page.locator("p.warning", has_text="Something lies on Anke's board over C3, D4, E5: take it off").wait_for()
    shoot(page, "pen-on-board")
    server.tracker.observe(seen((), colourless=True))
    page.locator("p.warning", has_text="Something lies").wait_for(state="detached")
    page.locator("p.warning", has_text="The camera sends no colour").wait_for()
    shoot(page, "camera-without-colour")
    server.tracker.observe(seen(()))
    page.locator("p.warning", has_text="no colour").wait_for(state="detached")
    # A tray floor nearly as light as the dice: told, with what to do, and gone once the floor is darker.
    server.tracker.observe(seen((), light_floor=True))
    page.locator("p.warning", has_text="The dice tray's floor is nearly as light as the dice").wait_for()
    shoot(page, "tray-floor-light")
    server.tracker.observe(seen(()))
    page.locator("p.warning", has_text="nearly as light").wait_for(state="detached")
    # The tray pushed past the frame's edge: its dice are not read, and the open page says where to put it.
    server.tracker.observe(seen((), tray_cut=True))
    page.locator("p.warning", has_text="The dice tray is partly out of the camera's view").wait_for()
    shoot(page, "tray-out-of-view")
    server.tracker.observe(seen(()))
    page.locator("p.warning", has_text="out of the camera's view").wait_for(state="detached")
    assert not_reloaded(page)


def test_two_boards_with_one_seats_stickers_are_told_on_the_open_page_without_a_reload(browser, server):
    server.service.new_game(["Anke", "Ben"])
    page = open_live(browser, server)
    start = tuple(empty_city())

    def seen(doubled: list[int]) -> Observation:
        boards = tuple(BoardReading(s, start, SURE) for s in (0, 1) if s not in doubled)
        return Observation(boards=boards, extra={"doubled_seats": doubled} if doubled else {})

    server.tracker.observe(seen([]))
    # A second board with Ben's stickers comes onto the table: neither is read, and the open page says why.
    server.tracker.observe(seen([1]))
    page.locator("p.warning", has_text="Two boards carry the stickers of seat 1 (markers 4-7, Ben's seat)").wait_for()
    shoot(page, "seat-on-two-boards")
    server.tracker.observe(seen([]))
    page.locator("p.warning", has_text="Two boards carry").wait_for(state="detached")
    assert not_reloaded(page)
