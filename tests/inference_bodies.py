"""Inference endpoint request bodies as the tests of the manifests, the use case and the sandbox's emulated
operator send them, on ml.g5.12xlarge (4 GPUs a node): a container endpoint, and the managed endpoint ``qwen``
serving Qwen3-0.6B from the shared S3 storage."""

from __future__ import annotations

from typing import Any


def managed_qwen(worker: dict[str, Any], **managed: Any) -> dict[str, Any]:
    """The body running ``worker``, with the other ``managed`` fields given (kvCache, autoscaling, pd, ...)."""
    return {
        "endpoint": "qwen",
        "kind": "managed",
        "instanceType": "ml.g5.12xlarge",
        "managed": {"storageName": "shared", "modelPath": "models/Qwen/Qwen3-0.6B", "worker": worker, **managed},
    }


def container_g5(
    endpoint: str, worker: dict[str, Any], replicas: int | None = None, **container: Any
) -> dict[str, Any]:
    """The body running ``worker``, with the other ``container`` fields given (service, router, pd, multiNode, ...)
    and ``replicas`` when given."""
    body = {
        "endpoint": endpoint,
        "kind": "container",
        "instanceType": "ml.g5.12xlarge",
        "container": {"worker": worker, **container},
    }
    return body if replicas is None else {**body, "replicas": replicas}
