"""The workspaces themselves: sandbox.aws.grafana describes what AWS does and what the sandbox models."""

from __future__ import annotations

import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from sandbox.aws.iam.trust import role_by_arn, trusts_service
from sandbox.aws.sagemaker.durations import sim_now
from sandbox.aws.state import STATE

TRUSTED_SERVICE = "grafana.amazonaws.com"
VERSION = "10.4"  # the newest Grafana version AMG offers when none is asked for (the sandbox's choice)
_lock = threading.RLock()


class GrafanaError(Exception):
    """A Grafana API error as the service answers it: its code, HTTP status and body fields."""

    def __init__(self, code: str, status: int, message: str, **fields: Any) -> None:
        super().__init__(message)
        self.code, self.status, self.fields = code, status, {"message": message, **fields}


def _invalid(message: str, field_name: str | None = None) -> GrafanaError:
    fields = {"reason": "FIELD_VALIDATION_FAILED" if field_name else "OTHER"}
    if field_name:
        fields["fieldList"] = [{"name": field_name, "message": message}]  # type: ignore[assignment]
    return GrafanaError("ValidationException", 400, message, **fields)


def _not_found(workspace_id: str) -> GrafanaError:
    return GrafanaError(
        "ResourceNotFoundException",
        404,
        f"Workspace {workspace_id} not found.",
        resourceId=workspace_id,
        resourceType="WORKSPACE",
    )


@dataclass
class Workspace:
    id: str
    account: str
    region: str
    name: str | None
    description: str | None
    account_access: str
    permission_type: str
    role_arn: str | None
    providers: list[str]
    data_sources: list[str]
    tags: dict[str, str]
    created: float  # sim seconds
    deleting_since: float | None = None
    created_at: float = field(default_factory=time.time)  # epoch seconds, as the API answers it

    @property
    def arn(self) -> str:
        return f"arn:aws:grafana:{self.region}:{self.account}:/workspaces/{self.id}"

    @property
    def endpoint(self) -> str:
        return f"{self.id}.grafana-workspace.{self.region}.amazonaws.com"

    def status(self, now: float) -> str:
        if self.deleting_since is not None:
            return "DELETING"
        return "ACTIVE" if now - self.created >= _state().settings["create_seconds"] else "CREATING"

    def summary(self, now: float) -> dict[str, Any]:
        """WorkspaceSummary (ListWorkspaces)."""
        found: dict[str, Any] = {
            "id": self.id,
            "endpoint": self.endpoint,
            "grafanaVersion": VERSION,
            "status": self.status(now),
            "created": self.created_at,
            "modified": self.created_at,
            "authentication": self._authentication(),
            "tags": dict(self.tags),
        }
        if self.name:
            found["name"] = self.name
        return found

    def description_of(self, now: float) -> dict[str, Any]:
        """WorkspaceDescription (Create, Describe, Delete)."""
        found = self.summary(now)
        found |= {
            "accountAccessType": self.account_access,
            "permissionType": self.permission_type,
            "dataSources": list(self.data_sources),
        }
        if self.role_arn:
            found["workspaceRoleArn"] = self.role_arn
        if self.description:
            found["description"] = self.description
        return found

    def _authentication(self) -> dict[str, Any]:
        found: dict[str, Any] = {"providers": list(self.providers)}
        if "SAML" in self.providers:
            found["samlConfigurationStatus"] = "NOT_CONFIGURED"  # until the team's IdP is set
        return found


@dataclass
class GrafanaState:
    workspaces: dict[str, Workspace] = field(default_factory=dict)  # id -> workspace
    settings: dict[str, float] = field(default_factory=lambda: {"create_seconds": 300.0, "delete_seconds": 120.0})


def _state() -> GrafanaState:
    return STATE.of(GrafanaState)


def settings() -> dict[str, float]:
    """``create_seconds`` and ``delete_seconds`` (simulated), to change."""
    return _state().settings


def _live(account: str, region: str) -> list[Workspace]:
    now, state = sim_now(), _state()
    for gone in [
        w.id
        for w in state.workspaces.values()
        if w.deleting_since is not None and now - w.deleting_since >= state.settings["delete_seconds"]
    ]:
        del state.workspaces[gone]
    return [w for w in state.workspaces.values() if (w.account, w.region) == (account, region)]


def _role_problem(account: str, role_arn: str) -> str | None:
    role = role_by_arn(account, role_arn)
    if role is None:
        return f"The workspace role {role_arn} does not exist; create it first."
    if trusts_service(role, TRUSTED_SERVICE):
        return None
    return f"The workspace role {role_arn} does not trust {TRUSTED_SERVICE}; add it to the role's trust policy."


def create(account: str, region: str, body: dict[str, Any]) -> dict[str, Any]:
    access, permission = body.get("accountAccessType"), body.get("permissionType")
    providers = list(body.get("authenticationProviders") or [])
    if not providers:
        raise _invalid("authenticationProviders must name AWS_SSO, SAML or both.", "authenticationProviders")
    if "AWS_SSO" in providers:
        raise _invalid(
            "IAM Identity Center is not enabled for this account, so the workspace cannot authenticate with AWS_SSO:"
            " enable IAM Identity Center (in the organization's management account or as an account instance),"
            " or use SAML with your identity provider.",
            "authenticationProviders",
        )
    if access == "ORGANIZATION" and not body.get("workspaceOrganizationalUnits"):
        raise _invalid(
            "accountAccessType ORGANIZATION needs workspaceOrganizationalUnits.", "workspaceOrganizationalUnits"
        )
    role = body.get("workspaceRoleArn")
    if permission == "CUSTOMER_MANAGED" and not role:
        raise _invalid("permissionType CUSTOMER_MANAGED needs a workspaceRoleArn.", "workspaceRoleArn")
    problem = _role_problem(account, str(role)) if role else None
    if problem:
        raise _invalid(problem, "workspaceRoleArn")
    with _lock:
        workspace = Workspace(
            id=f"g-{secrets.token_hex(5)}",
            account=account,
            region=region,
            name=body.get("workspaceName"),
            description=body.get("workspaceDescription"),
            account_access=str(access),
            permission_type=str(permission),
            role_arn=str(role) if role else None,
            providers=providers,
            data_sources=list(body.get("workspaceDataSources") or []),
            tags=dict(body.get("tags") or {}),
            created=sim_now(),
        )
        _state().workspaces[workspace.id] = workspace
        return workspace.description_of(sim_now())


def _one(account: str, region: str, workspace_id: str) -> Workspace:
    found = next((w for w in _live(account, region) if w.id == workspace_id), None)
    if found is None:
        raise _not_found(workspace_id)
    return found


def describe(account: str, region: str, workspace_id: str) -> dict[str, Any]:
    with _lock:
        return _one(account, region, workspace_id).description_of(sim_now())


def delete(account: str, region: str, workspace_id: str) -> dict[str, Any]:
    with _lock:
        workspace = _one(account, region, workspace_id)
        if workspace.deleting_since is None:
            workspace.deleting_since = sim_now()
        return workspace.description_of(sim_now())


def list_all(account: str, region: str) -> list[dict[str, Any]]:
    with _lock:
        now = sim_now()
        return [w.summary(now) for w in _live(account, region)]
