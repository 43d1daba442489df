"""The typed hand-over between phases stays true to the state machines: every output model names a Task of a
state machine whose handler returns that model; a phase that requires another's output runs after it in every
machine it is part of; and no phase reads the workflow document's outputs by key."""

from __future__ import annotations

import importlib
import inspect
import json
import re
from pathlib import Path

import pytest
from launchpod import registry
from launchpod.contracts import phase_outputs
from launchpod.contracts.workflows import WorkflowInput

WORKFLOWS = Path(importlib.import_module("launchpod.entrypoints.workflows").__path__[0])
BY_PLACEHOLDER = {f.placeholder: f for f in registry.FUNCTIONS if f.placeholder}
BY_NAME = {m.__name__: m for m in phase_outputs.OUTPUTS}


def _states(definition: dict) -> dict[str, dict]:
    found = {}
    for name, state in definition["States"].items():
        found[name] = state
        for branch in state.get("Branches", []):
            found.update(_states(branch))
    return found


def _edges(definition: dict, after: str | None = None) -> dict[str, set[str]]:
    """state -> the states it can go to next (into a Parallel's branches, and from a branch's end to what
    follows the Parallel)."""
    edges: dict[str, set[str]] = {}
    for name, state in definition["States"].items():
        nxt = {state["Next"]} if "Next" in state else set()
        nxt |= {c["Next"] for c in state.get("Choices", [])} | ({state["Default"]} if "Default" in state else set())
        nxt |= {c["Next"] for c in state.get("Catch", [])}
        if state.get("End") and after:
            nxt.add(after)
        for branch in state.get("Branches", []):
            nxt.add(branch["StartAt"])
            edges.update(_edges(branch, state.get("Next")))
        edges[name] = edges.get(name, set()) | nxt
    return edges


def _reaches(edges: dict[str, set[str]], start: str, goal: str) -> bool:
    seen, todo = set(), [start]
    while todo:
        state = todo.pop()
        if state == goal:
            return True
        if state not in seen:
            seen.add(state)
            todo += edges.get(state, set())
    return False


def _source(spec: registry.FunctionSpec) -> str:
    """What a Task runs: a declared phase's use case function, else its handler's module."""
    if spec.run:
        module, _, function = spec.run.rpartition(".")
        found = getattr(importlib.import_module(f"launchpod.usecases.workflows.{module}"), function)
        return inspect.getsource(found)
    module = spec.handler.rsplit(".", 1)[0]
    relative = module.removeprefix("launchpod.entrypoints.workflows.").replace(".", "/")
    return (WORKFLOWS / f"{relative}.py").read_text()


def _machines() -> list[tuple[str, dict, dict[str, str]]]:
    """(machine, definition, Task name -> the source of what it runs) for every state machine."""
    out = []
    for machine in registry.STATE_MACHINES:
        definition = json.loads(machine.path.read_text())
        tasks = {}
        for name, state in _states(definition).items():
            placeholder = re.fullmatch(r"\$\{(\w+)\}", str(state.get("Resource", "")))
            if placeholder and placeholder[1] in BY_PLACEHOLDER:
                tasks[name] = _source(BY_PLACEHOLDER[placeholder[1]])
                TASK_SPECS.setdefault(machine.name, {})[name] = BY_PLACEHOLDER[placeholder[1]]
        out.append((machine.name, definition, tasks))
    return out


TASK_SPECS: dict[str, dict[str, registry.FunctionSpec]] = {}  # machine -> Task name -> its function
MACHINES = _machines()


@pytest.mark.parametrize("model", phase_outputs.OUTPUTS, ids=lambda m: m.__name__)
def test_every_output_names_a_task_whose_handler_returns_it(model):
    producers = [tasks[model.PHASE] for _, _, tasks in MACHINES if model.PHASE in tasks]
    assert producers, f"{model.__name__}.PHASE = {model.PHASE!r} is no Task of any state machine"
    for source in producers:
        assert f"{model.__name__}(" in source, f"{model.PHASE}'s phase does not return {model.__name__}"


@pytest.mark.parametrize("machine", MACHINES, ids=lambda m: m[0])
def test_a_required_output_comes_from_a_phase_that_runs_before_its_reader(machine):
    name, definition, tasks = machine
    edges = _edges(definition)
    for state, source in tasks.items():
        for model_name in re.findall(r"\brequire\((\w+Output)\)", source):
            producer = BY_NAME[model_name].PHASE
            assert producer in tasks, f"{name}: {state} requires {model_name}, but {producer} is not in {name}"
            assert _reaches(edges, producer, state), f"{name}: {state} can run before {producer}"


def test_no_phase_reads_the_outputs_by_key():
    phases = [WORKFLOWS, Path(importlib.import_module("launchpod.usecases.workflows").__path__[0])]
    readers = [
        p.name
        for folder in phases
        for p in folder.rglob("*.py")
        if p.name != "phase.py" and re.search(r"\.outputs\s*[\[.]", p.read_text())
    ]
    assert readers == []


def test_a_skipped_phase_reads_as_absent_and_a_renamed_field_fails_its_reader():
    doc = WorkflowInput(operationId="op", kind="create-hyperpod", target="c", request={}, outputs={"ClusterRole": {}})
    assert doc.output(phase_outputs.ClusterRoleOutput) is None
    with pytest.raises(LookupError, match="ClusterRole"):
        doc.require(phase_outputs.ClusterRoleOutput)
    doc.outputs["SecurityGroup"] = {"groupId": "sg-1"}
    with pytest.raises(ValueError, match="securityGroupId"):
        doc.require(phase_outputs.SecurityGroupOutput)
    doc.record(phase_outputs.SecurityGroupOutput(securityGroupId="sg-2"))
    assert doc.require(phase_outputs.SecurityGroupOutput).securityGroupId == "sg-2"


def test_what_provision_hands_its_hyperpod_branch_reads_as_the_network():
    """provision-cluster selects only the VPC id of its Network for the HyperPod branch (a ResultSelector)."""
    definition = json.loads(registry.STATE_MACHINES_BY_NAME["provision-cluster"].path.read_text())
    assert definition["States"]["Network"]["ResultSelector"] == {"vpcId.$": "$.outputs.Network.vpcId"}
    doc = WorkflowInput(
        operationId="op", kind="create-hyperpod", target="c", request={}, outputs={"Network": {"vpcId": "v"}}
    )
    assert doc.require(phase_outputs.NetworkOutput).vpcId == "v"
