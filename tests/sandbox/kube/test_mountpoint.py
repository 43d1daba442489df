"""Writes through a Mountpoint for Amazon S3 volume fail as Mountpoint fails them on a general purpose bucket
(awslabs/mountpoint-s3 doc/SEMANTICS.md, doc/TROUBLESHOOTING.md): no rename (ENOSYS), no directory rename, no
overwrite without --allow-overwrite and then only a truncating one, no delete without --allow-delete, no
metadata changes once a file is uploaded (EPERM); new files written sequentially become objects. Local
disk allows all of it. huggingface_hub's ``hf download --local-dir`` onto the mount fails on its lock file's
truncation, with or without --allow-overwrite, and succeeds onto local disk."""

from __future__ import annotations

import errno

import pytest

from sandbox.controllers import hf_hub, mountpoint
from tests.sandbox.kube.support import BUCKET

LAUNCHPOD = ["allow-delete", "region us-east-1"]  # the options Launchpod's storage volume carries


def _files(options: list[str], prefix: str = "") -> mountpoint.Files:
    volume = mountpoint.Mountpoint(BUCKET, prefix, mountpoint.Options.parse(options))
    return mountpoint.Files([("/s3", volume), ("/scratch", mountpoint.Local())])


def _keys(s3) -> list[str]:
    return sorted(o["Key"] for o in s3.list_objects_v2(Bucket=BUCKET).get("Contents", []))


def _errno(call) -> tuple[int | None, str]:
    with pytest.raises(OSError) as raised:
        call()
    return raised.value.errno, f"{type(raised.value).__name__}: {raised.value}"


def test_a_new_file_written_through_the_mount_becomes_an_object_under_the_prefix(s3):
    files = _files(LAUNCHPOD, "team/")
    files.makedirs("/s3/jobs/j1/checkpoint-10")
    files.write_file("/s3/jobs/j1/checkpoint-10/model.safetensors", b"weights")
    assert _keys(s3) == ["team/jobs/j1/checkpoint-10/model.safetensors"]
    assert files.read("/s3/jobs/j1/checkpoint-10/model.safetensors") == b"weights"


def test_an_existing_file_is_not_overwritten_without_allow_overwrite(s3):
    s3.put_object(Bucket=BUCKET, Key="latest", Body=b"global_step10")
    files = _files(LAUNCHPOD)
    assert _errno(lambda: files.write_file("/s3/latest", b"global_step20", "w")) == (
        errno.EPERM,
        "PermissionError: [Errno 1] Operation not permitted: '/s3/latest'",
    )
    assert _errno(lambda: files.write_file("/s3/latest", b"more", "a"))[0] == errno.EPERM


def test_with_allow_overwrite_only_a_truncating_write_replaces_a_file(s3):
    s3.put_object(Bucket=BUCKET, Key="latest", Body=b"global_step10")
    files = _files([*LAUNCHPOD, "allow-overwrite"])
    files.write_file("/s3/latest", b"global_step20", "w")
    assert s3.get_object(Bucket=BUCKET, Key="latest")["Body"].read() == b"global_step20"
    assert _errno(lambda: files.write_file("/s3/latest", b"\nstep", "a"))[0] == errno.EPERM  # appends: S3 Express only


def test_a_file_does_not_rename_on_a_general_purpose_bucket_nor_does_a_directory(s3):
    s3.put_object(Bucket=BUCKET, Key="out/a.incomplete", Body=b"x")
    s3.put_object(Bucket=BUCKET, Key="out/tmp-checkpoint-5/model.bin", Body=b"x")
    files = _files([*LAUNCHPOD, "allow-overwrite"])
    assert _errno(lambda: files.rename("/s3/out/a.incomplete", "/s3/out/a")) == (
        errno.ENOSYS,
        "OSError: [Errno 38] Function not implemented: '/s3/out/a.incomplete' -> '/s3/out/a'",
    )
    assert _errno(lambda: files.rename("/s3/out/tmp-checkpoint-5", "/s3/out/checkpoint-5"))[0] == errno.EPERM
    assert _keys(s3) == ["out/a.incomplete", "out/tmp-checkpoint-5/model.bin"]


def test_local_disk_renames_and_a_rename_across_volumes_is_exdev(s3):
    files = _files(LAUNCHPOD)
    files.write_file("/scratch/a.incomplete", b"x")
    files.rename("/scratch/a.incomplete", "/scratch/a")
    assert files.read("/scratch/a") == b"x"
    assert _errno(lambda: files.rename("/scratch/a", "/s3/a"))[0] == errno.EXDEV


def test_deletes_need_allow_delete(s3):
    s3.put_object(Bucket=BUCKET, Key="old/checkpoint-1/model.bin", Body=b"x")
    assert _errno(lambda: _files([]).unlink("/s3/old/checkpoint-1/model.bin")) == (
        errno.EPERM,
        "PermissionError: [Errno 1] Operation not permitted: '/s3/old/checkpoint-1/model.bin'",
    )
    _files(LAUNCHPOD).unlink("/s3/old/checkpoint-1/model.bin")
    assert _keys(s3) == []


def test_metadata_of_an_uploaded_file_does_not_change_and_locks_are_the_kernels(s3):
    s3.put_object(Bucket=BUCKET, Key="f", Body=b"x")
    files = _files([*LAUNCHPOD, "allow-overwrite"])
    assert _errno(lambda: files.utime("/s3/f"))[0] == errno.EPERM
    assert _errno(lambda: files.chmod("/s3/f"))[0] == errno.EPERM
    assert _errno(lambda: files.truncate("/s3/f"))[0] == errno.EPERM  # ftruncate: a setattr of the size
    files.lock("/s3/f")  # FUSE without FUSE_POSIX_LOCKS/FUSE_FLOCK_LOCKS: the kernel keeps it, node-local


def test_mount_options_are_read_with_or_without_dashes():
    assert mountpoint.Options.parse(["--allow-delete", "allow-overwrite", "region us-east-1"]) == mountpoint.Options(
        allow_delete=True, allow_overwrite=True
    )
    assert mountpoint.Options.parse(["prefix team/"]) == mountpoint.Options()


TREE = {"config.json": b"{}", "model.safetensors": b"\x00" * 64, "tokenizer/tokenizer.json": b"{}"}


@pytest.mark.parametrize("options", [LAUNCHPOD, [*LAUNCHPOD, "allow-overwrite"]])
def test_hf_download_onto_the_mount_fails_on_its_lock_file(s3, options):
    failed, warnings = hf_hub.download(_files(options), "/s3/models/Qwen/Qwen3-0.6B", TREE, "c" * 40)
    assert failed == "PermissionError: [Errno 1] Operation not permitted"  # filelock's ftruncate names no file
    assert "Function not implemented" in warnings[0]  # the tree cache's os.replace, only logged
    assert "models/Qwen/Qwen3-0.6B/config.json" not in _keys(s3)


def test_hf_download_onto_local_disk_renames_its_files_in_place(s3):
    files = _files(LAUNCHPOD)
    assert hf_hub.download(files, "/scratch/model", TREE, "c" * 40) == (None, [])
    assert {n for n in files.walk("/scratch/model") if not n.startswith(".cache/")} == set(TREE)
    assert not [n for n in files.walk("/scratch/model") if n.endswith(".incomplete")]
    assert _keys(s3) == []


class _Emulator:
    def __init__(self, objects: dict[tuple[str, str | None, str], dict]) -> None:
        self.objects = objects

    def get_object(self, resource: str, namespace: str | None, name: str) -> dict | None:
        return self.objects.get((resource, namespace, name))


def test_a_claims_volume_carries_its_persistent_volumes_bucket_prefix_and_options(s3):
    volume = {
        "spec": {
            "mountOptions": ["allow-delete", "prefix team/"],
            "csi": {"driver": "s3.csi.aws.com", "volumeAttributes": {"bucketName": BUCKET}},
        }
    }
    emulator = _Emulator(
        {
            ("v1/persistentvolumeclaims", "default", "shared"): {"spec": {"volumeName": "shared"}},
            ("v1/persistentvolumes", None, "shared"): volume,
        }
    )
    pod = {
        "volumes": [
            {"name": "storage", "persistentVolumeClaim": {"claimName": "shared"}},
            {"name": "download", "emptyDir": {}},
        ]
    }
    container = {
        "volumeMounts": [{"name": "storage", "mountPath": "/s3"}, {"name": "download", "mountPath": "/download"}]
    }
    files = mountpoint.volumes(emulator, "default", pod, container)
    s3_volume, rel, _ = files.locate("/s3/models/x")
    assert isinstance(s3_volume, mountpoint.Mountpoint) and rel == "models/x"
    assert (s3_volume.prefix, s3_volume.options) == ("team/", mountpoint.Options(allow_delete=True))
    assert isinstance(files.locate("/download/x")[0], mountpoint.Local)


OLD_SCRIPT = (  # Launchpod's download before: hf download straight onto the mount
    'pip install --quiet --no-cache-dir "huggingface_hub>=0.34,<2" && '
    'exec hf download "$REPO_ID" --repo-type "$REPO_TYPE" --revision "$REVISION" --local-dir "$TARGET"'
)


def test_launchpods_download_script_fails_straight_onto_the_mount_and_succeeds_through_local_disk_twice(s3):
    from launchpod.domain.inference import models

    from sandbox.controllers import model_jobs

    env = {
        "REPO_ID": "Qwen/Qwen3-0.6B",
        "REVISION": "main",
        "DOWNLOAD": "/download",
        "TARGET": "/s3/models/Qwen/Qwen3-0.6B",
    }

    def files() -> mountpoint.Files:  # each run is a new pod: a new emptyDir, the same bucket
        volume = mountpoint.Mountpoint(BUCKET, "team/", mountpoint.Options.parse([*LAUNCHPOD, "prefix team/"]))
        return mountpoint.Files([("/s3", volume), ("/download", mountpoint.Local())])

    ok, log = model_jobs._script(files(), OLD_SCRIPT, env, "Qwen/Qwen3-0.6B", "main")
    assert not ok and log.endswith("PermissionError: [Errno 1] Operation not permitted")
    for run in range(2):
        ok, log = model_jobs._script(files(), models.SCRIPT, env, "Qwen/Qwen3-0.6B", "main")
        assert ok, log
        assert log.endswith(f"copied {5 if run == 0 else 0} files to /s3/models/Qwen/Qwen3-0.6B")
    prefix = "team/models/Qwen/Qwen3-0.6B/"
    model = sorted(k for k in _keys(s3) if k.startswith(prefix) and not k.startswith(prefix + ".cache/"))
    assert [k.rsplit("/", 1)[1] for k in model] == [
        "README.md",
        "config.json",
        "generation_config.json",
        "model.safetensors",
        "tokenizer.json",
    ]


def _save(files: mountpoint.Files, step: int) -> None:
    """VERL's ``_save_checkpoint`` (verl/trainer/ppo/ray_trainer.py): the step's files in a new folder, then
    the tracker file rewritten with open("w")."""
    files.makedirs(f"/data/jobs/j/checkpoints/global_step_{step}/actor")
    files.write_file(f"/data/jobs/j/checkpoints/global_step_{step}/actor/model_world_size_8_rank_0.pt", b"w")
    files.write_file("/data/jobs/j/checkpoints/latest_checkpointed_iteration.txt", str(step).encode(), "w")


@pytest.mark.parametrize(("options", "fails"), [(LAUNCHPOD, True), (None, False)])
def test_a_trainer_rewriting_its_checkpoint_tracker_needs_launchpods_allow_overwrite(s3, options, fails):
    from launchpod.domain import storage

    if options is None:  # what Launchpod's storage volume carries now
        volume, _ = storage.s3_objects("shared", "default", BUCKET, "us-east-1", None)
        options = volume["spec"]["mountOptions"]
    files = mountpoint.Files([("/data", mountpoint.Mountpoint(BUCKET, "", mountpoint.Options.parse(options)))])
    _save(files, 10)
    if fails:
        assert _errno(lambda: _save(files, 20)) == (
            errno.EPERM,
            "PermissionError: [Errno 1] Operation not permitted: "
            "'/data/jobs/j/checkpoints/latest_checkpointed_iteration.txt'",
        )
        return
    _save(files, 20)
    assert (
        s3.get_object(Bucket=BUCKET, Key="jobs/j/checkpoints/latest_checkpointed_iteration.txt")["Body"].read() == b"20"
    )


def test_a_read_only_volume_refuses_writes(s3):
    emulator = _Emulator({})
    pod = {
        "volumes": [
            {
                "name": "m",
                "csi": {"driver": "s3.csi.aws.com", "readOnly": True, "volumeAttributes": {"bucketName": BUCKET}},
            }
        ]
    }
    files = mountpoint.volumes(
        emulator, "default", pod, {"volumeMounts": [{"name": "m", "mountPath": "/opt/ml/model"}]}
    )
    assert _errno(lambda: files.write_file("/opt/ml/model/x", b"x"))[0] == errno.EROFS
