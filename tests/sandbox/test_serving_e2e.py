"""Serving depth end to end, on the shared inference cluster: a prefill/decode (PD) disaggregated SGLang endpoint
is planned (its prefill Deployment named), deploys a decode worker, a prefill worker and the SGLang router in PD
mode, answers through the OpenAI-compatible path (the router hands each request from the prefill worker to the
decode worker, sandbox.controllers.model_server), and its delete removes the prefill side too."""

from __future__ import annotations

import pytest

from tests.sandbox.endpoint_support import chat, delete_endpoint
from tests.sandbox.inference_support import NAME, deploy, get, post, ready_cluster

pytestmark = pytest.mark.e2e

ENDPOINT = "pd-sglang"
SGLANG = {"image": "lmsysorg/sglang:v0.5.2", "gpus": 1, "port": 30001, "args": ["--served-model-name", "qwen3-pd"]}
BODY = {
    "endpoint": ENDPOINT,
    "kind": "container",
    "instanceType": "ml.g5.12xlarge",
    "container": {"worker": SGLANG, "router": True, "pd": {"prefillReplicas": 1, "transferBackend": "nixl"}},
}


@pytest.fixture(scope="module")
def cluster(sandbox) -> str:
    """The shared inference cluster (provisioned by the first test of the group that needs it)."""
    return ready_cluster(sandbox)


def test_a_pd_endpoint_answers_through_the_openai_path_after_the_prefill_to_decode_handoff(sandbox, cluster):
    planned = post(sandbox, "/endpoints?dryRun=true", BODY)
    assert planned.status_code == 200, planned.text
    targets = [s["target"] for s in planned.json()["steps"]]
    assert f"Deployment default/{ENDPOINT}-prefill" in targets and f"Deployment default/{ENDPOINT}-router" in targets

    done = deploy(sandbox, BODY)
    assert done["status"] == "SUCCEEDED", (done.get("message"), done["phases"])
    view = get(sandbox, ENDPOINT)
    assert view["status"] == "Ready" and sorted(p["role"] for p in view["pods"]) == ["decode", "prefill", "router"]

    assert (
        chat(sandbox, NAME, ENDPOINT, "qwen3-pd", "split the work", max_tokens=64)
        == "[qwen3-pd] You said: split the work"
    )

    delete_endpoint(sandbox, NAME, ENDPOINT, reason="the PD endpoint's Deployments (decode, prefill, router) are gone")
