"""The table dashboard: a Flask application factory over one :class:`web.service.TableService`.

``create_app(config)`` takes a plain dict: ``DATA_DIR`` (the store's folder), ``SETTLE_SECONDS``
(how long a drawing must stay unchanged before it is judged), ``SERVICE`` (an existing service, for
the demo and tests). Watching needs nothing; every change needs the table PIN and the session's CSRF
token (web.security).
"""

from __future__ import annotations

from typing import Any

from flask import Flask

from web.service import TableService


def create_app(config: dict[str, Any] | None = None) -> Flask:
    config = dict(config or {})
    app = Flask(__name__, static_folder="static", template_folder="templates")
    service: TableService = config.pop("SERVICE", None) or TableService(
        config.get("DATA_DIR"), settle_seconds=float(config.get("SETTLE_SECONDS", 0.0)))
    app.config.update(
        SECRET_KEY=service.secret,
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Strict",
        MAX_CONTENT_LENGTH=64 * 1024,
        TEMPLATES_AUTO_RELOAD=False,
        SEND_FILE_MAX_AGE_DEFAULT=300,
    )
    app.config.update({k: v for k, v in config.items() if k.isupper()})
    app.extensions["table"] = service

    from web.render import make_renderer
    from web.routes import bp
    from web.security import install_headers

    service.renderer = make_renderer(app)
    app.register_blueprint(bp)
    from web.games_routes import install as install_games

    install_games(app)  # the pages of the games kept by hand (Castles of Tuscany, Dice Settlers)
    install_headers(app)
    service.publish_now()
    return app
