"""Tags as AWS takes and answers them: EC2, IAM and SageMaker speak lists of ``{"Key", "Value"}``; Launchpod
keeps a dict, and a resource is its own only when it carries every one of its tags (domain.ownership)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping


def tag_list(tags: Mapping[str, str]) -> list[dict[str, str]]:
    """The dict as a Tags parameter, in key order."""
    return [{"Key": k, "Value": v} for k, v in sorted(tags.items())]


def tag_dict(listed: Iterable[Mapping[str, str]] | None) -> dict[str, str]:
    """An answer's Tags (absent or None: none) as a dict."""
    return {t["Key"]: t["Value"] for t in listed or ()}


def carries(found: Mapping[str, str], tags: Mapping[str, str]) -> bool:
    """Every one of ``tags`` is among ``found`` with its value."""
    return all(found.get(k) == v for k, v in tags.items())
