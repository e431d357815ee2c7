"""Run ``companion serve`` as a real process for the restart and browser tests."""

from __future__ import annotations

import http.cookiejar
import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ServiceProcess:
    def __init__(self, data_dir: Path, *, demo: bool = False, env: dict[str, str] | None = None,
                 port: int | None = None) -> None:
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        args = [sys.executable, "-m", "companion", "serve", "--host", "127.0.0.1", "--port", str(self.port),
                "--data", str(data_dir)]
        if demo:
            args.append("--demo")
        self.log_path = data_dir.parent / f"serve-{self.port}.log"
        self.log = open(self.log_path, "w")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(args, cwd=REPO, stdout=self.log, stderr=subprocess.STDOUT,
                                     env={**os.environ, **(env or {}), "PYTHONUNBUFFERED": "1"})
        self.pin = self._wait_ready()
        jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
        page = self.opener.open(self.url + "/setup", timeout=10).read().decode()
        self.token = re.search(r'name="csrf-token" content="([^"]+)"', page).group(1)

    def _wait_ready(self, timeout: float = 30.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"serve exited: {self.log_path.read_text()}")
            text = self.log_path.read_text()
            m = re.search(r"TABLE PIN: (\d+)", text)
            if m:
                try:
                    urllib.request.urlopen(self.url + "/healthz", timeout=2).read()
                    return m.group(1)
                except OSError:
                    pass
            time.sleep(0.1)
        raise RuntimeError(f"serve did not start: {self.log_path.read_text()}")

    def get_json(self, path: str) -> Any:
        return json.loads(self.opener.open(self.url + path, timeout=10).read())

    def get_text(self, path: str) -> str:
        return self.opener.open(self.url + path, timeout=10).read().decode()

    def post_json(self, path: str, data: dict[str, Any]) -> tuple[int, Any]:
        request = urllib.request.Request(self.url + path, data=json.dumps(data).encode(), method="POST",
                                         headers={"Content-Type": "application/json", "X-CSRF-Token": self.token,
                                                  "X-Table-Pin": self.pin})
        try:
            with self.opener.open(request, timeout=10) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read())

    def kill(self) -> None:
        self.proc.kill()  # SIGKILL: no chance to tidy up
        self.proc.wait(10)
        self.log.close()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        if not self.log.closed:
            self.log.close()
