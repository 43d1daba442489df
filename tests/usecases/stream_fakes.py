"""In-memory fakes of the WebSocket side's ports (usecases.streaming): connections and their topics, the
management API's posts, the log pumps' leases, asynchronous invokes, and a pod's stamped log."""

from __future__ import annotations

from typing import Any

from launchpod.contracts.operations import OperationView
from launchpod.domain.errors import NotFound, RetryableError
from launchpod.usecases import streaming


class Connections:
    def __init__(self) -> None:
        self.endpoints: dict[str, str] = {}
        self.topics: dict[str, set[str]] = {}

    def connect(self, connection_id: str, endpoint: str, subject: str) -> None:
        self.endpoints[connection_id] = endpoint
        self.topics[connection_id] = set()

    def disconnect(self, connection_id: str) -> None:
        self.endpoints.pop(connection_id, None)
        self.topics.pop(connection_id, None)

    def subscribe(self, connection_id: str, topics: list[str]) -> list[str]:
        self.topics[connection_id] |= set(topics)
        return sorted(self.topics[connection_id])

    def unsubscribe(self, connection_id: str, topics: list[str]) -> list[str]:
        self.topics[connection_id] -= set(topics)
        return sorted(self.topics[connection_id])

    def subscribers(self, topic: str) -> list[tuple[str, str]]:
        return sorted((c, self.endpoints[c]) for c, topics in self.topics.items() if topic in topics)


class Push:
    """API Gateway's management API: a connection in ``gone`` answers 410."""

    def __init__(self) -> None:
        self.posted: list[tuple[str, dict[str, Any]]] = []
        self.gone: set[str] = set()

    def post(self, endpoint: str, connection_id: str, message: dict[str, Any]) -> bool:
        if connection_id in self.gone:
            return False
        self.posted.append((connection_id, message))
        return True

    def to(self, connection_id: str) -> list[dict[str, Any]]:
        return [m for c, m in self.posted if c == connection_id]


class Operations:
    def __init__(self, *views: OperationView) -> None:
        self.views = {v.id: v for v in views}

    def get(self, operation_id: str) -> OperationView:
        if operation_id not in self.views:
            raise NotFound(f"no operation {operation_id}")
        return self.views[operation_id]


class Leases:
    def __init__(self) -> None:
        self.held: dict[str, str] = {}

    def acquire(self, topic: str, holder: str) -> bool:
        if self.held.get(topic, holder) != holder:
            return False
        self.held[topic] = holder
        return True

    def renew(self, topic: str, holder: str) -> bool:
        return self.held.get(topic) == holder

    def release(self, topic: str, holder: str) -> None:
        if self.held.get(topic) == holder:
            del self.held[topic]


class Invokes:
    def __init__(self, failing: bool = False) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.failing = failing

    def __call__(self, function_name: str, event: dict[str, Any]) -> None:
        if self.failing:
            raise RetryableError("Lambda is throttling InvokeFunction.")
        self.calls.append((function_name, event))


def ports(*views: OperationView, invokes: Invokes | None = None) -> streaming.StreamPorts:
    return streaming.StreamPorts(
        connections=Connections(),
        push=Push(),
        operations=Operations(*views),
        pumps=Leases(),
        invoke=invokes or Invokes(),
        pump_function="launchpod-log-pump",
        operation_of_image=lambda image: OperationView.model_validate(image),
    )


class PodLog:
    """One pod's stamped log (``<RFC3339Nano> <line>``), read since a stamp as the kubelet does."""

    READ_LIMIT_BYTES = 4 * 1024 * 1024

    def __init__(self, lines: list[str], phase: str = "Running") -> None:
        self.lines = lines
        self.phase = phase

    def pod(self, cluster: str, namespace: str, name: str) -> dict[str, Any] | None:
        spec = {"containers": [{"name": "pytorch"}]}
        return {"metadata": {"name": name}, "spec": spec, "status": {"phase": self.phase}}

    def default_container(self, found: dict[str, Any]) -> str | None:
        return str(found["spec"]["containers"][0]["name"])

    def read_since(self, cluster: str, namespace: str, name: str, container: str | None, since: str) -> str | None:
        return "".join(f"{line}\n" for line in self.lines if not since or line.split(" ", 1)[0] >= since)
