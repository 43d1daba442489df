"""A thread pool whose tasks run in the submitter's context.

``ThreadPoolExecutor`` runs each task in the worker thread's own context, so a context variable the caller
set (the Region of the cluster being worked on, ``launchpod.adapters.aws.clients.in_region``) would be lost
in the pool; this pool copies the caller's context into every task, as ``asyncio.to_thread`` does
(https://docs.python.org/3/library/contextvars.html#asyncio-support).
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")


class ContextPool(ThreadPoolExecutor):
    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        return super().submit(contextvars.copy_context().run, fn, *args, **kwargs)
