"""tui-agent as an Agent Client Protocol client: another coding agent (Claude Code through
claude-code-acp, Gemini CLI, any ACP agent) driven over JSON-RPC on stdio with the official SDK
(``agent-client-protocol``, imported only when an agent is used), its session shown with the
loop's own events and saved in tui-agent's own session format.

- ``updates.py``: one ``session/prompt``'s updates as the loop's events and records (no SDK).
- ``session.py``: the agent process, the SDK's client side, permission requests through the
  ``Approver`` face, cancel.
- ``files.py``: the agent's file reads and writes, inside the workspace rules, checkpointed.
- ``terminals.py``: the agent's terminals, as the session's background commands in the sandbox.
"""
