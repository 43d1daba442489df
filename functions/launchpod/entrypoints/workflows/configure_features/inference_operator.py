"""InferenceOperator: the HyperPod inference operator add-on (operator_addon) with the configuration values AWS
requires (executionRoleArn, tlsCertificateS3Bucket) and its execution role, assumed through IRSA: TLS
certificates and models in the shared bucket, the serving images, sagemaker:UpdateClusterInference. The
add-on fails to create without cert-manager (the CertManager phase) and the Mountpoint for S3 and FSx CSI
drivers: the FSx CSI driver, optional for reconcile-dependencies, is installed here first."""

from __future__ import annotations

from launchpod.domain import features
from launchpod.entrypoints.workflows.configure_features.operator_addon import OperatorAddon
from launchpod.entrypoints.workflows.phase import phase
from launchpod.runtime.settings import settings

PHASE = "InferenceOperator"
ADDON = OperatorAddon(
    phase=PHASE,
    title="inference operator",
    field="inferenceOperator",
    entry=features.inference_operator,
    role_name=features.inference_role_name,
    policy_name="launchpod-inference-operator",
    policy=lambda cluster_arn: features.inference_policy(cluster_arn, settings().bucket),
    trust=features.inference_trust,
    configuration=lambda role_arn, cluster_arn: features.inference_configuration(
        role_arn, settings().bucket, cluster_arn
    ),
    prerequisites=("aws-mountpoint-s3-csi-driver", features.FSX_CSI),
)
run = ADDON.run
handler = phase(PHASE)(run)
