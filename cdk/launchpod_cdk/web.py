"""Web: the single-page app in a private bucket behind CloudFront (origin access control).

``config.json`` is written at deploy time next to the app with the URLs and Cognito settings of
this stack, so one build of ``web/dist`` serves every deployment. Without a build, a placeholder
page is deployed (see cdk/README.md).
"""

from __future__ import annotations

from pathlib import Path

from aws_cdk import Duration
from aws_cdk import aws_cloudfront as cloudfront
from aws_cdk import aws_cloudfront_origins as origins
from aws_cdk import aws_s3 as s3
from aws_cdk import aws_s3_deployment as s3deploy
from constructs import Construct

from launchpod_cdk.data import private_bucket

# Same-origin app; the API, WebSocket and Cognito endpoints are the only other places it talks to.
CSP = (
    "default-src 'self'; "
    "connect-src 'self' https://*.amazonaws.com wss://*.amazonaws.com https://*.amazoncognito.com; "
    "img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; "
    "font-src 'self' data:; frame-ancestors 'none'; base-uri 'self'; form-action 'self' https://*.amazoncognito.com"
)


def csp(identity_origin: str | None = None) -> str:
    """The policy, also allowing your own identity provider (discovery and token requests) when given."""
    if not identity_origin:
        return CSP
    return CSP.replace("https://*.amazoncognito.com", f"https://*.amazoncognito.com {identity_origin}")


class Web(Construct):
    def __init__(
        self, scope: Construct, id: str, *, prefix: str, log_bucket: s3.IBucket, identity_origin: str | None = None
    ) -> None:
        super().__init__(scope, id)
        self.bucket = private_bucket(
            self,
            "Site",
            server_access_logs_bucket=log_bucket,
            server_access_logs_prefix="web/",
            lifecycle_rules=[s3.LifecycleRule(noncurrent_version_expiration=Duration.days(30))],
        )
        headers = cloudfront.ResponseHeadersPolicy(
            self,
            "SecurityHeaders",
            response_headers_policy_name=f"{prefix}-security-headers",
            security_headers_behavior=cloudfront.ResponseSecurityHeadersBehavior(
                content_security_policy=cloudfront.ResponseHeadersContentSecurityPolicy(
                    content_security_policy=csp(identity_origin), override=True
                ),
                strict_transport_security=cloudfront.ResponseHeadersStrictTransportSecurity(
                    access_control_max_age=Duration.days(365), include_subdomains=True, preload=True, override=True
                ),
                content_type_options=cloudfront.ResponseHeadersContentTypeOptions(override=True),
                frame_options=cloudfront.ResponseHeadersFrameOptions(
                    frame_option=cloudfront.HeadersFrameOption.DENY, override=True
                ),
                referrer_policy=cloudfront.ResponseHeadersReferrerPolicy(
                    referrer_policy=cloudfront.HeadersReferrerPolicy.STRICT_ORIGIN_WHEN_CROSS_ORIGIN, override=True
                ),
                xss_protection=cloudfront.ResponseHeadersXSSProtection(protection=True, mode_block=True, override=True),
            ),
        )
        self.distribution = cloudfront.Distribution(
            self,
            "Cdn",
            comment=f"{prefix} web UI",
            default_root_object="index.html",
            default_behavior=cloudfront.BehaviorOptions(
                origin=origins.S3BucketOrigin.with_origin_access_control(self.bucket),
                viewer_protocol_policy=cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
                response_headers_policy=headers,
                cache_policy=cloudfront.CachePolicy.CACHING_OPTIMIZED,
            ),
            # Client-side routes: unknown paths serve the app, which renders its own 404.
            error_responses=[
                cloudfront.ErrorResponse(http_status=403, response_http_status=200, response_page_path="/index.html"),
                cloudfront.ErrorResponse(http_status=404, response_http_status=200, response_page_path="/index.html"),
            ],
            minimum_protocol_version=cloudfront.SecurityPolicyProtocol.TLS_V1_2_2021,
            http_version=cloudfront.HttpVersion.HTTP2_AND_3,
            price_class=cloudfront.PriceClass.PRICE_CLASS_100,
            enable_logging=True,
            log_bucket=log_bucket,
            log_file_prefix="cloudfront/",
        )

    @property
    def url(self) -> str:
        return f"https://{self.distribution.distribution_domain_name}"

    def deploy(self, source: Path, config: dict) -> s3deploy.BucketDeployment:
        """Upload the app and write config.json (tokens resolve at deploy time)."""
        return s3deploy.BucketDeployment(
            self,
            "Deploy",
            sources=[s3deploy.Source.asset(str(source)), s3deploy.Source.json_data("config.json", config)],
            destination_bucket=self.bucket,
            distribution=self.distribution,
            distribution_paths=["/index.html", "/config.json"],
            # Every object asks the browser to check it again before each use (a 304 when unchanged): without a
            # Cache-Control, browsers keep index.html by heuristic for a tenth of its age, and after an upgrade
            # (which prunes the old hashed files) a cached index.html loads scripts that are gone
            # (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/Expiration.html).
            cache_control=[s3deploy.CacheControl.no_cache()],
            prune=True,
            memory_limit=512,
        )
