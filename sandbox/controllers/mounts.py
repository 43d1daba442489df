"""The kubelet's volume set-up: a Pod whose Secret or ConfigMap volume names an object that does not exist
in its namespace does not start.

Kubernetes documents it for Secrets ("Configuring Secrets", https://kubernetes.io/docs/concepts/configuration/
secret/#using-a-secret): "If the Secret cannot be fetched (perhaps because it does not exist, ...) the kubelet
periodically retries running that Pod. The kubelet also reports an Event for that Pod, including details of
the problem fetching the Secret", and "None of a Pod's containers will start until all non-optional Secrets
are available"; "Volumes" (https://kubernetes.io/docs/concepts/storage/volumes/#secret): "You must create a
Secret in the Kubernetes API before you can use it". ConfigMaps the same ("ConfigMaps",
https://kubernetes.io/docs/concepts/configuration/configmap/#optional-configmaps: only an ``optional``
reference to a missing ConfigMap lets the Pod start). The same holds for the sources of a projected volume.

The kubelet's words are its volume manager's (kubernetes/kubernetes pkg/volume/util/operationexecutor:
``MountVolume.SetUp failed for volume "<name>" : secret "<secret>" not found``), reported as a Warning event
with reason ``FailedMount``; the Pod stays Pending with its container waiting in ``ContainerCreating``,
and starts once the object appears. Volumes are set up once, before the containers start: a started Pod
keeps running when the object is deleted later. Not modelled: a missing key named in ``items``.
"""

from __future__ import annotations

from typing import Any


def _sources(volume: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(kind, reference) for each Secret or ConfigMap the volume reads."""
    found = []
    if volume.get("secret") is not None:
        secret = volume["secret"]
        found.append(("secret", {"name": secret.get("secretName", ""), "optional": secret.get("optional")}))
    if volume.get("configMap") is not None:
        found.append(("configmap", volume["configMap"]))
    for source in (volume.get("projected") or {}).get("sources") or []:
        if source.get("secret") is not None:
            found.append(("secret", source["secret"]))
        if source.get("configMap") is not None:
            found.append(("configmap", source["configMap"]))
    return found


def failed_mount(emulator: Any, namespace: str, pod_spec: dict[str, Any]) -> str | None:
    """The kubelet's FailedMount message for the first volume it cannot set up, or None when all can be."""
    for volume in pod_spec.get("volumes") or []:
        for kind, ref in _sources(volume):
            if ref.get("optional") is True:
                continue
            name = str(ref.get("name", ""))
            if not emulator.exists(f"v1/{kind}s", namespace, name):
                return f'MountVolume.SetUp failed for volume "{volume.get("name", "")}" : {kind} "{name}" not found'
    return None


def container_creating(container: dict[str, Any]) -> dict[str, Any]:
    """A container whose Pod's volumes are not set up yet: it has not been created."""
    return {
        "name": container["name"],
        "image": container.get("image", ""),
        "imageID": "",
        "ready": False,
        "started": False,
        "restartCount": 0,
        "state": {"waiting": {"reason": "ContainerCreating"}},
    }
