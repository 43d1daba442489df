"""create-control-plane: network -> IAM role -> EKS -> ACTIVE -> OIDC -> access entry -> core add-ons -> verify."""
