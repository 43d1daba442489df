"""Workflows: every registry state machine deployed, wired to functions that exist, logged and traced."""

from __future__ import annotations

import json
import re

import pytest
from launchpod import registry

pytestmark = pytest.mark.infra


def _machines(synth) -> dict[str, dict]:
    return {
        r["Properties"]["StateMachineName"].removeprefix("launchpod-"): r
        for r in synth.of_type("AWS::StepFunctions::StateMachine").values()
    }


def _task_resources(definition: dict) -> list[str]:
    found = []
    for state in definition.get("States", {}).values():
        if state.get("Type") == "Task":
            found.append(state.get("Resource", ""))
            found.append(json.dumps(state.get("Parameters", {})))
            found.append(json.dumps(state.get("Arguments", {})))
        for branch in state.get("Branches", []):
            found += _task_resources(branch)
        if "ItemProcessor" in state or "Iterator" in state:
            found += _task_resources(state.get("ItemProcessor") or state["Iterator"])
    return found


def test_every_registry_state_machine_is_deployed_as_standard(synth):
    machines = _machines(synth)
    assert set(machines) == {m.name for m in registry.STATE_MACHINES}
    for machine in machines.values():
        assert machine["Properties"]["StateMachineType"] == "STANDARD"


def test_definitions_are_inlined_and_every_placeholder_is_substituted(synth):
    for name, machine in _machines(synth).items():
        props = machine["Properties"]
        assert "DefinitionS3Location" not in props
        placeholders = set(re.findall(r"\$\{(\w+)\}", props["DefinitionString"]))
        assert placeholders <= set(props["DefinitionSubstitutions"]), name


def test_state_machines_reference_functions_that_exist_and_may_invoke_them(synth):
    functions = synth.of_type("AWS::Lambda::Function")
    for name, machine in _machines(synth).items():
        props = machine["Properties"]
        spec = registry.STATE_MACHINES_BY_NAME[name]
        used = set(re.findall(r"\$\{(\w+)\}", " ".join(_task_resources(json.loads(props["DefinitionString"])))))
        assert used, f"{name} has no Lambda task"
        role = props["RoleArn"]["Fn::GetAtt"][0]
        invocable = json.dumps(
            [
                s["Resource"]
                for p in synth.of_type("AWS::IAM::Policy").values()
                if {"Ref": role} in p["Properties"]["Roles"]
                for s in p["Properties"]["PolicyDocument"]["Statement"]
                if "lambda:InvokeFunction" in s["Action"]
            ]
        )
        children = {registry.machine_placeholder(c): c for c in spec.children}
        for placeholder in used:
            value = props["DefinitionSubstitutions"][placeholder]
            if placeholder in children:
                # a child state machine: its ARN is built from its name, and that machine exists here
                assert children[placeholder] in _machines(synth), f"{name}: child {children[placeholder]} missing"
                continue
            logical = value["Fn::GetAtt"][0]
            assert logical in functions, f"{name}: ${{{placeholder}}} is not a function in this stack"
            fn_name = functions[logical]["Properties"]["FunctionName"].removeprefix("launchpod-")
            assert fn_name in spec.functions, f"{name}: ${{{placeholder}}} -> {fn_name} is not in the registry entry"
            assert logical in invocable, f"{name} may not invoke {fn_name}"


def test_settings_substitutions_come_from_the_registry(synth):
    for name, machine in _machines(synth).items():
        subs = machine["Properties"]["DefinitionSubstitutions"]
        for key, value in registry.STATE_MACHINES_BY_NAME[name].settings.items():
            assert subs[key] == str(value)


def test_state_machines_log_everything_and_trace(synth):
    for machine in _machines(synth).values():
        props = machine["Properties"]
        assert props["LoggingConfiguration"]["Level"] == "ALL"
        assert props["LoggingConfiguration"]["IncludeExecutionData"] is True
        assert props["TracingConfiguration"] == {"Enabled": True}
