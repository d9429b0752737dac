"""Floor 5: the Textual app. Nothing below this package imports Textual."""
