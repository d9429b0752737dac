"""What the message box offers besides plain text: prompt templates (/NAME), the workspace's file
index for @mentions, attachments read under the file tools' rules, earlier messages to search, and
skills (SKILL.md folders the model loads with the load_skill tool).

Nothing here imports Textual: the app's side is in ``ui/slash_commands.py``, ``ui/mentions.py``
and ``ui/prompt_history.py``.
"""
