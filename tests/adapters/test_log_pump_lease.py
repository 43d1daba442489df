"""One live log pump per topic (the lease in the connections table, moto): of two starters one wins; a
pump that died is replaced once its lease ran out; only the holder renews or releases it."""

from __future__ import annotations

import time

from launchpod.adapters.store.log_pumps import DynamoLogPumps

TOPIC = "logs:c1/default/job-pods-0"


def test_of_two_starters_one_holds_the_lease_until_it_releases(tables):
    pumps = DynamoLogPumps(tables["connections"])
    assert pumps.acquire(TOPIC, "a") is True
    assert pumps.acquire(TOPIC, "b") is False
    assert pumps.acquire("logs:c1/default/other-pod", "b") is True  # other topics are free
    pumps.release(TOPIC, "b")  # not the holder: nothing happens
    assert pumps.acquire(TOPIC, "b") is False
    assert pumps.renew(TOPIC, "a") is True and pumps.renew(TOPIC, "b") is False
    pumps.release(TOPIC, "a")
    assert pumps.acquire(TOPIC, "b") is True


def test_a_lease_that_ran_out_is_taken_over_and_its_old_holder_cannot_renew_it(tables, monkeypatch):
    pumps = DynamoLogPumps(tables["connections"])
    assert pumps.acquire(TOPIC, "dead", seconds=30)
    assert pumps.acquire(TOPIC, "new") is False
    later = time.time() + 31
    monkeypatch.setattr(time, "time", lambda: later)
    assert pumps.acquire(TOPIC, "new") is True
    assert pumps.renew(TOPIC, "dead") is False
