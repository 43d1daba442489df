"""delete-cluster: HyperPod -> EKS -> IAM -> network -> scripts -> registry, only what Launchpod created."""
