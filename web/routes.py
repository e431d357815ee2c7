"""The dashboard's routes. GETs are open to anyone at the table; POSTs need the PIN and CSRF token."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

from flask import (
    Blueprint,
    Response,
    current_app,
    flash,
    jsonify,
    redirect,
    render_template,
    request,
    stream_with_context,
    url_for,
)
from werkzeug.exceptions import HTTPException

from companion import safejson
from companion.errors import UserError
from companion.games import SAINT_MALO, all_games, game_of, get_game
from companion.rules import FACES, SYMBOLS
from web.games_routes import hand_kept_game_on_table, set_aside_hand_kept_game, start_from_setup
from web.render import dashboard_context, game_context
from web.security import csrf_token, require_change_rights
from web.service import LANGUAGES, TableService

bp = Blueprint("table", __name__)

SSE_HEARTBEAT = 15.0
MAX_LIVE_PAGES = 100  # each live page holds a server thread; a table never needs more
CAMERA_SPEC = re.compile(r"^(picamera2(:\d)?|opencv:\d{1,2}|none)$")
PLACE_TOKEN = re.compile(r"^([A-Ga-g][1-7])\s*[=:]\s*(\S+)$")


def service() -> TableService:
    return current_app.extensions["table"]


def wants_json() -> bool:
    if request.path.startswith("/api/") or request.is_json:
        return True
    best = request.accept_mimetypes.best_match(["text/html", "application/json"])
    return best == "application/json"


def answer_error(message: str, status: int) -> Response:
    message = message[:1].upper() + message[1:]
    if not message.endswith((".", "!", "?")):
        message += "."
    if wants_json():
        response = jsonify({"error": message})
    else:
        response = Response(render_template("error.html", message=message, status=status), mimetype="text/html")
    response.status_code = status
    return response


@bp.app_errorhandler(UserError)
def _user_error(exc: UserError) -> Response:
    status = int(getattr(exc, "status", 400))
    return answer_error(str(exc), status)


@bp.app_errorhandler(HTTPException)
def _http_error(exc: HTTPException) -> Response:
    messages = {404: "There is no such page.", 405: "That method is not allowed here.",
                413: "The request is too large.", 400: "The request could not be read."}
    return answer_error(messages.get(exc.code or 400, exc.name + "."), exc.code or 400)


@bp.app_errorhandler(Exception)
def _internal_error(exc: Exception) -> Response:
    current_app.logger.exception("internal error")
    return answer_error("Something went wrong inside the companion; the game is unchanged.", 500)


@bp.app_context_processor
def _inject() -> dict[str, Any]:
    return {"csrf_token": csrf_token, "faces": FACES, "symbols": SYMBOLS, "languages": LANGUAGES}


def done(message: str, **extra: Any) -> Response:
    """After a change: JSON for scripts, otherwise back to the dashboard with a note."""
    if wants_json():
        return jsonify({"ok": True, "message": message, **extra})
    flash(message)
    return redirect(url_for("table.index"), code=303)


# -- reading -------------------------------------------------------------------------------------
@bp.get("/")
def index() -> Any:
    svc = service()
    other = hand_kept_game_on_table(svc.store)
    if other is not None:  # the table plays another game: its own page
        return redirect(url_for("games.page", game_id=other))
    if svc.tracker is None:
        return redirect(url_for("table.setup"))
    ctx = dashboard_context(svc)
    return render_template("index.html", version=svc.hub.version, **ctx)


@bp.get("/api/state")
def api_state() -> Response:
    tracker = service().require_tracker()
    snap = tracker.snapshot()
    snap["options"] = game_context(tracker)["options"]
    return jsonify(snap)


@bp.get("/events")
def events() -> Response:
    """Server-sent events: the re-rendered panels after every change, a comment line as heartbeat."""
    svc = service()
    hub = svc.hub
    if hub.clients >= current_app.config.get("MAX_LIVE_PAGES", MAX_LIVE_PAGES):
        return answer_error("Too many live pages are open; close some and reload.", 503)
    limit = request.args.get("limit", type=int)  # bounded streams, for tests and the benchmark

    def stream() -> Iterator[str]:
        hub.join()
        try:
            yield "retry: 2000\n\n"
            svc.wait_published(1.0)  # the first event is the table as it is now, not before the last change
            version, payload = hub.version, hub.payload
            yield f"event: state\ndata: {payload}\n\n"
            sent = 1
            while limit is None or sent < limit:
                new_version, payload = hub.wait(version, SSE_HEARTBEAT)
                if new_version == version:
                    yield ": ping\n\n"
                    continue
                version = new_version
                yield f"event: state\ndata: {payload}\n\n"
                sent += 1
        finally:
            hub.leave()

    response = Response(stream_with_context(stream()), mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Accel-Buffering"] = "no"
    return response


@bp.get("/games")
def games() -> str:
    rows = []
    for g in service().store.list_games():
        tally = g.get("tally")
        meta = g.get("meta") or {}
        rows.append({"game": get_game(game_of(meta)).name, "id": g["id"], "created": time.strftime("%Y-%m-%d %H:%M", time.localtime(g["created"])),
                     "players": meta.get("players", []), "finished": g.get("finished") is not None,
                     "abandoned": bool(meta.get("abandoned")), "tally": tally,
                     "winners": (tally or {}).get("winners", []), "events": g.get("events", 0)})
    current = service().tracker.game_id if service().tracker else None
    return render_template("games.html", games=rows, current=current)


@bp.get("/games/<int:game_id>")
def game_detail(game_id: int) -> Any:
    try:
        kind = game_of(service().store.meta(game_id))
    except KeyError:
        kind = SAINT_MALO  # view_game answers 404
    if kind != SAINT_MALO:
        return redirect(url_for("games.page", game_id=game_id))
    tracker = service().view_game(game_id)
    ctx = game_context(tracker, live=False)
    return render_template("game.html", game_id=game_id, **ctx)


@bp.get("/camera")
def camera_page() -> str:
    svc = service()
    return render_template("camera.html", camera_status=svc.camera_status, camera_error=svc.camera_error,
                           camera_spec=svc.camera_spec)


@bp.get("/camera.jpg")
def camera_jpeg() -> Response:
    from web.camera_view import overlay_jpeg

    svc = service()
    data = overlay_jpeg(svc)
    if data is None:
        return answer_error("No camera frame yet.", 503)
    response = Response(data, mimetype="image/jpeg")
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/healthz")
def healthz() -> Response:
    svc = service()
    return jsonify({"ok": True, "game": svc.tracker.game_id if svc.tracker else None,
                    "camera": svc.camera_status, "clients": svc.hub.clients, "version": svc.hub.version})


# -- changing (PIN + CSRF) ---------------------------------------------------------------------------
def payload() -> dict[str, Any]:
    if request.is_json:
        # depth, number size and NaN limits before Python's json sees it (5,000 brackets were a 500)
        data = safejson.loads(request.get_data(cache=True), "the request body")
        if not isinstance(data, dict):
            raise UserError("the request body must be a JSON object")
        return data
    return request.form.to_dict()


def guarded() -> dict[str, Any]:
    data = payload()
    require_change_rights(service().guard)
    return data


def as_int(data: dict[str, Any], key: str, low: int, high: int, default: int | None = None) -> int:
    raw = data.get(key, default)
    label = key.replace("_", " ")
    if raw is None or raw == "":
        if default is None:
            raise UserError(f"{label} is missing")
        raw = default
    try:
        value = int(raw)
    except (TypeError, ValueError):
        raise UserError(f"{label} must be a whole number, not {raw!r}") from None
    if not low <= value <= high:
        raise UserError(f"{label} must be between {low} and {high}, not {value}")
    return value


def optional_int(data: dict[str, Any], key: str) -> int | None:
    """A log position a change names (undo's ``event``, a correction's ``after``); absent or empty: None."""
    raw = data.get(key)
    if raw is None or raw == "":
        return None
    return as_int(data, key, 0, 10**9)


def text(data: dict[str, Any], key: str, max_len: int = 200) -> str:
    raw = data.get(key, "")
    if not isinstance(raw, str):
        raise UserError(f"{key} must be text")
    raw = raw.strip()
    if len(raw) > max_len:
        raise UserError(f"{key} is too long (at most {max_len} characters)")
    return raw


@bp.route("/setup", methods=["GET", "POST"])
def setup() -> Any:
    svc = service()
    if request.method == "GET":
        return render_template("setup.html", has_game=svc.tracker is not None or
                               hand_kept_game_on_table(svc.store) is not None, camera_spec=svc.camera_spec,
                               game_choices=all_games())
    data = guarded()
    names = data.get("players")
    if isinstance(names, list):
        if not all(isinstance(n, str) and len(n.strip()) <= 30 for n in names) or len(names) > 5:
            raise UserError("players must be a list of up to 5 names of at most 30 characters")
        names = [n.strip() for n in names]
    else:
        names = [text(data, f"player{i}", 30) for i in range(5)]
    seats_given = data.get("seats")
    entered = [i for i, n in enumerate(names) if n]
    names = [names[i] for i in entered]
    game = get_game(text(data, "game", 40) or None)
    if game.live is not None:  # a game kept by hand: companion.games, web.games_routes
        return start_from_setup(svc, game.id, names, data)
    if isinstance(seats_given, list):
        seats = [int(s) for s in seats_given if isinstance(s, int) or str(s).isdigit()]
    else:
        seats = [as_int(data, f"seat{i}", 0, 4, default=i) for i in entered]
    start = as_int(data, "start_player", 1, 5, default=1) - 1
    if names and start >= len(names):
        raise UserError(f"start player must be between 1 and {len(names)}")
    language = text(data, "language", 5) or "en"
    camera = text(data, "camera", 40) or None
    if camera is not None and not CAMERA_SPEC.match(camera) and camera != svc.camera_spec:
        raise UserError("camera must be picamera2, opencv:N, none, or the source the service was started with")
    set_aside_hand_kept_game(svc.store)
    tracker = svc.new_game(names, start_player=start, seats=seats, language=language, camera=camera)
    return done(f"Game {tracker.game_id} started: {', '.join(names)}.", game=tracker.game_id)


def parse_place(raw: Any) -> list[dict[str, str]]:
    if isinstance(raw, list):
        return [{"cell": str(p.get("cell", "")), "item": str(p.get("item", ""))} for p in raw if isinstance(p, dict)]
    if not isinstance(raw, str):
        raise UserError("place must be text like 'B1=W C1=W'")
    out = []
    for token in re.split(r"[,;\s]+(?=[A-Ga-g][1-7]\s*[=:])", raw.strip()):
        token = token.strip().strip(",;")
        if not token:
            continue
        m = PLACE_TOKEN.match(token)
        if not m:
            raise UserError(f"cannot read {token!r}: write each drawing as CELL=ITEM, like D4=W")
        out.append({"cell": m.group(1).upper(), "item": m.group(2)})
    return out


@bp.post("/move")
def move() -> Any:
    tracker = service().require_tracker()
    data = guarded()
    n = len(tracker.names)
    if isinstance(data.get("dice"), list):
        dice = [str(d) for d in data["dice"]]
    else:
        dice = [text(data, f"die{i}", 10) for i in range(5)]
    for face in dice:
        if face not in FACES:
            raise UserError(f"unknown die face {face!r}: faces are {', '.join(FACES)}")
    symbol = data.get("symbol") or None
    if symbol in ("none", "pass"):
        symbol = None
    if symbol is not None and symbol not in SYMBOLS:
        raise UserError(f"unknown symbol {symbol!r}: symbols are {', '.join(SYMBOLS)}")
    action = {"player": as_int(data, "player", 0, n - 1, default=tracker.current_player()), "dice": dice,
              "symbol": symbol, "turned": as_int(data, "turned", 0, 5, default=0),
              "place": parse_place(data.get("place", "")), "logs": as_int(data, "logs", 0, 5, default=0)}
    reason = text(data, "override_reason")
    verdict = tracker.enter_move(action, override_reason=reason or None)
    if not verdict.legal and not reason:
        errors = "; ".join(e.message for e in verdict.errors)
        raise UserError(f"That move is illegal: {errors}")
    return done("Move recorded." if verdict.legal else "Move recorded as overridden.", legal=verdict.legal)


@bp.post("/correct")
def correct() -> Any:
    tracker = service().require_tracker()
    data = guarded()
    player = as_int(data, "player", 0, len(tracker.names) - 1)
    cell, item = text(data, "cell", 3), text(data, "item", 5)
    if not cell:
        raise UserError("cell is missing")
    tracker.correct_cell(player, cell, item or ".", reason=text(data, "reason") or "misread",
                         expected=optional_int(data, "after"))
    return done(f"Cell {cell.upper()} corrected.")


@bp.post("/override")
def override() -> Any:
    tracker = service().require_tracker()
    data = guarded()
    tracker.override_dispute(text(data, "reason"))
    return done("The drawing stands as drawn.")


@bp.post("/undo")
def undo() -> Any:
    tracker = service().require_tracker()
    data = guarded()
    tracker.undo(expected=optional_int(data, "event"))  # the move the page showed as last: a repeat is a 409
    return done("Last move taken back.")
