"""The sandbox's own memory (outside moto) is one object: what the controllers keep is there, and reset forgets it."""

from __future__ import annotations

from sandbox.controllers import keda, training
from sandbox.state import STATE


def test_a_queued_job_fault_and_a_served_metric_are_forgotten_on_reset():
    training.inject("state-c", "default", "job-a", "hang", at_step=3)
    keda.keda_state().metrics[("state-c", "sum(up)")] = 4.0
    assert training.describe() == [
        {"cluster": "state-c", "namespace": "default", "job": "job-a", "kind": "hang", "pod": "", "atStep": 3}
    ]
    STATE.reset()
    assert training.describe() == []
    assert keda.keda_state().metrics == {}


def test_each_part_is_one_instance_shared_by_every_caller():
    assert STATE.part(keda.KedaState) is keda.keda_state()
    training.training_state().settings.steps = 7
    assert training.training_state().settings.steps == 7
    training.clear()
    assert training.training_state().settings.steps == training.Settings().steps
