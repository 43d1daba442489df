"""moto extensions that make FSx for Lustre describe itself as the real service does.

Stock moto 5.2.5 keeps ``LustreConfiguration`` as given, so DescribeFileSystems has no ``MountName``
(the Lustre mount point the FSx CSI driver needs) and no ``Lifecycle``. ``install()`` wraps moto's
``FileSystem.to_dict``: Lustre file systems get an 8-character ``MountName`` (``fsx`` for SCRATCH_1,
as AWS does) and every file system is ``AVAILABLE``. Call it before the first FSx request.
"""

from __future__ import annotations

from typing import Any

from moto.fsx.models import FileSystem
from moto.moto_api._internal import mock_random

from sandbox.aws.core import once, patch

_original_to_dict = FileSystem.to_dict


def _mount_name(fs: FileSystem) -> str:
    name = getattr(fs, "_sandbox_mount_name", None)
    if name is None:
        deployment = (fs.lustre_configuration or {}).get("DeploymentType")
        name = "fsx" if deployment == "SCRATCH_1" else mock_random.get_random_string(8, lower_case=True)
        fs._sandbox_mount_name = name  # type: ignore[attr-defined]
    return name


def _to_dict(self: FileSystem) -> dict[str, Any]:
    dct = _original_to_dict(self)
    dct.setdefault("Lifecycle", "AVAILABLE")
    if self.file_system_type == "LUSTRE":
        dct["LustreConfiguration"] = {**(self.lustre_configuration or {}), "MountName": _mount_name(self)}
    return dct


@once
def install() -> None:
    """Apply the FSx extensions (idempotent). FSx is JSON/X-Amz-Target: no URL registration."""
    patch(FileSystem, "to_dict", _to_dict)


__all__ = ["install"]
