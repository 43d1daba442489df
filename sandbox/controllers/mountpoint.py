"""The files a container's programs write, as their system calls meet its volumes: a Mountpoint for Amazon S3
volume (driver ``s3.csi.aws.com``) with Mountpoint's semantics, anything else (an emptyDir, a hostPath, the
image's own writable layer) as a local POSIX file system.

Mountpoint on a general purpose bucket, from awslabs/mountpoint-s3 ``doc/SEMANTICS.md`` ("Detailed semantics")
and ``doc/TROUBLESHOOTING.md``, with the errno each failure returns from ``mountpoint-s3-fs/src/fs/error.rs``
(``ToErrno for InodeError``) and ``fs.rs``:

* A new file is written sequentially from its start, and becomes the object at close (SEMANTICS "Writes").
* An existing file opened for writing fails with EPERM ("Operation not permitted", TROUBLESHOOTING "Writing to
  an existing file"), unless the mount has ``--allow-overwrite`` and the open truncates (``O_TRUNC``): then it
  replaces the object. ``O_RDWR`` on an existing file without that is a read handle (superblock.rs,
  ``open_handle``), and truncating it (``O_TRUNC`` the kernel sends as a size-0 setattr, or ``ftruncate``)
  fails with EPERM: "file overwrite is disabled by default" (fs.rs, ``setattr``). Appending to an existing file
  needs ``--incremental-upload``, which only S3 Express One Zone supports: EPERM here.
* A file being written cannot be opened again (EPERM, ``InodeAlreadyWriting``).
* ``unlink`` fails with EPERM unless the mount has ``--allow-delete`` ("Deletes are disabled. Use
  '--allow-delete' mount option to enable it.", fs.rs ``unlink``; TROUBLESHOOTING "Deleting files"), and for a
  file still being written (``UnlinkNotPermittedWhileWriting``).
* ``rename`` of a file fails with ENOSYS, "Function not implemented" ("Rename rejected where unsupported",
  TROUBLESHOOTING; ``RenameNotSupported``): only S3 Express One Zone directory buckets rename, not modelled
  here. A directory never renames: EPERM (``CannotRenameDirectory``). Across volumes, EXDEV as on any Linux
  mount (rename(2)).
* ``chmod``/``chown`` and ``utime`` of a file already uploaded fail with EPERM (SEMANTICS "File and directory
  metadata and permissions"; "Changing last access and modification times (utime) is supported only on files
  that are being written"; ``SetAttrNotPermittedOnRemoteInode``).
* ``mkdir`` is local to the mount until a file is written under it; a directory is otherwise a key prefix
  (SEMANTICS "Directories"). ``rmdir`` removes only such a local, empty directory; a directory backed by keys
  fails with EPERM (``CannotRemoveRemoteDirectory``).
* Locks: SEMANTICS says "POSIX file locks (lockf) are not supported", and Mountpoint implements neither
  ``getlk`` nor ``setlk`` (fuse.rs). Its FUSE ``init`` does not ask for ``FUSE_POSIX_LOCKS`` or
  ``FUSE_FLOCK_LOCKS`` (fs.rs ``init``; mountpoint-s3-fuser ``INIT_FLAGS``), and the Linux kernel then keeps
  ``flock``/``fcntl`` locks itself, local to the node (fs/fuse/file.c, ``fuse_file_lock``/``fuse_file_flock``
  with ``no_lock``/``no_flock``). So a lock succeeds and excludes only processes on the same node: it never
  fails, and never guards anything across pods on different nodes (not modelled: the sandbox has no second
  writer racing a first).

The failures are Python's OSError with that errno, as a program's ``open``/``os.rename``/``os.unlink`` raise
them: ``PermissionError: [Errno 1] Operation not permitted: '<path>'``,
``OSError: [Errno 38] Function not implemented: '<src>' -> '<dst>'``.

Not modelled: S3 Express One Zone (rename, ``--incremental-upload``), ``--read-only`` beyond refusing writes,
``fsync`` ending a write early, the cap on files open for writing (ENOMEM), out-of-order writes (programs
here write sequentially or not at all), and another mount of the same bucket seeing a file only once it is
closed (the sandbox's objects appear at close, as S3's do, and are read by every mount alike).
"""

from __future__ import annotations

import dataclasses
import errno
import os
from dataclasses import dataclass, field
from typing import Any

DRIVER = "s3.csi.aws.com"


def error(code: int, path: str, other: str | None = None) -> OSError:
    """The OSError Python raises for ``code`` on ``path`` (its subclass too: PermissionError for EPERM)."""
    if other is None:
        return OSError(code, os.strerror(code), path)
    return OSError(code, os.strerror(code), path, None, other)


@dataclass(frozen=True)
class Options:
    """Mountpoint's file-modification flags among a volume's mount options. The CSI driver passes each
    ``mountOptions`` entry to ``mount-s3`` as a flag, with or without its leading dashes
    (awslabs/mountpoint-s3-csi-driver ``docs/CONFIGURATION.md``; Mountpoint ``doc/CONFIGURATION.md``, "File
    modifications and deletions")."""

    allow_delete: bool = False
    allow_overwrite: bool = False
    read_only: bool = False

    @classmethod
    def parse(cls, options: list[str]) -> Options:
        flags = {str(o).strip().lstrip("-").split(" ")[0].split("=")[0] for o in options}
        return cls("allow-delete" in flags, "allow-overwrite" in flags, "read-only" in flags)


def _backend(bucket: str) -> Any:
    """moto's S3 backend that holds ``bucket`` (None when no account does)."""
    from moto.s3.models import s3_backends

    for account in list(s3_backends.keys()):
        backend = s3_backends[account]["aws"]
        if bucket in backend.buckets:
            return backend
    return None


class Local:
    """A local POSIX file system (emptyDir, hostPath, the image's layer): every operation is allowed."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}
        self.dirs: set[str] = {""}

    def kind(self, rel: str) -> str | None:
        if rel in self.files:
            return "file"
        if rel in self.dirs or any(f.startswith(rel + "/") for f in self.files):
            return "dir"
        return None

    def begin_write(self, path: str, rel: str, truncate: bool, append: bool) -> bytearray:
        return bytearray(self.files.get(rel, b"")) if append else bytearray()

    def commit(self, rel: str, data: bytes) -> None:
        self.files[rel] = data

    def read(self, rel: str) -> bytes:
        return self.files[rel]

    def unlink(self, path: str, rel: str) -> None:
        del self.files[rel]

    def setattr(self, path: str, rel: str) -> None:
        return None

    def mkdir(self, rel: str) -> None:
        self.dirs.add(rel)

    def rmdir(self, path: str, rel: str) -> None:
        self.dirs.discard(rel)

    def rename(self, src: str, dst: str, rel_src: str, rel_dst: str) -> None:
        if rel_src in self.files:
            self.files[rel_dst] = self.files.pop(rel_src)
            return
        for name in [f for f in self.files if f.startswith(rel_src + "/")]:
            self.files[rel_dst + name[len(rel_src) :]] = self.files.pop(name)
        self.dirs = {
            rel_dst + d[len(rel_src) :] if d == rel_src or d.startswith(rel_src + "/") else d for d in self.dirs
        }

    def names(self, rel: str) -> list[str]:
        base = rel + "/" if rel else ""
        return [f[len(base) :] for f in self.files if f.startswith(base)]


@dataclass
class Mountpoint:
    """A Mountpoint volume: the bucket's keys under ``prefix`` seen as files (``programs`` reads them too)."""

    bucket: str
    prefix: str = ""  # "" or ending in "/"
    options: Options = field(default_factory=Options)
    local_dirs: set[str] = field(default_factory=set)  # made by mkdir, no key under them yet
    writing: set[str] = field(default_factory=set)  # files open for writing, not yet objects

    def _keys(self) -> dict[str, Any]:
        from moto.s3.models import FakeDeleteMarker

        backend = _backend(self.bucket)
        if backend is None:
            return {}
        keys = backend.buckets[self.bucket].keys
        return {k: v for k, v in keys.items() if not isinstance(v, FakeDeleteMarker)}

    def kind(self, rel: str) -> str | None:
        if not rel or rel in self.local_dirs:
            return "dir"
        key, keys = self.prefix + rel, self._keys()
        if any(k.startswith(key + "/") for k in keys):
            return "dir"  # a directory shadows a file of the same name (SEMANTICS, "Directories")
        if key in keys or rel in self.writing:
            return "file"
        return None

    def begin_write(self, path: str, rel: str, truncate: bool, append: bool) -> bytearray:
        if self.options.read_only:
            raise error(errno.EROFS, path)
        if rel in self.writing:
            raise error(errno.EPERM, path)
        if self.prefix + rel in self._keys() and not (self.options.allow_overwrite and truncate and not append):
            raise error(errno.EPERM, path)
        self.writing.add(rel)
        return bytearray()

    def commit(self, rel: str, data: bytes) -> None:
        self.writing.discard(rel)
        backend = _backend(self.bucket)
        if backend is None:
            raise error(errno.EIO, rel)  # Mountpoint's upload fails: the bucket is gone
        backend.put_object(self.bucket, self.prefix + rel, data)

    def read(self, rel: str) -> bytes:
        return bytes(self._keys()[self.prefix + rel].value)

    def unlink(self, path: str, rel: str) -> None:
        if not self.options.allow_delete or rel in self.writing:
            raise error(errno.EPERM, path)
        _backend(self.bucket).delete_object(self.bucket, self.prefix + rel)

    def setattr(self, path: str, rel: str) -> None:
        if rel not in self.writing:
            raise error(errno.EPERM, path)

    def mkdir(self, rel: str) -> None:
        self.local_dirs.add(rel)

    def rmdir(self, path: str, rel: str) -> None:
        if rel not in self.local_dirs or any(k.startswith(self.prefix + rel + "/") for k in self._keys()):
            raise error(errno.EPERM, path)
        self.local_dirs.discard(rel)

    def rename(self, src: str, dst: str, rel_src: str, rel_dst: str) -> None:
        if self.kind(rel_src) == "dir":
            raise error(errno.EPERM, src, dst)
        raise error(errno.ENOSYS, src, dst)

    def names(self, rel: str) -> list[str]:
        base = self.prefix + (rel + "/" if rel else "")
        return [k[len(base) :] for k in self._keys() if k.startswith(base)]


Volume = Local | Mountpoint


class Handle:
    """An open file: written sequentially, committed at close."""

    def __init__(self, files: Files, volume: Volume, rel: str, data: bytearray) -> None:
        self._files, self._volume, self._rel, self._data = files, volume, rel, data

    def write(self, data: bytes) -> None:
        self._data += data

    def close(self) -> None:
        self._volume.commit(self._rel, bytes(self._data))


class Files:
    """A container's view of its files: its volumes at their mount paths, the image's layer elsewhere."""

    def __init__(self, volumes: list[tuple[str, Volume]]) -> None:
        self.volumes = sorted(((p.rstrip("/") or "/", v) for p, v in volumes), key=lambda m: len(m[0]), reverse=True)
        self.image = Local()

    def locate(self, path: str) -> tuple[Volume, str, str]:
        """(volume, path inside it, its mount path) of an absolute path."""
        path = "/" + path.strip("/")
        for mount, volume in self.volumes:
            if path == mount or path.startswith(mount.rstrip("/") + "/"):
                return volume, path[len(mount) :].strip("/"), mount
        return self.image, path.strip("/"), "/"

    def kind(self, path: str) -> str | None:
        volume, rel, _ = self.locate(path)
        return volume.kind(rel)

    def exists(self, path: str) -> bool:
        return self.kind(path) is not None

    def _parent_ready(self, path: str) -> None:
        parent = path.rstrip("/").rsplit("/", 1)[0] or "/"
        if self.kind(parent) != "dir":
            raise error(errno.ENOENT, path)

    def open(self, path: str, mode: str = "wb") -> Handle:
        """``open(path, mode)`` for writing as Python opens it: "w" is O_WRONLY|O_CREAT|O_TRUNC, "a" O_APPEND
        without O_TRUNC, "r+" O_RDWR; "trunc" is the O_RDWR|O_TRUNC|O_CREAT a lock file is opened with."""
        volume, rel, _ = self.locate(path)
        if volume.kind(rel) == "dir":
            raise error(errno.EISDIR, path)
        if volume.kind(rel) is None:
            self._parent_ready(path)
        truncate, append = mode.startswith(("w", "trunc")), mode.startswith("a")
        return Handle(self, volume, rel, volume.begin_write(path, rel, truncate, append))

    def write_file(self, path: str, data: bytes, mode: str = "wb") -> None:
        handle = self.open(path, mode)
        handle.write(data)
        handle.close()

    def read(self, path: str) -> bytes:
        volume, rel, _ = self.locate(path)
        if volume.kind(rel) != "file":
            raise error(errno.ENOENT, path)
        return volume.read(rel)

    def unlink(self, path: str, missing_ok: bool = False) -> None:
        volume, rel, _ = self.locate(path)
        found = volume.kind(rel)
        if found is None:
            if missing_ok:
                return
            raise error(errno.ENOENT, path)
        if found == "dir":
            raise error(errno.EISDIR, path)
        volume.unlink(path, rel)

    def truncate(self, path: str) -> None:
        """A setattr: ``ftruncate(fd, 0)`` on a file already open (its size), ``utime`` or ``chmod``."""
        volume, rel, _ = self.locate(path)
        volume.setattr(path, rel)

    utime = chmod = truncate

    def makedirs(self, path: str) -> None:
        volume, rel, _ = self.locate(path)
        parts = rel.split("/") if rel else []
        for i in range(1, len(parts) + 1):
            sub = "/".join(parts[:i])
            found = volume.kind(sub)
            if found == "file":
                raise error(errno.EEXIST, path)
            if found is None:
                volume.mkdir(sub)

    def rmdir(self, path: str) -> None:
        volume, rel, _ = self.locate(path)
        volume.rmdir(path, rel)

    def rename(self, src: str, dst: str) -> None:
        """``os.rename``: within one volume only (EXDEV across mounts, as rename(2) on Linux)."""
        source, rel_src, mount_src = self.locate(src)
        _, rel_dst, mount_dst = self.locate(dst)
        if source.kind(rel_src) is None:
            raise error(errno.ENOENT, src, dst)
        if mount_src != mount_dst:
            raise error(errno.EXDEV, src, dst)
        source.rename(src, dst, rel_src, rel_dst)

    def lock(self, path: str) -> None:
        """``flock``/``fcntl`` on an open file: kept by the kernel on every volume here (see the module's note)."""
        return None

    def walk(self, path: str) -> list[str]:
        """The files under a directory, relative to it, sorted."""
        volume, rel, _ = self.locate(path)
        return sorted(volume.names(rel))


def volumes(
    emulator: Any,
    namespace: str,
    pod_spec: dict[str, Any],
    container: dict[str, Any],
    kept: dict[str, Any] | None = None,
) -> Files:
    """The container's Files: each Mountpoint volume (a claim bound to a Mountpoint PersistentVolume, or an
    inline CSI volume) with the bucket, prefix and mount options the driver mounts, every other volume a local
    file system of its own, taken from ``kept`` (by volume name) when the caller keeps the pod's local volumes
    between calls, else shared by the containers that mount it only within this call."""
    from sandbox.controllers import programs

    specs = {v.get("name"): v for v in pod_spec.get("volumes") or []}
    found: list[tuple[str, Volume]] = []
    locals_: dict[str, Any] = kept if kept is not None else {}
    for mount in container.get("volumeMounts") or []:
        volume = specs.get(mount.get("name")) or {}
        source = programs.source_of(emulator, namespace, volume)
        if source is None:
            found.append((str(mount["mountPath"]), locals_.setdefault(str(mount.get("name")), Local())))
            continue
        bucket, prefix, options = source
        if mount.get("subPath"):
            prefix += str(mount["subPath"]).strip("/") + "/"
        parsed = Options.parse(options)
        # a read-only volumeMount or inline CSI volume is mounted read-only (kubelet; the driver's readOnly)
        if mount.get("readOnly") or (volume.get("csi") or {}).get("readOnly"):
            parsed = dataclasses.replace(parsed, read_only=True)
        found.append((str(mount["mountPath"]), Mountpoint(bucket, prefix, parsed)))
    return Files(found)
