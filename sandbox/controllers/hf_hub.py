"""``hf download <repo> --local-dir <dir>``: the file operations huggingface_hub makes for each file of a
snapshot, run against the container's files (sandbox.controllers.mountpoint), so that a download onto a
Mountpoint volume fails where it would and one onto local disk does not.

The sequence is huggingface_hub v1.28.0's (what ``pip install "huggingface_hub<2"`` installs now), file by file
(``snapshot_download`` runs them in threads; here in name order):

* the listing's tree cache (``_tree_cache.py``, ``write_tree_cache``): ``tempfile.mkstemp`` in
  ``<dir>/.cache/huggingface/trees/``, then ``os.replace`` onto ``<commit>.json``; an OSError is only logged
  ("Ignored error while writing tree cache file");
* ``_local_folder.py``: ``_huggingface_dir`` makes ``<dir>/.cache/huggingface`` and, once, its ``.gitignore``
  under a lock whose file it then unlinks (OSErrors ignored); ``get_local_download_paths`` makes the folders;
  ``read_download_metadata`` takes the file's lock (``.cache/huggingface/download/<file>.lock``);
* ``file_download.py``, ``_hf_hub_download_to_local_dir``: the lock again; ``file_path.unlink(missing_ok=True)``;
  ``_download_to_tmp_and_move``: the body into a process-unique ``<etag>.<uuid>.incomplete`` file
  (``open("wb")``), then ``_chmod_and_move``: a probe file touched, stat'ed and unlinked, ``os.chmod`` of the
  download (an OSError is only logged), and ``shutil.move`` with ``_copy_no_matter_what``: ``os.rename``, and
  when that raises OSError, ``shutil.copy2`` (``copyfile`` then ``copystat``, whose ``os.utime`` comes first)
  falling back to ``shutil.copyfile`` on OSError, then ``os.unlink`` of the source; a ``finally`` unlinks the
  temporary file (``missing_ok``); then ``write_download_metadata``: the lock, and ``<file>.metadata`` opened "w".

The lock is ``filelock.FileLock`` through ``WeakFileLock`` (``utils/_fixes.py``, mode 0o664). filelock 3.32
(tox-dev/filelock ``src/filelock/_unix.py``, ``UnixFileLock._acquire_native``) opens the lock file
``O_RDWR|O_CREAT``, ``flock``s it, then ``os.ftruncate(fd, 0)`` (``_finalize_locked_fd``), and on release
unlocks and closes it; its errors other than a held lock propagate (an ``ftruncate`` error names no file).

A failure ends the command with the exception's last line, as Python prints it, and exit code 1.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import uuid

from sandbox.controllers.mountpoint import Files

CACHE = ".cache/huggingface"


def _lock(files: Files, path: str) -> None:
    """Acquire and release filelock's lock on ``path``."""
    files.makedirs(os.path.dirname(path))
    existed = files.kind(path) == "file"
    handle = None if existed else files.open(path, "wb")  # a new file opens for writing; an existing one reads
    files.lock(path)
    try:
        files.truncate(path)
    except OSError as e:
        code = e.errno or errno.EPERM
        raise OSError(code, os.strerror(code)) from None  # ftruncate's error names no file
    if handle is not None:
        handle.close()


def _move(files: Files, src: str, dst: str, log: list[str]) -> None:
    """``_chmod_and_move``: the permission probe, then ``shutil.move(src, dst, copy_function=_copy_no_matter_what)``."""
    probe = f"{os.path.dirname(src)}/tmp_{uuid.uuid4()}"
    try:
        files.write_file(probe, b"")
        files.chmod(src)
    except OSError as e:
        log.append(
            f"Could not set the permissions on the file '{src}'. Error: {e}.\nContinuing without setting permissions."
        )
    finally:
        with contextlib.suppress(OSError):  # the probe was never made
            files.unlink(probe)
    try:
        files.rename(src, dst)
        return
    except OSError:
        pass
    body = files.read(src)
    try:
        files.write_file(dst, body)  # shutil.copy2: copyfile ...
        files.utime(dst)  # ... then copystat, os.utime first
    except OSError:
        files.write_file(dst, body)  # shutil.copyfile
    files.unlink(src)


def _tree_cache(files: Files, local_dir: str, commit: str, log: list[str]) -> None:
    folder = f"{local_dir}/{CACHE}/trees"
    path = f"{folder}/{commit}.json"
    try:
        files.makedirs(folder)
        tmp = f"{folder}/tmp{uuid.uuid4().hex[:8]}.tmp"
        files.write_file(tmp, b'{"format_version": 1, "files": {}}')
        files.rename(tmp, path)
    except OSError as e:
        log.append(f"Ignored error while writing tree cache file {path}: {e}")


def _gitignore(files: Files, local_dir: str) -> None:
    folder = f"{local_dir}/{CACHE}"
    files.makedirs(folder)
    if files.exists(f"{folder}/.gitignore"):
        return
    try:
        _lock(files, f"{folder}/.gitignore.lock")
        files.write_file(f"{folder}/.gitignore", b"*")
        files.unlink(f"{folder}/.gitignore.lock")
    except OSError:
        pass


def _one(files: Files, local_dir: str, name: str, body: bytes, commit: str, log: list[str]) -> None:
    file_path = f"{local_dir}/{name}"
    metadata = f"{local_dir}/{CACHE}/download/{name}.metadata"
    lock = metadata.removesuffix(".metadata") + ".lock"
    files.makedirs(os.path.dirname(file_path))
    files.makedirs(os.path.dirname(metadata))
    _lock(files, lock)  # read_download_metadata
    etag = hashlib.sha1(f"{commit}/{name}".encode()).hexdigest()
    _lock(files, lock)  # the download's own
    files.unlink(file_path, missing_ok=True)
    tmp = f"{os.path.dirname(metadata)}/{etag}.{uuid.uuid4().hex[:8]}.incomplete"
    try:
        if not files.exists(file_path):
            files.write_file(tmp, body)
            _move(files, tmp, file_path, log)
    finally:
        files.unlink(tmp, missing_ok=True)
    _lock(files, lock)  # write_download_metadata
    files.write_file(metadata, f"{commit}\n{etag}\n0\n".encode(), "w")


def download(files: Files, local_dir: str, tree: dict[str, bytes], commit: str) -> tuple[str | None, list[str]]:
    """Run the download of ``tree`` (name -> bytes) into ``local_dir``: (the failure's last line or None, the
    warnings huggingface_hub logged)."""
    log: list[str] = []
    local_dir = "/" + local_dir.strip("/")
    try:
        files.makedirs(local_dir)
        _tree_cache(files, local_dir, commit, log)
        _gitignore(files, local_dir)
        for name in sorted(tree):
            _one(files, local_dir, name, tree[name], commit, log)
    except OSError as e:
        return f"{type(e).__name__}: {e}", log
    return None, log
