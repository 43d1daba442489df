"""Amazon Managed Grafana workspaces for the sandbox (moto has no ``grafana`` service): the calls Launchpod makes,
CreateWorkspace, DescribeWorkspace, ListWorkspaces and DeleteWorkspace, served as moto serves its own services
(in-process and by the moto server alike, at ``https://grafana.<region>.amazonaws.com``; sandbox.aws.grafana.
responses registers the service with moto).

AWS (Amazon Managed Grafana API reference, https://docs.aws.amazon.com/grafana/latest/APIReference/; botocore's
model of ``grafana`` 2020-08-18 is the shape and its documentation strings are AWS's words):

* A workspace's id is ``g-`` and ten hex digits (the model's pattern ``g-[0-9a-f]{10}``), its ARN
  ``arn:aws:grafana:<region>:<account>:/workspaces/<id>`` (Service Authorization Reference, Amazon Managed
  Grafana: resource type ``workspace``), its endpoint ``<id>.grafana-workspace.<region>.amazonaws.com``.
* CreateWorkspace answers 202 with the workspace ``CREATING``; it becomes ``ACTIVE`` (``create_seconds``
  simulated seconds, 300 by default: AWS says creation takes "a few minutes", no figure); DeleteWorkspace
  answers 202 with it ``DELETING``, and it is gone after ``delete_seconds``. Describe and Delete of an id that
  does not exist: ResourceNotFoundException (404, resourceType ``WORKSPACE``).
* ``permissionType``: "Use only the CUSTOMER_MANAGED permission type when creating a workspace with the API,
  CLI or AWS CloudFormation ... You must also specify a workspaceRoleArn" (CreateWorkspace); the role "must
  already exist" (WorkspaceDescription). The sandbox refuses a CUSTOMER_MANAGED request without a role, a role
  that does not exist and one that does not trust ``grafana.amazonaws.com`` (the trust the user guide's
  customer-managed role carries, "Amazon Managed Grafana permissions and policies for AWS data sources").
  SERVICE_MANAGED through the API is taken as given (AWS says not to use it, not that it is refused).
* ``accountAccessType`` ORGANIZATION needs ``workspaceOrganizationalUnits`` (CreateWorkspace).
* ``authenticationProviders`` ``AWS_SSO`` needs IAM Identity Center enabled in the account's organization
  ("User authentication in Amazon Managed Grafana": "to use IAM Identity Center ... you must enable IAM
  Identity Center"); the sandbox has no IAM Identity Center, so it refuses AWS_SSO with a ValidationException
  that says so (the wording is ours: AWS's message is not documented). ``SAML`` is taken: the workspace is
  created with ``samlConfigurationStatus`` NOT_CONFIGURED until the team's identity provider is set
  (UpdateWorkspaceAuthentication, which the sandbox does not serve).
* ``workspaceName`` "does not have to be unique"; ListWorkspaces answers summaries with their tags.
"""

from __future__ import annotations

from sandbox.aws.grafana.workspaces import GrafanaError, create, delete, describe, list_all, settings

__all__ = ["GrafanaError", "create", "delete", "describe", "install", "list_all", "settings"]


def install() -> None:
    """Register the service with moto (idempotent)."""
    from sandbox.aws.grafana import responses

    responses.install()
