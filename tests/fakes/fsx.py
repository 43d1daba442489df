"""FSx in memory: the FileSystems port (adapters.aws.fsx)."""

from __future__ import annotations

from typing import Any

from launchpod.domain.errors import NotFound


class FileSystems:
    """FSx's file systems by id as DescribeFileSystems describes them; an id with none is NotFound saying how to
    find one."""

    def __init__(self, systems: dict[str, dict[str, Any]] | None = None) -> None:
        self.systems = systems or {}

    def file_system(self, file_system_id: str) -> dict[str, Any]:
        found = self.systems.get(file_system_id)
        if found is None:
            raise NotFound(
                f"FSx has no file system {file_system_id} in this account and region; give the id of an existing "
                "FSx for Lustre file system (aws fsx describe-file-systems).",
                aws_code="FileSystemNotFound",
            )
        return {"FileSystemId": file_system_id, **found}
