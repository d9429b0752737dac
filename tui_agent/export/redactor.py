"""The redactor for what is exported: it knows the key shapes and the values of every variable
that holds (or looks like it holds) a key. Records are redacted when written; this is the second
line of defence."""

from __future__ import annotations

from ..session import Redactor


def export_redactor(environ: dict[str, str] | None = None) -> Redactor:
    """Key shapes, plus the values of the variables keys come from.

    Those are the protocols' default variables, the ``api_key_env`` of every profile in
    config.toml (when it loads) and any variable whose name looks secret.
    """
    from ..config import ConfigError, load_config
    from ..config.secrets import key_values

    try:
        config = load_config()
    except (ConfigError, OSError):
        config = None  # a broken config must not stop an export; the shapes still apply
    return Redactor(key_values(config, environ))
