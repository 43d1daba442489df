"""Run one emulated Kubernetes API server in a background thread with its own asyncio loop.

The Lambda handlers and the kubernetes client are synchronous, so each emulator gets a daemon thread
running an event loop that serves ``PatchedKubernetesEmulator`` through ``kmock.Server`` on an
ephemeral 127.0.0.1 port. Start-up takes a few milliseconds; ``stop()`` ends open watches and joins
the thread. Emulator state may only be touched on that loop: use :meth:`KubeEmulatorThread.call`.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import threading
from collections.abc import Callable
from typing import Any, TypeVar

import aiohttp.test_utils
import aiohttp.web
import attrs
import kmock

from sandbox.kube.emulator import PatchedKubernetesEmulator

T = TypeVar("T")


class _QuickStopTestServer(aiohttp.test_utils.RawTestServer):
    """aiohttp's raw test server over HTTPS (the sandbox's CA, as EKS's endpoints are), but open watch
    streams do not hold shutdown for 60 seconds."""

    async def start_server(self, loop: asyncio.AbstractEventLoop | None = None, **kwargs: Any) -> None:
        from sandbox.tls import server_context

        kwargs.setdefault("ssl", server_context())
        await super().start_server(loop=loop, **kwargs)

    async def _make_runner(self, debug: bool = False, **kwargs: Any) -> aiohttp.web.ServerRunner:
        server = aiohttp.web.Server(self._handler, loop=self._loop, debug=debug, **kwargs)
        return aiohttp.web.ServerRunner(server, debug=debug, shutdown_timeout=0.05, **kwargs)


@attrs.mutable
class _Server(kmock.Server):
    """kmock.Server without its aiohttp DNS interceptor.

    The interceptor swaps a class attribute of aiohttp's TCPConnector on enter and insists on
    LIFO exit; emulators of several clusters start and stop in any order from different threads,
    and nothing here resolves cluster host names through aiohttp.
    """

    async def __aenter__(self) -> _Server:
        if self._managed_server is not None:
            raise RuntimeError("The server can be started only once.")
        self._managed_server = self._server_cls(self.handler, host=self._host, port=self._port)
        await self._managed_server.__aenter__()
        self.handler.servers.append(self)
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        self.handler.servers.remove(self)
        assert self._managed_server is not None
        await self._managed_server.__aexit__(*exc_info)
        self._managed_server = None


class KubeEmulatorThread:
    """One ``PatchedKubernetesEmulator`` served on its own thread and loop.

    ``setup`` (optional) runs on the loop once the emulator exists, before ``start()`` returns;
    ``emulator_kwargs`` go to the emulator class (``cluster_name``, ``kubernetes_version``, ...).
    """

    def __init__(
        self,
        *,
        cls: type[PatchedKubernetesEmulator] = PatchedKubernetesEmulator,
        setup: Callable[[PatchedKubernetesEmulator], Any] | None = None,
        host: str = "127.0.0.1",
        port: int | None = None,
        name: str = "kube",
        **emulator_kwargs: Any,
    ) -> None:
        self._cls, self._setup, self._host, self._port = cls, setup, host, port
        self._emulator_kwargs = emulator_kwargs
        self._name = name
        self.loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._stop_event: asyncio.Event | None = None
        self._thread: threading.Thread | None = None
        self.emulator: PatchedKubernetesEmulator | None = None
        self.url = ""

    def start(self, timeout: float = 10.0) -> KubeEmulatorThread:
        """Start serving; returns once the URL is known. Raises what start-up raised."""
        self._thread = threading.Thread(target=self._run, name=f"kmock-{self._name}", daemon=True)
        self._thread.start()
        if not self._ready.wait(timeout):
            raise TimeoutError(f"the Kubernetes emulator {self._name!r} did not start in {timeout}s")
        if self._error is not None:
            self._thread.join(1)
            raise self._error
        return self

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive() and self._ready.is_set() and not self._error

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        try:
            self.loop.run_until_complete(self._main())
        except BaseException as exc:  # surface start-up failures to start()
            self._error = exc
            self._ready.set()
        finally:
            # Cancel what is left (watch handlers cut by the shutdown timeout) and close cleanly.
            pending = [t for t in asyncio.all_tasks(self.loop) if not t.done()]
            for task in pending:
                task.cancel()
            if pending:
                self.loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            self.loop.run_until_complete(self.loop.shutdown_asyncgens())
            self.loop.close()

    async def _main(self) -> None:
        self._stop_event = asyncio.Event()
        emulator = self._cls(**self._emulator_kwargs)
        async with (
            emulator,
            _Server(emulator, host=self._host, port=self._port, server_cls=_QuickStopTestServer) as server,
        ):
            if self._setup is not None:
                result = self._setup(emulator)
                if inspect.isawaitable(result):
                    await result
            self.emulator = emulator
            self.url = str(server.url).rstrip("/")
            self._ready.set()
            await self._stop_event.wait()

    def call(self, fn: Callable[[PatchedKubernetesEmulator], T], timeout: float = 10.0) -> T:
        """Run ``fn(emulator)`` on the emulator's loop and return its result (awaited if a coroutine)."""
        if self.emulator is None or self.loop.is_closed():
            raise RuntimeError(f"the Kubernetes emulator {self._name!r} is not running")
        emulator = self.emulator

        async def _invoke() -> T:
            result = fn(emulator)
            if inspect.isawaitable(result):
                return await result  # type: ignore[no-any-return]
            return result

        return asyncio.run_coroutine_threadsafe(_invoke(), self.loop).result(timeout)

    def stop(self, timeout: float = 5.0) -> None:
        """Stop serving and join the thread (idempotent)."""
        if self._thread is None:
            return
        if self._stop_event is not None and not self.loop.is_closed():
            # RuntimeError: the loop closed between the check and the call.
            with contextlib.suppress(RuntimeError):
                self.loop.call_soon_threadsafe(self._stop_event.set)
        self._thread.join(timeout)
        self._thread = None
