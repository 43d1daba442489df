"""What the sandbox benchmarks share: the command line every one starts from, the sandbox it runs against and a
REST client as the admin."""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterator

import httpx

from sandbox.runtime import Sandbox, free_port


def arguments(doc: str, time_scale: float, runs: int | None = None) -> argparse.ArgumentParser:
    """A parser described by ``doc``'s first line, with ``--time-scale`` (the sandbox's; default ``time_scale``)
    and, when ``runs`` is given, ``--runs`` (how many measurements; default ``runs``). Add a benchmark's own
    options to it before parsing."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--time-scale", type=float, default=time_scale)
    if runs is not None:
        parser.add_argument("--runs", type=int, default=runs)
    return parser


@contextlib.contextmanager
def running(time_scale: float) -> Iterator[Sandbox]:
    """A sandbox started on a free port at ``time_scale``, stopped however the benchmark ends."""
    box = Sandbox(time_scale=time_scale, port=free_port()).start()
    try:
        yield box
    finally:
        box.stop()


def admin_client(box: Sandbox) -> httpx.Client:
    """An HTTP client for the sandbox's REST API with the admin role's token."""
    headers = {"Authorization": f"Bearer {box.tokens.token_for('admin')}"}
    return httpx.Client(base_url=box.url, headers=headers, timeout=60)
