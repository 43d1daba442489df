"""The API Lambda: one powertools resolver with validation on, its routes (lazy_routes.py), its error mapping."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from aws_lambda_powertools.event_handler import CORSConfig, Response, content_types

from launchpod.domain.errors import LaunchpodError
from launchpod.entrypoints.api import auth, errors
from launchpod.entrypoints.api.lazy_routes import LazyResolver
from launchpod.entrypoints.observability import logger, tracer
from launchpod.usecases import invocation

app = LazyResolver(
    enable_validation=True,
    cors=CORSConfig(allow_origin="*", allow_headers=["Authorization", "Content-Type", "Idempotency-Key"]),
)
# Every catalog route, each importing its router module (its contracts, use cases, adapters) on first use.
app.include_table(prefix="/api")
errors.install(app)

_TITLE = "Launchpod API"
_DESCRIPTION = "Control plane for SageMaker HyperPod clusters on Amazon EKS."


def _openapi_json() -> str:
    from launchpod.usecases import health as about  # the version, from the settings: not needed at import

    return app.get_openapi_json_schema(title=_TITLE, version=about.health().version, description=_DESCRIPTION)


@app.get("/api/openapi.json", include_in_schema=False)
def openapi() -> Response[str]:
    return Response(status_code=200, content_type=content_types.APPLICATION_JSON, body=_openapi_json())


@app.get("/api/docs", include_in_schema=False)
def docs() -> Response[str]:
    """Swagger UI over the OpenAPI document. powertools' ``enable_swagger`` imports its OpenAPI models when the
    app is built, ~35 ms of every cold start; the page imports them when it is asked for instead."""
    from aws_lambda_powertools.event_handler.openapi import swagger_ui
    from aws_lambda_powertools.event_handler.openapi.swagger_ui import generate_swagger_html

    assets = Path(swagger_ui.__file__).parent
    page = generate_swagger_html(
        _openapi_json().replace("</", "<\\/"),  # no "</script>" inside the page's script
        (assets / "swagger-ui-bundle.min.js").read_text(encoding="utf-8"),
        (assets / "swagger-ui.min.css").read_text(encoding="utf-8"),
        swagger_base_url="",
        oauth2_config=None,
    )
    return Response(status_code=200, content_type="text/html", body=page)


@logger.inject_lambda_context(correlation_id_path="requestContext.requestId", clear_state=True)
@tracer.capture_lambda_handler
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    invocation.remember(context)  # idempotency records are bounded by its remaining time
    try:
        auth.check_before_validation(event)
        errors.check_body(event)
    except LaunchpodError as exc:
        return errors.early_response(event, exc)
    return errors.wrong_method(event) or app.resolve(event, context)
