"""install() and the simulated clock."""

from __future__ import annotations

import time

import pytest

import sandbox.aws
from sandbox.aws import FAULTS


def test_install_again_changes_the_scale_without_stacking_hooks(client, time_scale):
    time_scale(0.02)
    time_scale(0.02)

    client("eks").list_clusters()

    assert sandbox.aws.get_time_scale() == 0.02
    assert FAULTS.count("eks", "ListClusters") == 1  # one gate, not one per install()


def test_sim_seconds_elapsed_divides_real_time_by_the_scale(time_scale):
    time_scale(0.01)
    half_a_second_ago = time.monotonic() - 0.5

    assert sandbox.aws.sim_seconds_elapsed(half_a_second_ago) == pytest.approx(50, abs=5)
    assert sandbox.aws.real_seconds(600) == pytest.approx(6)


def test_time_scale_must_be_positive():
    with pytest.raises(ValueError, match="time_scale"):
        sandbox.aws.install(0)
