"""Deploy-time settings given as CDK context reach the functions that read them: the hours before a training
plan's end at which plan-expiring notifications go (launchpod:planExpiringHours -> the watcher's
LAUNCHPOD_PLAN_EXPIRING_HOURS), and a wrong value stops the synthesis with what to give instead."""

from __future__ import annotations

import pytest
from launchpod import registry
from launchpod_cdk.config import Inputs
from launchpod_cdk.stack import WATCHER

from tests.infra.conftest import SETTINGS


class _Node:
    def __init__(self, context: dict[str, str]) -> None:
        self.context = context

    def try_get_context(self, key: str) -> str | None:
        return self.context.get(key)


def _environment(synth, logical: str) -> dict[str, str]:
    name = registry.function_name(logical)
    [function] = [
        r for r in synth.of_type("AWS::Lambda::Function").values() if r["Properties"].get("FunctionName") == name
    ]
    return function["Properties"]["Environment"]["Variables"]


def test_the_plan_expiring_hours_given_reach_the_watcher_and_only_it(synth_oidc, synth):
    assert _environment(synth_oidc, WATCHER)["LAUNCHPOD_PLAN_EXPIRING_HOURS"] == "72,24"
    assert SETTINGS["plan_expiring_hours"] == (72, 24)
    others = [
        name
        for name in registry.FUNCTIONS_BY_NAME
        if name != WATCHER and "LAUNCHPOD_PLAN_EXPIRING_HOURS" in _environment(synth_oidc, name)
    ]
    assert others == []
    # not given: the watcher keeps its own default (24 hours)
    assert "LAUNCHPOD_PLAN_EXPIRING_HOURS" not in _environment(synth, WATCHER)


def test_the_context_value_is_read_as_the_watcher_reads_it():
    inputs = Inputs.from_context(_Node({"launchpod:planExpiringHours": "72, 24"}))
    assert inputs.plan_expiring_setting == "72,24"
    assert Inputs.from_context(_Node({})).plan_expiring_setting is None


@pytest.mark.parametrize("given", ["a day", "0", "24,-1"])
def test_a_value_that_is_not_whole_hours_stops_the_synthesis_saying_what_to_give(given: str):
    with pytest.raises(SystemExit) as stopped:
        Inputs.from_context(_Node({"launchpod:planExpiringHours": given}))
    assert "launchpod:planExpiringHours takes whole hours" in str(stopped.value)
