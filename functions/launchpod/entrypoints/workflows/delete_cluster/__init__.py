"""delete-cluster: Services' load balancers -> HyperPod -> EKS -> IAM -> network -> scripts -> registry,
only what Launchpod created."""
