"""Amazon Managed Grafana as a moto service: its backend, its REST-JSON responses (the operations of
sandbox.aws.grafana) and its URLs, registered where moto looks services up (``moto.backends.get_backend`` imports
``moto.<service>``; ``moto.backend_index.backend_url_patterns`` maps a host to a service, for the in-process
stubber and the moto server alike)."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote

from moto import backend_index
from moto.core.base_backend import BackendDict, BaseBackend
from moto.core.responses import BaseResponse

from sandbox.aws.core import once
from sandbox.aws.grafana import workspaces as grafana

SERVICE = "grafana"
url_bases = [r"https?://grafana\.(.+)\.amazonaws\.com"]


class GrafanaBackend(BaseBackend):
    """Per account and region, as moto's backends are; the workspaces live in sandbox.aws.grafana's state."""

    @property
    def _url_module(self) -> Any:  # moto reads url_bases and url_paths from the service's urls module: this one
        return sys.modules[__name__]


grafana_backends = BackendDict(GrafanaBackend, SERVICE)


class GrafanaResponse(BaseResponse):
    def __init__(self) -> None:
        super().__init__(service_name=SERVICE)

    # moto takes a response's status from its headers' "status" (BaseResponse._transform_response)
    def _answer(self, status: int, body: dict[str, Any]) -> tuple[int, dict[str, str], str]:
        return status, {"Content-Type": "application/json", "status": str(status)}, json.dumps(body)

    def _error(self, error: grafana.GrafanaError) -> tuple[int, dict[str, str], str]:
        # REST-JSON errors: the code in x-amzn-ErrorType, the members in the body
        headers = {"Content-Type": "application/json", "x-amzn-ErrorType": error.code, "status": str(error.status)}
        return error.status, headers, json.dumps(error.fields)

    def _workspace_id(self) -> str:
        return unquote(self.parsed_url.path).rstrip("/").rsplit("/", 1)[-1]

    def _workspace(self, status: int, call: Callable[[], dict[str, Any]]) -> tuple[int, dict[str, str], str]:
        """A workspace operation's answer: ``{"workspace": ...}`` with ``status``, or the service's error."""
        try:
            found = call()
        except grafana.GrafanaError as exc:
            return self._error(exc)
        return self._answer(status, {"workspace": found})

    def create_workspace(self) -> tuple[int, dict[str, str], str]:
        return self._workspace(
            202, lambda: grafana.create(self.current_account, self.region, json.loads(self.body or "{}"))
        )

    def describe_workspace(self) -> tuple[int, dict[str, str], str]:
        return self._workspace(200, lambda: grafana.describe(self.current_account, self.region, self._workspace_id()))

    def delete_workspace(self) -> tuple[int, dict[str, str], str]:
        return self._workspace(202, lambda: grafana.delete(self.current_account, self.region, self._workspace_id()))

    def list_workspaces(self) -> tuple[int, dict[str, str], str]:
        return self._answer(200, {"workspaces": grafana.list_all(self.current_account, self.region)})


url_paths = {
    "{0}/workspaces$": GrafanaResponse.dispatch,
    "{0}/workspaces/(?P<workspaceId>[^/]+)$": GrafanaResponse.dispatch,
}


@once
def install() -> None:
    """moto imports a service's backends from ``moto.<service>``: this module stands there for ``grafana``."""
    sys.modules[f"moto.{SERVICE}"] = sys.modules[__name__]
    if not any(service == SERVICE for service, _ in backend_index.backend_url_patterns):
        backend_index.backend_url_patterns.append((SERVICE, re.compile(url_bases[0])))
