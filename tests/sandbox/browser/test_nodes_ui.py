"""The Nodes tab in headless Chromium against the real sandbox: nodes with the health agent's verdict
after an injected GPU fault, the node's detail, the incident with the ladder's suggested step, cluster
events, a replacement that asks to confirm the data loss before it starts, and a move of a node to another
group previewed by its dry run."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Locator, Page, Route, expect

from tests.sandbox.browser.conftest import App
from tests.sandbox.browser.selects import pick

pytestmark = pytest.mark.browser
NAME = "ui-nodes"


@pytest.fixture(scope="module")
def faulty(sandbox) -> tuple[str, str]:
    """A HyperPod cluster of two nodes (node recovery off) and an empty group to move nodes to, and the node
    the test will fault."""
    sandbox.create_control_plane(NAME)
    sandbox.install_dependencies(NAME)
    with sandbox.client() as c:
        group = {"name": "gpu", "instanceType": "ml.p5.48xlarge", "instanceCount": 2}
        serve = {"name": "serve", "instanceType": "ml.p5.48xlarge", "instanceCount": 0}  # where Move nodes moves to
        # continuous provisioning: HyperPod keeps cluster events (shown in the tab) only for such clusters
        body = {
            "availabilityZone": "us-east-1a",
            "instanceGroups": [group, serve],
            "nodeRecovery": "None",
            "nodeProvisioningMode": "Continuous",
        }
        done = sandbox.wait_operation(c.post(f"/api/clusters/{NAME}/hyperpod", json=body).json()["operation"]["id"])
        assert done["status"] == "SUCCEEDED", done
        node_id = sorted(n["nodeId"] for n in c.get(f"/api/clusters/{NAME}/nodes").json()["items"])[0]
    return NAME, node_id


def _node(sandbox, name: str, where) -> str:
    """The id of the cluster's first node that ``where`` holds for, as the API lists them."""
    with sandbox.client("viewer") as c:
        return next(n["nodeId"] for n in c.get(f"/api/clusters/{name}/nodes").json()["items"] if where(n))


def _running_row(page: Page, node_id: str) -> Locator:
    """The node's row in the Nodes table, once it shows its pods Running."""
    row = page.get_by_role("table").filter(has_text="Pods").first.get_by_role("row").filter(has_text=node_id)
    expect(row).to_contain_text("Running")
    return row


def _held_until_data_loss_acknowledged(page: Page, action: str) -> tuple[Locator, Locator]:
    """``action``'s dialog and its button: the dialog says the node's data is lost for good, and the button stays
    disabled until that is acknowledged."""
    page.get_by_role("button", name=action).click()
    dialog = page.get_by_role("dialog")
    expect(dialog).to_contain_text("lost for good")
    confirm = dialog.get_by_role("button", name=action)
    expect(confirm).to_be_disabled()
    return dialog, confirm


def _all_phases_done(page: Page, heading: str | None = None) -> None:
    """The confirmed dialog opened the operation it started (named ``heading``), and every phase of it ended."""
    expect(page).to_have_url(re.compile(r"/operations/op-[0-9a-z]+$"))
    if heading:
        expect(page.get_by_role("heading", name=heading)).to_be_visible()
    expect(page.get_by_text("All phases done").first).to_be_visible(timeout=60_000)


def test_the_nodes_tab_shows_health_incident_and_confirms_a_replacement(
    app: App, signed_in: Page, faulty: tuple[str, str], sandbox, shot
) -> None:
    name, node_id = faulty
    page = signed_in
    frames: list[str] = []  # what the gateway sent the page on its WebSocket

    def _listen(ws) -> None:
        ws.on("framereceived", lambda frame: frames.append(str(frame)))

    page.on("websocket", _listen)

    def _wait_frame(reason: str, *words: str) -> None:
        for _ in range(300):  # Playwright delivers the page's events while it waits
            if any(all(word in frame for word in words) for frame in frames):
                return
            page.wait_for_timeout(100)
        raise AssertionError(f"{reason}; frames: {frames}")

    page.goto(f"{app.url}/clusters/{name}?tab=nodes")
    nodes = page.get_by_role("table").filter(has_text="Pods").first
    row = nodes.get_by_role("row").filter(has_text=node_id)
    expect(row).to_contain_text("Schedulable")
    expect(page.get_by_text("No incidents: no node has reported a fault.")).to_be_visible()
    _wait_frame(f"the page never subscribed to cluster:{name}", '"subscribed"', f"cluster:{name}")
    sandbox.faults(nodeFault={"cluster": name, "nodeId": node_id, "kind": "gpu"})
    # the incident is pushed to the page (which reads the list again on the push), not left to its 10 s refresh
    _wait_frame("no incident was pushed on the cluster's topic", '"incident"', f"cluster:{name}")
    pushed = page.get_by_role("row").filter(has_text="NvidiaGPUUnhealthy").filter(has_text="duplicates")
    # the next step in the console's words: where to do it, and a command to copy (no tool names)
    expect(pushed).to_contain_text("In the console: Cluster: Nodes, Reboot")
    expect(row).to_contain_text("UnschedulablePendingReplacement (NvidiaGPUUnhealthy)")
    expect(row).to_contain_text("ml.p5.48xlarge")
    expect(row).to_contain_text("0 / 8")
    expect(nodes.get_by_role("row").filter(has_text="Schedulable").filter(has_not_text="Unschedulable")).to_have_count(
        1
    )
    incident = page.get_by_role("row").filter(has_text="NvidiaGPUUnhealthy").filter(has_text="duplicates")
    expect(incident).not_to_contain_text("reboot_nodes")
    expect(incident.get_by_role("button", name="Copy command")).to_be_visible()
    expect(incident).to_contain_text("open")
    expect(page.get_by_role("row").filter(has_text="is unhealthy").first).to_contain_text(node_id)
    assert page.get_by_text("Not available yet").count() == 0

    row.get_by_role("checkbox").check()
    expect(page.get_by_role("heading", name=f"Node {node_id}")).to_be_visible()
    expect(page.get_by_text("node-health-status=UnschedulablePendingReplacement").first).to_be_visible()
    shot(page, "faulty-node", full_page=True)

    dialog, confirm = _held_until_data_loss_acknowledged(page, "Replace")
    expect(dialog.get_by_role("list", name="What the replace does")).to_have_count(0)  # asked once acknowledged
    dialog.get_by_role("checkbox").check()
    expect(confirm).to_be_enabled()
    plan = dialog.get_by_role("list", name="What the replace does")  # the API's dry run: nothing replaced yet
    expect(plan).to_contain_text(f"replace node {node_id}")
    expect(plan).to_contain_text("its instance volumes are lost")
    shot(page, "confirm-replace")
    confirm.click()
    _all_phases_done(page, "Replace nodes")


def test_reboot_and_delete_from_the_tab_each_ask_first(
    app: App, signed_in: Page, faulty: tuple[str, str], sandbox, shot
) -> None:
    """Reboot says the pods are interrupted and needs no more; delete needs the data loss acknowledged.
    The rebooted node's detail then shows kubelet's Rebooted event."""
    name, faulted = faulty
    other = _node(sandbox, name, lambda n: n["nodeId"] != faulted)
    page = signed_in
    tab = f"{app.url}/clusters/{name}?tab=nodes"
    page.goto(tab)
    row = _running_row(page, other)
    row.get_by_role("checkbox").check()
    page.get_by_role("button", name="Reboot").click()
    dialog = page.get_by_role("dialog")
    expect(dialog).to_contain_text("interrupted while they reboot")
    expect(dialog.get_by_role("checkbox")).to_have_count(0)
    expect(dialog.get_by_role("list", name="What the reboot does")).to_contain_text(f"reboot node {other}")
    dialog.get_by_role("button", name="Reboot").click()
    _all_phases_done(page)

    page.goto(tab)
    row.get_by_role("checkbox").check()
    expect(page.get_by_role("heading", name=f"Node {other}")).to_be_visible()
    rebooted = page.get_by_role("row").filter(has_text=f"Node hyperpod-{other} has been rebooted, boot id")
    expect(rebooted).to_contain_text("Warning")
    shot(page, "rebooted-node", full_page=True)

    # The delete's dry run is asked once the data loss is acknowledged; while it has not answered, there is no
    # plan to confirm and the button stays disabled (the dialog grows when the plan comes: a click sent just
    # then landed beside the button).
    asked: list[bool] = []

    def disabled_while_asked(route: Route) -> None:
        asked.append(confirm.is_disabled())
        shot(page, "delete-plan-pending")
        route.continue_()

    dry_run = re.compile(r".*/nodes/delete\?dryRun=true$")
    page.route(dry_run, disabled_while_asked)
    dialog, confirm = _held_until_data_loss_acknowledged(page, "Delete")
    dialog.get_by_role("checkbox").check()
    expect(dialog.get_by_role("list", name="What the delete does")).to_contain_text(f"delete node {other}")
    expect(confirm).to_be_enabled()
    shot(page, "delete-plan")
    assert asked and all(asked), f"the Delete button was enabled while its dry run was unanswered: {asked}"
    page.unroute(dry_run)
    confirm.click()
    _all_phases_done(page)
    page.goto(tab)
    expect(
        page.get_by_role("table").filter(has_text="Pods").first.get_by_role("row").filter(has_text=other)
    ).to_have_count(0)


def test_move_nodes_from_the_tab_previews_the_plan_then_moves(
    app: App, signed_in: Page, faulty: tuple[str, str], sandbox, shot
) -> None:
    """Move nodes: the selected node, a target group chosen, the data loss acknowledged, the API's dry run
    shown (drain, MoveClusterNodes, wait), then the operation followed to its end."""
    name, _ = faulty
    node = _node(sandbox, name, lambda n: n["instanceGroup"] == "gpu")
    page = signed_in
    page.goto(f"{app.url}/clusters/{name}?tab=nodes")
    _running_row(page, node).get_by_role("checkbox").check()
    page.get_by_role("button", name="Move nodes").click()
    dialog = page.get_by_role("dialog")
    expect(dialog).to_contain_text(f"{node} (from gpu)")
    confirm = dialog.get_by_role("button", name="Move nodes")
    expect(confirm).to_be_disabled()
    dialog.get_by_role("button", name="To group").click()
    shot(page, "move-choose-group")
    pick(page, page.get_by_role("option").filter(has_text="serve"))
    dialog.get_by_role("checkbox").check()
    plan = dialog.get_by_role("list", name="What the move does")  # the API's dry run: nothing drained yet
    expect(plan).to_contain_text(f"drain node {node}")
    expect(plan).to_contain_text("into group serve, keeping the same instance")
    expect(plan).not_to_contain_text("MoveClusterNodes")  # an AWS API name is not words for people
    shot(page, "confirm-move")
    expect(confirm).to_be_enabled()
    confirm.click()
    _all_phases_done(page, "Move nodes")
    shot(page, "moved", full_page=True)
    page.goto(f"{app.url}/clusters/{name}?tab=nodes")
    expect(
        page.get_by_role("table").filter(has_text="Pods").first.get_by_role("row").filter(has_text=node)
    ).to_contain_text("serve")
