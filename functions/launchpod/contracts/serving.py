"""Serving depth: prefill/decode disaggregation (PD) of an endpoint's workers, and one model across nodes.

Two kinds of PD, as the engines and the inference operator offer them:

- managed (the HyperPod inference operator, InferenceEndpointConfig v1 ``spec.pdSpec``, operator v3.2, add-on
  v1.3.0-eksbuild.1): two Deployments, prefill and decode; the KV cache moves through LMCache over NIXL, and
  the pdSpec ``args`` are vLLM flags, so a vLLM (LMCache) worker image only
  (https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-inference-release-notes.html).
- container (self-managed SGLang): prefill and decode servers started with ``--disaggregation-mode``, and the
  SGLang router in ``--pd-disaggregation`` mode in front of them
  (https://docs.sglang.ai/advanced_features/pd_disaggregation.html, .../router.html). vLLM's own PD needs an
  external proxy Launchpod does not run (its docs call the feature experimental), so self-managed vLLM PD is
  refused with the managed alternative named.

The decode side is the endpoint's workers (``replicas``, ``worker.gpus``); these fields add the prefill side.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field
from pydantic_core import PydanticCustomError

from launchpod.contracts.common import Contract, refused

Flag = Annotated[str, Field(max_length=512)]


class PdSpec(Contract):
    """Prefill/decode disaggregation: the endpoint's workers decode; these prefill workers take the prompts."""

    prefillReplicas: int = Field(default=1, ge=1, le=16, description="prefill workers (the decode ones are replicas)")
    prefillGpus: int | None = Field(
        default=None, ge=1, le=8, description="GPUs per prefill worker; the worker's gpus when unset"
    )
    prefillArgs: list[Flag] = Field(
        default_factory=list, max_length=32, description="flags added to the prefill workers' args"
    )
    decodeArgs: list[Flag] = Field(
        default_factory=list, max_length=32, description="flags added to the decode workers' args"
    )
    routingThreshold: int | None = Field(
        default=None,
        ge=0,
        le=1_000_000,
        description="managed only: prompts of at least this many tokens take the PD path, shorter ones are "
        "prefilled by the decode worker (the operator's default 4096; 0 = always)",
    )
    transferBackend: Literal["mooncake", "nixl"] | None = Field(
        default=None,
        description="container (SGLang) only: how the KV cache moves from prefill to decode "
        "(--disaggregation-transfer-backend; SGLang's default mooncake)",
    )


# SGLang's multi-node serving (https://docs.sglang.ai/references/multi_node_deployment/multi_node.html): one server
# per node, started with --nnodes, --node-rank and the first node's --dist-init-addr; --tp is the GPUs of every
# node together, or --tp per node with --pp-size nodes (pipeline parallel, SGLang's server arguments). Neither
# the inference operator's InferenceEndpointConfig nor vLLM without a Ray cluster offers it (docs/serving.md).
MULTI_NODE_FLAGS = (
    "--tp",
    "--tp-size",
    "--tensor-parallel-size",
    "--pp-size",
    "--nnodes",
    "--node-rank",
    "--dist-init-addr",
)


class MultiNodeSpec(Contract):
    """One copy of the model across nodes: tensor parallel over every GPU, or pipeline stages per node."""

    nodes: int = Field(ge=2, le=16, description="nodes, one server each; worker.gpus are each node's")
    parallelism: Literal["tensor", "pipeline"] = "tensor"


def multi_node_refusal(repository: str, alongside: bool, args: list[str]) -> PydanticCustomError | None:
    """Why a container endpoint cannot take multiNode: an image that is not SGLang, a router, pd, a model pool or
    autoscaling ``alongside``, or a flag in ``args`` Launchpod sets; None when it can."""
    if "sglang" not in repository:
        return refused(
            "multinode_engine",
            "self-managed multi-node serving is SGLang's (lmsysorg/sglang: --nnodes, --node-rank, "
            "--dist-init-addr); vLLM needs a Ray cluster across the nodes, which Launchpod does not run",
        )
    if alongside:
        return refused(
            "multinode_field",
            "multiNode runs one copy of the model across nodes: without router, pd, modelPool or autoscaling",
        )
    taken = sorted({a.split("=")[0] for a in args} & set(MULTI_NODE_FLAGS))
    if taken:
        return refused(
            "multinode_field",
            f"with multiNode Launchpod sets {', '.join(taken)} from nodes, parallelism and worker.gpus: "
            "drop them from worker.args",
        )
    return None
