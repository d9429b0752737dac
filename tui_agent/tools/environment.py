"""The environment a tool's process gets: ours, minus every variable that looks like a secret,
minus any variable holding one of the secret values the app knows (the provider key, which
a profile may read from a variable of any name), minus every variable that points at a host
service (a socket or an agent: tmux, the SSH agent, D-Bus, Docker, display servers, the runtime
dir), and with the credentials inside URLs (``scheme://user:pass@host``) stripped.

A variable naming a host service is a door out of the sandbox: ``tmux run-shell`` through
``$TMUX`` makes the tmux server run anything unconfined. So such a variable is dropped, by name
(the known ones) and by value (any value that is, or holds, the path of an existing socket, or a
``unix:`` address)."""

from __future__ import annotations

import os
import re
import stat
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

# Variables that point at a host service (a socket, an agent, a server of the desktop).
_SERVICE_NAMES = frozenset(
    {
        "TMUX",
        "TMUX_PANE",
        "TMUX_TMPDIR",
        "STY",
        "SCREENDIR",
        "ZELLIJ",
        "ZELLIJ_SESSION_NAME",
        "SSH_AUTH_SOCK",
        "SSH_AGENT_PID",
        "SSH_ASKPASS",
        "SUDO_ASKPASS",
        "GIT_ASKPASS",
        "GPG_AGENT_INFO",
        "GNOME_KEYRING_CONTROL",
        "GNOME_KEYRING_PID",
        "KRB5CCNAME",
        "DOCKER_HOST",
        "CONTAINER_HOST",
        "DISPLAY",
        "WAYLAND_DISPLAY",
        "WAYLAND_SOCKET",
        "XAUTHORITY",
        "XDG_RUNTIME_DIR",
        "PULSE_SERVER",
        "PULSE_COOKIE",
        "PIPEWIRE_REMOTE",
        "KITTY_LISTEN_ON",
        "KITTY_WINDOW_ID",
        "KITTY_PID",
        "WEZTERM_UNIX_SOCKET",
        "WEZTERM_PANE",
        "ALACRITTY_SOCKET",
        "NVIM",
        "NVIM_LISTEN_ADDRESS",
        "EMACS_SOCKET_NAME",
        "SWAYSOCK",
        "I3SOCK",
        "NIRI_SOCKET",
        "HYPRLAND_INSTANCE_SIGNATURE",
        "NOTIFY_SOCKET",
        "JOURNAL_STREAM",
        "LISTEN_FDS",
        "LISTEN_PID",
        "LISTEN_FDNAMES",
        "GIO_LAUNCHED_DESKTOP_FILE",
        "GIO_LAUNCHED_DESKTOP_FILE_PID",
        "DESKTOP_STARTUP_ID",
        "WINDOWID",
        "MPD_HOST",
        "ATUIN_SESSION",
    }
)
_SERVICE_PREFIXES = (
    "DBUS_",
    "PODMAN_",
    "DOCKER_",  # DOCKER_HOST, DOCKER_CONFIG, DOCKER_CERT_PATH (the daemon's client keys)
    "VSCODE_IPC_HOOK",
    "VSCODE_GIT_IPC",
    "VSCODE_GIT_ASKPASS",
    "KITTY_LISTEN",
    "WEZTERM_",
    "GPG_AGENT",
    "SSH_AGENT",
    "XDG_RUNTIME",
)
# "unix:path=/run/dbus", "unix:///var/run/docker.sock", "unix:abstract=..."
_UNIX_ADDRESS = re.compile(r"(?:^|[\s,;=])unix:", re.IGNORECASE)
# The userinfo of a URL: what lies between "scheme://" and "@" before the host.
_URL_USERINFO = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.\-]*://)(?P<userinfo>[^/?#@\s]*)@")
_PATH_SEPARATORS = re.compile(r"[\s,;:=]")


def looks_secret(name: str) -> bool:
    """True for a variable name that probably holds a credential."""
    return _SECRET_NAME.search(name) is not None


def points_at_service(name: str, value: str) -> bool:
    """True for a variable that names a host service: a known one (tmux, SSH agent, D-Bus,
    Docker, display servers, the runtime dir...), a ``unix:`` address, or a value that is or
    holds the path of an existing socket."""
    upper = name.upper()
    if upper in _SERVICE_NAMES or upper.startswith(_SERVICE_PREFIXES):
        return True
    if _UNIX_ADDRESS.search(value):
        return True
    return any(_is_socket(piece) for piece in _PATH_SEPARATORS.split(value) if "/" in piece)


def _is_socket(piece: str) -> bool:
    path = piece.removeprefix("//") if piece.startswith("///") else piece
    if not path.startswith("/"):
        return False
    try:
        return stat.S_ISSOCK(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def without_url_credentials(value: str) -> str:
    """``value`` with the userinfo of every URL in it removed: ``postgres://u:pw@db/x`` becomes
    ``postgres://db/x`` (a token given as the user, ``https://TOKEN@host``, goes too)."""
    return _URL_USERINFO.sub(lambda match: match["scheme"], value)


def scrubbed_environment(
    environ: Mapping[str, str] | None = None, secret_values: Iterable[str] = ()
) -> dict[str, str]:
    """A copy of ``environ`` (default: ``os.environ``) without secret-looking variables, without
    any variable whose value contains one of ``secret_values``, without any variable pointing at
    a host service, and with the credentials inside URLs stripped."""
    source = os.environ if environ is None else environ
    known = [secret for secret in secret_values if secret]
    kept: dict[str, str] = {}
    for name, value in source.items():
        if looks_secret(name) or any(secret in value for secret in known):
            continue
        if points_at_service(name, value):
            continue
        kept[name] = without_url_credentials(value) if "@" in value else value
    return kept
