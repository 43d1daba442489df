"""The MCP gateway: Launchpod's REST API as MCP tools, with playbooks as prompts, for AI agents.

It holds no AWS credentials and imports nothing from ``launchpod`` but its contracts: every tool call
is one REST call made with the caller's own bearer token, so an agent can never do more than its user.
"""

__version__ = "0.1.0"
