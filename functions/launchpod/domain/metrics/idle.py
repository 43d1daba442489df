"""Idle capacity: nodes whose every GPU stayed under the idle utilisation for longer than a threshold, and what
they cost meanwhile."""

from __future__ import annotations

from itertools import pairwise

from launchpod.domain.metrics.queries import IDLE_UTILIZATION


def idle_since(points: list[tuple[float, float]]) -> float | None:
    """When the node's busiest GPU last went idle: the first instant after its last busy one (the first instant
    of the range when it never was busy in it); None when it is busy now or has no samples."""
    if not points or points[-1][1] >= IDLE_UTILIZATION:
        return None
    since = points[0][0]
    for (_, value), following in pairwise(points):
        if value >= IDLE_UTILIZATION:
            since = following[0]
    return since
