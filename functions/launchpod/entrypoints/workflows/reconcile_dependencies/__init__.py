"""reconcile-dependencies: EKS add-ons and Kubernetes manifests from the pinned manifest, in parallel."""
