"""moto's core: ``patch``, through which the sandbox replaces moto's attributes, and backends looked up
without moto's global lock (fast enough for the sandbox's threads)."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any


def patch(owner: object, name: str, value: object) -> None:
    """Replace ``owner.name`` (a moto class's method or property, a module's attribute) with ``value``.

    moto's classes are typed for its own methods; the sandbox's replacements are checked where they are
    written, and assigned here."""
    setattr(owner, name, value)


def once(install: Callable[[], None]) -> Callable[[], None]:
    """``install`` run by its first call only (a concurrent one waits for it to finish): the patches an
    install makes are process-wide, and a second run would wrap the first one's replacements again."""
    lock = threading.Lock()
    done = False

    @functools.wraps(install)
    def install_once() -> None:
        nonlocal done
        with lock:
            if not done:
                install()
                done = True

    return install_once


@once
def install_backend_fast_path() -> None:
    """Look a known account's backends up without moto's global lock, and a request's service without a directory read.

    Every moto request looks its backend up several times, and each look takes one lock shared by
    all services. With the sandbox's threads (executions, API, Kubernetes emulators) the lock waits
    alone cost ~10 ms per lookup, about a second per REST call. The lock guards creating an
    account's backends; once one exists, reading the dict needs no lock.
    """
    from moto.core.base_backend import BackendDict

    original = BackendDict.__getitem__

    def __getitem__(self: BackendDict[Any], account_id: str) -> Any:
        found = dict.get(self, account_id)
        return found if found is not None else original(self, account_id)

    patch(BackendDict, "__getitem__", __getitem__)

    # The moto server asks which service a request's Host names by listing moto's package folder on every request
    # (``backends.list_of_moto_modules``: a directory read and a stat per service, about 0.6 ms); the folder does not
    # change while the sandbox runs, so it is read once.
    from moto import backends

    modules = tuple(backends.list_of_moto_modules())
    patch(backends, "list_of_moto_modules", lambda: modules)

    # Every request's ``call_action`` lists its response class's methods with ``inspect.getmembers`` (every
    # attribute of the class and its bases, sorted) to see whether the action is one: about 5% of a
    # request's CPU in the moto server. The names are kept per class while no class of its MRO gains or loses
    # an attribute (the sandbox adds actions to moto's response classes as it installs).
    from moto.core import responses, utils

    method_names = utils.method_names_from_class
    known: dict[type, tuple[tuple[int, ...], list[str]]] = {}

    def method_names_from_class(clazz: Any) -> list[str]:
        shape = tuple(len(vars(c)) for c in clazz.__mro__)
        found = known.get(clazz)
        if found is None or found[0] != shape:
            found = known[clazz] = (shape, method_names(clazz))
        return list(found[1])

    method_names_from_class.__wrapped__ = method_names  # type: ignore[attr-defined]
    patch(responses, "method_names_from_class", method_names_from_class)


# moto's S3 disposes of the object bodies (spooled temporary files) it finds in these lists when it resets.
_TRACKED_MODULES = ("moto.s3.",)


@once
def install_untracked_models() -> None:
    """Model instances live as long as their backend holds them, not as long as the process.

    moto keeps every instance of every model class it ever made in the class's ``instances_tracked`` list,
    for its dashboard (``moto.core.model_instances``: "This allows us to easily expose all internal state
    using the MotoServer dashboard"), until a reset. DynamoDB makes a new ``Item`` for each copy of an item
    on every write and a ``StreamRecord`` holding two of them per stream record, so a long-running sandbox
    kept every version of every item it had ever written: about 150,000 objects per provisioned cluster, the
    memory it grew by and the cyclic collector's work on it. The sandbox serves no dashboard. S3's models
    stay tracked: its reset closes the bodies it finds there.
    """
    from moto.core.common_models import BaseModel

    tracked = BaseModel.__new__

    def __new__(cls: type[BaseModel], *args: Any, **kwargs: Any) -> BaseModel:
        if cls.__module__.startswith(_TRACKED_MODULES):
            return tracked(cls, *args, **kwargs)
        return object.__new__(cls)

    patch(BaseModel, "__new__", staticmethod(__new__))
