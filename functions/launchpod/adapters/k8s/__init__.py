"""Kubernetes adapters: a client per cluster, authenticated with an EKS token."""
