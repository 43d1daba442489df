"""Lambda as Lambda runs it: every function in execution environments of its own (processes), with
the environment, package, credentials and limits the deployed function has. ``environments`` is the
sandbox's side; ``runtime`` runs inside each environment and imports only the standard library."""
