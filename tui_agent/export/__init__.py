"""A saved session exported, for both front ends (``tui-agent export`` and the app's /export):
as Markdown for a person (``markdown.py``), written 0600 (``files.py``), through the export
redactor (``redactor.py``)."""
