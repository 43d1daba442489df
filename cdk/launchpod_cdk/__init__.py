"""The Launchpod CDK app: one stack built from the shared registry (functions/launchpod/registry/)."""
