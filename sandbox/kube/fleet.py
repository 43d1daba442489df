"""One emulated Kubernetes API server per EKS cluster of the sandbox.

The moto EKS extension calls ``KubeFleet.start_for(cluster_name, version)`` when a cluster becomes
ACTIVE and uses the returned URL as the cluster's endpoint; the adapter then talks to it with a real
EKS token. Each cluster gets its own emulator, thread and port, so clusters never see each other's
objects. Starting one costs a few milliseconds; ``stop_all()`` joins every thread.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar

from sandbox.kube.emulator import PatchedKubernetesEmulator
from sandbox.kube.thread import KubeEmulatorThread

T = TypeVar("T")


class KubeFleet:
    """A registry of running emulators keyed by EKS cluster name; thread-safe.

    ``setup`` (optional) runs on each new emulator's loop before its URL is handed out, e.g. to
    declare CRDs or start simulated controllers; ``emulator_kwargs`` go to every emulator.
    """

    def __init__(
        self,
        *,
        setup: Callable[[PatchedKubernetesEmulator], Any] | None = None,
        host: str = "127.0.0.1",
        **emulator_kwargs: Any,
    ) -> None:
        self._setup = setup
        self._host = host
        self._emulator_kwargs = emulator_kwargs
        self._threads: dict[str, KubeEmulatorThread] = {}
        self._lock = threading.Lock()

    def start_for(self, cluster_name: str, version: str = "1.34") -> str:
        """Start the cluster's API server if needed and return its URL (idempotent).

        Calling it again for a running cluster with another version updates ``/version``
        (an EKS version upgrade) and keeps the objects.
        """
        with self._lock:
            thread = self._threads.get(cluster_name)
            if thread is not None and thread.running:
                if thread.emulator is not None and thread.emulator.kubernetes_version != version:
                    thread.call(lambda emu: setattr(emu, "kubernetes_version", version))
                return thread.url
            thread = KubeEmulatorThread(
                setup=self._setup,
                host=self._host,
                name=cluster_name,
                cluster_name=cluster_name,
                kubernetes_version=version,
                **self._emulator_kwargs,
            ).start()
            self._threads[cluster_name] = thread
            return thread.url

    def url_for(self, cluster_name: str) -> str | None:
        """The URL of a running cluster's API server, or None."""
        thread = self._threads.get(cluster_name)
        return thread.url if thread is not None and thread.running else None

    def emulator_for(self, cluster_name: str) -> PatchedKubernetesEmulator:
        """The cluster's emulator (touch its state only through :meth:`call`). KeyError if not running."""
        thread = self._threads.get(cluster_name)
        if thread is None or thread.emulator is None or not thread.running:
            raise KeyError(f"no Kubernetes API server is running for cluster {cluster_name!r}")
        return thread.emulator

    def call(self, cluster_name: str, fn: Callable[[PatchedKubernetesEmulator], T], timeout: float = 10.0) -> T:
        """Run ``fn(emulator)`` on the cluster's emulator loop (awaited if it returns a coroutine)."""
        thread = self._threads.get(cluster_name)
        if thread is None or not thread.running:
            raise KeyError(f"no Kubernetes API server is running for cluster {cluster_name!r}")
        return thread.call(fn, timeout)

    def names(self) -> list[str]:
        """Clusters with a running API server."""
        return sorted(name for name, thread in self._threads.items() if thread.running)

    def stop(self, cluster_name: str) -> None:
        """Stop one cluster's API server (no error if it is not running); its objects are dropped."""
        with self._lock:
            thread = self._threads.pop(cluster_name, None)
        if thread is not None:
            thread.stop()

    def stop_all(self) -> None:
        """Stop every API server and join their threads."""
        with self._lock:
            threads, self._threads = list(self._threads.values()), {}
        for thread in threads:
            thread.stop()
