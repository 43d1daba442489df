"""A managed inference endpoint's request body as the tests of its manifests, its use case and the sandbox's
emulated operator send it: endpoint ``qwen`` serving Qwen3-0.6B from the shared S3 storage on ml.g5.12xlarge."""

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
