"""`tui-agent serve`: the app in a web browser, behind a token (see commands/serve.py)."""
