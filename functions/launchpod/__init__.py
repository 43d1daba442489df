"""Launchpod: an event-driven, serverless control plane for SageMaker HyperPod clusters on Amazon EKS."""

__version__ = "0.1.0"
