"""Auth: the Cognito user pool, its viewer/operator/admin groups and the web app's client.

API Gateway authorizers only authenticate; the backend maps the ``cognito:groups`` claim to roles
and enforces them on every route (DESIGN section 8). Sign-up is by invitation only.
"""

from __future__ import annotations

from aws_cdk import Aws, Duration, RemovalPolicy
from aws_cdk import aws_cognito as cognito
from constructs import Construct

GROUPS = (
    ("admin", "Clusters, features, instance groups, replace and delete", 0),
    ("operator", "Jobs, inference, node reboot", 1),
    ("viewer", "Read only", 2),
)


class Auth(Construct):
    def __init__(self, scope: Construct, id: str, *, prefix: str, admin_email: str | None) -> None:
        super().__init__(scope, id)
        self.user_pool = cognito.UserPool(
            self,
            "Users",
            user_pool_name=f"{prefix}-users",
            self_sign_up_enabled=False,
            sign_in_aliases=cognito.SignInAliases(email=True),
            auto_verify=cognito.AutoVerifiedAttrs(email=True),
            mfa=cognito.Mfa.REQUIRED,
            mfa_second_factor=cognito.MfaSecondFactor(sms=False, otp=True),
            password_policy=cognito.PasswordPolicy(
                min_length=12,
                require_lowercase=True,
                require_uppercase=True,
                require_digits=True,
                require_symbols=True,
                temp_password_validity=Duration.days(3),
            ),
            account_recovery=cognito.AccountRecovery.EMAIL_ONLY,
            feature_plan=cognito.FeaturePlan.ESSENTIALS,
            deletion_protection=True,
            removal_policy=RemovalPolicy.RETAIN,
        )
        for name, description, precedence in GROUPS:
            cognito.CfnUserPoolGroup(
                self,
                f"{name}-group",
                user_pool_id=self.user_pool.user_pool_id,
                group_name=name,
                description=description,
                precedence=precedence,
            )
        # Hosted sign-in (handles the TOTP enrolment the MFA requirement implies).
        self.domain = self.user_pool.add_domain(
            "Domain",
            cognito_domain=cognito.CognitoDomainOptions(domain_prefix=f"{prefix}-{Aws.ACCOUNT_ID}"),
        )
        if admin_email:
            user = cognito.CfnUserPoolUser(
                self,
                "FirstAdmin",
                user_pool_id=self.user_pool.user_pool_id,
                username=admin_email,
                user_attributes=[
                    cognito.CfnUserPoolUser.AttributeTypeProperty(name="email", value=admin_email),
                    cognito.CfnUserPoolUser.AttributeTypeProperty(name="email_verified", value="true"),
                ],
                desired_delivery_mediums=["EMAIL"],
            )
            attachment = cognito.CfnUserPoolUserToGroupAttachment(
                self,
                "FirstAdminGroup",
                user_pool_id=self.user_pool.user_pool_id,
                group_name="admin",
                username=admin_email,
            )
            attachment.add_dependency(user)
            for child in self.node.children:
                if isinstance(child, cognito.CfnUserPoolGroup) and child.group_name == "admin":
                    attachment.add_dependency(child)

    @property
    def issuer(self) -> str:
        return f"https://cognito-idp.{Aws.REGION}.amazonaws.com/{self.user_pool.user_pool_id}"

    def add_web_client(self, callback_urls: list[str]) -> cognito.UserPoolClient:
        """A public client (no secret: it runs in the browser) using the code flow with PKCE."""
        self.client = self.user_pool.add_client(
            "WebClient",
            generate_secret=False,
            auth_flows=cognito.AuthFlow(user_srp=True),
            o_auth=cognito.OAuthSettings(
                flows=cognito.OAuthFlows(authorization_code_grant=True),
                scopes=[cognito.OAuthScope.OPENID, cognito.OAuthScope.EMAIL, cognito.OAuthScope.PROFILE],
                callback_urls=callback_urls,
                logout_urls=callback_urls,
            ),
            prevent_user_existence_errors=True,
            access_token_validity=Duration.hours(1),
            id_token_validity=Duration.hours(1),
            refresh_token_validity=Duration.days(7),
            enable_token_revocation=True,
        )
        return self.client
