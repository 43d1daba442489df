"""DynamoDB as the sandbox needs it from moto: each call atomic, as DynamoDB is (``atomicity``), and Query,
Scan and their responses without moto's detours, with the same answers (``speed``)."""

from __future__ import annotations

from sandbox.aws.dynamodb import atomicity, speed

__all__ = ["install"]


def install() -> None:
    """Apply both (idempotent)."""
    atomicity.install_dynamodb_atomicity()
    speed.install()  # Query and Scan compare strings without moto's detour; same answers
