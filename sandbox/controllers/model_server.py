"""The API server's Service proxy and the OpenAI-compatible model servers behind it.

``/api/v1/namespaces/{ns}/services/{name}:{port}/proxy/{path}`` is the ``services/proxy`` subresource
(https://kubernetes.io/docs/tasks/access-application-cluster/access-cluster-services/#manually-constructing-apiserver-proxy-urls):
the API server forwards the request to one Ready pod the Service selects, on the Service port's target
port, and answers 404 for a Service that does not exist, 503 "no endpoints available for service" when
no selected pod is Ready, and 503 "error trying to reach service" when nothing listens there.

An SGLang router pod (``python3 -m sglang_router.launch_router``) passes the request on to a Ready pod
its ``--selector`` matches, once its service account may list pods (else "No available workers").
The pods: vLLM (vllm/vllm-openai, lmcache/vllm-openai), SGLang (lmsysorg/sglang) and the JumpStart LMI
image serve the OpenAI chat completions API on their port (``POST /v1/chat/completions``, answered as
https://platform.openai.com/docs/api-reference/chat/object shapes it); any other image serves nothing.
The answer is deterministic: it names the model and echoes the last user message, at most
``max_tokens`` words.
"""

from __future__ import annotations

import json
import re
import time
import uuid
from typing import Any

import aiohttp.web

from sandbox.controllers import spaces
from sandbox.kube.emulator import status_body

PROXY = re.compile(
    r"^/api/v1/namespaces/(?P<ns>[^/]+)/services/(?P<svc>[^/:]+)(?::(?P<port>[^/]+))?/proxy(?P<rest>/.*)?$"
)
SERVING_IMAGES = ("vllm/vllm-openai", "lmcache/vllm-openai", "lmsysorg/sglang", "djl-inference")


def _serves_openai(image: str) -> bool:
    repository = image.split("@")[0].rsplit(":", 1)[0] if ":" in image.split("/")[-1] else image.split("@")[0]
    return any(repository.endswith(s) for s in SERVING_IMAGES)


def _port(container: dict[str, Any]) -> Any:
    ports = container.get("ports") or [{}]
    return ports[0].get("containerPort")


def _selector_of(args: list[str], flag: str = "--selector") -> dict[str, str]:
    """--selector (or --prefill-selector, --decode-selector) k=v [k=v ...] of sglang_router.launch_router."""
    if flag not in args:
        return {}
    out = {}
    for token in args[args.index(flag) + 1 :]:
        if token.startswith("--"):
            break
        key, _, value = token.partition("=")
        out[key] = value
    return out


def _route(emulator: Any, ns: str, router: dict[str, Any], container: dict[str, Any], text: str) -> Any:
    """The SGLang router's pick: it discovers workers by --selector only if its service account may list
    pods in the namespace (RBAC, as sandbox.controllers.operators evaluates it); cache-aware routing sends the same
    prompt prefix to the same worker (here: the prefix's hash over the Ready workers).

    Its workers are, at every request, the pods whose labels match every key=value of --selector, that are
    not terminating, and are Running with condition Ready True: the SGLang Model Gateway's discovery keeps
    a reflector of the namespace's pods and reconciles its workers level-triggered on every watch event, so
    a pod whose labels stop matching leaves the workers and one that starts matching joins them
    (sgl-project "Kubernetes service discovery", https://docs.sglang.ai/advanced_features/router.html;
    lightseekorg/smg model_gateway/src/service_discovery.rs, compute_desired_state and reconcile_once).
    Not modelled: the up-to-1 s coalescing of watch events before a reconcile."""
    from sandbox.controllers import operators

    account = (router.get("spec") or {}).get("serviceAccountName") or "default"
    rules = operators._rules(emulator, ns, account, ns)
    if not any(operators._rule_allows(r, "", "pods", "list") for r in rules):
        return aiohttp.web.json_response(
            {"error": "No available workers (service discovery: pods is forbidden)"}, status=503
        )
    args = list(container.get("args") or [])
    if "--pd-disaggregation" in args:
        return _pd_route(emulator, ns, args, text)
    workers = _workers(emulator, ns, _selector_of(args))
    if not workers:
        return aiohttp.web.json_response({"error": "No available workers"}, status=503)
    return workers[sum(text[:256].encode()) % len(workers)]


def _workers(emulator: Any, ns: str, selector: dict[str, str]) -> list[dict[str, Any]]:
    workers = [
        p
        for p in emulator.list_objects("v1/pods", ns)
        if selector
        and all((p["metadata"].get("labels") or {}).get(k) == v for k, v in selector.items())
        and not p["metadata"].get("deletionTimestamp")
        and (p.get("status") or {}).get("phase") == "Running"
        and _ready(p)
    ]
    return sorted(workers, key=lambda p: p["metadata"]["name"])


def _flag(args: list[str], name: str, default: str | None = None) -> str | None:
    return args[args.index(name) + 1] if name in args[:-1] else default


def _pd_route(emulator: Any, ns: str, args: list[str], text: str) -> Any:
    """The router in PD mode (``--pd-disaggregation``): it discovers prefill workers by --prefill-selector and
    decode workers by --decode-selector, a prefill worker's bootstrap port from its ``sglang.ai/bootstrap-port``
    annotation, and sends each request to one prefill and one decode worker at once, with the prefill's
    bootstrap host, port and a room id (https://docs.sglang.ai/advanced_features/router.html, "Prefill-decode
    disaggregation"). The decode server then pulls the prompt's KV cache from the prefill server over the
    transfer backend (the handoff) and answers (https://docs.sglang.ai/advanced_features/pd_disaggregation.html).

    Modelled handoff: it succeeds when the prefill server runs ``--disaggregation-mode prefill`` and listens on
    the annotated bootstrap port, the decode server runs ``--disaggregation-mode decode``, and both use the same
    ``--disaggregation-transfer-backend`` (default mooncake); otherwise the decode server waits for a KV cache
    that never comes, and the request fails (SGLang's SGLANG_DISAGGREGATION_WAITING_TIMEOUT, here at once). The
    error words are this emulation's."""
    prefill = _workers(emulator, ns, _selector_of(args, "--prefill-selector"))
    decode = _workers(emulator, ns, _selector_of(args, "--decode-selector"))
    if not prefill or not decode:
        side = "prefill" if not prefill else "decode"
        return aiohttp.web.json_response({"error": f"No available {side} workers"}, status=503)
    key = sum(text[:256].encode())
    source, target = prefill[key % len(prefill)], decode[key % len(decode)]
    broken = _handoff_fault(source, target)
    if broken:
        return aiohttp.web.json_response(
            {"error": f"KV transfer from {source['metadata']['name']} failed: {broken}"}, status=500
        )
    return target


def _handoff_fault(prefill: dict[str, Any], decode: dict[str, Any]) -> str | None:
    p_container = ((prefill.get("spec") or {}).get("containers") or [{}])[0]
    d_container = ((decode.get("spec") or {}).get("containers") or [{}])[0]
    p_args, d_args = list(p_container.get("args") or []), list(d_container.get("args") or [])
    if _flag(p_args, "--disaggregation-mode") != "prefill":
        return "the prefill worker does not run --disaggregation-mode prefill"
    if _flag(d_args, "--disaggregation-mode") != "decode":
        return "the decode worker does not run --disaggregation-mode decode"
    port = (prefill["metadata"].get("annotations") or {}).get("sglang.ai/bootstrap-port")
    listens = {str(p.get("containerPort")) for p in p_container.get("ports") or []}
    if port is None or port != _flag(p_args, "--disaggregation-bootstrap-port", "8998") or port not in listens:
        return f"no bootstrap server at the annotated port {port}"
    backends = {_flag(a, "--disaggregation-transfer-backend", "mooncake") for a in (p_args, d_args)}
    if len(backends) > 1:
        return f"transfer backends differ ({', '.join(sorted(str(b) for b in backends))})"
    return None


def _ready(pod: dict[str, Any]) -> bool:
    return any(
        c.get("type") == "Ready" and c.get("status") == "True"
        for c in (pod.get("status") or {}).get("conditions") or []
    )


def _error(code: int, reason: str, message: str) -> aiohttp.web.Response:
    return aiohttp.web.json_response(status_body(code, reason, message), status=code)


def _model_name(pod: dict[str, Any]) -> str:
    container = ((pod.get("spec") or {}).get("containers") or [{}])[0]
    env = {e.get("name"): e.get("value") for e in container.get("env") or []}
    args = list(container.get("args") or [])
    if "--served-model-name" in args[:-1]:
        return str(args[args.index("--served-model-name") + 1])
    for key in ("SM_JUMPSTART_MODEL_ID", "MODEL_LOCATION"):
        if env.get(key):
            return str(env[key])
    # SGLang names the model with --model-path; vLLM takes it as its first argument (vllm serve <model>). A
    # flag's value (--disaggregation-mode decode) is not a model.
    for flag in ("--model-path", "--model"):
        if flag in args[:-1]:
            return str(args[args.index(flag) + 1])
    return args[0] if args and not args[0].startswith("-") else str(container.get("image", "model"))


def _completion(pod: dict[str, Any], body: dict[str, Any]) -> aiohttp.web.Response:
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return aiohttp.web.json_response(
            {"error": {"message": "messages is required", "type": "BadRequestError"}}, status=400
        )
    last = next((m.get("content", "") for m in reversed(messages) if m.get("role") == "user"), "")
    limit = int(body.get("max_tokens") or 256)
    model = _model_name(pod)
    words = f"[{model}] You said: {last}".split()
    content = " ".join(words[:limit])
    return aiohttp.web.json_response(
        {
            "id": f"chatcmpl-{uuid.uuid4().hex[:24]}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": "length" if len(words) > limit else "stop",
                }
            ],
            "usage": {
                "prompt_tokens": sum(len(str(m.get("content", "")).split()) for m in messages),
                "completion_tokens": min(len(words), limit),
                "total_tokens": sum(len(str(m.get("content", "")).split()) for m in messages) + min(len(words), limit),
            },
        }
    )


async def proxy(emulator: Any, method: str, path: str, text: str) -> aiohttp.web.Response | None:
    """The proxy's answer for ``path``, or None when it is not a services/proxy path."""
    m = PROXY.match(path)
    if m is None:
        return None
    ns, name, port, rest = m.group("ns"), m.group("svc"), m.group("port"), m.group("rest") or "/"
    service = emulator.get_object("v1/services", ns, name)
    if service is None:
        return _error(404, "NotFound", f'services "{name}" not found')
    spec = service.get("spec") or {}
    ports = spec.get("ports") or []
    chosen = next((p for p in ports if port in (None, str(p.get("port")), p.get("name"))), None)
    if chosen is None:
        return _error(503, "ServiceUnavailable", f'no endpoints available for service "{name}"')
    selector = spec.get("selector") or {}
    pods = [
        p
        for p in emulator.list_objects("v1/pods", ns)
        if selector
        and all(((p["metadata"].get("labels") or {}).get(k) == v) for k, v in selector.items())
        and _ready(p)
    ]
    if not pods:
        return _error(503, "ServiceUnavailable", f'no endpoints available for service "{name}"')
    pod = pods[0]
    if spaces.serves(pod):  # a HyperPod Space's server (Jupyter Server)
        return spaces.serve(emulator, pod, method, rest)
    container = ((pod.get("spec") or {}).get("containers") or [{}])[0]
    if "sglang_router.launch_router" in " ".join(container.get("command") or []):
        routed = _route(emulator, ns, pod, container, text)
        if isinstance(routed, aiohttp.web.Response):
            return routed
        pod, container = routed, ((routed.get("spec") or {}).get("containers") or [{}])[0]
        chosen = None
    target = chosen.get("targetPort", chosen.get("port")) if chosen else _port(container)
    listens = {str(p.get("containerPort")) for p in container.get("ports") or []} | {
        p.get("name") for p in container.get("ports") or []
    }
    if not _serves_openai(str(container.get("image", ""))) or str(target) not in listens:
        return _error(
            503,
            "ServiceUnavailable",
            f"error trying to reach service: dial tcp 10.0.0.1:{target}: connect: connection refused",
        )
    waiting_ranks = _ranks_missing(emulator, ns, container)
    if waiting_ranks:
        return _error(
            503,
            "ServiceUnavailable",
            f"error trying to reach service: dial tcp 10.0.0.1:{target}: connect: connection refused "
            f"(the server waits for {waiting_ranks})",
        )
    if method == "GET" and rest in ("/health", "/v1/models"):
        return aiohttp.web.json_response({"object": "list", "data": [{"id": _model_name(pod), "object": "model"}]})
    if method != "POST" or rest != "/v1/chat/completions":
        return aiohttp.web.json_response({"detail": "Not Found"}, status=404)
    try:
        body = json.loads(text or "{}")
    except ValueError:
        return aiohttp.web.json_response(
            {"error": {"message": "body is not JSON", "type": "BadRequestError"}}, status=400
        )
    waiting = _operator_pd_fault(emulator, ns, pod, body)
    if waiting:
        return aiohttp.web.json_response({"error": {"message": waiting, "type": "InternalServerError"}}, status=500)
    answer = _completion(pod, body)
    if answer.status == 200:
        from sandbox.aws.prometheus.exporters import served

        usage = json.loads(answer.text or "{}").get("usage") or {}
        served(
            emulator.cluster_name,
            pod,
            _model_name(pod),
            usage.get("prompt_tokens", 0),
            usage.get("completion_tokens", 0),
        )
    return answer


def _ranks_missing(emulator: Any, ns: str, container: dict[str, Any]) -> str | None:
    """What a multi-node SGLang server (``--nnodes`` N) still waits for before it listens, or None. Every rank
    dials ``--dist-init-addr``; the rank-0 server starts its HTTP server once all N ranks joined its process group
    (https://docs.sglang.ai/references/multi_node_deployment/multi_node.html). The address is a Service's DNS name
    that must resolve to the rank-0 pod (a headless Service selecting it), and each rank is a Ready pod with the
    same --nnodes and --dist-init-addr."""
    args = [str(a) for a in container.get("args") or []]
    nodes = int(_flag(args, "--nnodes") or 1)
    if nodes < 2:
        return None
    address = _flag(args, "--dist-init-addr") or ""
    host = address.rsplit(":", 1)[0]
    service = emulator.get_object("v1/services", host.split(".")[1] if "." in host else ns, host.split(".")[0])
    selector = ((service or {}).get("spec") or {}).get("selector") or {}
    joined = set()
    for pod in emulator.list_objects("v1/pods", ns):
        theirs = [str(a) for a in (((pod.get("spec") or {}).get("containers") or [{}])[0].get("args") or [])]
        if _ready(pod) and _flag(theirs, "--dist-init-addr") == address and _flag(theirs, "--nnodes") == str(nodes):
            rank = _flag(theirs, "--node-rank") or "0"
            labels = pod["metadata"].get("labels") or {}
            if rank != "0" or (selector and all(labels.get(k) == v for k, v in selector.items())):
                joined.add(rank)
    missing = [str(k) for k in range(nodes) if str(k) not in joined]
    if not missing:
        return None
    if service is None:
        return f"{host} to resolve (no such Service) before the ranks can meet"
    return f"node rank(s) {', '.join(missing)} of {nodes} to join at {address}"


def _operator_pd_fault(emulator: Any, ns: str, pod: dict[str, Any], body: dict[str, Any]) -> str | None:
    """The inference operator's PD decode pod (sandbox.controllers.inference): a prompt of at least the routing
    threshold's tokens (counted here as words) takes the PD path and needs a Ready prefill pod of the same
    endpoint to hand its KV cache over; a shorter one the decode pod prefills itself."""
    from sandbox.controllers.inference import PD_ROLE, PD_THRESHOLD_ENV

    labels = pod["metadata"].get("labels") or {}
    container = ((pod.get("spec") or {}).get("containers") or [{}])[0]
    env = {e.get("name"): e.get("value") for e in container.get("env") or []}
    if labels.get(PD_ROLE) != "decode" or env.get(PD_THRESHOLD_ENV) is None:
        return None
    said = body.get("messages")
    messages: list[Any] = said if isinstance(said, list) else []
    tokens = sum(len(str(m.get("content", "")).split()) for m in messages if isinstance(m, dict))
    if tokens < int(env[PD_THRESHOLD_ENV]):
        return None
    selector = {"app": labels.get("app", ""), PD_ROLE: "prefill"}
    if _workers(emulator, ns, selector):
        return None
    threshold = env[PD_THRESHOLD_ENV]
    return f"no prefill worker is Ready to prefill a prompt of {tokens} tokens (routingThreshold {threshold})"
