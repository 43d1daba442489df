"""The inference operator's emulated pdSpec: a decode and a prefill Deployment that validate as Deployments, with
each side's replicas, GPUs and args, selectors that never overlap, and the Service on the decode side."""

from __future__ import annotations

from launchpod.contracts.inference import CreateEndpointInput
from launchpod.domain.inference import manifests

from sandbox.controllers import inference, model_server
from tests import manifests as schemas
from tests.inference_bodies import managed_qwen

BODY = {
    **managed_qwen(
        {"image": "lmcache/vllm-openai:v0.3.7", "gpus": 1, "args": ["--max-model-len", "4096"]},
        pd={"prefillReplicas": 1, "prefillGpus": 2, "prefillArgs": ["--max-num-seqs", "4"], "routingThreshold": 8},
    ),
    "replicas": 2,
}


def test_a_pd_spec_becomes_a_decode_and_a_prefill_deployment_behind_a_decode_service():
    resource = manifests.managed(CreateEndpointInput(name="c1", **BODY), "bucket", "us-east-1", None)
    resource["metadata"]["uid"] = "u-1"
    (decode, prefill), service = inference._children("InferenceEndpointConfig", resource)
    assert schemas.errors(decode) == [] and schemas.errors(prefill) == [] and schemas.errors(service) == []
    assert (decode["metadata"]["name"], prefill["metadata"]["name"]) == ("qwen", "qwen-prefill")
    assert (decode["spec"]["replicas"], prefill["spec"]["replicas"]) == (2, 1)
    assert decode["spec"]["selector"] != prefill["spec"]["selector"]
    d, p = (x["spec"]["template"]["spec"]["containers"][0] for x in (decode, prefill))
    assert p["args"] == ["--max-model-len", "4096", "--max-num-seqs", "4"] and d["args"] == ["--max-model-len", "4096"]
    assert (p["resources"]["limits"]["nvidia.com/gpu"], d["resources"]["limits"]["nvidia.com/gpu"]) == ("2", "1")
    assert {"name": "PD_ROUTING_THRESHOLD", "value": "8"} in d["env"]
    assert service["spec"]["selector"] == {"app": "qwen", "sagemaker.amazonaws.com/pd-role": "decode"}
    assert prefill["metadata"]["ownerReferences"][0]["uid"] == "u-1"  # deleted with the resource


def _pods(transfer: dict | None = None) -> tuple[dict, dict]:
    """A prefill and a decode pod as the PD endpoint's Deployments make them."""
    body = {
        "endpoint": "sg",
        "kind": "container",
        "instanceType": "ml.g5.12xlarge",
        "container": {"worker": {"image": "lmsysorg/sglang:v0.5.2", "gpus": 1}, "router": True, "pd": transfer or {}},
    }
    decode, prefill = manifests.container(CreateEndpointInput(name="c1", **body))[:2]
    return tuple(  # type: ignore[return-value]
        {
            "metadata": {"name": d["metadata"]["name"], **d["spec"]["template"]["metadata"]},
            "spec": d["spec"]["template"]["spec"],
        }
        for d in (prefill, decode)
    )


def test_the_router_s_handoff_needs_the_bootstrap_port_and_one_transfer_backend():
    prefill, decode = _pods({"transferBackend": "nixl"})
    assert model_server._handoff_fault(prefill, decode) is None
    decode["spec"]["containers"][0]["args"] = ["--disaggregation-mode", "decode"]  # mooncake, SGLang's default
    assert model_server._handoff_fault(prefill, decode) == "transfer backends differ (mooncake, nixl)"
    prefill, decode = _pods()
    prefill["metadata"]["annotations"] = {}
    assert "no bootstrap server" in str(model_server._handoff_fault(prefill, decode))
    assert "does not run --disaggregation-mode prefill" in str(model_server._handoff_fault(decode, decode))
