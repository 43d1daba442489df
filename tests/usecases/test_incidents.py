"""The incidents use cases against an in-memory registry and incidents table: what a user reads (newest
incident first, the ladder's policy), and a policy change that survives concurrent writers or says to retry."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from launchpod.contracts.incidents import LadderPolicyRequest, LadderPolicyView
from launchpod.contracts.operations import NoopView
from launchpod.contracts.plans import PlanView
from launchpod.domain.errors import Conflict, NotFound
from launchpod.domain.nodes import ladder
from launchpod.usecases import incidents

from tests.fakes.clusters import Clusters
from tests.fakes.incidents import IncidentDocs

REASON = "HyperPod Health Monitoring Agent (HMA) has detected fault type NvidiaErrorTerminate on this node."


def _folded(*nodes: str) -> list[dict]:
    """Incidents as the ladder opens them: one per unhealthy node, a minute apart."""
    found: list[dict] = []
    start = datetime.now(UTC) - timedelta(minutes=10)
    for i, node in enumerate(nodes):
        at = start + timedelta(minutes=i)
        event = ladder.HealthEvent("c1", node, False, REASON, "Reboot", "None", at)
        ladder.decide(found, event, "suggest", at)
    return found


def _ports(docs: IncidentDocs) -> incidents.IncidentPorts:
    return incidents.IncidentPorts(clusters=Clusters({"c1": {"name": "c1"}}), incidents=docs)


def test_incidents_are_listed_newest_first_under_the_default_policy():
    docs = IncidentDocs({"c1": {"policy": None, "incidents": _folded("i-0aaaaaaaaaaaaaaa1", "i-0bbbbbbbbbbbbbbb2")}})
    listed = incidents.list_incidents("c1", ports=_ports(docs))
    assert listed.policy == "suggest"
    assert [(i.nodeId, i.state, i.faultType) for i in listed.items] == [
        ("i-0bbbbbbbbbbbbbbb2", "open", "NvidiaErrorTerminate"),
        ("i-0aaaaaaaaaaaaaaa1", "open", "NvidiaErrorTerminate"),
    ]


def test_a_cluster_launchpod_does_not_know_is_not_found():
    with pytest.raises(NotFound, match=r"^Launchpod has no cluster c2\.$") as refused:
        incidents.list_incidents("c2", ports=_ports(IncidentDocs()))
    assert refused.value.details == [{"field": None, "rule": "next_step", "message": "GET /api/clusters"}]
    with pytest.raises(NotFound):
        incidents.set_policy("c2", LadderPolicyRequest(policy="auto"), False, ports=_ports(IncidentDocs()))


def test_the_policy_is_written_again_after_a_concurrent_writer_and_the_incidents_stay():
    docs = IncidentDocs({"c1": {"policy": None, "incidents": _folded("i-0aaaaaaaaaaaaaaa1")}}, contended=3)
    assert incidents.set_policy("c1", LadderPolicyRequest(policy="auto"), False, ports=_ports(docs)).policy == "auto"
    listed = incidents.list_incidents("c1", ports=_ports(docs))
    assert (listed.policy, len(listed.items), docs.writes) == ("auto", 1, 1)


def test_a_policy_still_contended_after_eight_tries_asks_to_set_it_again():
    docs = IncidentDocs(contended=8)
    with pytest.raises(Conflict, match=r"The incidents of c1 kept changing; set the policy again\."):
        incidents.set_policy("c1", LadderPolicyRequest(policy="off"), False, ports=_ports(docs))
    assert docs.writes == 0


def test_the_policy_it_already_has_is_noop_and_writes_nothing():
    docs = IncidentDocs({"c1": {"policy": "auto", "incidents": []}})
    again = incidents.set_policy("c1", LadderPolicyRequest(policy="auto"), False, ports=_ports(docs))
    assert again == NoopView(message="The ladder policy of c1 is already auto; no changes.")
    never_set = IncidentDocs({"c1": {"policy": None, "incidents": []}})
    default = incidents.set_policy("c1", LadderPolicyRequest(policy="suggest"), False, ports=_ports(never_set))
    assert isinstance(default, NoopView) and docs.writes == never_set.writes == 0


def test_a_dry_run_answers_the_step_and_leaves_the_policy_as_it_was():
    docs = IncidentDocs({"c1": {"policy": None, "incidents": _folded("i-0aaaaaaaaaaaaaaa1")}})
    planned = incidents.set_policy("c1", LadderPolicyRequest(policy="auto"), True, ports=_ports(docs))
    assert isinstance(planned, PlanView)
    (step,) = planned.steps
    assert (step.action, step.target) == ("update", "remediation ladder policy of c1")
    assert step.reason.startswith("policy is suggest; the request asks for auto: the next command runs as an")
    assert incidents.list_incidents("c1", ports=_ports(docs)).policy == "suggest" and docs.writes == 0
    applied = incidents.set_policy("c1", LadderPolicyRequest(policy="auto"), False, ports=_ports(docs))
    assert applied == LadderPolicyView(cluster="c1", policy="auto") and docs.writes == 1
