"""Training jobs: HyperPodPyTorchJob and KubeRay RayJob manifests built from a request and a recipe,
the rules a submission must meet, and the job view read back from the cluster."""
