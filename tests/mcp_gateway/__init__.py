"""Tests of the MCP gateway against a fake REST API (the sandbox-backed ones are in tests/sandbox/)."""
