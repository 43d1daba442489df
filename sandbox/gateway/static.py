"""The web console's static files, as CloudFront serves the built single-page app: a file when one
exists, ``index.html`` for every other path (client-side routes), a landing page when it is not built."""

from __future__ import annotations

import mimetypes
import uuid
from pathlib import Path

from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, Response
from starlette.staticfiles import NotModifiedResponse, StaticFiles

from sandbox.gateway.proxy import error_envelope


class StaticSite:
    """Serves ``web_dir``, checked per request, so a web build that appears later needs no restart."""

    def __init__(self, web_dir: str | Path | None) -> None:
        self._root = Path(web_dir) if web_dir is not None else None

    async def __call__(self, request: Request) -> Response:
        if request.method not in ("GET", "HEAD"):
            return error_envelope(
                405,
                "METHOD_NOT_ALLOWED",
                f"Method {request.method} is not supported here.",
                str(uuid.uuid4()),
                headers={"Allow": "GET, HEAD"},
            )
        root = self._root
        if root is not None and (root / "index.html").is_file():
            found = _safe_file(root, request.url.path) if request.url.path != "/" else None
            # Single-page app: every unknown path is a client-side route.
            path, media = (found, mimetypes.guess_type(found.name)[0]) if found else (root / "index.html", "text/html")
            response = FileResponse(
                path, media_type=media, headers={"Cache-Control": CACHE_CONTROL}, stat_result=path.stat()
            )  # with its stat, the response has its ETag before it is sent
            if _not_modified(request, response):
                return NotModifiedResponse(response.headers)
            return response
        return HTMLResponse(LANDING_PAGE)


# What the deployment stores on every object of the site (cdk/launchpod_cdk/web.py: the BucketDeployment's
# cache_control), so a browser asks again each time and an upgrade's index.html is never read stale from its cache.
CACHE_CONTROL = "no-cache"


def _not_modified(request: Request, response: Response) -> bool:
    """S3 (through CloudFront) answers a GET whose If-None-Match holds the object's ETag, or whose If-Modified-Since
    is not before its Last-Modified, with 304 Not Modified
    (https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetObject.html): Starlette's StaticFiles check."""
    return _CONDITIONAL_GET.is_not_modified(response.headers, request.headers)


_CONDITIONAL_GET = StaticFiles(check_dir=False)  # only its is_not_modified is used


def _safe_file(root: Path, relative: str) -> Path | None:
    candidate = (root / relative.lstrip("/")).resolve()
    if not candidate.is_relative_to(root.resolve()) or not candidate.is_file():
        return None
    return candidate


LANDING_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Launchpod sandbox</title></head>
<body style="font-family: sans-serif; max-width: 40rem; margin: 3rem auto">
<h1>Launchpod sandbox</h1>
<p>The web UI is not built yet (<code>web/dist</code> is missing). The API is up:</p>
<ul>
<li><a href="/api/docs">/api/docs</a> &mdash; the REST API (Swagger UI)</li>
<li><a href="/api/health">/api/health</a> &mdash; API health</li>
</ul>
<p>WebSocket: <code>/ws?token=&lt;token&gt;</code> &middot; MCP: <code>/mcp</code></p>
</body></html>
"""
