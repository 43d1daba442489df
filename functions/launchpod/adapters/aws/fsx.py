"""FSx: the Lustre file systems storage attaches (Launchpod never creates or deletes them)."""

from __future__ import annotations

from typing import Any

from launchpod.adapters.aws.clients import client
from launchpod.adapters.aws.errors import aws_call


def file_system(file_system_id: str) -> dict[str, Any]:
    """The file system as FSx describes it; NotFound (FileSystemNotFound) when there is none."""
    with aws_call(f"fsx:DescribeFileSystems {file_system_id}"):
        return dict(client("fsx").describe_file_systems(FileSystemIds=[file_system_id])["FileSystems"][0])
