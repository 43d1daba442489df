"""Workloads the end-to-end tests and the benchmarks put on a cluster's Kubernetes API to make it scale."""

from __future__ import annotations

from typing import Any


def deployment(name: str, pod_spec: dict[str, Any], replicas: int = 1, **metadata: Any) -> dict[str, Any]:
    """Deployment default/``name``: ``replicas`` pods labelled app=``name`` with ``pod_spec``; ``metadata`` adds
    to the Deployment's (a uid, a generation)."""
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "default", **metadata},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": pod_spec},
        },
    }


def gpu_deployment(replicas: int = 1) -> dict[str, Any]:
    """Deployment default/gpu-app: ``replicas`` pods of one container asking for one GPU each, which stay
    pending until a GPU node joins."""
    container = {
        "name": "main",
        "image": "public.ecr.aws/docker/library/python:3.12",
        "resources": {"limits": {"nvidia.com/gpu": "1"}},
    }
    return deployment("gpu-app", {"containers": [container]}, replicas)
