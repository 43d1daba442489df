"""``launchpod`` as a user runs it against the test sandbox: its own process, a profile per role written by
``launchpod configure --sandbox-tokens`` from the sandbox's tokens file, nothing passed by environment."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.sandbox.conftest import ROOT


class Launchpod:
    def __init__(self, sandbox, home: Path) -> None:
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("LAUNCHPOD_")}
        self.env["LAUNCHPOD_CONFIG_FILE"] = str(home / "config")
        tokens = home / "tokens.json"
        tokens.write_text(json.dumps({"url": sandbox.url, **sandbox.tokens}))
        for role in sandbox.tokens:
            done = self.run("configure", "--sandbox-tokens", str(tokens), "--role", role, "--profile", role)
            assert done.returncode == 0, done.stderr

    def run(self, *argv: str, role: str | None = None) -> subprocess.CompletedProcess[str]:
        profile = ["--profile", role] if role else []
        return subprocess.run(
            [sys.executable, "-m", "sandbox.cli", *argv, *profile],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=240,
        )

    def popen(self, *argv: str, role: str) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [sys.executable, "-m", "sandbox.cli", *argv, "--profile", role],
            cwd=ROOT,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
