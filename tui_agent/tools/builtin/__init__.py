"""The tools every session has: reading, listing, searching and editing files, a shell
(with its background jobs), and fetching a web page."""

from __future__ import annotations

from ..spec import ToolSpec
from .edit_file import EDIT_FILE
from .job_tools import JOB_OUTPUT, STOP_JOB
from .list_dir import LIST_DIR
from .read_file import READ_FILE
from .run_command import RUN_COMMAND
from .search_text import SEARCH_TEXT
from .web_fetch import WEB_FETCH
from .write_file import WRITE_FILE

BUILTIN_TOOLS: tuple[ToolSpec, ...] = (
    READ_FILE,
    LIST_DIR,
    SEARCH_TEXT,
    WRITE_FILE,
    EDIT_FILE,
    RUN_COMMAND,
    JOB_OUTPUT,
    STOP_JOB,
    WEB_FETCH,
)

__all__ = ["BUILTIN_TOOLS"]
