"""Every state machine: valid ASL once its placeholders are filled, Retry/Catch on every Task, and
every Task bound to a registered handler that imports."""

from __future__ import annotations

import importlib
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from launchpod import registry

MACHINES = registry.STATE_MACHINES
FAKE_ARN = "arn:aws:lambda:us-east-1:123456789012:function:launchpod-{}"
FAKE_MACHINE = "arn:aws:states:us-east-1:123456789012:stateMachine:launchpod-{}"
MACHINE_ARNS = {m.name: FAKE_MACHINE.format(m.name) for m in registry.STATE_MACHINES}
START_CHILD = "arn:aws:states:::states:startExecution.sync:2"
CALLBACK = "arn:aws:states:::lambda:invoke.waitForTaskToken"
RETRYABLE = {
    "RetryableError",
    "Lambda.ServiceException",
    "Lambda.AWSLambdaException",
    "Lambda.SdkClientException",
    "Lambda.TooManyRequestsException",
}


def _filled(machine: registry.StateMachineSpec) -> str:
    text = machine.path.read_text()
    arns = {f: FAKE_ARN.format(f) for f in machine.functions}
    for key, value in registry.substitutions(machine, arns, MACHINE_ARNS).items():
        text = text.replace("${" + key + "}", value)
    return text


def _tasks(definition: dict) -> dict[str, dict]:
    """Every Task, including those inside Parallel branches (whose Parallel carries the Catch)."""
    found = {}
    for name, state in definition["States"].items():
        if state["Type"] == "Task":
            found[name] = state
        for branch in state.get("Branches", []):
            for inner, task in _tasks(branch).items():
                found[inner] = {**task, "Catch": state.get("Catch", [])}
    return found


@pytest.mark.parametrize("machine", MACHINES, ids=lambda m: m.name)
def test_every_placeholder_is_filled_by_the_registry(machine, tmp_path):
    filled = _filled(machine)
    assert not re.findall(r"\$\{\w+\}", filled)
    placeholders = set(re.findall(r"\$\{(\w+)\}", machine.path.read_text()))
    assert placeholders == set(registry.substitutions(machine, {f: "x" for f in machine.functions}, MACHINE_ARNS))


@pytest.mark.parametrize("machine", MACHINES, ids=lambda m: m.name)
def test_statelint_accepts_the_filled_definition(machine, tmp_path):
    path = tmp_path / f"{machine.name}.json"
    path.write_text(_filled(machine))
    result = subprocess.run([sys.executable, "-m", "statelint", str(path)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("machine", MACHINES, ids=lambda m: m.name)
def test_every_task_retries_retryable_errors_and_records_failures(machine):
    definition = json.loads(_filled(machine))
    for name, task in _tasks(definition).items():
        retried = {e for r in task.get("Retry", []) for e in r["ErrorEquals"]}
        assert retried >= RETRYABLE, name
        assert "PermanentError" not in retried, name
        if task["Resource"] != START_CHILD:
            # An environment that died or timed out reaches Step Functions as Lambda.Unknown
            # (https://docs.aws.amazon.com/step-functions/latest/dg/bp-lambda-serviceexception.html): phases are
            # re-runnable, so it is retried, a few times only (a function that always times out fails soon).
            unknown = [r for r in task["Retry"] if "Lambda.Unknown" in r["ErrorEquals"]]
            assert unknown and unknown[0]["MaxAttempts"] <= 3, name
        if name == "RecordFailure":
            continue
        catches = task.get("Catch", [])
        assert catches and catches[-1]["ErrorEquals"] == ["States.ALL"], name
        assert catches[-1]["Next"] == "RecordFailure" and catches[-1]["ResultPath"] == "$.error", name
    assert definition["States"]["RecordFailure"]["Next"] == "Failed"


@pytest.mark.parametrize("machine", MACHINES, ids=lambda m: m.name)
def test_every_task_maps_to_a_registered_handler_that_imports(machine):
    definition = json.loads(_filled(machine))
    by_arn = {FAKE_ARN.format(f): registry.FUNCTIONS_BY_NAME[f] for f in machine.functions}
    for name, task in _tasks(definition).items():
        if task["Resource"] == START_CHILD:
            child = task["Parameters"]["StateMachineArn"].rsplit(":launchpod-", 1)[1]
            assert child in machine.children and task["Parameters"]["Input"]["child"] is True, name
            continue
        if task["Resource"] == CALLBACK:
            assert task["Parameters"]["Payload"]["taskToken.$"] == "$$.Task.Token", name
            assert task["TimeoutSeconds"] < definition["TimeoutSeconds"], name  # the fallback poll
            spec = by_arn[task["Parameters"]["FunctionName"]]
        else:
            spec = by_arn[task["Resource"]]
        module, attribute = spec.handler.rsplit(".", 1)
        assert callable(getattr(importlib.import_module(module), attribute)), name
        if spec.phase:  # a declared phase: the Task is named after the phase it records
            assert name == spec.phase, (name, spec.phase)
            continue
        stem = Path(module.replace(".", "/")).name
        assert name.lower() == stem.replace("_", "") or name in ("Finish", "RecordFailure"), (name, stem)


def test_every_state_machine_file_is_registered():
    files = {p.name for p in registry.STATEMACHINES_DIR.glob("*.asl.json")}
    assert files == {m.file for m in MACHINES}
