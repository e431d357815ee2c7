"""Who may change the table: the table PIN, per-session CSRF tokens, PIN attempt limits, headers.

Anyone on the network may watch; every change (setup, moves, corrections, overrides, undo, new game)
needs the PIN shown on the host's screen and log at start, plus the session's CSRF token so another
site cannot post on a player's behalf.
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from collections import defaultdict, deque
from typing import Any

from flask import Flask, Response, request, session

from companion.errors import UserError

PIN_SETTING = "table_pin"
SECRET_SETTING = "session_secret"
PIN_DIGITS = 6
MAX_FAILURES = 8          # wrong PINs allowed per address ...
FAILURE_WINDOW = 300.0    # ... in this many seconds
# ... and from all addresses together: 50 loopback (or spoofed hotspot) addresses must not multiply the
# guesses. 40 per 5 minutes: a 6-digit PIN would take about 45 days of guessing on average.
MAX_FAILURES_ALL = 40


class Refused(UserError):
    """A change without the right PIN or token (HTTP 403), or too many wrong PINs (HTTP 429)."""

    def __init__(self, message: str, status: int = 403) -> None:
        super().__init__(message)
        self.status = status


def load_or_create_pin(store: Any) -> str:
    """The table PIN, kept in the data directory's store so it survives restarts."""
    pin = store.get_setting(PIN_SETTING)
    if not pin:
        pin = "".join(secrets.choice("0123456789") for _ in range(PIN_DIGITS))
        store.set_setting(PIN_SETTING, pin)
    return pin


def load_or_create_secret(store: Any) -> str:
    secret = store.get_setting(SECRET_SETTING)
    if not secret:
        secret = secrets.token_hex(32)
        store.set_setting(SECRET_SETTING, secret)
    return secret


class PinGuard:
    """Checks PINs in constant time and slows down guessing: a few wrong PINs per address per window."""

    def __init__(self, pin: str) -> None:
        self.pin = pin
        self._failures: dict[str, deque[float]] = defaultdict(deque)
        self._all_failures: deque[float] = deque()
        self._lock = threading.Lock()

    def check(self, given: str | None, address: str) -> None:
        now = time.monotonic()
        with self._lock:
            for stale in [a for a, times in self._failures.items() if not times or now - times[-1] > FAILURE_WINDOW]:
                del self._failures[stale]  # addresses seen once do not pile up
            recent = self._failures[address]
            while recent and now - recent[0] > FAILURE_WINDOW:
                recent.popleft()
            while self._all_failures and now - self._all_failures[0] > FAILURE_WINDOW:
                self._all_failures.popleft()
            if len(recent) >= MAX_FAILURES:
                raise Refused("Too many wrong PINs; wait a few minutes and try again.", 429)
            if len(self._all_failures) >= MAX_FAILURES_ALL:
                raise Refused("Too many wrong PINs at this table; changes are paused for a few minutes.", 429)
            if given and hmac.compare_digest(given.strip().encode(), self.pin.encode()):
                return
            recent.append(now)
            self._all_failures.append(now)
        if not given:
            raise Refused("This change needs the table PIN shown on the host's screen.")
        raise Refused("Wrong table PIN.")


def csrf_token() -> str:
    token = session.get("csrf")
    if not token:
        token = secrets.token_urlsafe(32)
        session["csrf"] = token
    return str(token)


def check_csrf() -> None:
    expected = session.get("csrf")
    given = request.headers.get("X-CSRF-Token") or request.form.get("csrf_token")
    if not expected or not given or not hmac.compare_digest(str(expected), str(given)):
        raise Refused("The form has expired or did not come from this page; reload and try again.")


def require_change_rights(guard: PinGuard) -> None:
    """CSRF token first (cheap, and a forged post must not cost the table a PIN attempt), then the PIN."""
    check_csrf()
    pin = request.headers.get("X-Table-Pin") or request.form.get("pin")
    guard.check(pin, request.remote_addr or "?")


CSP = ("default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
       "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")


def install_headers(app: Flask) -> None:
    @app.after_request
    def _headers(response: Response) -> Response:
        response.headers.setdefault("Content-Security-Policy", CSP)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("X-Frame-Options", "DENY")
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        response.headers.setdefault("Permissions-Policy", "camera=(), microphone=(), geolocation=()")
        response.headers.setdefault("Cross-Origin-Opener-Policy", "same-origin")
        if response.mimetype == "text/html" or response.mimetype == "application/json":
            response.headers.setdefault("Cache-Control", "no-store")
        return response
