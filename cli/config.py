"""Where the CLI finds its API URL and token: flags, then the environment, then a named profile.

Profiles live in ``~/.launchpod/config`` (or ``$LAUNCHPOD_CONFIG_FILE``), an INI file with one section per
profile, as the AWS CLI keeps ``~/.aws/config``. ``launchpod configure`` writes one; the file holds bearer
tokens, so it is written readable by its owner only.
"""

from __future__ import annotations

import configparser
import json
import os
from dataclasses import dataclass
from pathlib import Path

DEFAULT_PROFILE = "default"
DEFAULT_API_URL = "http://127.0.0.1:3099"


def config_path() -> Path:
    return Path(os.environ.get("LAUNCHPOD_CONFIG_FILE") or Path.home() / ".launchpod" / "config").expanduser()


def _read(path: Path) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(interpolation=None)
    if path.exists():
        parser.read(path)
    return parser


@dataclass(frozen=True)
class Settings:
    api_url: str
    token: str | None
    profile: str
    # where the URL and the token came from, to say so when a call is refused
    source: str


def resolve(api_url: str | None, token: str | None, profile: str | None) -> Settings:
    """Flags win over ``LAUNCHPOD_API_URL``/``LAUNCHPOD_TOKEN``, which win over the profile
    (``--profile``, else ``$LAUNCHPOD_PROFILE``, else ``default``)."""
    name = profile or os.environ.get("LAUNCHPOD_PROFILE") or DEFAULT_PROFILE
    path = config_path()
    parser = _read(path)
    if profile and not parser.has_section(name):
        known = ", ".join(parser.sections()) or "none"
        raise SystemExit(
            f"launchpod: no profile {name!r} in {path} (profiles: {known}); create it with"
            f" `launchpod configure --profile {name}`."
        )
    stored = parser[name] if parser.has_section(name) else {}
    url = api_url or os.environ.get("LAUNCHPOD_API_URL") or stored.get("api_url") or DEFAULT_API_URL
    found = token or os.environ.get("LAUNCHPOD_TOKEN") or stored.get("token") or None
    source = "--token" if token else "LAUNCHPOD_TOKEN" if os.environ.get("LAUNCHPOD_TOKEN") else f"profile {name}"
    return Settings(api_url=url.rstrip("/"), token=found, profile=name, source=source)


def write_profile(name: str, api_url: str, token: str | None) -> Path:
    """Create or replace one profile, keeping the others; the file is made readable by its owner only."""
    path = config_path()
    parser = _read(path)
    if not parser.has_section(name):
        parser.add_section(name)
    parser[name]["api_url"] = api_url.rstrip("/")
    if token:
        parser[name]["token"] = token
    path.parent.mkdir(parents=True, exist_ok=True)
    # created 0600 before anything is written: the token never sits in a world-readable file
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as handle:
        parser.write(handle)
    path.chmod(0o600)
    return path


def from_tokens_file(path: str, role: str) -> tuple[str, str]:
    """The URL and ``role``'s token from the file ``launchpod sandbox --tokens-file`` writes."""
    info = json.loads(Path(path).expanduser().read_text())
    if role not in info:
        roles = ", ".join(k for k in info if k not in ("url", "awsUrl"))
        raise SystemExit(f"launchpod: {path} has no {role!r} token (it has: {roles}).")
    return str(info["url"]), str(info[role])
