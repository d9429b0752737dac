"""What an approval's hash binds for a call that runs a program: the arguments and the sandbox.

A call approved as sandboxed never runs unconfined: the digest shown (and recorded) is
computed over the arguments' digest and the policy's key, and the call runs only when the
policy in force at that moment hashes the same.
"""

from __future__ import annotations

import hashlib

from .policy import SandboxPolicy


def bound_digest(arguments_digest: str, policy: SandboxPolicy | None) -> str:
    """``arguments_digest`` itself for a tool that runs no program (``policy`` None)."""
    if policy is None:
        return arguments_digest
    text = f"{arguments_digest}\n{policy.key()}"
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
