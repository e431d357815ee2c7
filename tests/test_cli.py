"""The command's own behaviour: help, unknown commands, and no traceback ever reaching a person."""

from __future__ import annotations

import subprocess
import sys

import pytest

from companion import cli


def test_no_command_prints_help_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main([]) == 2
    assert "tally" in capsys.readouterr().out


def test_unknown_command_is_a_usage_error() -> None:
    with pytest.raises(SystemExit) as exc:
        cli.main(["frobnicate"])
    assert exc.value.code == 2


def test_every_contract_command_has_a_handler() -> None:
    for command in ("serve", "scan", "tally", "check", "simulate"):
        assert cli._handler(command) is not None, command


def test_python_dash_m_runs_the_same_command() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "companion", "--help"], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0
    for command in ("serve", "scan", "tally", "check", "simulate"):
        assert command in out.stdout


def test_a_bug_is_one_line_not_a_traceback(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    def broken(args: object) -> int:
        raise RuntimeError("boom")

    monkeypatch.setattr(cli, "_handler", lambda command: broken)
    monkeypatch.delenv("COMPANION_DEBUG", raising=False)
    assert cli.main(["tally", "x.json"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "boom" in err and "Traceback" not in err
