"""Storage volumes and model downloads into them."""

from __future__ import annotations

from launchpod.registry.specs import FunctionSpec, StateMachineSpec, phase_function

FUNCTIONS: tuple[FunctionSpec, ...] = (
    phase_function(
        "cs-storage-access",
        "StorageAccess",
        "configure_storage.storage_access",
        "configure-storage: the CSI driver add-on is ACTIVE; the FSx for Lustre file system exists",
        actions=("eks:ListAddons", "eks:DescribeAddon", "fsx:DescribeFileSystems"),
    ),
    phase_function(
        "cs-apply-volume",
        "ApplyVolume",
        "configure_storage.apply_volume",
        "configure-storage: PersistentVolume and PersistentVolumeClaim with server-side apply",
        actions=("eks:DescribeCluster",),
        kubernetes=True,
    ),
    phase_function(
        "cs-wait-bound",
        "WaitBound",
        "configure_storage.wait_bound",
        "configure-storage: polls the claim until it is Bound",
        actions=("eks:DescribeCluster",),
        kubernetes=True,
    ),
    phase_function(
        "md-start-download",
        "StartDownload",
        "model_download.start_download",
        "model-download: the download Job applied on CPU with the storage claim mounted",
        actions=("eks:DescribeCluster",),
        kubernetes=True,
    ),
    phase_function(
        "md-wait-download",
        "WaitDownload",
        "model_download.wait_download",
        "model-download: polls the Job to its end, then deletes the token's Secret",
        actions=("eks:DescribeCluster",),
        kubernetes=True,
    ),
)

STATE_MACHINES: tuple[StateMachineSpec, ...] = (
    StateMachineSpec(
        "configure-storage",
        "A Mountpoint for S3 or FSx for Lustre PersistentVolume and claim, applied and Bound",
        functions=("cs-storage-access", "cs-apply-volume", "cs-wait-bound"),
    ),
    StateMachineSpec(
        "model-download",
        "A Hugging Face repository downloaded by a CPU Job into an S3 storage, the Job followed to its end",
        functions=("md-start-download", "md-wait-download"),
    ),
)
