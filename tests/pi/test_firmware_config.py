"""The Pi's configuration files: the systemd unit, the shell scripts, the avahi service, boot notes."""

from __future__ import annotations

import configparser
import os
import shutil
import stat
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

FIRMWARE = Path(__file__).resolve().parents[2] / "firmware_config"
UNIT = FIRMWARE / "saint-malo-companion.service"
SCRIPTS = [FIRMWARE / "install.sh", FIRMWARE / "hotspot.sh"]
DATA_DIR = "/var/lib/saint-malo-companion"
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def _tool(name: str) -> str | None:
    """The tool's path; in CI (which installs it) a missing tool is a failure, locally it is skipped."""
    path = shutil.which(name)
    if path is None and IN_CI:
        pytest.fail(f"{name} is not installed, and CI is supposed to install it (.ci/run)")
    return path


def _unit() -> configparser.ConfigParser:
    parser = configparser.ConfigParser(strict=False, interpolation=None, comment_prefixes=("#", ";"))
    parser.optionxform = str  # systemd keys are case-sensitive
    parser.read_string(UNIT.read_text())
    return parser


def test_unit_has_what_the_service_needs():
    unit = _unit()
    assert "network-online.target" in unit["Unit"]["After"] and "network-online.target" in unit["Unit"]["Wants"]
    service = unit["Service"]
    exec_start = service["ExecStart"].split()
    assert exec_start[0] == "/opt/saint-malo-companion/venv/bin/companion"
    assert exec_start[1:] == ["serve", "--camera", "picamera2", "--data", DATA_DIR, "--port", "80"]
    assert service["Restart"] == "on-failure" and 1 <= float(service["RestartSec"]) <= 30
    assert service["User"] == "saint-malo"
    assert "video" in service["SupplementaryGroups"].split()
    # port 80 without root: exactly the one capability
    assert service["AmbientCapabilities"] == "CAP_NET_BIND_SERVICE"
    assert service["CapabilityBoundingSet"] == "CAP_NET_BIND_SERVICE"
    assert unit["Install"]["WantedBy"] == "multi-user.target"


def test_unit_is_hardened_but_keeps_the_camera_and_the_data_dir():
    service = _unit()["Service"]
    assert service["NoNewPrivileges"] == "yes"
    assert service["ProtectSystem"] == "strict"
    assert DATA_DIR in service["ReadWritePaths"].split()
    assert service["PrivateTmp"] == "yes"
    # any device rule turns the device list into an allow-list without the camera's nodes
    for option in ("PrivateDevices", "DeviceAllow", "ProtectClock", "DevicePolicy"):
        assert option not in service, option


def test_unit_and_install_script_agree_on_paths():
    install = (FIRMWARE / "install.sh").read_text()
    assert "APP=saint-malo-companion" in install and "PREFIX=/opt/$APP" in install and "VENV=$PREFIX/venv" in install
    assert "DATA_DIR=/var/lib/$APP" in install and "APP_USER=saint-malo" in install
    assert "--system-site-packages" in install and "python3-picamera2" in install


def test_systemd_analyze_verifies_the_unit(tmp_path):
    analyze = _tool("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze not installed (the configparser checks above still ran)")
    # verify insists that ExecStart exists: point it at a stand-in, everything else unchanged
    stand_in = tmp_path / "companion"
    stand_in.write_text("#!/bin/sh\n")
    stand_in.chmod(stand_in.stat().st_mode | stat.S_IXUSR)
    unit = tmp_path / UNIT.name
    unit.write_text(UNIT.read_text().replace("/opt/saint-malo-companion/venv/bin/companion", str(stand_in)))
    result = subprocess.run([analyze, "verify", str(unit)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    # systemd only warns (exit 0) about unknown keys or bad values: any output at all is a finding
    assert result.stdout.strip() == "" and result.stderr.strip() == "", result.stderr
    # and the check does see mistakes in this environment
    broken = tmp_path / "broken.service"
    broken.write_text(f"[Service]\nExecStart={stand_in}\nRestart=sometimes\n")
    result = subprocess.run([analyze, "verify", str(broken)], capture_output=True, text=True, timeout=60)
    assert "Restart" in result.stderr or "restart" in result.stderr


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_scripts_parse_and_are_strict(script):
    result = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stderr
    text = script.read_text()
    assert text.startswith("#!/usr/bin/env bash\n") and "set -euo pipefail" in text
    assert os.access(script, os.X_OK), f"{script.name} is not executable"


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_scripts_pass_shellcheck(script):
    shellcheck = _tool("shellcheck")
    if shellcheck is None:
        pytest.skip("shellcheck not installed (bash -n still ran)")
    result = subprocess.run([shellcheck, "--severity=style", str(script)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout


def test_install_script_answers_help_and_rejects_unknown_arguments():
    ok = subprocess.run(["bash", str(FIRMWARE / "install.sh"), "--help"], capture_output=True, text=True, timeout=30)
    assert ok.returncode == 0 and "Bookworm" in ok.stdout and "set -euo" not in ok.stdout
    bad = subprocess.run(["bash", str(FIRMWARE / "install.sh"), "--bogus"], capture_output=True, text=True, timeout=30)
    assert bad.returncode == 2 and "--bogus" in bad.stderr


def _fake_nmcli(tmp_path: Path) -> tuple[dict[str, str], Path]:
    """An nmcli that logs its arguments and remembers whether the connection exists."""
    log = tmp_path / "nmcli.log"
    state = tmp_path / "exists"
    fake = tmp_path / "bin" / "nmcli"
    fake.parent.mkdir()
    fake.write_text(
        "#!/bin/sh\n"
        f'echo "$*" >> "{log}"\n'
        'case "$*" in\n'
        f'  "-t -f NAME connection show") [ -f "{state}" ] && echo saint-malo-hotspot; exit 0 ;;\n'
        f'  "connection add"*) touch "{state}" ;;\n'
        f'  "connection delete"*) rm -f "{state}" ;;\n'
        "esac\n"
    )
    fake.chmod(0o755)
    env = {**os.environ, "PATH": f"{fake.parent}:{os.environ['PATH']}"}
    return env, log


def test_hotspot_drives_networkmanager(tmp_path):
    env, log = _fake_nmcli(tmp_path)
    script = str(FIRMWARE / "hotspot.sh")
    on = subprocess.run(["bash", script, "on", "secret-pass"], capture_output=True, text=True, env=env, timeout=30)
    if os.geteuid() != 0:
        assert on.returncode == 1 and "as root" in on.stderr
        return
    assert on.returncode == 0, on.stderr
    calls = log.read_text()
    assert "connection add type wifi ifname wlan0 con-name saint-malo-hotspot" in calls
    assert "802-11-wireless.mode ap" in calls and "ipv4.method shared" in calls
    assert "wifi-sec.psk secret-pass" in calls and "connection up saint-malo-hotspot" in calls
    assert "secret-pass" in on.stdout and "10.42.0.1" in on.stdout
    # on again: no second connection, just refreshed settings
    again = subprocess.run(["bash", script, "on", "another-pass"], capture_output=True, text=True, env=env, timeout=30)
    assert again.returncode == 0 and log.read_text().count("connection add") == 1
    short = subprocess.run(["bash", script, "on", "short"], capture_output=True, text=True, env=env, timeout=30)
    assert short.returncode == 2 and "8 to 63" in short.stderr
    off = subprocess.run(["bash", script, "off"], capture_output=True, text=True, env=env, timeout=30)
    assert off.returncode == 0 and "connection delete saint-malo-hotspot" in log.read_text()
    status = subprocess.run(["bash", script, "status"], capture_output=True, text=True, env=env, timeout=30)
    assert status.returncode == 0 and "not set up" in status.stdout
    wrong = subprocess.run(["bash", script, "sideways"], capture_output=True, text=True, env=env, timeout=30)
    assert wrong.returncode == 2


def test_avahi_service_advertises_the_dashboard():
    root = ET.parse(FIRMWARE / "saint-malo-companion.avahi.service").getroot()
    assert root.tag == "service-group"
    service = root.find("service")
    assert service is not None
    assert service.findtext("type") == "_http._tcp" and service.findtext("port") == "80"


def test_boot_notes_name_the_camera_setting():
    notes = (FIRMWARE / "config.txt.notes").read_text()
    assert "camera_auto_detect=1" in notes
    assert "camera_auto_detect=1" in (FIRMWARE / "install.sh").read_text()


def test_runtime_dependencies_are_locked_and_the_lock_is_used():
    """Every runtime dependency (and what it pulls in) has an exact version in requirements.lock, the lock
    matches this environment, and install.sh and CI install from it."""
    import importlib.util
    import re

    lock = (FIRMWARE.parent / "requirements.lock").read_text()
    pins = dict(re.findall(r"^([a-z0-9][a-z0-9._-]*)==(\S+)$", lock, re.M))
    spec = importlib.util.spec_from_file_location("make_lock", FIRMWARE / "make_lock.py")
    make_lock = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make_lock)
    closure = make_lock.runtime_closure()
    assert {"flask", "numpy", "opencv-python-headless", "pillow", "waitress", "werkzeug"} <= set(closure)
    assert set(pins) == set(closure)
    mismatched = {name: (pins[name], closure[name]) for name in closure if pins[name] != closure[name]}
    assert not mismatched, f"requirements.lock is out of date: {mismatched} (run firmware_config/make_lock.py)"
    assert 'pip" install --quiet -r "$SRC/requirements.lock"' in (FIRMWARE / "install.sh").read_text()
    assert "pip install --quiet -r requirements.lock" in (FIRMWARE.parent / ".ci" / "run").read_text()
