"""CloudWatch Logs: the JSON filter patterns FilterLogEvents applies (``filters``)."""

from __future__ import annotations

from sandbox.aws.logs.filters import install

__all__ = ["install"]
