"""The pages of the games kept by hand (every plugin with ``live`` rules: Castles of Tuscany, Dice Settlers).

A game is a row in the store with ``meta["game"]`` and a log of events (companion.games): each entry on
a phone is one event, on disk before it is acknowledged, and the page is the replay of the log. Every
change renders the game's panels once and hands them to a :class:`web.service.Hub` of its own, which
wakes every open page (server-sent events, as the Saint Malo dashboard does). Watching needs nothing;
every change needs the table PIN and the session's CSRF token (web.security).
"""

from __future__ import annotations

import dataclasses
import json
import threading
import time
from collections.abc import Sequence
from typing import Any

from flask import (
    Blueprint,
    Flask,
    Response,
    current_app,
    has_app_context,
    has_request_context,
    jsonify,
    redirect,
    render_template,
    request,
    session,
    stream_with_context,
    url_for,
)

from companion import safejson
from companion.errors import UserError
from companion.games import (
    CURRENT_GAME_SETTING,
    SAINT_MALO,
    GamePlugin,
    ScoreSheet,
    game_of,
    get_game,
    hand_kept_game_on_table,
    standing_events,
    table_game,
)
from web.security import check_csrf, require_change_rights
from web.service import Hub, NotFound, TableService

bp = Blueprint("games", __name__)

SSE_HEARTBEAT = 15.0
MAX_LIVE_PAGES = 100
MAX_EVENTS = 5000  # a whole game is a few hundred entries; beyond this something is posting in a loop
PANELS: dict[str, tuple[str, ...]] = {
    "castles-of-tuscany": ("tracks", "rounds", "end", "log"),
    "dice-settlers": ("pad", "map", "tech", "players", "log"),
}


class TooManyPages(UserError):
    status = 503


class GamesLive:
    """The live side of the hand-kept games: one hub for their pages, one lock so entries go in order."""

    def __init__(self) -> None:
        self.hub = Hub()
        self.lock = threading.RLock()
        # versions restart at 0 with the service; a page compares them only within one epoch
        self.epoch = str(time.time_ns())


def live() -> GamesLive:
    return current_app.extensions["games_live"]


def table() -> TableService:
    return current_app.extensions["table"]


def install(app: Flask) -> None:
    app.extensions["games_live"] = GamesLive()
    app.register_blueprint(bp)
    service: TableService = app.extensions["table"]
    reconcile(service.store)


def reconcile(store: Any) -> None:
    """The store's finished mark as the log says: a power cut can fall between an entry that ends (or
    reopens) the game and the mark, and the log is the truth."""
    game_id = hand_kept_game_on_table(store)
    if game_id is None:
        return
    meta = store.meta(game_id)
    game = get_game(game_of(meta))
    assert game.live is not None
    sheet = game.live.replay(standing_events(store.events(game_id)))
    marked = {g["id"]: g for g in store.list_games()}[game_id].get("finished") is not None
    if sheet.finished and not marked:
        store.finish_game(game_id, sheet.tally() or {})
    elif marked and not sheet.finished:
        store.reopen_game(game_id)


# -- which game is on the table ----------------------------------------------------------------------
def set_aside_hand_kept_game(store: Any) -> None:
    """A new game of any kind sets the table's unfinished hand-kept game aside (it stays in the list)."""
    game = table_game(store)
    if game is None or game_of(game[1]) == SAINT_MALO:
        return
    if not game[2]:
        store.set_meta(game[0], abandoned=True)
    if has_app_context():  # its open pages go to the table's new game
        hub = live().hub
        hub.publish(json.dumps({"game": None, "version": hub.version + 1, "epoch": live().epoch, "html": None}))


def start_game(service: TableService, game: GamePlugin, names: Sequence[str],
               options: dict[str, Any] | None = None) -> int:
    """A new hand-kept game on the table; a running Saint Malo game is set aside, its camera idle."""
    assert game.live is not None
    start = game.live.start_event(list(names), dict(options or {}))
    with live().lock, service.store.transaction("the new game"):  # the game, its start, the old set aside
        set_aside_hand_kept_game(service.store)
        old = service.tracker
        if old is not None and not old.finished:
            service.store.set_meta(old.game_id, abandoned=True)
        game_id = service.store.create_game({"game": game.id, "players": start["players"]}, first_event=start)
        service.store.set_setting(CURRENT_GAME_SETTING, str(game_id))
        service.tracker = None  # the Saint Malo dashboard now sends its pages here
        publish(game_id)
    service.publish()
    return game_id


def resume_game(service: TableService, game_id: int) -> Any:
    """Play a set-aside hand-kept game again (the Games list's Resume); the game running now is set aside."""
    with live().lock, service.store.transaction("resuming the game"):
        if hand_kept_game_on_table(service.store) != game_id:
            set_aside_hand_kept_game(service.store)
        old = service.tracker
        if old is not None and not old.finished:
            service.store.set_meta(old.game_id, abandoned=True)
        service.store.set_meta(game_id, abandoned=False)
        service.store.set_setting(CURRENT_GAME_SETTING, str(game_id))
        service.tracker = None
        publish(game_id)
    service.publish()
    page_url = url_for("games.page", game_id=game_id)
    if request.is_json:
        return jsonify({"ok": True, "message": f"Game {game_id} resumed.", "game": game_id, "redirect": page_url})
    return redirect(page_url, code=303)


# -- one game ----------------------------------------------------------------------------------------
def load(game_id: int) -> tuple[GamePlugin, dict[str, Any], ScoreSheet]:
    store = table().store
    try:
        meta = store.meta(game_id)
    except KeyError:
        raise NotFound(f"There is no game {game_id}.") from None
    game = get_game(game_of(meta))
    if game.live is None:
        raise NotFound(f"Game {game_id} is a {game.name} game; its page is the table dashboard.")
    sheet = game.live.replay(standing_events(store.events(game_id)))
    return game, meta, sheet


def jsonable(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def page_context(game_id: int, game: GamePlugin, meta: dict[str, Any], sheet: ScoreSheet) -> dict[str, Any]:
    return {"game_id": game_id, "game": game, "meta": meta, "view": sheet.view(), "finished": sheet.finished,
            "pin_ok": phone_gave_pin() if has_request_context() else False,
            "on_table": hand_kept_game_on_table(table().store) == game_id, "game_slug": game.id.replace("-", "_")}


def render_panels(ctx: dict[str, Any]) -> dict[str, str]:
    slug = ctx["game_slug"]
    return {name: render_template(f"games/{slug}/_{name}.html", **ctx) for name in PANELS[ctx["game"].id]}


def publish(game_id: int) -> int:
    """Render the game's panels once and wake every open page."""
    game, meta, sheet = load(game_id)
    ctx = page_context(game_id, game, meta, sheet)
    hub = live().hub
    payload = {"game": game_id, "version": hub.version + 1, "epoch": live().epoch, "html": render_panels(ctx),
               "finished": sheet.finished, "sent": time.time()}
    return hub.publish(json.dumps(payload, separators=(",", ":")))


def record(game_id: int, event: dict[str, Any]) -> tuple[ScoreSheet, str]:
    """Check one entry against the game as it stands, store it, finish or reopen the game, publish."""
    store = table().store
    with live().lock:
        game, _meta, sheet = load(game_id)
        if hand_kept_game_on_table(store) != game_id:
            raise UserError(f"game {game_id} is no longer the table's game; it can be looked at, not changed")
        events = store.events(game_id)
        if len(events) >= MAX_EVENTS:
            raise UserError(f"game {game_id} has {len(events)} entries, the most one game may have")
        assert game.live is not None
        kind = event.get("type")
        if kind == "undo":
            if len(standing_events(events)) <= 1:
                raise UserError("there is nothing to undo")
            stored: dict[str, Any] = {"type": "undo"}
            message = "Last entry taken back."
        elif kind == "start":
            raise UserError("a game has one start; begin a new game from the New game page")
        else:
            stored = game.live.check_event(sheet, event)
            message = "Entry recorded."
        was_finished = sheet.finished
        with store.transaction("the entry"):  # the entry and the game's end (or reopening): both or neither
            store.append_event(game_id, stored)
            sheet = game.live.replay(standing_events(store.events(game_id)))
            if sheet.finished:  # (again, when a player's leftovers are corrected after the end)
                store.finish_game(game_id, sheet.tally() or {})
                if not was_finished:
                    message = "The game is over: the final tally stands."
            elif was_finished:
                store.reopen_game(game_id)
        publish(game_id)
    return sheet, message


# -- routes ------------------------------------------------------------------------------------------
@bp.get("/play/<int:game_id>")
def page(game_id: int) -> Any:
    game, meta, sheet = load(game_id)
    ctx = page_context(game_id, game, meta, sheet)
    assert game.live is not None
    return render_template(game.live.template, version=live().hub.version, epoch=live().epoch,
                           panels=PANELS[game.id], **ctx)


@bp.get("/play/<int:game_id>/state")
def state(game_id: int) -> Response:
    game, meta, sheet = load(game_id)
    body = {"game_id": game_id, "game": game.id, "name": game.name, "finished": sheet.finished,
            "view": sheet.view(), "tally": sheet.tally()}
    return Response(json.dumps(body, default=jsonable), mimetype="application/json")


@bp.get("/play/events")
def events() -> Response:
    """Server-sent events: the re-rendered panels of the table's game after each entry."""
    hub = live().hub
    if hub.clients >= current_app.config.get("MAX_LIVE_PAGES", MAX_LIVE_PAGES):
        raise TooManyPages("too many live pages are open; close some and reload")
    limit = request.args.get("limit", type=int)  # bounded streams, for tests

    stream = hub.stream(SSE_HEARTBEAT, limit, first_always=False)
    response = Response(stream_with_context(stream), mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Accel-Buffering"] = "no"
    return response


def phone_gave_pin() -> bool:
    from web.routes import pin_ok  # web.routes imports this module

    return pin_ok()


def require_rights() -> None:
    """As the dashboard's changes (web.routes.guarded): the CSRF token always, the PIN once per phone
    session; a PIN that is sent is always checked."""
    from web.routes import PIN_OK, pin_mark

    if not request.headers.get("X-Table-Pin") and phone_gave_pin():
        check_csrf()
        return
    require_change_rights(table().guard)
    session[PIN_OK] = pin_mark()


def entry_from_request() -> dict[str, Any]:
    if not request.is_json:
        raise UserError("send the entry as a JSON object (Content-Type: application/json)")
    data = safejson.loads(request.get_data(cache=True), "the request body")  # depth, size, NaN limits
    if not isinstance(data, dict):
        raise UserError("the request body must be a JSON object")
    return data


@bp.post("/play/<int:game_id>/event")
def post_event(game_id: int) -> Response:
    event = entry_from_request()
    require_rights()
    sheet, message = record(game_id, event)
    return answer(game_id, sheet, message)


@bp.post("/play/<int:game_id>/undo")
def post_undo(game_id: int) -> Response:
    if request.is_json:
        entry_from_request()
    require_rights()
    sheet, message = record(game_id, {"type": "undo"})
    return answer(game_id, sheet, message)


def answer(game_id: int, sheet: ScoreSheet, message: str) -> Response:
    hub = live().hub
    payload = json.loads(hub.payload) if hub.version else {}
    body = {"ok": True, "message": message, "finished": sheet.finished, "version": hub.version,
            "epoch": live().epoch,
            "html": payload.get("html") if payload.get("game") == game_id else None}
    return jsonify(body)


def start_from_setup(service: TableService, game_name: str, names: list[str], data: dict[str, Any]) -> Any:
    """The New game form chose a hand-kept game: start it and open its page (JSON for scripts)."""
    game = get_game(game_name)
    options = data.get("options") if isinstance(data.get("options"), dict) else {}
    game_id = start_game(service, game, names, options)
    if request.is_json or request.path.startswith("/api/"):
        return jsonify({"ok": True, "message": f"Game {game_id} started: {', '.join(names)}.", "game": game_id,
                        "page": url_for("games.page", game_id=game_id)})
    return redirect(url_for("games.page", game_id=game_id), code=303)
