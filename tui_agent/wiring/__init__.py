"""The wiring: builds a session's host (config, profile, workspace, demo, logs, tools,
session writer, MCP, the Agent) for the app and for `tui-agent run`. `agent/` is only the
loop."""
