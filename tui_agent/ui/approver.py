"""The app's side of the Approver: mount an ApprovalPrompt, await the person's decision."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from ..approval.approver import ApprovalRequest
from ..approval.decision import Decision
from .widgets.approval_prompt import ApprovalPrompt
from .widgets.prompt_input import PromptInput

if TYPE_CHECKING:
    from .shell import Shell


class UIApprover:
    def __init__(self, app: Shell) -> None:
        self.app = app

    async def decide(self, request: ApprovalRequest) -> Decision:
        host = self.app.host
        assert host is not None
        future: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()
        prompt = ApprovalPrompt(request, workspace=host.workspace, future=future)
        bottom = self.app.query_one("#bottom")
        # The prompt takes focus itself, once the person is not typing (see its module).
        await bottom.mount(prompt, before=0)
        self.app.query_one("#transcript").scroll_end(animate=False)
        from .notify import notify_person

        notify_person(self.app, f"approval needed: {request.tool_name}")  # the name, no values
        try:
            return await future
        finally:
            await prompt.remove()
            self.app.query_one(PromptInput).focus()
