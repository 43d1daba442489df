"""DynamoDB as the sandbox needs it from moto: each call atomic, as DynamoDB is (``atomicity``), a Query
read from its partition kept sorted rather than from a walk over the table (``index``), and Query, Scan
and their responses without moto's detours, with the same answers (``speed``)."""

from __future__ import annotations

from sandbox.aws.dynamodb import atomicity, index, speed

__all__ = ["install"]


def install() -> None:
    """Apply the three (idempotent). The index first: atomicity's lock then spans its bookkeeping of writes."""
    index.install()
    atomicity.install_dynamodb_atomicity()
    speed.install()  # Query and Scan compare strings without moto's detour; same answers
