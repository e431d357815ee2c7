"""The table service: one store, the current game's tracker, the camera loop and the live-update hub.

The web routes and the camera (or demo) thread share one :class:`TableService`. Every change of the
game renders the dashboard's panels once and hands the result to the :class:`Hub`, which wakes every
connected page (server-sent events): twenty phones cost one render.
"""

from __future__ import annotations

import json
import logging
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from companion.errors import UserError
from companion.games import CURRENT_GAME_SETTING, hand_kept_game_on_table
from companion.store import GameStore, StoreDamaged, StoreError, repair_hint
from companion.tracker import Tracker
from web.i18n import LANGUAGES
from web.security import PinGuard, load_or_create_pin, load_or_create_secret

logger = logging.getLogger(__name__)

CAMERA_SETTLE_SECONDS = 3.0


class NotFound(UserError):
    """Something asked for by number that does not exist (HTTP 404)."""

    status = 404


class Hub:
    """The latest rendered dashboard, with a version number; waiting pages wake on each new version."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self.version = 0
        self.payload = "{}"
        self.published_at = 0.0
        self.clients = 0

    def publish(self, payload: str) -> int:
        with self._cond:
            self.version += 1
            self.payload = payload
            self.published_at = time.time()
            self._cond.notify_all()
            return self.version

    def join(self) -> None:
        with self._cond:
            self.clients += 1

    def leave(self) -> None:
        with self._cond:
            self.clients -= 1

    def wait(self, after: int, timeout: float) -> tuple[int, str]:
        """(version, payload) as soon as the version is newer than ``after``, or the same after ``timeout``."""
        with self._cond:
            self._cond.wait_for(lambda: self.version != after, timeout=timeout)
            return self.version, self.payload

    def stream(self, heartbeat: float, limit: int | None = None, *, first_always: bool = True,
               before_first: Callable[[], object] | None = None) -> Iterator[str]:
        """Server-sent events: the payload now (``first_always``; else only once something was published),
        then every new version, a comment line as heartbeat; ``limit`` events at most (tests, benchmarks)."""
        self.join()
        try:
            yield "retry: 2000\n\n"
            if before_first is not None:
                before_first()
            version, payload = self.version, self.payload
            if first_always or version:
                yield f"event: state\ndata: {payload}\n\n"
            sent = 1
            while limit is None or sent < limit:
                new_version, payload = self.wait(version, heartbeat)
                if new_version == version:
                    yield ": ping\n\n"
                    continue
                version = new_version
                yield f"event: state\ndata: {payload}\n\n"
                sent += 1
        finally:
            self.leave()


class TableService:
    """Everything one table needs at run time; the Flask app holds one of these."""

    def __init__(self, data_dir: str | None, *, settle_seconds: float = 0.0,
                 renderer: Callable[[TableService], dict[str, Any]] | None = None) -> None:
        self.store = GameStore(data_dir)
        self.pin = load_or_create_pin(self.store)
        self.secret = load_or_create_secret(self.store)
        self.guard = PinGuard(self.pin)
        self.settle_seconds = settle_seconds
        self.renderer = renderer
        self.hub = Hub()
        # names this run of the service: after a restart the versions start again from 1, and open pages
        # take a new epoch as news rather than an old update arriving late
        self.epoch = secrets.token_hex(6)
        self._dirty = threading.Event()
        self._idle = threading.Event()  # set when every asked-for update has been published
        self._idle.set()
        self._closed = threading.Event()
        self._publisher: threading.Thread | None = None
        self._lock = threading.RLock()
        self.camera_spec: str | None = None
        self.camera_status = "off"
        self.camera_error = ""
        self.last_frame: Any = None       # latest BGR frame (numpy array) for the camera view
        self.last_observation: Any = None  # what was read from it
        self.frame_counter = 0
        self.tracker: Tracker | None = None
        self._hands: Any = None  # vision.cells.seat_hand.TableHands of the current game, made when needed
        self.camera_loop: Any = None
        self.data_dir = data_dir
        self.demo = False  # the demo feeds its own frames; the setup page's camera choice is ignored
        game_id = self._chosen_game()
        if game_id is None:  # no game in progress: show the last one that finished (its tally)
            finished = [g for g in self.store.list_games() if g.get("finished")]
            game_id = finished[0]["id"] if finished else None
        if hand_kept_game_on_table(self.store) is not None:
            game_id = None  # the table plays a game kept by hand (web.games_routes): no tracker
        if game_id is not None:
            self.tracker = self._open(game_id)
            self.tracker.finish_if_over()  # a store from before the last move and the end were one write

    # -- games ------------------------------------------------------------------------------------
    def _chosen_game(self) -> int | None:
        """The game resumed or started last, while unfinished; else the newest unfinished one."""
        chosen = self.store.get_setting(CURRENT_GAME_SETTING)
        if chosen and chosen.isdigit():
            unfinished = {g["id"] for g in self.store.list_games() if not g.get("finished")}
            if int(chosen) in unfinished:
                return int(chosen)
        return self.store.current_game()

    def resume(self, game_id: int) -> Tracker:
        """Play a set-aside game again; the game running now is set aside (nothing is lost)."""
        try:
            meta = self.store.meta(game_id)
        except KeyError:
            raise NotFound(f"There is no game {game_id}.") from None
        with self._lock:
            old = self.tracker
            if old is not None and old.game_id == game_id:
                return old
            tracker = self._open(game_id)
            if tracker.finished:
                raise UserError(f"game {game_id} is finished; there is nothing to resume")
            if old is not None and not old.finished:
                self.store.set_meta(old.game_id, abandoned=True)
            if meta.get("abandoned"):
                self.store.set_meta(game_id, abandoned=False)
            self.store.set_setting(CURRENT_GAME_SETTING, str(game_id))
            self.tracker = tracker
        self.publish()
        return tracker

    def _open(self, game_id: int) -> Tracker:
        try:
            tracker = Tracker(self.store, game_id, settle_seconds=self.settle_seconds)
        except StoreError:
            raise
        except (UserError, KeyError, TypeError, ValueError) as exc:
            raise StoreDamaged(f"{self.store.path}: game {game_id} cannot be replayed ({exc}); "
                               f"{repair_hint(self.store.path)}") from None
        tracker.listeners.append(lambda _t: self.publish())
        tracker.drawing_listeners.append(self._learn_hand)
        return tracker

    # -- each seat's hand (the reader learns it from the drawings the table confirms) --------------
    @property
    def hands(self) -> Any:
        """The current game's TableHands (kept in the store), None without a game or without vision."""
        tracker = self.tracker
        if tracker is None:
            return None
        with self._lock:
            if self._hands is None or self._hands.game_id != tracker.game_id:
                try:
                    from vision.cells.seat_hand import TableHands
                except ImportError:
                    return None
                self._hands = TableHands(self.store, tracker.game_id, tracker.language)
            return self._hands

    def _learn_hand(self, drawing: Any) -> None:
        hands = self.hands
        if hands is None:
            return
        if drawing.kind == "undone":
            hands.forget(drawing.seat, drawing.cells)
            return
        rectified = getattr(drawing.board, "rectified", None)
        unseen = set(getattr(drawing.board, "unseen", None) or ())  # out of view: no picture of the drawing
        cells = {cell: item for cell, item in drawing.cells.items() if cell not in unseen}
        if rectified is not None and cells:
            hands.learn(drawing.seat, rectified, cells, drawing.kind)

    def teach(self, picture: Any = None, *, seat: int | None = None, language: str = "en") -> dict[str, Any]:
        """Teach each seat's hand from its teaching sheet (``vision.teach``) in ``picture`` (a BGR image: a photo of
        the sheets), or in the camera's latest frame when None. Kept for every game; the current game's seats read
        with it from the next frame on. ``language``: the sheets' person letters when no game is running."""
        from vision.cells.seat_hand import TableHands
        from vision.teach import teach_from_picture

        if picture is None:
            with self._lock:
                picture = None if self.last_frame is None else self.last_frame.copy()
            if picture is None:
                raise UserError("there is no camera picture yet: send a photo of the teaching sheets instead")
        hands = self.hands  # the current game's: its seats learn at once (the sheet is kept for every game too)
        if hands is None:
            hands = TableHands(self.store, None, language)
        return teach_from_picture(picture, hands, seat=seat)

    def new_game(self, names: list[str], *, start_player: int = 0, seats: list[int] | None = None,
                 language: str = "en", camera: str | None = None, keep_hands: bool = False) -> Tracker:
        """``keep_hands``: each seat starts from the hand the reader learned in its last game."""
        if language not in LANGUAGES:
            raise UserError(f"unknown language {language!r}: choose one of {', '.join(LANGUAGES)}")
        with self._lock:
            old = self.tracker
            with self.store.transaction("the new game"):  # the new game and the old one's abandonment
                tracker = Tracker.start_game(self.store, names, start_player=start_player, seats=seats,
                                             language=language, camera=camera,
                                             settle_seconds=self.settle_seconds)
                if old is not None and not old.finished:
                    self.store.set_meta(old.game_id, abandoned=True)
                if keep_hands:
                    from vision.cells.seat_hand import MAX_PER_CLASS

                    self.store.carry_hands(tracker.game_id, tracker.seats, MAX_PER_CLASS)
            tracker.listeners.append(lambda _t: self.publish())
            self.store.set_setting(CURRENT_GAME_SETTING, str(tracker.game_id))
            if self.demo:
                self.store.set_meta(tracker.game_id, demo=True)
            tracker.drawing_listeners.append(self._learn_hand)
            self.tracker = tracker
        if not self.demo and (camera is not None or (self.camera_loop and self.camera_loop.language != language)):
            self.use_camera(camera if camera is not None else self.camera_spec, language)
        self.publish()
        return tracker

    def view_game(self, game_id: int) -> Tracker:
        """A read-only replay of any stored game (past games page)."""
        try:
            self.store.meta(game_id)
        except KeyError:
            raise NotFound(f"There is no game {game_id}.") from None
        if self.tracker is not None and self.tracker.game_id == game_id:
            return self.tracker
        try:
            return Tracker(self.store, game_id)
        except StoreError:
            raise
        except (UserError, KeyError, TypeError, ValueError) as exc:
            raise StoreDamaged(f"{self.store.path}: game {game_id} cannot be replayed ({exc}); "
                               f"{repair_hint(self.store.path)}") from None

    def require_tracker(self) -> Tracker:
        if self.tracker is None:
            raise UserError("no game is running; set one up first")
        return self.tracker

    # -- live updates -----------------------------------------------------------------------------
    def publish(self) -> None:
        """Ask for the pages to be brought up to date. One publisher thread renders and sends, so
        updates go out in order and no thread that holds the game's lock waits for a render."""
        self._idle.clear()
        self._dirty.set()
        if self._publisher is None or not self._publisher.is_alive():
            with self._lock:
                if self._publisher is None or not self._publisher.is_alive():
                    self._publisher = threading.Thread(target=self._publish_loop, name="publisher", daemon=True)
                    self._publisher.start()

    def publish_now(self) -> int:
        """Render and send at once, in this thread; returns the new version."""
        payload: dict[str, Any] = self.renderer(self) if self.renderer else {}
        payload["version"] = self.hub.version + 1
        payload["epoch"] = self.epoch
        payload["sent"] = time.time()
        return self.hub.publish(json.dumps(payload, separators=(",", ":")))

    def _publish_loop(self) -> None:
        while not self._closed.is_set():
            self._dirty.wait()
            self._dirty.clear()
            if self._closed.is_set():
                return
            try:
                self.publish_now()
            except Exception:  # a failed render must not stop live updates
                logger.exception("rendering the dashboard failed")
            if not self._dirty.is_set():
                self._idle.set()

    def wait_published(self, timeout: float) -> bool:
        """Wait until the pages' payload reflects every change made so far (or the timeout)."""
        return self._idle.wait(timeout)

    # -- camera -----------------------------------------------------------------------------------
    def process_frame(self, frame: Any, reader: Any, stability: Any, detail: Any = None) -> Any:
        """One camera frame through vision and, when it makes a stable observation, the tracker. ``detail``: the
        camera's full-resolution picture of the frame, or what makes it (``TableReader.read``)."""
        hands = self.hands
        if hands is not None:
            reader.hands = hands  # the current game's (its teaching sheets too): a new game brings its own
        # Only a camera with a full-resolution picture gives a detail; the demo's readers take none.
        obs = reader.read(frame) if detail is None else reader.read(frame, detail=detail)
        with self._lock:
            self.last_frame = frame
            self.last_observation = obs
            self.frame_counter += 1
        stable = stability.push(obs)
        tracker = self.tracker
        if tracker is not None:
            if stable is not None:
                tracker.observe(stable)
            else:
                tracker.tick()
        return stable

    def use_camera(self, spec: str | None, language: str = "en") -> None:
        """Switch the camera thread to ``spec`` ("none" or None: no camera, moves by hand)."""
        from web.camera_loop import CameraLoop

        with self._lock:
            if self.camera_loop is not None:
                self.camera_loop.stop()
                self.camera_loop.join(5)
                self.camera_loop = None
            if spec in (None, "", "none"):
                self.camera_spec, self.camera_status, self.camera_error = None, "off", ""
                return
            self.camera_spec = spec
            # a drawing must stay unchanged a moment before it is judged (a hand draws three walls in turn)
            self.settle_seconds = CAMERA_SETTLE_SECONDS
            if self.tracker is not None:
                self.tracker.settle_seconds = CAMERA_SETTLE_SECONDS
            self.camera_loop = CameraLoop(self, spec, language=language, data_dir=self.data_dir)
            self.camera_loop.start()

    def close(self) -> None:
        self._closed.set()
        self._dirty.set()
        if self.camera_loop is not None:
            self.camera_loop.stop()
            self.camera_loop.join(5)
        self.store.close()
