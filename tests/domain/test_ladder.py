"""The remediation ladder's rules on synthetic time: duplicates, reboot once then replace, fleet
instability, stuck chains and failed replacements."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from launchpod.domain.nodes import ladder

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
REASON = (
    "HyperPod Health Monitoring Agent (HMA) has detected fault type NvidiaGPUUnhealthy on this node and is unhealthy."
)


def _event(node: str = "i-0aaaaaaaaaaaaaaa1", at: datetime = T0, boot: str | None = "b1", healthy: bool = False):
    return ladder.HealthEvent(
        "c1", node, healthy, None if healthy else REASON, "Please Replace the Faulty Node.", "None", at, boot
    )


def test_a_pair_of_fault_events_makes_one_incident_and_one_suggestion():
    incidents: list[dict] = []
    first = ladder.decide(incidents, _event(), "suggest", T0)
    second = ladder.decide(incidents, _event(at=T0 + timedelta(seconds=1)), "suggest", T0)
    assert first.opened and not first.duplicate and second.duplicate
    assert len(incidents) == 1 and incidents[0]["events"] == 2 and incidents[0]["duplicates"] == 1
    assert incidents[0]["faultType"] == "NvidiaGPUUnhealthy"
    assert incidents[0]["nextStep"]["tool"] == "reboot_nodes"
    assert [s["mode"] for s in incidents[0]["steps"]] == ["recorded", "suggested"]
    assert first.run is None  # suggest runs nothing


def test_without_a_boot_id_duplicates_are_told_by_time():
    incidents: list[dict] = []
    ladder.decide(incidents, _event(boot=None), "suggest", T0)
    assert ladder.decide(incidents, _event(boot=None, at=T0 + timedelta(seconds=30)), "suggest", T0).duplicate


def test_auto_reboots_once_then_replaces_when_the_node_is_unhealthy_again_after_its_reboot():
    incidents: list[dict] = []
    decision = ladder.decide(incidents, _event(), "auto", T0)
    assert decision.run and decision.run["action"] == "reboot"
    incident = incidents[0]
    ladder.started(incident, decision.run, "op-reboot", T0)
    ladder.outcome(incident, "reboot-nodes", True, "rebooted; Running", None, "op-reboot", T0 + timedelta(minutes=2))
    assert incident["state"] == "watching"
    again = ladder.decide(incidents, _event(boot="b2", at=T0 + timedelta(minutes=5)), "auto", T0 + timedelta(minutes=5))
    assert not again.duplicate and again.run and again.run["action"] == "replace"
    assert again.run["arguments"] == {"name": "c1", "nodeIds": ["i-0aaaaaaaaaaaaaaa1"], "acknowledgeDataLoss": True}
    ladder.started(incident, again.run, "op-replace", T0 + timedelta(minutes=5))
    ladder.outcome(
        incident, "replace-nodes", True, "replaced", "i-0bbbbbbbbbbbbbbb2", "op-replace", T0 + timedelta(minutes=30)
    )
    assert incident["state"] == "resolved" and incident["nodes"] == ["i-0aaaaaaaaaaaaaaa1", "i-0bbbbbbbbbbbbbbb2"]


def test_a_fault_reported_while_the_reboot_runs_waits_and_earns_no_second_reboot():
    incidents: list[dict] = []
    decision = ladder.decide(incidents, _event(), "auto", T0)
    ladder.started(incidents[0], decision.run, "op-reboot", T0)
    during = ladder.decide(
        incidents, _event(boot="b2", at=T0 + timedelta(minutes=1)), "auto", T0 + timedelta(minutes=1)
    )
    assert during.run is None and incidents[0]["pending"]["action"] == "replace"


def test_fleet_instability_found_while_a_reboot_runs_outlasts_the_reboot_ending():
    """The fault came back before the reboot's operation ended (a race HyperPod has too): the alert stays."""
    incidents: list[dict] = []
    replaced = 5  # five replacements on the cluster today, by hand
    decision = ladder.decide(incidents, _event(), "auto", T0, replaced)
    ladder.started(incidents[0], decision.run, "op-reboot", T0)
    later = T0 + timedelta(minutes=1)
    during = ladder.decide(incidents, _event(boot="b2", at=later), "auto", later, replaced)
    assert during.run is None and incidents[0]["state"] == "fleet-instability"
    ladder.outcome(incidents[0], "reboot-nodes", True, "rebooted; Running", None, "op-reboot", later)
    assert incidents[0]["state"] == "fleet-instability"
    assert incidents[0]["nextStep"]["action"] == "alert"
    assert ("reboot", "done") in [(s["action"], s["mode"]) for s in incidents[0]["steps"]]


def test_five_replacements_in_a_day_is_fleet_instability_and_no_sixth_action():
    incidents: list[dict] = []
    for n in range(5):
        node = f"i-0{n:016x}"
        at = T0 + timedelta(hours=n)
        decision = ladder.decide(incidents, _event(node, at), "auto", at)
        incident = incidents[-1]
        ladder.started(incident, decision.run, f"op-r{n}", at)
        ladder.outcome(incident, "reboot-nodes", True, "rebooted", None, f"op-r{n}", at + timedelta(minutes=2))
        again = ladder.decide(
            incidents, _event(node, at + timedelta(minutes=5), boot="b2"), "auto", at + timedelta(minutes=5)
        )
        ladder.started(incident, again.run, f"op-p{n}", at + timedelta(minutes=5))
        ladder.outcome(
            incident, "replace-nodes", True, "replaced", f"i-1{n:016x}", f"op-p{n}", at + timedelta(minutes=30)
        )
    sixth = "i-0ffffffffffffff00"
    at = T0 + timedelta(hours=6)
    first = ladder.decide(incidents, _event(sixth, at), "auto", at)
    ladder.started(incidents[-1], first.run, "op-r6", at)
    ladder.outcome(incidents[-1], "reboot-nodes", True, "rebooted", None, "op-r6", at + timedelta(minutes=2))
    again = ladder.decide(
        incidents, _event(sixth, at + timedelta(minutes=5), boot="b2"), "auto", at + timedelta(minutes=5)
    )
    assert again.run is None
    assert incidents[-1]["state"] == "fleet-instability" and incidents[-1]["nextStep"]["action"] == "alert"
    assert "Fleet instability" in incidents[-1]["steps"][-1]["note"]
    # the recurrence's pair, and any later fault of that node: no new incident, no action
    again = ladder.decide(
        incidents, _event(sixth, at + timedelta(minutes=6), boot="b3"), "auto", at + timedelta(minutes=6)
    )
    assert again.run is None and sum(1 for i in incidents if i["nodeId"] == sixth) == 1
    # a day later the window has moved on: the ladder acts again
    later = T0 + timedelta(days=2)
    fresh = ladder.decide(incidents, _event("i-0eeeeeeeeeeeeee00", later), "auto", later)
    assert fresh.run and fresh.run["action"] == "reboot"


def test_a_failed_replacement_is_not_retried_and_the_ladder_says_so():
    incidents: list[dict] = []
    decision = ladder.decide(incidents, _event(), "auto", T0)
    incident = incidents[0]
    ladder.started(incident, decision.run, "op-1", T0)
    ladder.outcome(incident, "reboot-nodes", True, "rebooted", None, "op-1", T0)
    again = ladder.decide(incidents, _event(boot="b2"), "auto", T0)
    ladder.started(incident, again.run, "op-2", T0)
    ladder.outcome(incident, "replace-nodes", False, "replacement failed", "i-0ccccccccccccccc3", "op-2", T0)
    assert incident["state"] == "replacement-failed"
    assert "does not retry a failed replacement" in incident["nextStep"]["why"]
    # the failed replacement reports faults too: folded into the stopped incident, no automatic action
    later = ladder.decide(incidents, _event("i-0ccccccccccccccc3", boot="b9"), "auto", T0)
    assert later.run is None and len(incidents) == 1 and incident["state"] == "replacement-failed"


def test_a_chain_without_progress_for_90_minutes_is_stuck_and_a_watched_reboot_resolves():
    incidents: list[dict] = []
    ladder.decide(incidents, _event(), "suggest", T0)
    assert ladder.view(incidents[0], T0 + timedelta(minutes=30))["state"] == "open"
    stuck = ladder.view(incidents[0], T0 + timedelta(minutes=91))
    assert stuck["state"] == "stuck" and stuck["nextStep"]["action"] == "alert"
    ladder.outcome(incidents[0], "reboot-nodes", True, "rebooted", None, "op-1", T0)
    assert ladder.view(incidents[0], T0 + timedelta(minutes=61))["state"] == "resolved"


def test_a_replacement_not_healthy_after_30_minutes_is_watched_and_stuck_after_90():
    incidents: list[dict] = []
    decision = ladder.decide(incidents, _event(), "auto", T0)
    incident = incidents[0]
    ladder.started(incident, decision.run, "op-1", T0)
    ladder.outcome(incident, "reboot-nodes", True, "rebooted", None, "op-1", T0 + timedelta(minutes=2))
    again = ladder.decide(incidents, _event(at=T0 + timedelta(minutes=5), boot="b2"), "auto", T0 + timedelta(minutes=5))
    assert again.run and again.run["action"] == "replace"
    ladder.started(incident, again.run, "op-2", T0 + timedelta(minutes=5))
    early = ladder.view(incident, T0 + timedelta(minutes=30))
    assert early["state"] == "acting" and early["steps"][-1]["action"] == "replace"
    late = ladder.view(incident, T0 + timedelta(minutes=36))
    assert late["state"] == "acting" and late["steps"][-1]["action"] == "watch"
    assert "not healthy after 30 min" in late["steps"][-1]["note"] and late["steps"][-1]["operationId"] == "op-2"
    stuck = ladder.view(incident, T0 + timedelta(minutes=96))
    assert stuck["state"] == "stuck" and stuck["nextStep"]["action"] == "alert"


def test_off_records_the_incident_and_suggests_nothing():
    incidents: list[dict] = []
    decision = ladder.decide(incidents, _event(), "off", T0)
    assert decision.run is None and incidents[0]["nextStep"] is None and len(incidents) == 1


def test_a_healthy_event_closes_an_incident_nobody_acted_on():
    incidents: list[dict] = []
    ladder.decide(incidents, _event(), "suggest", T0)
    ladder.decide(incidents, _event(healthy=True, at=T0 + timedelta(minutes=1)), "suggest", T0)
    assert incidents[0]["state"] == "resolved"


def test_an_action_recorded_by_its_own_operation_and_by_the_ladder_counts_once():
    incidents: list[dict] = []
    decision = ladder.decide(incidents, _event(), "auto", T0)
    ladder.started(incidents[0], {"action": "reboot", "why": "reboot started by op-1"}, "op-1", T0)
    ladder.started(incidents[0], decision.run, "op-1", T0)
    assert [s["mode"] for s in incidents[0]["steps"] if s["operationId"] == "op-1"] == ["ran"]
