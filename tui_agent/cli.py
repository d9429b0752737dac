"""The ``tui-agent`` command line."""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from .commands.exit_status import EXIT_OK, EXIT_USAGE

if TYPE_CHECKING:
    from .session import LoadedSession
    from .ui.app import TuiAgentApp
    from .wiring.host_options import HostOptions


class _Parser(argparse.ArgumentParser):
    """Usage errors are one line on stderr and exit 1, like every other usage error."""

    def error(self, message: str) -> NoReturn:
        # What the user typed is in the message: no control character reaches the terminal.
        shown = "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in message)
        self.exit(EXIT_USAGE, f"{self.prog}: {shown} (see {self.prog} --help)\n")


def _parser() -> argparse.ArgumentParser:
    from .commands.acp_args import add_acp_command
    from .commands.checkpoints_args import add_checkpoints_command
    from .commands.doctor import add_doctor_command
    from .commands.mcp_args import add_mcp_command
    from .commands.models_args import add_models_command
    from .commands.parse import add_parse_command
    from .commands.replay_args import add_replay_command
    from .commands.rewind_args import add_rewind_command
    from .commands.serve_args import add_serve_command
    from .commands.session_args import add_session_commands

    parser = _Parser(
        prog="tui-agent",
        description="A terminal chat UI for tool-using LLM agents.",
    )
    parser.add_argument("-V", "--version", action=_VersionAction)
    _add_profile_flags(parser)
    app = parser.add_argument_group("the app")
    app.add_argument(
        "-c",
        "--continue",
        dest="continue_last",
        action="store_true",
        help="resume the most recent session for this workspace",
    )
    app.add_argument("-r", "--resume", metavar="ID", help="resume a session (id or path)")
    app.add_argument(
        "--agent",
        metavar="NAME",
        help="open the ACP agent [agents.NAME] of config.toml in the app instead of "
        "tui-agent's own loop (docs/configuration.md)",
    )
    app.add_argument(
        "--theme", metavar="NAME", help="dark, light, high-contrast or a theme file's name"
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    run = commands.add_parser(
        "run",
        help="run the agent loop once without the UI",
        description="Send PROMPT, run the agent loop without the UI, print the answer, save "
        "the session. Exit status: 0 the final turn completed, 2 it was truncated or failed, "
        "1 a usage or configuration error.",
    )
    _add_profile_flags(run)
    _add_run_arguments(run)
    add_parse_command(commands)
    sessions = add_session_commands(commands)
    add_replay_command(commands)
    add_rewind_command(commands)
    checkpoints = add_checkpoints_command(commands)
    add_mcp_command(commands)
    add_doctor_command(commands)
    add_models_command(commands, _add_profile_flags)
    add_serve_command(commands, _add_profile_flags)
    add_acp_command(commands, _add_profile_flags)
    optional_subcommand(parser, "COMMAND")
    optional_subcommand(sessions, "ACTION")
    optional_subcommand(checkpoints, "ACTION")
    return parser


class _VersionAction(argparse.Action):
    """``--version``, the package's version read only when asked: reading it imports
    importlib.metadata and the email parser, a third of the parser's cost on every launch."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: object) -> None:
        super().__init__(
            option_strings, dest, nargs=0, default=argparse.SUPPRESS, help="show the version"
        )

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> NoReturn:
        sys.stdout.write(f"{parser.prog} {_version()}\n")  # where argparse's own action writes
        parser.exit()


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("tui-agent")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "(not installed)"


def optional_subcommand(parser: argparse.ArgumentParser, metavar: str) -> None:
    """Show ``[METAVAR ...]`` in the usage line: the sub-command may be left out."""
    usage = parser.format_usage().removeprefix("usage: ").strip()
    parser.usage = usage.replace(f"{metavar} ...", f"[{metavar} ...]").replace("%", "%%")


def _add_profile_flags(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("provider and workspace (override config.toml)")
    group.add_argument(
        "--profile", metavar="NAME", default=argparse.SUPPRESS, help="a profile from config.toml"
    )
    group.add_argument("--protocol", metavar="P", default=argparse.SUPPRESS)
    group.add_argument("--model", metavar="M", default=argparse.SUPPRESS)
    group.add_argument("--base-url", metavar="URL", default=argparse.SUPPRESS)
    group.add_argument(
        "--api-key-env",
        metavar="VAR",
        default=argparse.SUPPRESS,
        help="the environment variable that holds the key",
    )
    group.add_argument(
        "--workspace",
        metavar="DIR",
        default=argparse.SUPPRESS,
        help="the folder the tools may touch (default: the current directory; the demo "
        "model's own folder of samples)",
    )
    group.add_argument(
        "--sandbox",
        metavar="MODE",
        choices=["workspace-write", "read-only", "off"],
        default=argparse.SUPPRESS,
        help="how commands are confined: workspace-write (default), read-only or off",
    )
    group.add_argument(
        "--debug",
        action="store_true",
        default=argparse.SUPPRESS,
        help="verbose logs (keys are always redacted)",
    )


# `run --approve`'s values: approval/approver.py HEADLESS_MODES says what each means (a test
# keeps the two the same); named here so a launch does not import the approval package.
RUN_APPROVE_CHOICES = ("never", "read-only", "all")


def _add_run_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "prompt",
        help="the message to send; each @path in it that names a file of the workspace is "
        "attached (text, or a PNG, JPEG, GIF or WebP image)",
    )
    parser.add_argument(
        "--attach",
        action="append",
        default=[],
        metavar="FILE",
        help="attach FILE (text or image) to the message; may be repeated",
    )
    parser.add_argument(
        "--approve",
        choices=RUN_APPROVE_CHOICES,
        default="never",
        help="which tool calls run without asking: never (default: every call is denied and "
        "the model is told), read-only, or all",
    )
    parser.add_argument("--json", action="store_true", help="one JSON object per event per line")
    parser.add_argument("--session", metavar="ID", help="continue this session (id or path)")
    parser.add_argument(
        "--agent",
        metavar="NAME",
        help="send PROMPT to the ACP agent [agents.NAME] of config.toml instead of tui-agent's "
        "own loop (its permission requests are answered as --approve says)",
    )
    parser.add_argument(
        "--effort",
        choices=["low", "medium", "high"],
        help="the reasoning effort asked of the model, over the profile's effort (Responses "
        "reasoning.effort, Chat reasoning_effort, Anthropic and Gemini thinking budgets)",
    )
    parser.add_argument(
        "--trust-workspace",
        action="store_true",
        help="use the workspace's own AGENTS.md and .mcp.json for this run though not trusted "
        "(the app asks once and remembers; a server still never gets a provider's key)",
    )


_PROFILE_FLAGS = ("profile", "protocol", "model", "base_url", "api_key_env", "workspace")


def _listen_to_ctrl_c() -> None:
    """Take Ctrl+C back when it was inherited as ignored (a shell's background job does that):
    a person's Ctrl+C, or a SIGINT sent on purpose, must always stop the app and ``run``."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def main(argv: list[str] | None = None) -> int:
    _listen_to_ctrl_c()
    args = _parser().parse_args(argv)
    for name in _PROFILE_FLAGS:
        if not hasattr(args, name):
            setattr(args, name, None)
    if not hasattr(args, "debug"):
        args.debug = False
    if getattr(args, "sandbox", None) or "tui_agent.wiring.sandbox_choice" in sys.modules:
        from .sandbox.policy import SandboxMode
        from .wiring.sandbox_choice import set_cli_mode

        # Also unset: an in-process caller's (a test's) earlier --sandbox must not stay behind.
        set_cli_mode(SandboxMode(args.sandbox) if getattr(args, "sandbox", None) else None)
    if args.command == "parse":
        from .commands import parse

        return parse.main(args)
    if args.command == "models":
        from .commands import models

        return models.main(args)
    if args.command == "doctor":
        from .commands import doctor

        return doctor.main(args)
    if args.command == "run":
        from .commands import run as run_command
        from .logs import redact_crashes, setup_logging

        setup_logging(args.debug)
        redact_crashes()

        return run_command.main(args)
    if args.command == "acp":
        from .commands import acp_agent
        from .logs import redact_crashes, setup_logging

        setup_logging(args.debug)
        redact_crashes()
        return acp_agent.main(args)
    if args.command == "serve":
        from .commands import serve

        return serve.main(args)
    if args.command in ("sessions", "export", "replay", "rewind", "checkpoints"):
        return _run_session_command(args)
    if args.command == "mcp":
        from .commands import mcp as mcp_command
        from .logs import setup_logging

        setup_logging(args.debug)
        return mcp_command.main(args)
    return _run_app(args)


def _run_session_command(args: argparse.Namespace) -> int:
    try:
        if args.command == "export":
            from .commands import export

            return export.main(args)
        if args.command == "replay":
            from .commands import replay

            return replay.main(args, _play_in_replay_app)
        if args.command == "rewind":
            from .commands import rewind

            return rewind.main(args)
        if args.command == "checkpoints":
            from .commands import checkpoints

            return checkpoints.main(args)
        from .commands import sessions

        return sessions.main(args)
    except KeyboardInterrupt:
        print(f"tui-agent {args.command}: interrupted", file=sys.stderr)
        return EXIT_USAGE


def _before_the_screen(args: argparse.Namespace) -> str | None:
    """What can be found wrong without the screen, cheaply (no pydantic, no session package: the
    first screen must not wait for them): an unknown theme, session or profile, a config.toml
    that is not TOML. The app finds the rest (and these again) once it runs."""
    import tomllib

    import platformdirs

    if args.theme is not None and (problem := _unknown_theme(args.theme)) is not None:
        return problem
    if args.resume is not None:
        found = _session_found(args.resume, platformdirs.user_data_dir("tui-agent", False))
        if found is not None:
            return found
    if args.profile is None or args.profile == "demo":
        return None
    path = Path(platformdirs.user_config_dir("tui-agent", appauthor=False)) / "config.toml"
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        data = {}
    except (OSError, UnicodeDecodeError):
        return None  # the app says what is wrong with the file
    except tomllib.TOMLDecodeError as exc:
        return f"config file {path} is not valid TOML: {exc}"
    profiles = data.get("profiles")
    names = sorted(profiles) if isinstance(profiles, dict) else []
    if args.profile in names:
        return None
    return f"no profile named {args.profile!r}; known profiles: {', '.join([*names, 'demo'])}"


def _session_found(wanted: str, data_dir: str) -> str | None:
    """Why ``-r wanted`` names no session file, or None (then the app opens it)."""
    if "/" in wanted or wanted.endswith(".jsonl"):
        return None if Path(wanted).expanduser().is_file() else f"no session file at {wanted}"
    if not wanted.isalnum() or not wanted.isascii():
        return None  # the store says why it is not an id
    folder = Path(data_dir) / "sessions"
    try:
        matches = list(folder.glob(wanted + "*.jsonl"))
    except OSError:
        return None
    return None if matches else f"no session {wanted!r}"


def _agent_of_session(wanted: str, data_dir: str) -> str | None:
    """The [agents.NAME] a saved session talked to, read from its header line (None: tui-agent's
    own loop, or a session that cannot be read here: the app says why)."""
    import json

    if "/" in wanted or wanted.endswith(".jsonl"):
        paths = [Path(wanted).expanduser()]
    elif wanted.isalnum() and wanted.isascii():
        paths = sorted((Path(data_dir) / "sessions").glob(wanted + "*.jsonl"))
    else:
        return None
    if len(paths) != 1:
        return None
    try:
        with paths[0].open(encoding="utf-8") as handle:
            header = json.loads(handle.readline())
    except (OSError, ValueError):
        return None
    profile = header.get("profile") if isinstance(header, dict) else None
    if header.get("protocol") != "acp" or not isinstance(profile, str):
        return None
    return profile.removeprefix("agent:") or None


def _unknown_theme(name: str) -> str | None:
    """Why ``--theme name`` cannot be used (before the screen starts), or None."""
    from .ui.themes import is_theme, theme_names

    if is_theme(name):
        return None
    names = theme_names()
    return f"no theme named {name!r} (themes: {', '.join(names)})"


def _play_in_replay_app(loaded: LoadedSession, args: argparse.Namespace) -> None:
    from .ui.replay_app import ReplayApp

    ReplayApp(loaded, speed=args.speed, theme_name=args.theme).run()


def _run_app(args: argparse.Namespace) -> int:
    from .ui import startup_gc

    # No collector passes over what the app loads until its session is open (startup_gc.py);
    # the app turns it on again then, or this when the app did not get so far.
    startup_gc.pause()
    try:
        return _run_the_app(args)
    finally:
        startup_gc.settle()


def _run_the_app(args: argparse.Namespace) -> int:
    from .ui.app import TuiAgentApp
    from .wiring.host_options import HostOptions

    # SIGTERM/SIGHUP's handler (no tool process outlives the app) is installed by the app's
    # boot, after the first frame: tui_agent.tools pulls in pydantic.
    problem = _before_the_screen(args)
    if problem is not None:
        from .text.sanitize import visible_line

        print(f"tui-agent: {visible_line(problem)}", file=sys.stderr)
        return EXIT_USAGE
    options = HostOptions.from_flags(args, resume=args.resume, continue_last=args.continue_last)
    if not args.agent and args.resume is not None:
        import platformdirs

        data = platformdirs.user_data_dir("tui-agent", False)
        args.agent = _agent_of_session(args.resume, data)  # an ACP agent's: it goes on there
    if args.agent:
        return _run_agent_app(args, options)
    app = TuiAgentApp(options, theme_name=args.theme, debug=args.debug)
    app.run()
    if app.startup_error is not None:
        from .text.sanitize import visible_line

        line = " ".join(part.strip() for part in app.startup_error.splitlines() if part.strip())
        print(f"tui-agent: {visible_line(line)}", file=sys.stderr)
        return EXIT_USAGE
    _say_how_to_come_back(app)
    return EXIT_OK


def _run_agent_app(args: argparse.Namespace, options: HostOptions) -> int:
    """``tui-agent --agent NAME``: an ACP agent's session in the app (ui/acp_app.py)."""
    from .ui import startup_gc
    from .ui.acp_app import AcpApp

    startup_gc.settle()  # this app's start is not paced so (startup_gc.py): the collector on

    app = AcpApp(options, args.agent, theme_name=args.theme, debug=args.debug)
    app.run()
    if app.startup_error is not None:
        from .text.sanitize import visible_line

        line = " ".join(part.strip() for part in app.startup_error.splitlines() if part.strip())
        print(f"tui-agent: {visible_line(line)}", file=sys.stderr)
        return EXIT_USAGE
    host = app.acp
    if host is not None and host.writer.path.exists():
        from .commands.output import started_as

        again = f"--agent {args.agent} -r {host.writer.session_id}"
        print(f"to resume this session: {started_as()} {again}", file=sys.stderr)
    return EXIT_OK


def _say_how_to_come_back(app: TuiAgentApp) -> None:
    """After the app: the command that resumes the session it left (when one was kept)."""
    host = app.host
    if host is None:
        return
    if host.writer.path.exists():
        from .commands.output import started_as

        session = host.writer.session_id
        print(f"to resume this session: {started_as()} -r {session}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
