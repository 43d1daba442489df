"""API Gateway's Management API (post_to_connection), reached through moto's server with the stage in the path."""

from __future__ import annotations

from typing import Any

from sandbox.aws.core import once, patch


@once
def install_server_management_api_routing() -> None:
    """Route API Gateway Management API calls with a stage in the path to moto's management API.

    moto's server takes a request signed for ``execute-api`` as IoT unless its path starts with
    ``/@connections``, but a WebSocket API's callback URL is ``https://{api-id}.execute-api.{region}
    .amazonaws.com/{stage}/@connections/{connection_id}`` (API Gateway developer guide, "Use
    @connections commands in your backend service"), which functions in execution environments send
    to the server. moto's server-mode route for the staged path does not match either (its regex
    becomes the Werkzeug rule ``/<stage_name>+@connections/...``), so the stage is taken off the path
    as API Gateway takes it off before the management API sees the call."""
    from moto.moto_server.werkzeug_app import DomainDispatcherApplication

    original = DomainDispatcherApplication.infer_service_region_host

    def infer_service_region_host(self: Any, environ: dict[str, Any], path: str) -> str | None:
        auth = environ.get("HTTP_AUTHORIZATION") or ""
        path_info = environ.get("PATH_INFO", "")
        if "/execute-api/aws4_request" in auth and "/@connections/" in path_info:
            region = auth.split("Credential=", 1)[-1].split("/")[2]
            environ["PATH_INFO"] = path_info[path_info.index("/@connections/") :]
            for key in ("RAW_URI", "REQUEST_URI"):  # moto reads the action from the raw path
                raw = environ.get(key) or ""
                if "/@connections/" in raw:
                    environ[key] = raw[raw.index("/@connections/") :]
            return f"execute-api.{region}.amazonaws.com"
        return original(self, environ, path)

    patch(DomainDispatcherApplication, "infer_service_region_host", infer_service_region_host)
