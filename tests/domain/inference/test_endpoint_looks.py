"""How often the wait for an endpoint looks at it, and when it gives up."""

from __future__ import annotations

from launchpod.domain.inference import waiting


def test_the_first_looks_come_soon_then_every_30_seconds_until_15_minutes() -> None:
    assert [waiting.look_after(n) for n in range(6)] == [10, 15, 22, 30, 30, 30]
    looks = next(n for n in range(1000) if waiting.waited(n) >= waiting.GIVE_UP_SECONDS)
    # a look every 10 s took 90 Lambda invocations to give up; this takes about a third of them
    assert 30 <= looks <= 33, looks
    assert waiting.waited(looks - 1) < 15 * 60 <= waiting.waited(looks)
