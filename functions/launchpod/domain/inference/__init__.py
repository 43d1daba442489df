"""Inference: endpoint manifests, the plans that deploy, scale and delete them, and their views."""
