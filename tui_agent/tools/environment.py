"""The environment a tool's process gets: ours, minus every variable that looks like a secret."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

# Case-insensitive. Suffixes catch OPENAI_API_KEY, GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY,
# GOOGLE_APPLICATION_CREDENTIALS; the inner words catch names like DB_PASSWORD_FILE or
# MY_SECRET_VALUE. Dropping a harmless variable costs little; leaking a key costs a lot.
_SECRET_NAME = re.compile(
    r"(?:^|_)(?:KEY|TOKEN|SECRET|CREDENTIALS?|PASSWD|PASS|PAT)$"
    r"|PASSWORD|SECRET|API_?KEY|ACCESS_?KEY|AUTH_?TOKEN|PRIVATE_?KEY",
    re.IGNORECASE,
)


def looks_secret(name: str) -> bool:
    """True for a variable name that probably holds a credential."""
    return _SECRET_NAME.search(name) is not None


def scrubbed_environment(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """A copy of ``environ`` (default: ``os.environ``) without secret-looking variables."""
    source = os.environ if environ is None else environ
    return {name: value for name, value in source.items() if not looks_secret(name)}
