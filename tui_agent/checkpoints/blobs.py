"""A content-addressed store of file contents: one file per sha256, written once, atomically."""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
from pathlib import Path


class MissingBlobError(LookupError):
    """A capture's content is not in the store (deleted, or never written)."""


class BlobStore:
    def __init__(self, root: Path) -> None:
        self.root = root

    def path(self, sha256: str) -> Path:
        if len(sha256) != 64 or not all(c in "0123456789abcdef" for c in sha256):
            raise MissingBlobError(f"not a sha256: {sha256!r}")
        return self.root / sha256[:2] / sha256[2:]

    def put(self, data: bytes) -> str:
        """Store ``data`` (synced before it gets its name); returns its sha256."""
        sha = hashlib.sha256(data).hexdigest()
        target = self.path(sha)
        try:
            # Kept again: a prune spares what was written or kept lately (its grace period), so
            # the record about to name this content never finds it gone.
            os.utime(target)
            return sha
        except FileNotFoundError:
            pass
        except OSError:  # a read-only store: the content is there all the same
            if target.exists():
                return sha
        target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        temporary = target.parent / f".{secrets.token_hex(6)}.tmp"
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temporary, target)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary)
            raise
        return sha

    def read(self, sha256: str) -> bytes:
        try:
            data = self.path(sha256).read_bytes()
        except FileNotFoundError:
            raise MissingBlobError(f"the content {sha256[:12]} is no longer kept") from None
        if hashlib.sha256(data).hexdigest() != sha256:
            raise MissingBlobError(f"the content {sha256[:12]} is damaged")
        return data
