"""provision-cluster's shape: storage is a child that starts only after the dependencies child succeeded,
only when the request has storage, alongside HyperPod; every child's execution name is its own."""

from __future__ import annotations

import json
import re

from launchpod import registry

DEFINITION = json.loads(registry.STATE_MACHINES_BY_NAME["provision-cluster"].path.read_text())
START_CHILD = "arn:aws:states:::states:startExecution.sync:2"


def _children(states: dict) -> dict[str, dict]:
    found = {}
    for name, state in states.items():
        if state.get("Resource") == START_CHILD:
            found[name] = state
        for branch in state.get("Branches", []):
            found |= _children(branch["States"])
    return found


def test_storage_follows_the_dependencies_only_when_asked_for_while_hyperpod_runs():
    dependencies_branch, hyperpod_branch = DEFINITION["States"]["Install"]["Branches"]
    states = dependencies_branch["States"]
    assert dependencies_branch["StartAt"] == "Dependencies" and states["Dependencies"]["Next"] == "HasStorage"
    choice = states["HasStorage"]
    assert choice["Choices"] == [{"Variable": "$.request.storage", "IsPresent": True, "Next": "Storage"}]
    assert states[choice["Default"]]["Type"] == "Succeed"
    assert states["Storage"]["Parameters"]["Input"]["request.$"] == "$.request.storage"
    assert hyperpod_branch["StartAt"] == "HyperPod"


def test_each_child_runs_its_own_workflow_under_its_own_execution_name():
    children = _children(DEFINITION["States"])
    assert set(children) == {"ControlPlane", "Dependencies", "HyperPod", "Storage"}
    kinds = {c["Parameters"]["Input"]["kind"] for c in children.values()}
    assert kinds == set(registry.STATE_MACHINES_BY_NAME["provision-cluster"].children)
    for child in children.values():
        machine = re.fullmatch(r"\$\{(\w+)\}", child["Parameters"]["StateMachineArn"]).group(1)
        assert machine == registry.machine_placeholder(child["Parameters"]["Input"]["kind"])
    names = {re.search(r"'\{\}-(\w+)-\{\}'", c["Parameters"]["Name.$"]).group(1) for c in children.values()}
    assert len(names) == len(children)
