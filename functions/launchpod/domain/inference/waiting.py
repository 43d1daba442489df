"""How often the workflow looks at an endpoint it waits for, and when it gives up."""

from __future__ import annotations

# The wait for an endpoint looks again after 10 s, then 1.5 times longer each time up to 30 s, and gives up after
# 15 minutes: 32 looks where a look every 10 s took 90 (each look is a Lambda invocation and two Step
# Functions state transitions), while an endpoint that comes up in its first minute is seen within seconds.
FIRST_LOOK_SECONDS = 10
LONGEST_LOOK_SECONDS = 30
GIVE_UP_SECONDS = 15 * 60


def look_after(polls: int) -> int:
    """Seconds until the next look at an endpoint that has been looked at ``polls`` times."""
    return int(min(LONGEST_LOOK_SECONDS, FIRST_LOOK_SECONDS * 1.5**polls))


def waited(polls: int) -> int:
    """Seconds waited for an endpoint over its first ``polls`` looks."""
    return sum(look_after(n) for n in range(polls))
