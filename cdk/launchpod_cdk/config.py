"""Where the stack's inputs live and which deploy-time choices it reads from CDK context.

Every path is optional except the registry: a missing Lambda layer, web build or MCP gateway
Dockerfile gives a documented placeholder (or no gateway) so tests synthesize offline and fast.
"""

from __future__ import annotations

import filecmp
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CDK_DIR = ROOT / "cdk"
FUNCTIONS_DIR = ROOT / "functions"
ASSETS_DIR = CDK_DIR / "assets"
LAYER_PLACEHOLDER = ASSETS_DIR / "layer-placeholder"
WEB_PLACEHOLDER = ASSETS_DIR / "web-placeholder"

if str(FUNCTIONS_DIR) not in sys.path:  # the registry lives in the Lambda package
    sys.path.insert(0, str(FUNCTIONS_DIR))

_NOT_SHIPPED = {"__pycache__", ".mypy_cache", ".pytest_cache"}


def _shipped(root: Path) -> set[Path]:
    """The files of a code tree, relative to it, without bytecode and caches."""
    return {
        p.relative_to(root)
        for p in root.rglob("*")
        if p.is_file()
        and p.suffix != ".pyc"
        and not _NOT_SHIPPED & set(p.relative_to(root).parts)
        and not any(part.endswith(".egg-info") for part in p.relative_to(root).parts)
    }


def code_is_current(built: Path, source: Path = FUNCTIONS_DIR) -> bool:
    """True when ``built`` (cdk/build_code.py) holds ``source`` as it is now, file for file."""
    if not (built / "launchpod" / "__init__.py").is_file():
        return False
    files = _shipped(source)
    if files != _shipped(built):
        return False
    _, mismatch, errors = filecmp.cmpfiles(source, built, [str(f) for f in files], shallow=False)
    return not mismatch and not errors


@dataclass(frozen=True)
class Inputs:
    """Everything the stack reads from disk or context; tests build one by hand."""

    prefix: str = "launchpod"
    layer_dir: Path = ROOT / "build" / "layer"
    code_dir: Path = ROOT / "build" / "code"  # functions/ with the runtime's bytecode (make lambda-layer)
    require_layer: bool = False
    web_dist: Path = ROOT / "web" / "dist"
    statemachines_dir: Path = ROOT / "statemachines"
    gateway_context: Path = ROOT
    gateway_dockerfile: str = "mcp_gateway/Dockerfile"
    gateway: bool = True  # False skips the MCP gateway (its image needs Docker at deploy time)
    admin_email: str | None = None
    extra_callback_urls: tuple[str, ...] = ("http://localhost:5173/", "http://127.0.0.1:3099/")
    log_retention_days: int = 90
    # Your own OIDC identity provider instead of the Cognito user pool (cdk/README.md): the issuer URL,
    # the audience of its ID tokens, the claim holding the user's groups and the web app's client id.
    oidc_issuer: str | None = None
    oidc_audience: str | None = None
    oidc_groups_claim: str = "cognito:groups"
    oidc_client_id: str | None = None
    oidc_scopes: tuple[str, ...] = ("openid", "email", "profile")
    # plan-expiring notifications: hours before a training plan in use ends at which its subscribers are told
    # (LAUNCHPOD_PLAN_EXPIRING_HOURS of the watcher; None leaves the function's default, 24)
    plan_expiring_hours: tuple[int, ...] | None = None
    # registry additions used only by tests (functions the stack wires by name, not yet registered)
    extra_functions: tuple = field(default_factory=tuple)

    def __post_init__(self) -> None:
        if self.oidc_issuer is not None:
            if not self.oidc_issuer.startswith("https://"):
                raise SystemExit(f"launchpod:oidcIssuer must be an https:// URL, not {self.oidc_issuer!r}.")
            if not self.oidc_audience:
                raise SystemExit("launchpod:oidcIssuer needs launchpod:oidcAudience (the ID tokens' aud, a client id).")
        if self.plan_expiring_hours is not None and (
            not self.plan_expiring_hours or any(h < 1 for h in self.plan_expiring_hours)
        ):
            raise SystemExit(
                f"launchpod:planExpiringHours takes whole hours of 1 or more, comma separated (e.g. 72,24), not "
                f"{','.join(map(str, self.plan_expiring_hours))!r}."
            )

    @property
    def plan_expiring_setting(self) -> str | None:
        """LAUNCHPOD_PLAN_EXPIRING_HOURS as the watcher reads it ("72,24"), or None for its default."""
        return None if self.plan_expiring_hours is None else ",".join(map(str, self.plan_expiring_hours))

    @property
    def own_idp(self) -> bool:
        """True when the stack trusts your own OIDC issuer and creates no Cognito user pool."""
        return self.oidc_issuer is not None

    @property
    def web_client_id(self) -> str | None:
        return self.oidc_client_id or self.oidc_audience

    @property
    def layer_source(self) -> Path:
        return self.layer_dir if (self.layer_dir / "python").is_dir() else LAYER_PLACEHOLDER

    @property
    def layer_is_placeholder(self) -> bool:
        return self.layer_source == LAYER_PLACEHOLDER

    @property
    def code_is_built(self) -> bool:
        return code_is_current(self.code_dir)

    @property
    def code_source(self) -> Path:
        """What the functions' code asset holds: build/code while it is functions/ as it is now, else functions/."""
        return self.code_dir if self.code_is_built else FUNCTIONS_DIR

    @property
    def web_source(self) -> Path:
        return self.web_dist if (self.web_dist / "index.html").is_file() else WEB_PLACEHOLDER

    @property
    def gateway_enabled(self) -> bool:
        return self.gateway and (self.gateway_context / self.gateway_dockerfile).is_file()

    @classmethod
    def from_context(cls, node) -> Inputs:
        def ctx(key: str, default=None):
            value = node.try_get_context(f"launchpod:{key}")
            return default if value is None else value

        defaults = cls()
        return cls(
            prefix=ctx("prefix", defaults.prefix),
            layer_dir=Path(ctx("layerDir", defaults.layer_dir)),
            code_dir=Path(ctx("codeDir", defaults.code_dir)),
            require_layer=str(ctx("requireLayer", False)).lower() == "true",
            web_dist=Path(ctx("webDist", defaults.web_dist)),
            gateway=str(ctx("gateway", True)).lower() != "false",
            admin_email=ctx("adminEmail"),
            oidc_issuer=ctx("oidcIssuer") or None,
            oidc_audience=ctx("oidcAudience") or None,
            oidc_groups_claim=ctx("oidcGroupsClaim") or defaults.oidc_groups_claim,
            oidc_client_id=ctx("oidcClientId") or None,
            oidc_scopes=tuple(str(ctx("oidcScopes", " ".join(defaults.oidc_scopes))).replace(",", " ").split())
            or defaults.oidc_scopes,
            plan_expiring_hours=_hours(ctx("planExpiringHours")),
            extra_callback_urls=tuple(
                u for u in str(ctx("callbackUrls", ",".join(defaults.extra_callback_urls))).split(",") if u
            ),
        )


def _hours(value: object) -> tuple[int, ...] | None:
    """``launchpod:planExpiringHours``: "72,24" (or a number); None when not given."""
    if value is None or str(value).strip() == "":
        return None
    try:
        return tuple(int(h) for h in str(value).split(",") if h.strip())
    except ValueError:
        raise SystemExit(
            f"launchpod:planExpiringHours takes whole hours, comma separated (e.g. 72,24), not {value!r}."
        ) from None
