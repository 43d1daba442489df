"""A phase's name is written once per side and the sides agree: the phases an operation shows (the domain's
PHASES), the Task states of its state machine, and the name each Task's handler records itself under."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest
from launchpod import registry

from tests.statemachines.test_phase_outputs import MACHINES, WORKFLOWS

DOMAIN = (
    "launchpod.domain.storage",
    "launchpod.domain.dependencies",
    "launchpod.domain.inference.models",
    "launchpod.domain.inference.endpoints",
    "launchpod.domain.mlflow",
    "launchpod.domain.clusters.hyperpod",
    "launchpod.domain.clusters.provision",
    "launchpod.domain.clusters.teardown",
    "launchpod.domain.clusters.imports",
    "launchpod.domain.clusters.control_plane",
    "launchpod.domain.clusters.software",
    "launchpod.domain.instance_groups.workflow",
    "launchpod.domain.instance_groups.autoscaling",
    "launchpod.domain.features",
)
TASKS = {name: tasks for name, _, tasks in MACHINES}


NOT_PHASES = {"Finish", "RecordFailure", "FollowUp"}  # they end the operation; no phase of it records them


def _recorded_name(path: Path) -> str | None:
    """The name a handler's phase decorator records: phase("X"), or phase(PHASE) with the module's PHASE."""
    source = path.read_text()
    literal = re.search(r'\bphase\("([^"]+)"\)', source)
    if literal:
        return literal[1]
    if not re.search(r"\bphase\(PHASE\)", source):
        return None
    module = ".".join(path.relative_to(WORKFLOWS.parents[2]).with_suffix("").parts)
    return str(importlib.import_module(module).PHASE)


@pytest.mark.parametrize("machine", MACHINES, ids=lambda m: m[0])
def test_each_task_handler_records_itself_under_its_state_name(machine):
    name, _, tasks = machine
    for state, path in tasks.items():
        recorded = _recorded_name(path)
        if state in NOT_PHASES:
            assert recorded is None, f"{name}: {state} records itself as phase {recorded}"
        else:
            assert recorded == state, f"{name}: state {state} runs {path.name}, which records phase {recorded}"


@pytest.mark.parametrize("module", DOMAIN)
def test_the_phases_an_operation_shows_are_tasks_of_its_state_machine(module):
    domain = importlib.import_module(module)
    kind, shown = domain.KIND, [phase for phase, _ in getattr(domain, "PHASES", ())]
    machine = registry.STATE_MACHINES_BY_NAME[kind]
    reachable = dict(TASKS[kind])
    for child in machine.children:
        reachable.update(TASKS[child])
    missing = [p for p in shown if p not in reachable]
    assert missing == [], f"{kind} shows phases no Task of its state machine records: {missing}"
