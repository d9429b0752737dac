"""@file mentions in the message box: ``@`` then part of a path offers the workspace's files
(``prompting/file_index``, built in the background when first needed, refreshed when older than
10 s); taking one puts ``@path`` in the text and attaches the file's content as a chip
(``prompting/attachments``: the read_file rules, the sandbox's denied paths, capped). An image
file's path pasted (or dropped: terminals paste it as its path) is attached as an image, and
/paste-image (Alt+V) attaches the clipboard's image (``images/clipboard``)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..conversation import Attachment
from .widgets.attachment_chips import AttachmentChips
from .widgets.prompt_input import PromptInput

if TYPE_CHECKING:
    from ..prompting.attachments import ImageToPrepare
    from ..prompting.file_index import FileIndex
    from .shell import Shell

LIMIT = 50
FRESH_S = 1.0  # a new mention rebuilds a file list older than this


@dataclass(frozen=True)
class MentionSuggestion:
    value: str
    label: str
    description: str
    start: int
    end: int
    attach: str  # the path to attach when taken


def mention_at(text: str, cursor: int) -> tuple[int, int, str] | None:
    """(start, end, query) of an ``@word`` the cursor is in or right after, else None."""
    start = cursor
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    if start >= len(text) or text[start] != "@":
        return None
    end = cursor
    while end < len(text) and not text[end].isspace():
        end += 1
    return start, end, text[start + 1 : cursor]


class Mentions:
    def __init__(self, app: Shell, refresh: Callable[[], None]) -> None:
        self.app = app
        self.refresh = refresh  # the completion list's: show the suggestions again
        self.chips = AttachmentChips(id="attachments")
        self.index: FileIndex | None = None

    def _index(self) -> FileIndex | None:
        host = self.app.host
        if host is None:
            return None
        if self.index is None or self.index.workspace != host.workspace:
            from ..prompting.file_index import FileIndex
            from ..session.paths import protected_dirs

            self.index = FileIndex(host.workspace, leave_out=protected_dirs())
            self.index.refresh()
        return self.index

    def suggestions(self, text: str, cursor: int) -> list[MentionSuggestion]:
        found = mention_at(text, cursor)
        index = self._index()
        if found is None or index is None:
            return []
        start, end, query = found
        if not index.ready.is_set():
            self.app.set_timer(0.1, self.refresh)
            return []
        if not query and (index.age() or 0.0) > FRESH_S:
            # A new mention: files made since the last build (by a tool, by you) belong in it.
            # The list shows what is known now and follows as soon as the rebuild is done.
            index.refresh()
            self._follow(index, index.generation)
        return [
            MentionSuggestion(f"@{path} ", path, "", start, end, path)
            for path in index.search(query, LIMIT)
        ]

    def _follow(self, index: FileIndex, seen: int, tries: int = 50) -> None:
        """Show the suggestions again once ``index`` finished a build after ``seen``."""

        def check() -> None:
            if index.generation != seen:
                self.refresh()
            elif tries > 0:
                self._follow(index, seen, tries - 1)

        self.app.set_timer(0.1, check)

    def take(self, chosen: MentionSuggestion) -> str:
        """Attach the chosen file; the text that replaces the ``@query``."""
        if not self.attach(chosen.attach):
            return self.app.query_one(PromptInput).text[chosen.start : chosen.end]
        return chosen.value

    def attach(self, path: str) -> bool:
        """Attach the workspace file at ``path``; False (and a notice) when it cannot be."""
        from ..prompting.attachments import AttachError, open_attachment

        host = self.app.host
        if host is None:
            return False
        try:
            found = open_attachment(path, host.agent.calls.context)
        except AttachError as exc:
            self.app.notify(f"not attached: {exc}", severity="warning", markup=False)
            return False
        self._add(found)
        return True

    def paste(self, text: str) -> bool:
        """Attach a pasted image file's path; False for any other paste (it goes in as text)."""
        from ..prompting.attachments import AttachError, open_chosen_file, pasted_image

        host = self.app.host
        path = pasted_image(text) if host is not None else None
        if host is None or path is None:
            return False
        try:
            found = open_chosen_file(path, host.agent.calls.context)
        except AttachError as exc:
            self.app.notify(f"not attached: {exc}", severity="warning", markup=False)
            return True  # a path to an image, not text to send
        self._add(found)
        return True

    def _add(self, found: Attachment | ImageToPrepare) -> None:
        """A chip for what was read: an image is checked and scaled in a worker thread (a large
        photo takes a while), its chip saying "preparing" until then."""
        from ..prompting.attachments import AttachError

        if isinstance(found, Attachment):
            self.chips.add(found)
            return
        chip = self.chips.add_preparing(found.path)

        async def prepare() -> None:
            try:
                attachment = await asyncio.to_thread(found.prepare)
            except Exception as exc:  # AttachError; anything else is said as plainly
                said = exc if isinstance(exc, AttachError) else f"{found.path}: {exc!r}"
                self.app.notify(f"not attached: {said}", severity="warning", markup=False)
                self.chips.failed(chip)
                return
            self.chips.prepared(chip, attachment)

        self.app.run_worker(prepare(), group="attach")

    @property
    def preparing(self) -> list[str]:
        """The attached images still being prepared (a message waits for them)."""
        return self.chips.preparing

    def take_all(self) -> tuple[Attachment, ...]:
        return self.chips.take_all()


def paste_clipboard(app: Shell, arguments: str = "") -> None:
    """Alt+V, /paste-image: attach the clipboard's image, read in a worker thread (the tool may
    take a moment)."""

    def read() -> Attachment:
        from ..images import prepare_image
        from ..images.clipboard import read_clipboard_image

        image = prepare_image(read_clipboard_image(), "the clipboard's image")
        kind = image.media_type.removeprefix("image/").replace("jpeg", "jpg")
        return Attachment(f"clipboard-{image.digest[:8]}.{kind}", "", image=image)

    async def attach() -> None:
        from ..images import ImageError
        from ..images.clipboard import ClipboardError

        try:
            attachment = await asyncio.to_thread(read)
        except (ClipboardError, ImageError) as exc:
            app.notify(f"no image attached: {exc}", severity="warning", markup=False)
            return
        app.query_one(AttachmentChips).add(attachment)

    app.run_worker(attach(), group="clipboard", exclusive=True)
