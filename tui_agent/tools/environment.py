"""The environment a tool's process gets: ours, minus every variable that looks like a secret,
and minus any variable holding one of the secret values the app knows (the provider key, which
a profile may read from a variable of any name)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping

# Case-insensitive. Suffixes catch OPENAI_API_KEY, GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY,
# GOOGLE_APPLICATION_CREDENTIALS; the inner words catch names like DB_PASSWORD_FILE or
# MY_SECRET_VALUE; MYSQL_PWD (but not PWD or OLDPWD) and GPG_PASSPHRASE too. Dropping a
# harmless variable costs little; leaking a key costs a lot.
_SECRET_NAME = re.compile(
    r"(?:^|_)(?:KEY|TOKEN|SECRET|CREDENTIALS?|PASSWD|PASS|PAT)$|_PWD$"
    r"|PASSWORD|PASSPHRASE|SECRET|API_?KEY|ACCESS_?KEY|AUTH_?TOKEN|PRIVATE_?KEY",
    re.IGNORECASE,
)


def looks_secret(name: str) -> bool:
    """True for a variable name that probably holds a credential."""
    return _SECRET_NAME.search(name) is not None


def scrubbed_environment(
    environ: Mapping[str, str] | None = None, secret_values: Iterable[str] = ()
) -> dict[str, str]:
    """A copy of ``environ`` (default: ``os.environ``) without secret-looking variables and
    without any variable whose value contains one of ``secret_values``."""
    source = os.environ if environ is None else environ
    known = [secret for secret in secret_values if secret]
    return {
        name: value
        for name, value in source.items()
        if not looks_secret(name) and not any(secret in value for secret in known)
    }
