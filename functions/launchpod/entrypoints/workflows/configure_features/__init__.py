"""configure-features: managed features toggled as the planner said (cert-manager first, then the
training operator, the checkpoint identity chain and HyperPod's TieredStorageConfig)."""
