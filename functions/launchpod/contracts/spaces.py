"""Development environments: HyperPod Spaces (JupyterLab or Code Editor) per user on a cluster, with the
shared bucket mounted at /data as in the training jobs' pods."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from launchpod.contracts.common import ClusterName, Contract, K8sName
from launchpod.contracts.naming import renamed

SpaceIde = Literal["jupyterlab", "code-editor"]
SpaceState = Literal["Running", "Stopped"]


class CreateSpaceRequest(Contract):
    """A Space: a Workspace (workspace.jupyter.org/v1alpha1) the amazon-sagemaker-spaces add-on runs."""

    spaceName: K8sName
    namespace: K8sName = "default"
    ide: SpaceIde = Field(default="jupyterlab", description="jupyterlab or code-editor")
    displayName: str | None = Field(default=None, min_length=1, max_length=100, description="default: spaceName")
    instanceGroup: str | None = Field(
        default=None, min_length=1, max_length=63, description="the HyperPod instance group to run on; default: any"
    )
    gpus: int = Field(default=0, ge=0, le=8, description="GPUs for the Space (0: a CPU Space)")
    cpu: int = Field(default=2, ge=1, le=192, description="vCPUs requested")
    memoryInGiB: int = Field(
        default=8, ge=1, le=2048, validation_alias=renamed("memoryInGiB", "memoryGiB"), description="memory requested"
    )
    storageClaim: K8sName | None = Field(
        default=None, description="a PersistentVolumeClaim on the shared bucket, mounted at /data as in jobs"
    )
    idleTimeoutMinutes: int | None = Field(
        default=60, ge=1, le=10080, description="stop the Space after this many idle minutes; null: never"
    )


class CreateSpaceInput(CreateSpaceRequest):
    name: ClusterName


class SpaceRef(Contract):
    name: ClusterName
    spaceName: K8sName
    namespace: K8sName = "default"


class UpdateSpaceRequest(Contract):
    desiredStatus: SpaceState = Field(description="Stopped frees the Space's node resources; Running starts it again")


class UpdateSpaceInput(SpaceRef, UpdateSpaceRequest):
    pass


class DeleteSpaceInput(SpaceRef):
    confirm: str = Field(description="the Space's name, typed again: its pod and home are removed")


class ListSpacesInput(Contract):
    name: ClusterName
    namespace: K8sName | None = Field(default=None, description="only Spaces in this namespace")


class SpaceView(Contract):
    cluster: ClusterName
    spaceName: str
    namespace: str
    displayName: str
    ide: str
    owner: str | None = Field(default=None, description="who created it")
    desiredStatus: str
    status: str = Field(description="Starting, Running, Stopping, Stopped, Degraded or Deleting (its conditions)")
    message: str | None = None
    gpus: int = 0
    instanceGroup: str | None = None
    idleTimeoutMinutes: int | None = None
    dataPath: str | None = Field(default=None, description="where the shared bucket is mounted (as in jobs)")
    url: str | None = Field(default=None, description="the Space's web address, when the add-on's web UI is set up")
    connect: str | None = Field(default=None, description="the kubectl command that opens it on localhost:8888")


class SpaceListView(Contract):
    cluster: ClusterName
    items: list[SpaceView]


class DeleteSpaceView(Contract):
    cluster: ClusterName
    spaceName: str
    namespace: str
    deleted: bool
