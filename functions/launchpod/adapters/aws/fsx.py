"""FSx: the Lustre file systems storage attaches (Launchpod never creates or deletes them)."""

from __future__ import annotations

from typing import Any

from botocore.exceptions import ClientError

from launchpod.adapters.aws.clients import client
from launchpod.adapters.aws.errors import aws_call, error_code
from launchpod.domain.errors import NotFound


def file_system(file_system_id: str) -> dict[str, Any]:
    """The file system as FSx describes it; NotFound when this account and region have none by that id."""
    missing = NotFound(
        f"FSx has no file system {file_system_id} in this account and region; give the id of an existing "
        "FSx for Lustre file system (aws fsx describe-file-systems).",
        aws_code="FileSystemNotFound",
    )
    with aws_call(f"fsx:DescribeFileSystems {file_system_id}"):
        try:
            found = client("fsx").describe_file_systems(FileSystemIds=[file_system_id])["FileSystems"]
        except ClientError as exc:
            if error_code(exc) == "FileSystemNotFound":
                raise missing from exc
            raise
    if not found:
        raise missing
    return dict(found[0])
