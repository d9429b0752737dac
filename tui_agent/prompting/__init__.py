"""What the message box offers besides plain text: prompt templates (/NAME), the workspace's file
index for @mentions, attachments read under the file tools' rules, and earlier messages to search.

Nothing here imports Textual: the app's side is in ``ui/slash_commands.py``, ``ui/mentions.py``
and ``ui/prompt_history.py``.
"""
