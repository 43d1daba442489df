"""EventBridge handlers: AWS tells Launchpod what changed."""
