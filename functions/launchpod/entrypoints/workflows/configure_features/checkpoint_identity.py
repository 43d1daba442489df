"""CheckpointIdentity: the identity chain tiered-checkpointing pods use (IRSA): an IAM role trusted by the
cluster's OIDC provider for the checkpoint service account only, with a policy on this cluster's checkpoint
prefix of the shared bucket, and the service account annotated with that role (jobs get a copy of it in
their namespace when they are submitted). Turned off, the service accounts and role Launchpod created are
deleted (nothing else)."""

from __future__ import annotations

from launchpod.adapters.k8s import apply as k8s
from launchpod.contracts.features import UpdateFeaturesInput
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain import features, ownership
from launchpod.domain.clusters import control_plane
from launchpod.domain.errors import PermanentError
from launchpod.entrypoints.workflows.phase import PhaseResult, phase
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings

PHASE = "CheckpointIdentity"


def _enable(doc: WorkflowInput, tags: dict[str, str]) -> PhaseResult:
    s = settings()
    issuer = (((wiring.eks().cluster(doc.target) or {}).get("identity") or {}).get("oidc") or {}).get("issuer")
    provider = wiring.iam().oidc_provider_arn(issuer) if issuer else None
    if provider is None or not issuer:
        raise PermanentError(
            f"{doc.target} has no IAM OIDC provider for its issuer, which the checkpoint role's trust needs; run "
            f"POST /api/clusters/{doc.target}/phases/control-plane, then retry."
        )
    name = features.checkpoint_role_name(s.resource_prefix, doc.target)
    iam = wiring.iam()
    arn = iam.owned_role(name, tags) or iam.ensure_role_trusting(
        name,
        features.checkpoint_trust(provider, issuer.removeprefix("https://")),
        tags,
        f"Tiered checkpointing pods of {doc.target}, created by Launchpod",
    )
    iam.put_inline_policy(name, "launchpod-checkpoints", features.checkpoint_policy(s.bucket, doc.target))
    account = features.service_account(doc.target, arn)
    k8s.apply(doc.target, account)
    meta = account["metadata"]
    where = f"s3://{s.bucket}/{features.checkpoint_prefix(doc.target)}"
    return PhaseResult(
        outputs={"roleArn": arn, "serviceAccount": f"{meta['namespace']}/{meta['name']}", "prefix": where},
        message=f"ServiceAccount {meta['namespace']}/{meta['name']} assumes {name}, which reaches {where} only.",
    )


def _disable(doc: WorkflowInput, tags: dict[str, str]) -> PhaseResult:
    gone = []
    # The feature's account and the copies jobs got in their own namespaces.
    for account in k8s.list_labelled(doc.target, "v1", "ServiceAccount", features.CHECKPOINT_LABEL):
        if ownership.owns_k8s(account) and k8s.delete(doc.target, account):
            gone.append(f"ServiceAccount {account['metadata']['namespace']}/{account['metadata']['name']}")
    name = features.checkpoint_role_name(settings().resource_prefix, doc.target)
    if wiring.iam().delete_owned_role(name, tags):
        gone.append(f"IAM role {name}")
    return PhaseResult(
        outputs={"deleted": gone},
        message=("Deleted " + ", ".join(gone) + ".") if gone else "Nothing Launchpod made was left.",
    )


def run(doc: WorkflowInput) -> PhaseResult:
    request = UpdateFeaturesInput.model_validate(doc.request)
    if request.tieredCheckpointing is None:
        return PhaseResult(skipped=True, message="The request does not change tiered checkpointing.")
    tags = control_plane.tags(doc.target, settings().resource_prefix)
    return _enable(doc, tags) if request.tieredCheckpointing.enabled else _disable(doc, tags)


handler = phase(PHASE)(run)
