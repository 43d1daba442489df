"""Node actions' rules: batches AWS accepts, and when each node has reached its terminal state."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from launchpod.domain.nodes import actions
from launchpod.domain.nodes.hyperpod_node import HyperPodNode

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def _node(node_id: str, status: str, launched: datetime = T0 - timedelta(days=1), message: str = "") -> HyperPodNode:
    return HyperPodNode(node_id, "workers", "ml.p5.48xlarge", status, message, launched)


def test_requests_are_cut_into_batches_of_25_and_99_for_delete():
    ids = [f"i-{n:017x}" for n in range(60)]
    assert [len(b) for b in actions.batches(ids, actions.REBOOT)] == [25, 25, 10]
    assert [len(b) for b in actions.batches(ids, actions.DELETE)] == [60]
    assert [i for b in actions.batches(ids, actions.REPLACE) for i in b] == ids


def test_a_reboot_is_done_once_the_node_was_seen_down_and_runs_again():
    seen: set[str] = set()
    [pending] = actions.follow(actions.REBOOT, ["i-a"], {"i-a": _node("i-a", "Pending")}, T0, seen, 1)
    assert not pending.done and seen == {"i-a"}
    [done] = actions.follow(actions.REBOOT, ["i-a"], {"i-a": _node("i-a", "Running")}, T0, seen, 2)
    assert done.done and done.ok and done.message == "rebooted; Running"


def test_a_reboot_never_seen_down_is_trusted_only_after_a_few_polls():
    seen: set[str] = set()
    assert not actions.follow(actions.REBOOT, ["i-a"], {"i-a": _node("i-a", "Running")}, T0, seen, 1)[0].done
    assert actions.follow(actions.REBOOT, ["i-a"], {"i-a": _node("i-a", "Running")}, T0, seen, 4)[0].ok


def test_a_node_that_comes_back_failed_or_is_gone_ends_badly():
    seen: set[str] = set()
    nodes = {"i-a": _node("i-a", "Failure", message="GPU 3 failed")}
    failed, gone = actions.follow(actions.REBOOT, ["i-a", "i-b"], nodes, T0, seen, 2)
    assert (failed.done, failed.ok, failed.message) == (True, False, "Failure: GPU 3 failed")
    assert gone.done and not gone.ok and "HyperPod replaced it" in gone.message


def test_a_replacement_is_followed_to_the_new_instance_launched_after_the_action():
    old = {"i-a": _node("i-a", "ShuttingDown"), "i-z": _node("i-z", "Running")}
    assert not actions.follow(actions.REPLACE, ["i-a"], old, T0, set(), 1)[0].done
    new = {"i-n": _node("i-n", "Pending", T0 + timedelta(seconds=5)), "i-z": _node("i-z", "Running")}
    assert actions.follow(actions.REPLACE, ["i-a"], new, T0, set(), 2)[0].replacement == "i-n"
    new["i-n"] = _node("i-n", "Running", T0 + timedelta(seconds=5))
    [done] = actions.follow(actions.REPLACE, ["i-a"], new, T0, set(), 3)
    assert done.ok and done.message == "replaced by i-n; Running"
    new["i-n"] = _node("i-n", "Failure", T0 + timedelta(seconds=5), "capacity")
    [failed] = actions.follow(actions.REPLACE, ["i-a"], new, T0, set(), 4)
    assert not failed.ok and "does not retry a failed replacement" in failed.message


def test_the_summary_names_every_node_and_what_aws_refused():
    outcomes = [actions.NodeOutcome("i-a", True, True, "rebooted; Running")]
    # as StartAction records it
    refused = [{"nodeId": "i-b", "code": "InstanceIdNotFound", "message": "Node i-b not found."}]
    line = actions.summary_line(actions.REBOOT, outcomes, refused)
    assert line == (
        "1 of 2 nodes: reboot done; i-a: rebooted; Running; "
        "i-b refused by AWS (InstanceIdNotFound): Node i-b not found."
    )


def test_the_plan_names_each_node_what_the_action_does_to_it_and_the_aws_call_it_takes():
    ids = [f"i-{n:017x}" for n in range(30)]
    steps = actions.plan(actions.REPLACE, "c1", {"nodeIds": ids, "acknowledgeDataLoss": True}).steps
    assert [s.target for s in steps[:-1]] == [f"node {i}" for i in ids]
    assert (
        steps[0].reason.startswith("BatchReplaceClusterNodes (call 1 of 2)") and "volumes are lost" in steps[0].reason
    )
    assert steps[25].reason.startswith("BatchReplaceClusterNodes (call 2 of 2)")
    assert (steps[-1].action, steps[-1].phase) == ("wait", "WaitNodes")
    [reboot, _] = actions.plan(actions.REBOOT, "c1", {"nodeIds": ids[:1]}).steps
    assert reboot.reason == "BatchRebootClusterNodes: its pods stop while it reboots, about 1-3 minutes"
    check = {"targets": [{"instanceGroup": "gpu"}, {"instanceGroup": "cpu", "nodeIds": ids[:2]}], "checks": ["Stress"]}
    [whole, some, _] = actions.plan(actions.HEALTH_CHECK, "c1", check).steps
    assert whole.target == "every node of group gpu" and some.target == f"nodes {ids[0]}, {ids[1]} of group cpu"
    assert "StartClusterHealthCheck runs Stress" in whole.reason
