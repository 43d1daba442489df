"""EC2 as AWS runs it where Launchpod can tell: NAT gateway deletion that takes minutes and blocks what
depends on it (``consistency``), and ids that are "not found" for a moment after they are created
(``propagation``)."""

from __future__ import annotations

from sandbox.aws.ec2 import consistency, propagation

__all__ = ["install"]


def install() -> None:
    """Apply both (idempotent)."""
    consistency.install()
    propagation.install()
