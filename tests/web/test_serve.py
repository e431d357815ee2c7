"""``companion serve`` arguments: bad ones are one line and exit 2; the app never runs in debug mode."""

from __future__ import annotations

import socket

from companion.cli import main
from web import create_app


def test_bad_port_is_one_line_exit_2(tmp_path, capsys):
    assert main(["serve", "--port", "70000", "--data", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "--port 70000" in err


def test_port_in_use_is_one_line_exit_2(tmp_path, capsys):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert main(["serve", "--host", "127.0.0.1", "--port", str(port), "--data", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "cannot listen" in err


def test_unusable_data_dir_is_one_line_exit_2(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    assert main(["serve", "--data", str(blocker / "data")]) == 2
    assert capsys.readouterr().err.strip().count("\n") == 0


def test_app_is_not_in_debug_mode(tmp_path):
    app = create_app({"DATA_DIR": str(tmp_path)})
    assert app.debug is False and app.config["DEBUG"] is False
    assert app.config["SESSION_COOKIE_HTTPONLY"] and app.config["SESSION_COOKIE_SAMESITE"] == "Strict"
    app.extensions["table"].close()
