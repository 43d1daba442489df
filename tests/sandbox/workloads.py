"""Workloads the end-to-end tests and the benchmarks put on a cluster's Kubernetes API to make it scale."""

from __future__ import annotations

from typing import Any


def gpu_deployment(replicas: int = 1) -> dict[str, Any]:
    """Deployment default/gpu-app: ``replicas`` pods of one container asking for one GPU each, which stay
    pending until a GPU node joins."""
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "gpu-app", "namespace": "default"},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": "gpu-app"}},
            "template": {
                "metadata": {"labels": {"app": "gpu-app"}},
                "spec": {
                    "containers": [
                        {
                            "name": "main",
                            "image": "public.ecr.aws/docker/library/python:3.12",
                            "resources": {"limits": {"nvidia.com/gpu": "1"}},
                        }
                    ]
                },
            },
        },
    }
