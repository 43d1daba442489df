"""A phase's name is written once per side and the sides agree: the phases an operation shows (the domain's
PHASES), the Task states of its state machine, and the name each Task's handler records itself under."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest
from launchpod import registry

from tests.statemachines.test_phase_outputs import MACHINES, TASK_SPECS, WORKFLOWS


def _domain_modules() -> list[str]:
    """Every domain module that declares the phases its operations show, found by walking the package, so
    a new operation's module cannot be left out of the check."""
    root = Path(importlib.import_module("launchpod.domain").__file__).parent
    out = []
    for path in sorted(root.rglob("*.py")):
        if re.search(r"^PHASES\b", path.read_text(), re.MULTILINE):
            parts = path.relative_to(root.parent.parent).with_suffix("").parts
            out.append(".".join(p for p in parts if p != "__init__"))
    return out


DOMAIN = _domain_modules()
TASKS = {name: tasks for name, _, tasks in MACHINES}


NOT_PHASES = {"Finish", "RecordFailure", "FollowUp"}  # they end the operation; no phase of it records them


def _recorded_name(spec: registry.FunctionSpec) -> str | None:
    """The name a Task's handler records: a declared phase's, else its phase decorator's: phase("X"), or
    phase(PHASE) with the module's PHASE."""
    if spec.phase:
        return spec.phase
    module = spec.handler.rsplit(".", 1)[0]
    path = WORKFLOWS / (module.removeprefix("launchpod.entrypoints.workflows.").replace(".", "/") + ".py")
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
    for state in tasks:
        spec = TASK_SPECS[name][state]
        recorded = _recorded_name(spec)
        if state in NOT_PHASES:
            assert recorded is None, f"{name}: {state} records itself as phase {recorded}"
        else:
            assert recorded == state, f"{name}: state {state} runs {spec.name}, which records phase {recorded}"


@pytest.mark.parametrize("module", DOMAIN)
def test_the_phases_an_operation_shows_are_tasks_of_its_state_machine(module):
    domain = importlib.import_module(module)
    shown = [phase for phase, _ in domain.PHASES]
    # A module runs one kind (KIND), or several kinds sharing one machine and its phases (KINDS).
    kinds = getattr(domain, "KINDS", None) or (domain.KIND,)
    for kind in kinds:
        machine = registry.STATE_MACHINES_BY_NAME[kind]
        reachable = dict(TASKS[kind])
        for child in machine.children:
            reachable.update(TASKS[child])
        missing = [p for p in shown if p not in reachable]
        assert missing == [], f"{kind} shows phases no Task of its state machine records: {missing}"


def test_every_operation_module_is_checked():
    assert "launchpod.domain.nodes.actions" in DOMAIN and "launchpod.domain.clusters.provision" in DOMAIN
