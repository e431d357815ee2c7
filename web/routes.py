"""The dashboard's routes. GETs are open to anyone at the table; POSTs need the PIN and CSRF token."""

from __future__ import annotations

import re
import time
from typing import Any

from flask import (
    Blueprint,
    Response,
    current_app,
    flash,
    g,
    jsonify,
    redirect,
    render_template,
    request,
    session,
    stream_with_context,
    url_for,
)
from werkzeug.exceptions import HTTPException

from companion import safejson
from companion.errors import UserError
from companion.games import SAINT_MALO, all_games, game_of, get_game
from companion.layout import KIT_SEATS, seat_marker_ids
from companion.rules import FACES, SYMBOLS
from companion.tracker import infer_action
from web.games_routes import hand_kept_game_on_table, resume_game, set_aside_hand_kept_game, start_from_setup
from web.i18n import LANGUAGE_NAMES, LANGUAGES, describe_action, item_label, letters_for, translate
from web.render import dashboard_context, game_context
from web.security import check_csrf, csrf_token, require_change_rights
from web.service import TableService
from web.views import city_cells

bp = Blueprint("table", __name__)

SSE_HEARTBEAT = 15.0
MAX_LIVE_PAGES = 100  # each live page holds a server thread; a table never needs more
CAMERA_SPEC = re.compile(r"^(picamera2(:\d)?|opencv:\d{1,2}|none)$")
PLACE_TOKEN = re.compile(r"^([A-Ga-g][1-7])\s*[=:]\s*(\S+)$")
PIN_OK = "table_pin_ok"  # session key: this phone gave the right PIN (its value names the PIN it gave)


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


def lang() -> str:
    return str(g.get("lang", "en"))


def _(text: str, **values: Any) -> str:
    return translate(lang(), text, **values)


@bp.before_app_request
def _table_language() -> None:
    """Pages speak the table's language (the running game's); ?lang= picks one before a game exists."""
    asked = request.args.get("lang")
    if asked in LANGUAGES:
        g.lang = asked
        return
    tracker = service().tracker
    g.lang = tracker.language if tracker is not None and tracker.language in LANGUAGES else "en"


@bp.record_once
def _template_globals(state: Any) -> None:
    # globals, not context: imported macros (_city.html, _palette.html) see them too
    state.app.jinja_env.globals.update({"_": _, "item_label": lambda item: item_label(lang(), item)})


@bp.app_context_processor
def _inject() -> dict[str, Any]:
    return {"csrf_token": csrf_token, "faces": FACES, "symbols": SYMBOLS, "languages": LANGUAGES,
            "language_names": list(LANGUAGE_NAMES.items()), "lang": lang()}


def pin_mark() -> str:
    import hashlib

    return hashlib.sha256((service().secret + service().pin).encode()).hexdigest()[:16]


def pin_ok() -> bool:
    return session.get(PIN_OK) == pin_mark()


def done(message: str, **extra: Any) -> Response:
    """After a change: JSON for scripts, otherwise back to the dashboard with a note."""
    if wants_json():
        return jsonify({"ok": True, "message": message, "pin_ok": pin_ok(), **extra})
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
    return render_template("index.html", version=svc.hub.version, epoch=svc.epoch, pin_ok=pin_ok(), **ctx)


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

    # The first event is the table as it is now, not before the last change.
    stream = hub.stream(SSE_HEARTBEAT, limit, before_first=lambda: svc.wait_published(1.0))
    response = Response(stream_with_context(stream), mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Accel-Buffering"] = "no"
    return response


@bp.get("/games")
def games() -> str:
    rows = []
    for stored in service().store.list_games():
        tally = stored.get("tally")
        meta = stored.get("meta") or {}
        rows.append({"id": stored["id"], "game": get_game(game_of(meta)).name,
                     "created": time.strftime("%Y-%m-%d %H:%M", time.localtime(stored["created"])),
                     "players": meta.get("players", []), "finished": stored.get("finished") is not None,
                     "abandoned": bool(meta.get("abandoned")), "tally": tally,
                     "winners": (tally or {}).get("winners", []), "events": stored.get("events", 0)})
    current = service().tracker.game_id if service().tracker else None
    return render_template("games.html", games=rows, current=current, pin_ok=pin_ok())


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
                           camera_spec=svc.camera_spec, has_frame=svc.last_frame is not None)


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
                    "camera": svc.camera_status, "clients": svc.hub.clients, "version": svc.hub.version,
                    "dispute": bool(svc.tracker is not None and svc.tracker.dispute is not None)})


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
    """The CSRF token always; the PIN once per phone session. A PIN that is sent is always checked (and
    counts against the attempt limit); without one, a session that gave the right PIN before may change."""
    data = payload()
    given = request.headers.get("X-Table-Pin") or request.form.get("pin")
    if not given and pin_ok():
        check_csrf()
        return data
    require_change_rights(service().guard)
    session[PIN_OK] = pin_mark()
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
        from web.netinfo import phone_urls, qr_svg

        # the address phones use: the LAN's when `serve` listens on every interface (SERVE_HOST/PORT)
        host, port = current_app.config.get("SERVE_HOST"), current_app.config.get("SERVE_PORT")
        urls = phone_urls(str(host), int(port)) if host is not None and port else []
        addresses = [{"url": url, "qr": qr_svg(url)} for url in urls]
        if not addresses:  # served for this machine only: the address the page was opened at
            addresses = [{"url": request.host_url, "qr": qr_svg(request.host_url)}]
        return render_template("setup.html", has_game=svc.tracker is not None or
                               hand_kept_game_on_table(svc.store) is not None, camera_spec=svc.camera_spec,
                               game_choices=all_games(), addresses=addresses, pin_ok=pin_ok())
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
    # each seat starts from the hand the reader learned there last game (a checkbox, or true in JSON)
    keep = data.get("keep_hands")
    keep_hands = keep is True or (isinstance(keep, str) and keep.strip().lower() in ("1", "on", "true"))
    tracker = svc.new_game(names, start_player=start, seats=seats, language=language, camera=camera,
                           keep_hands=keep_hands)
    g.lang = tracker.language
    return done(f"{_('Game {n}', n=tracker.game_id)}: {', '.join(names)}.", game=tracker.game_id,
                redirect=url_for("table.index"))


@bp.post("/resume")
def resume() -> Any:
    data = guarded()
    game_id = as_int(data, "game", 1, 10**9)
    try:
        kind = game_of(service().store.meta(game_id))
    except KeyError:
        kind = SAINT_MALO  # resume answers 404
    if kind != SAINT_MALO:
        return resume_game(service(), game_id)
    set_aside_hand_kept_game(service().store)
    service().resume(game_id)
    return done(_("Game {n}", n=game_id) + " ✓", game=game_id, redirect=url_for("table.index"))


PERSON_TYPED = re.compile(r"^(?:\((\w)\)|p(\w))$")  # a person as drawn: its letter in a circle, "(G)" or "pG"


def typed_item(raw: str) -> str:
    """An item as the players write it: city notation, or a person by the table's own letter ("(G)" at an
    Italian table is the juggler; a bare "G" stays a crate, as in city notation)."""
    m = PERSON_TYPED.match(raw.strip())
    if not m:
        return raw
    letter = (m.group(1) or m.group(2)).upper()
    for person, drawn in letters_for(lang()).items():
        if drawn == letter:
            return person
    known = " ".join(f"({x})" for x in letters_for(lang()).values())
    raise UserError(f"no person is drawn with {letter} at this table: its letters are {known}")


def parse_place(raw: Any) -> list[dict[str, str]]:
    if isinstance(raw, list):
        return [{"cell": str(p.get("cell", "")), "item": typed_item(str(p.get("item", "")))}
                for p in raw if isinstance(p, dict)]
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
        out.append({"cell": m.group(1).upper(), "item": typed_item(m.group(2))})
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
    player = as_int(data, "player", 0, n - 1, default=tracker.current_player())
    place = parse_place(data.get("place", ""))
    if symbol == "auto":  # worked out from what was tapped: symbol and dice turned
        if not place:
            raise UserError(_("Tap the cells that were drawn, or choose a log delivery or nothing possible."))
        action = infer_action(player, dice, place)
    else:
        if symbol is not None and symbol not in SYMBOLS:
            raise UserError(f"unknown symbol {symbol!r}: symbols are {', '.join(SYMBOLS)}")
        action = {"player": player, "dice": dice, "symbol": symbol, "turned": as_int(data, "turned", 0, 5, default=0),
                  "place": place, "logs": as_int(data, "logs", 0, 5, default=0)}
    reason = text(data, "override_reason")
    verdict = tracker.enter_move(action, override_reason=reason or None)
    if not verdict.legal and not reason:
        from web.i18n import plain_errors

        errors = "; ".join(e["text"] for e in plain_errors(lang(), [e.to_json() for e in verdict.errors]))
        raise UserError(f"{_('That move breaks a rule')}: {errors}")
    what = describe_action(lang(), action, tracker.names)
    return done(f"{_('Move recorded.') if verdict.legal else _('Move recorded as overridden.')} {what}",
                legal=verdict.legal)


@bp.post("/correct")
def correct() -> Any:
    tracker = service().require_tracker()
    data = guarded()
    player = as_int(data, "player", 0, len(tracker.names) - 1)
    cell, item = text(data, "cell", 3), typed_item(text(data, "item", 5))
    if not cell:
        raise UserError("cell is missing")
    remember = str(data.get("remember", "")).lower() in ("1", "true", "on", "yes")
    message = tracker.correct_cell(player, cell, item or ".", reason=text(data, "reason") or "misread",
                                   expected=optional_int(data, "after"), remember=remember)
    if lang() != "en":
        message = _("{cell} of {name}: {item}.", cell=cell.upper(), name=tracker.names[player],
                    item=item_label(lang(), item or "."))
    return done(message, cell=cell.upper())


@bp.post("/override")
def override() -> Any:
    tracker = service().require_tracker()
    data = guarded()
    tracker.override_dispute(text(data, "reason"))
    return done(_("The drawing stands as drawn."))


@bp.post("/undo")
def undo() -> Any:
    tracker = service().require_tracker()
    data = guarded()
    taken = tracker.last_action
    tracker.undo(expected=optional_int(data, "event"))  # the move the page showed as last: a repeat is a 409
    named = describe_action(lang(), taken, tracker.names) if taken else ""
    return done(f"{_('Taken back')}: {named}" if named else _("Last move taken back."))


@bp.post("/api/question")
def answer_question() -> Any:
    """The players' answer to "which did you draw?": {"choice": 0 or 1, "question": its seq}."""
    tracker = service().require_tracker()
    data = guarded()
    choice = as_int(data, "choice", 0, 1)
    action = tracker.answer_question(choice, expected=optional_int(data, "question"))
    if tracker.dispute is not None and tracker.dispute.action == action:  # "as drawn", where it is not allowed
        return done(f"{describe_action(lang(), action, tracker.names)} — {_('breaks a rule')}", move=action)
    return done(f"{_('Recorded')}: {describe_action(lang(), action, tracker.names)}", move=action)


# -- teaching the camera each player's handwriting ------------------------------------------------------
TEACH_PHOTO_MAX_BYTES = 16 * 1024 * 1024  # a phone's photo; every other request stays under MAX_CONTENT_LENGTH


def _seat_names() -> dict[int, str]:
    """Board seat -> the player sitting there in the running game (no game: none)."""
    tracker = service().tracker
    if tracker is None:
        return {}
    return {int(seat): name for seat, name in zip(tracker.seats, tracker.names, strict=False)}


@bp.get("/teach")
def teach_page() -> str:
    from vision.teach import teaching_city

    svc = service()
    layout = {"name": _("Teaching layout"), "index": 0,
              "cells": city_cells(teaching_city(), letters=letters_for(lang()), lang=lang())}
    names = _seat_names()
    markers = {s: sorted(seat_marker_ids(s).values()) for s in range(KIT_SEATS)}
    seats = [{"seat": s, "label": _("seat {s} (markers {a}–{b})", s=s, a=ids[0], b=ids[-1])
              + (f" — {names[s]}" if s in names else "")} for s, ids in markers.items()]
    return render_template("teach.html", layout=layout, seats=seats, has_frame=svc.last_frame is not None,
                           pin_ok=pin_ok())


def _teach_message(summary: dict[str, Any]) -> str:
    names = _seat_names()
    parts = []
    for seat, seen in summary["by_seat"].items():
        who = _("seat {s}", s=seat) + (f" ({names[int(seat)]})" if int(seat) in names else "")
        before, after = seen["misread_before"], seen["misread_after"]
        line = _("{who} taught", who=who)
        if before:
            line += ": " + _("the camera misread {cells} before, {now} now", cells=", ".join(before),
                             now=", ".join(after) if after else _("none"))
        parts.append(line)
    for seat, why in summary.get("skipped", {}).items():
        parts.append(_("seat {s} not taught", s=seat) + f" ({why})")
    message = "; ".join(parts) + "."
    return message[:1].upper() + message[1:]


@bp.post("/teach")
def teach() -> Any:
    """A teaching sheet per player, from the table camera's picture (``source=camera``) or a photo sent from a phone
    (``photo``); ``seat``: only that seat's board (empty: every board in the picture that shows the layout)."""
    import cv2
    import numpy as np

    request.max_content_length = TEACH_PHOTO_MAX_BYTES
    data = guarded()
    seat = as_int(data, "seat", 0, 4) if data.get("seat") not in (None, "") else None
    picture = None
    if text(data, "source", 10) != "camera":
        upload = request.files.get("photo")
        if upload is None or not upload.filename:
            raise UserError(_("Choose a photo of the teaching sheets, or teach from the table camera."))
        raw = upload.read()
        picture = cv2.imdecode(np.frombuffer(raw, np.uint8), cv2.IMREAD_COLOR) if raw else None
        if picture is None:
            raise UserError(f"the photo {upload.filename[:80]} is not a readable image (send a JPEG or PNG)")
    summary = service().teach(picture, seat=seat, language=lang())
    return done(_teach_message(summary), taught=summary["seats"], skipped=summary.get("skipped", {}))
