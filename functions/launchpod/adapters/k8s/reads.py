"""Read-only Kubernetes calls, translated into Launchpod errors."""

from __future__ import annotations

from kubernetes import client as k8s
from kubernetes.client.exceptions import ApiException
from urllib3.exceptions import HTTPError

from launchpod.adapters.k8s.client import forget, k8s_client_for
from launchpod.domain.errors import PermanentError, RetryableError


def server_version_and_namespaces(cluster: str) -> tuple[str, list[str]]:
    api = k8s_client_for(cluster)
    try:
        version = k8s.VersionApi(api).get_code().git_version
        namespaces = [n.metadata.name for n in k8s.CoreV1Api(api).list_namespace().items]
    except ApiException as exc:
        forget(cluster)
        if exc.status in (401, 403):
            raise PermanentError(
                f"The Kubernetes API of {cluster} refused Launchpod ({exc.status} {exc.reason}); "
                "check the access entry for Launchpod's role."
            ) from exc
        raise RetryableError(f"The Kubernetes API of {cluster} answered {exc.status} {exc.reason}.") from exc
    except HTTPError as exc:
        forget(cluster)
        raise RetryableError(f"Could not reach the Kubernetes API of {cluster}: {exc}.") from exc
    return version, namespaces
