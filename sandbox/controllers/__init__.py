"""What runs inside each emulated cluster besides its API server: the controllers, one module each, and
the node-side pieces they share.

Controllers (each a ``Periodic`` loop over the fleet's clusters, started by ``sandbox.runtime``):
``workloads`` (Deployments and DaemonSets), ``karpenter`` (HyperPod-managed Karpenter), ``training``
(the HyperPod training operator, with ``kuberay`` for RayJobs), ``inference`` (the HyperPod inference
operator and the AWS Load Balancer Controller, with ``keda`` and ``model_jobs``), ``kueue`` (task
governance's Kueue objects) and ``container_insights`` (Fluent Bit shipping container lines).

What they share: ``periodic`` (the loop), ``common`` (the timestamps they write), ``scheduling``
(kube-scheduler's filters), ``images`` and ``mounts`` (the kubelet's image pulls and volume set-up),
``training_pods`` (pods of training jobs), ``operators`` and ``crashloop`` (containers that exit and are
restarted with back-off).

What the containers run: ``programs`` (the workloads' programs), ``mountpoint`` (their writes, with
Mountpoint for Amazon S3's semantics), ``hf_hub`` (``hf download``) and ``model_server`` (the
OpenAI-compatible servers behind the API server's Service proxy).
"""
