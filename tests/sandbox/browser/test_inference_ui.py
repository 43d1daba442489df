"""The Inference tab in headless Chromium against the real sandbox: a vLLM container, and a managed endpoint
(the inference operator's, with an L2 KV cache, kvaware routing and metrics, its model in the cluster's S3
storage), each deployed from the form, opens its operation, is then listed Ready with its pod on the GPU
node, answers a message sent from the page, and is deleted through a dialog that shows its plan; and a
model pool made from the form whose warm worker is assigned to another pool endpoint."""

from __future__ import annotations

import re
import secrets

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.sandbox.browser.conftest import App, as_role, operation_succeeded, pick_segment
from tests.sandbox.browser.selects import pick
from tests.sandbox.browser.test_web_ui import choose
from tests.sandbox.clusters import cluster_body

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def real(sandbox) -> App:
    return App(sandbox.url, dict(sandbox.tokens))


@pytest.fixture(scope="module")
def provisioned(real: App) -> str:
    name = f"ui-inf-{secrets.token_hex(3)}"
    body = {
        **cluster_body(name, {"name": "gpu", "instanceType": "ml.g5.12xlarge", "instanceCount": 1}),
        "storage": {"kind": "s3", "storageName": "shared", "namespace": "default"},
    }
    created = real.api("POST", "/clusters/provision", json=body)
    assert created.status_code == 202, created.text
    assert real.wait_operation(created.json()["operation"]["id"])["status"] == "SUCCEEDED"
    return name


@pytest.fixture(scope="module")
def inference_operator(real: App, provisioned: str) -> str:
    """The HyperPod inference operator enabled on the cluster (set up through the API: the Features tab has
    its own browser test)."""
    enabled = real.api("PATCH", f"/clusters/{provisioned}/features", json={"inferenceOperator": {"enabled": True}})
    assert enabled.status_code == 202, enabled.text
    assert real.wait_operation(enabled.json()["operation"]["id"])["status"] == "SUCCEEDED"
    return provisioned


def delete_from_its_dialog(page: Page, shot) -> None:
    """Delete the open endpoint as a person does: the dialog shows the API's plan before anything is sent."""
    page.get_by_role("button", name="Delete", exact=True).click()
    dialog = page.get_by_role("dialog")
    expect(dialog.get_by_role("list", name="What the delete does").get_by_role("listitem").first).to_be_visible()
    shot(page, "delete-plan")
    dialog.get_by_role("button", name="Delete endpoint").click()


def _deployed_ready(page: Page, real: App, cluster: str, endpoint: str, shot, axe, step: str) -> Locator:
    """The form as filled (screenshot ``step``) breaks no accessibility rule and deploys: its operation succeeds,
    and the Inference tab then lists the endpoint Ready; its row (select it only after reading it: the selected
    endpoint's pods table has rows that name it too)."""
    shot(page, step, full_page=True)
    assert axe(page) == []
    page.get_by_role("button", name="Deploy", exact=True).click()
    operation_succeeded(page)
    page.goto(f"{real.url}/clusters/{cluster}?tab=inference")
    row = page.get_by_role("row").filter(has_text=endpoint)
    expect(row).to_contain_text("Ready")
    return row


def _shows_no_endpoints(page: Page, real: App, cluster: str) -> None:
    """The cluster's Inference tab lists no endpoint."""
    page.goto(f"{real.url}/clusters/{cluster}?tab=inference")
    expect(page.get_by_text("No endpoints yet: deploy one below.")).to_be_visible()


def _answers_from_the_gpu_node(page: Page, message: str, shot_name: str, shot, axe) -> None:
    """The selected endpoint's pods run on a HyperPod node, and a message sent from the page comes back."""
    pods = page.get_by_role("table").filter(has_text="Node")
    expect(pods).to_contain_text("hyperpod-i-")
    page.get_by_label("Message").fill(message)
    page.get_by_role("button", name="Send").click()
    expect(page.get_by_test_id("invoke-answer")).to_contain_text(message)
    shot(page, shot_name, full_page=True)
    assert axe(page) == []


@pytest.fixture
def operator_page(real: App, page: Page) -> Page:
    return as_role(real, page, "operator")


def test_inference_tab_deploys_lists_invokes_and_deletes_an_endpoint(
    real: App, operator_page: Page, provisioned: str, shot, axe
) -> None:
    page = operator_page
    _shows_no_endpoints(page, real, provisioned)
    page.get_by_label("Endpoint name").fill("chat")
    choose(page, "Instance type", "ml.g5.12xlarge")  # the cluster's group types are offered, not typed
    page.get_by_label("GPUs per replica").fill("1")
    row = _deployed_ready(page, real, provisioned, "chat", shot, axe, "form")
    expect(row).to_contain_text("1/1")
    expect(row).to_contain_text("http://chat.default.svc.cluster.local:8000")
    row.get_by_role("radio").check()
    _answers_from_the_gpu_node(page, "hello from the browser", "invoked", shot, axe)

    # the link an endpoint-unhealthy notification carries opens the endpoint itself (docs/notifications.md)
    page.goto(f"{real.url}/clusters/{provisioned}?tab=inference&endpoint=chat")
    expect(page.get_by_role("row").filter(has_text="chat").get_by_role("radio")).to_be_checked()
    expect(page.get_by_role("table").filter(has_text="Node")).to_contain_text("hyperpod-i-")
    shot(page, "opened-by-link", full_page=True)

    delete_from_its_dialog(page, shot)
    operation_succeeded(page)
    _shows_no_endpoints(page, real, provisioned)


def test_inference_tab_deploys_a_managed_endpoint_sees_it_ready_invokes_and_deletes_it(
    real: App, operator_page: Page, inference_operator: str, shot, axe
) -> None:
    page, cluster = operator_page, inference_operator
    _shows_no_endpoints(page, real, cluster)
    pick_segment(page, "Managed (inference operator)")
    page.get_by_label("Endpoint name").fill("qwen-managed")
    choose(page, "Instance type", "ml.g5.12xlarge")  # the cluster's group types are offered, not typed
    page.get_by_label("Image").fill("lmcache/vllm-openai:v0.3.7")
    page.get_by_label("GPUs per replica").fill("1")
    choose(page, "Storage", "shared")
    page.get_by_label("Model folder").fill("models/Qwen/Qwen3-0.6B")
    pick_segment(page, "L2 tiered storage")
    page.get_by_role("button", name="Intelligent routing").click()
    pick(page, page.get_by_role("option", name="kvaware"))
    page.get_by_text("Collect metrics").click()
    page.get_by_label("Metrics port").fill("8000")
    page.get_by_label("Scrape interval (s)").fill("30")
    row = _deployed_ready(page, real, cluster, "qwen-managed", shot, axe, "managed-form")
    expect(row).to_contain_text("managed")
    expect(row).to_contain_text("1/1")
    row.get_by_role("radio").check()
    model = page.get_by_text("Model", exact=True).locator("xpath=..")
    expect(model).to_have_text(re.compile(r"models/Qwen/Qwen3-0\.6B$"))  # the folder of the S3 storage
    metrics = page.get_by_text("Metrics", exact=True).locator("xpath=..")
    expect(metrics).to_have_text(re.compile(r"every 30 s from port 8000 /metrics$"))
    _answers_from_the_gpu_node(page, "hello to the managed endpoint", "managed-invoked", shot, axe)

    delete_from_its_dialog(page, shot)
    operation_succeeded(page)
    _shows_no_endpoints(page, real, cluster)


def test_a_model_pools_warm_worker_is_assigned_to_another_pool_endpoint(
    real: App, operator_page: Page, provisioned: str, shot
) -> None:
    page, cluster = operator_page, provisioned
    page.goto(f"{real.url}/clusters/{cluster}?tab=inference")
    page.get_by_label("Endpoint name").fill("pool-a")
    choose(page, "Instance type", "ml.g5.12xlarge")  # the cluster's group types are offered, not typed
    page.get_by_label("GPUs per replica").fill("1")
    page.get_by_text("Model pool", exact=True).click()
    page.get_by_role("button", name="Deploy", exact=True).click()
    operation_succeeded(page)
    worker = {"image": "vllm/vllm-openai:v0.10.1", "gpus": 1}
    body = {"endpoint": "pool-b", "kind": "container", "instanceType": "ml.g5.12xlarge", "replicas": 0}
    made = real.api(
        "POST",
        f"/clusters/{cluster}/endpoints",
        "operator",
        json={**body, "container": {"worker": worker, "service": "modelPool"}},
    )
    assert made.status_code == 202, made.text
    assert real.wait_operation(made.json()["operation"]["id"])["status"] == "SUCCEEDED"

    page.goto(f"{real.url}/clusters/{cluster}?tab=inference")
    page.get_by_role("row").filter(has_text="pool-a").get_by_role("radio").check()
    (pod,) = [p["name"] for p in real.api("GET", f"/clusters/{cluster}/endpoints/pool-a", "viewer").json()["pods"]]
    pods = page.get_by_role("table").filter(has_text="Node")
    expect(pods).to_contain_text("serves pool-a")
    page.get_by_role("button", name=f"Assign {pod}").click()
    dialog = page.get_by_role("dialog")
    choose_in = dialog.get_by_role("button", name=re.compile("Serve endpoint"))
    choose_in.click()
    pick(page, page.get_by_role("option", name=re.compile("^pool-b")))
    expect(dialog.get_by_role("list", name="What the assignment does").get_by_role("listitem").first).to_be_visible()
    shot(page, "assign-plan")
    dialog.get_by_role("button", name="Assign", exact=True).click()
    expect(page.get_by_text(f"{pod} reassigned")).to_be_visible()
    expect(pods).to_contain_text("serves pool-b")
    shot(page, "assigned", full_page=True)
    served = real.api("GET", f"/clusters/{cluster}/endpoints/pool-a", "viewer").json()["pods"]
    assert [p["serves"] for p in served] == ["pool-b"]
    for endpoint in ("pool-a", "pool-b"):
        gone = real.api("DELETE", f"/clusters/{cluster}/endpoints/{endpoint}", "operator")
        assert real.wait_operation(gone.json()["operation"]["id"])["status"] == "SUCCEEDED"


def test_a_prefill_decode_endpoint_from_the_form_shows_each_side_and_answers(
    real: App, operator_page: Page, provisioned: str, shot, axe
) -> None:
    page, cluster = operator_page, provisioned
    page.goto(f"{real.url}/clusters/{cluster}?tab=inference")
    page.get_by_label("Endpoint name").fill("pd-chat")
    choose(page, "Instance type", "ml.g5.12xlarge")
    page.get_by_label("Image").fill("lmsysorg/sglang:v0.5.2")
    page.get_by_label("Port").fill("30001")
    page.get_by_text("Disaggregate prefill and decode").click()
    page.get_by_label("Prefill workers").fill("1")
    page.get_by_label("GPUs per prefill worker").fill("1")
    _deployed_ready(page, real, cluster, "pd-chat", shot, axe, "pd-form").get_by_role("radio").check()
    pods = page.get_by_role("table").filter(has_text="Node")
    for role in ("prefill worker", "decode worker", "SGLang router"):
        expect(pods).to_contain_text(role)
    page.get_by_label("Message").fill("hello to both halves")
    page.get_by_role("button", name="Send").click()
    # the decode worker answers, naming the served model (the image, no model flag given), not a flag's value
    expect(page.get_by_test_id("invoke-answer")).to_contain_text("[lmsysorg/sglang:v0.5.2] You said: hello to both")
    shot(page, "pd-invoked", full_page=True)
    # the delete dialog has its own test above; this one only leaves the GPUs to what comes next
    assert real.api("DELETE", f"/clusters/{cluster}/endpoints/pd-chat", "operator").status_code == 202


def test_a_multi_node_copy_on_more_nodes_than_the_cluster_runs_is_refused_under_its_field(
    real: App, operator_page: Page, provisioned: str, shot
) -> None:
    """The form spreads an SGLang copy over nodes; on this one-node cluster two nodes are refused, saying how many
    it runs, under the field that asked (the multi-node endpoint that answers is tests/sandbox/test_jobs_e2e.py's)."""
    page = operator_page
    page.goto(f"{real.url}/clusters/{provisioned}?tab=inference")
    # the form takes the cluster's one GPU type once its groups are read (a loaded machine reads them late)
    expect(page.get_by_role("button", name=re.compile("Instance type"))).to_contain_text(
        "ml.g5.12xlarge", timeout=60_000
    )
    page.get_by_label("Endpoint name").fill("big")
    page.get_by_label("Image").fill("lmsysorg/sglang:v0.5.2")
    page.get_by_label("GPUs per replica").fill("4")
    page.get_by_label("Nodes per copy").fill("2")
    page.get_by_text("Pipeline", exact=True).click()
    page.get_by_role("button", name="Deploy", exact=True).click()
    expect(page.get_by_text(re.compile(r"needs 2 ml\.g5\.12xlarge nodes at once")).first).to_be_visible()
    shot(page, "multi-node-refused", full_page=True)
