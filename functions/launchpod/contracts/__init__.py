"""Contracts: the pydantic models every way in (REST, MCP, workflows, events) agrees on. No SDK imports."""
