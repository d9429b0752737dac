"""What config.toml may contain; every table forbids unknown keys so a typo is named.

Layout: top-level ``default_profile``, then the tables ``[settings]``, ``[approval]``,
``[profiles.NAME]``, ``[mcp_servers.NAME]``, ``[agents.NAME]``, the list ``[[tools]]`` (kept raw;
tools/user_defined.py validates it) and the list ``[[hooks]]`` (hooks/config.py).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ..approval.policy import ApprovalMode
from ..approval.rules import (
    AllowCommand,
    AllowCommandPrefix,
    AllowFetchHost,
    AllowTool,
    Rule,
    RuleError,
)
from ..checkpoints.prune import DEFAULT_KEEP_DAYS
from ..checkpoints.shadow import DEFAULT_MAX_FILE_BYTES, DEFAULT_MAX_FILES, Limits
from ..hooks.config import HookConfig
from ..mcp.config import McpConfigError, McpServerConfig, check_server_name
from ..mcp.limits import DEFAULT_MAX_MESSAGE_BYTES, DEFAULT_MAX_TOOLS, McpLimits
from ..sandbox.policy import (
    DEFAULT_DENIED_PATHS,
    DEFAULT_MAX_PROCESSES,
    DEFAULT_MEMORY_MB,
    DEFAULT_WRITE_MB,
    SandboxMode,
)
from .errors import ConfigError
from .protocols import check_base_url, known_protocol, normalize_base_url

DEMO_PROFILE = "demo"  # reserved for the built-in offline model

# strict: TOML already has types, so "90" for a number or "true" for a flag is a mistake to show.
_STRICT = ConfigDict(extra="forbid", frozen=True, strict=True)


class Profile(BaseModel):
    """One way to reach a model: ``[profiles.NAME]``."""

    model_config = _STRICT

    protocol: str
    model: str | None = None
    base_url: str | None = None  # None: the protocol's official URL; stored normalized
    # None: the protocol's default variable, and only for its official host; "": no key at all
    api_key_env: str | None = None
    options: dict[str, Any] = Field(default_factory=dict)  # passed to the request body as is
    stateful: bool = False  # previous_response_id / previous_interaction_id
    max_tokens: int | None = Field(default=None, gt=0)  # overrides settings.max_tokens
    system_prompt: str | None = None  # overrides settings.system_prompt
    sandbox_network: bool | None = None  # overrides settings.sandbox_network
    context_window: int | None = Field(default=None, gt=0)  # tokens; else asked of the server
    effort: Literal["low", "medium", "high"] | None = None  # reasoning effort (providers/effort.py)
    # The provider's own tools, run at the provider (providers/server_tools.py).
    server_tools: list[Literal["web_search"]] = Field(default_factory=list)

    @field_validator("protocol")
    @classmethod
    def _known_protocol(cls, value: str) -> str:
        try:
            known_protocol(value)
        except ConfigError as exc:
            raise ValueError(str(exc)) from None
        return value

    @field_validator("model")
    @classmethod
    def _model_not_blank(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise ValueError("model must not be empty")
        return value

    @field_validator("base_url")
    @classmethod
    def _normalized_url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        try:
            return normalize_base_url(value)
        except ConfigError as exc:
            raise ValueError(str(exc)) from None

    @model_validator(mode="after")
    def _fits_protocol(self) -> Profile:
        try:
            if self.base_url is not None:
                check_base_url(self.protocol, self.base_url)
            check_stateful(self.protocol, self.stateful)
        except ConfigError as exc:
            raise ValueError(str(exc)) from None
        return self


def check_stateful(protocol: str, stateful: bool) -> None:
    """ConfigError when ``stateful = true`` is asked of a protocol that cannot do it."""
    if stateful and not known_protocol(protocol).stateful_capable:
        raise ConfigError(
            f"stateful = true needs protocol openai-responses or gemini-interactions, "
            f"not {protocol}"
        )


class Settings(BaseModel):
    """``[settings]``: limits and defaults that hold for every profile."""

    model_config = _STRICT

    system_prompt: str | None = None  # None: the app's built-in prompt
    workspace: str | None = None  # None: the current directory; ~ is expanded
    idle_timeout: float = Field(default=90.0, gt=0)  # seconds with no byte from the provider
    turn_deadline: float = Field(default=600.0, gt=0)  # seconds for one whole model response
    max_retries: int = Field(default=4, ge=0)  # retries of a request that failed before any byte
    retry_max_wait: float = Field(default=30.0, gt=0)  # the cap on one wait between retries
    retry_after_max: float = Field(default=60.0, gt=0)  # the cap on a server's retry-after
    max_event_bytes: int = Field(default=16 * 1024 * 1024, ge=1024)  # one SSE event's limit
    max_turn_events: int = Field(default=200_000, ge=100)  # events of one whole turn
    max_turn_bytes: int = Field(default=64 * 1024 * 1024, ge=65536)  # body bytes of one turn
    tool_output_cap: int = Field(default=65536, gt=0)  # bytes of one tool's output sent back
    max_auto_steps: int = Field(default=25, gt=0)  # auto-approved rounds before asking again
    # How deep subagents go (the task tool, agent/subagent.py): 1, the conversation starts
    # them and they start none; 0, no task tool at all.
    subagent_depth: int = Field(default=1, ge=0, le=5)
    max_tokens: int = Field(default=8192, gt=0)  # output budget (anthropic requires one)
    # The sandbox of commands (run_command, user-defined tools): see tui_agent/sandbox/.
    sandbox: SandboxMode = Field(default=SandboxMode.WORKSPACE_WRITE, strict=False)
    sandbox_network: bool = False
    sandbox_denied_paths: list[str] = Field(default_factory=lambda: list(DEFAULT_DENIED_PATHS))
    sandbox_max_processes: int = Field(default=DEFAULT_MAX_PROCESSES, ge=16)
    sandbox_memory_mb: int = Field(default=DEFAULT_MEMORY_MB, ge=64)  # address space a process
    sandbox_write_mb: int = Field(default=DEFAULT_WRITE_MB, ge=1)  # what one call may write
    sandbox_protect_git: bool = True  # the workspace's git folders read-only in workspace-write
    # The context window (see tui_agent/context/): a profile's context_window wins over this.
    context_window: int | None = Field(default=None, gt=0)
    # US dollars a session may spend (prices.toml, providers/cost.py); None: no limit
    max_cost: float | None = Field(default=None, gt=0, strict=False)
    compact_at: float = Field(default=0.85, ge=0, lt=1, strict=False)  # of the window; 0: off
    compact_prompt: str | None = None  # None: the built-in compaction prompt
    # When you are needed and the terminal is not focused: the bell and a desktop notification
    # ("desktop"), the bell only ("bell"), or nothing ("off"). See tui_agent/ui/notify.py.
    notify: Literal["off", "bell", "desktop"] = "desktop"
    # Images in the transcript (ui/widgets/image_thumbnail.py): a half-block thumbnail where the
    # terminal has the colours for it ("auto"), always ("blocks"), or only their chip ("off").
    images_inline: Literal["auto", "blocks", "off"] = "auto"
    # Checkpoints (see tui_agent/checkpoints/): a command's snapshot is skipped in a workspace of
    # more files than max_files; a file over max_file_bytes is not captured. What only sessions
    # last changed more than keep_days ago refer to is pruned; 0: saved sessions keep it forever.
    checkpoint_max_files: int = Field(default=DEFAULT_MAX_FILES, gt=0)
    checkpoint_max_file_bytes: int = Field(default=DEFAULT_MAX_FILE_BYTES, gt=0)
    checkpoint_keep_days: int = Field(default=DEFAULT_KEEP_DAYS, ge=0)
    # Variables whose names look like secrets that a trusted workspace .mcp.json may still send
    # as ${VAR} (a provider's key variable never: mcp/workspace_file.py VariablePolicy).
    workspace_mcp_variables: list[str] = Field(default_factory=list)
    # MCP servers (see tui_agent/mcp/limits.py): the bytes of one message a stdio server writes
    # (a result included), the MCP tools one request carries across servers, and the least time
    # between two tools/list of one server however often it says its tools changed.
    mcp_max_message_bytes: int = Field(default=DEFAULT_MAX_MESSAGE_BYTES, ge=65536)
    mcp_max_tools: int = Field(default=DEFAULT_MAX_TOOLS, ge=0)
    mcp_list_changed_interval: float = Field(default=1.0, ge=0, strict=False)

    def mcp_limits(self) -> McpLimits:
        return McpLimits(
            self.mcp_max_message_bytes, self.mcp_max_tools, self.mcp_list_changed_interval
        )

    def checkpoint_limits(self) -> Limits:
        """What a checkpoint (and a rewind's capture of the files it replaces) covers."""
        return Limits(self.checkpoint_max_files, self.checkpoint_max_file_bytes)


class ApprovalConfig(BaseModel):
    """``[approval]``: the starting mode and the rules saved with "saved to config"."""

    model_config = _STRICT

    mode: ApprovalMode = Field(default=ApprovalMode.ASK, strict=False)  # TOML gives a string
    allowed_tools: list[str] = Field(default_factory=list)
    allowed_commands: list[str] = Field(default_factory=list)  # exact command lines
    allowed_command_prefixes: list[str] = Field(default_factory=list)  # shell words: "git diff"
    allowed_fetch_hosts: list[str] = Field(default_factory=list)  # web_fetch: "docs.example"

    @field_validator("allowed_fetch_hosts")
    @classmethod
    def _hosts_allowed(cls, values: list[str]) -> list[str]:
        for host in values:
            _rule_or_value_error(AllowFetchHost, host)
        return values

    @field_validator("allowed_tools")
    @classmethod
    def _tools_allowed(cls, values: list[str]) -> list[str]:
        for name in values:
            _rule_or_value_error(AllowTool, name)
        return values

    @field_validator("allowed_commands")
    @classmethod
    def _commands_allowed(cls, values: list[str]) -> list[str]:
        for command in values:
            _rule_or_value_error(AllowCommand, command)
        return values

    @field_validator("allowed_command_prefixes")
    @classmethod
    def _prefixes_parse(cls, values: list[str]) -> list[str]:
        for text in values:
            _rule_or_value_error(AllowCommandPrefix.parse, text)
        return values

    def rules(self) -> list[Rule]:
        """The saved rules, ready for ``SessionRules``."""
        rules: list[Rule] = [AllowTool(name) for name in self.allowed_tools]
        rules += [AllowCommand(command) for command in self.allowed_commands]
        rules += [AllowCommandPrefix.parse(text) for text in self.allowed_command_prefixes]
        rules += [AllowFetchHost(host) for host in self.allowed_fetch_hosts]
        return rules


def _rule_or_value_error(make: Any, value: str) -> None:
    # pydantic reports a ValueError with the key path, which is what the user needs to see.
    try:
        make(value)
    except RuleError as exc:
        raise ValueError(str(exc)) from None


class AgentCommand(BaseModel):
    """``[agents.NAME]``: another coding agent tui-agent drives over the Agent Client Protocol
    (``tui-agent --agent NAME``, acp_client/). ``command`` is its argv (run as is, no shell);
    ``env`` is added to the environment it inherits."""

    model_config = _STRICT

    command: list[str] = Field(min_length=1)
    env: dict[str, str] = Field(default_factory=dict)

    @field_validator("command")
    @classmethod
    def _program_named(cls, command: list[str]) -> list[str]:
        if not command[0].strip():
            raise ValueError("the first word of command is the program to run: it is empty")
        return command


class Config(BaseModel):
    """The whole of config.toml; a missing file is ``Config()``."""

    model_config = _STRICT

    default_profile: str | None = None
    settings: Settings = Field(default_factory=Settings)
    approval: ApprovalConfig = Field(default_factory=ApprovalConfig)
    profiles: dict[str, Profile] = Field(default_factory=dict)
    tools: list[dict[str, Any]] = Field(default_factory=list)  # raw; see tools/user_defined.py
    mcp_servers: dict[str, McpServerConfig] = Field(default_factory=dict)  # see mcp/config.py
    hooks: list[HookConfig] = Field(default_factory=list)  # see hooks/config.py
    agents: dict[str, AgentCommand] = Field(default_factory=dict)  # ACP agents: acp_client/

    @field_validator("tools")
    @classmethod
    def _tools_declared_well(cls, tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Each [[tools]] entry builds (checked here, so a bad one is a config error with the
        others, never a crash when the agent is built)."""
        if not tools:
            return tools
        from ..tools.user_defined import UserToolError, user_tool_specs  # only when declared

        try:
            user_tool_specs(tools)
        except UserToolError as exc:
            raise ValueError(str(exc)) from None
        return tools

    @field_validator("mcp_servers")
    @classmethod
    def _server_names(cls, servers: dict[str, McpServerConfig]) -> dict[str, McpServerConfig]:
        for name in servers:
            try:
                check_server_name(name)
            except McpConfigError as exc:
                raise ValueError(str(exc)) from None
        return servers

    @model_validator(mode="after")
    def _profile_names(self) -> Config:
        if DEMO_PROFILE in self.profiles:
            raise ValueError(
                f"the profile name {DEMO_PROFILE!r} is reserved for the built-in offline demo; "
                "rename [profiles.demo]"
            )
        wanted = self.default_profile
        if wanted is not None and wanted != DEMO_PROFILE and wanted not in self.profiles:
            known = ", ".join(sorted(self.profiles)) or "none"
            raise ValueError(
                f"default_profile names {wanted!r}, which is not a [profiles.*] table "
                f"(profiles defined: {known})"
            )
        return self
