"""EC2 as AWS runs it where Launchpod can tell: NAT gateway deletion that takes minutes and blocks what
depends on it (``consistency``), and ids that are "not found" for a moment after they are created
(``propagation``); instance-type offerings looked up by type, not by testing every offering (``offerings``)."""

from __future__ import annotations

from sandbox.aws.ec2 import consistency, offerings, propagation

__all__ = ["install"]


def install() -> None:
    """Apply the three (idempotent)."""
    consistency.install()
    propagation.install()
    offerings.install()
