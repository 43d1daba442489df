"""provision-cluster's shape: the dependencies child before HyperPod's, storage (only when the request has
storage) alongside HyperPod, then the Deployment add-ons awaited; every child's execution name is its own."""

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


def test_dependencies_come_before_hyperpod_and_storage_runs_alongside_hyperpod_only_when_asked_for():
    states = DEFINITION["States"]
    # HyperPod's health agent and device plugins are on the cluster before its CreateCluster
    assert states["Prepare"]["Next"] == "Dependencies" and states["Dependencies"]["Next"] == "Install"
    hyperpod_branch, storage_branch = states["Install"]["Branches"]
    assert hyperpod_branch["StartAt"] == "HyperPod"
    branch = storage_branch["States"]
    choice = branch[storage_branch["StartAt"]]
    assert choice["Choices"] == [{"Variable": "$.request.storage", "IsPresent": True, "Next": "Storage"}]
    assert branch[choice["Default"]]["Type"] == "Succeed"
    assert branch["Storage"]["Parameters"]["Input"]["request.$"] == "$.request.storage"


def test_deployment_addons_are_awaited_after_hyperpod_in_a_bounded_poll_before_finish():
    states = DEFINITION["States"]
    assert states["Install"]["Next"] == "StartAwaitAddons"
    assert states["StartAwaitAddons"]["Next"] == "AwaitAddons"
    assert states["AwaitAddons"]["Resource"] == "${AwaitAddonsFn}"
    choice = states[states["AwaitAddons"]["Next"]]
    assert choice["Choices"] == [{"Variable": "$.ready", "BooleanEquals": True, "Next": "Finish"}]
    assert states[choice["Default"]] == {"Type": "Wait", "SecondsPath": "$.wait", "Next": "AwaitAddons"}


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
