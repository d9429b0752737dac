"""What an ACP agent asks of tui-agent, as the official SDK hands it over (its ``Client`` face):
each request goes to the session (session.py) and its answer, or its refusal, back in the
protocol's terms (a refused read or write or an unknown terminal: "invalid params"; a missing
file: "resource not found"; what tui-agent lacks, such as elicitation: "method not found").
"""

from __future__ import annotations

from typing import Any, Protocol

from .files import FileMissing, FileRefused
from .terminals import TerminalRefused, Terminals


class Handler(Protocol):
    """What the requests are handed to: the session (``AcpSession``)."""

    terminals: Terminals

    def updated(self, data: dict[str, Any]) -> None: ...

    async def permission(self, tool_call: dict[str, Any], options: list[Any]) -> Any: ...

    async def read_file(self, path: str, line: int | None, limit: int | None) -> str: ...

    async def write_file(self, path: str, content: str) -> None: ...

    async def create_terminal(
        self,
        command: str,
        args: list[str],
        env: dict[str, str],
        cwd: str | None,
        output_limit: int | None,
    ) -> str: ...


class AgentRequests:
    """The SDK's ``Client`` face: each of the agent's requests, handed to the session."""

    def __init__(self, session: Handler) -> None:
        self.session = session

    def on_connect(self, conn: Any) -> None:
        pass

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.session.updated(update.model_dump(mode="json", by_alias=True, exclude_none=True))

    async def request_permission(
        self, session_id: str, tool_call: Any, options: list[Any], **kwargs: Any
    ) -> Any:
        data = tool_call.model_dump(mode="json", by_alias=True, exclude_none=True)
        return await self.session.permission(data, options)

    async def read_text_file(
        self,
        session_id: str,
        path: str,
        line: int | None = None,
        limit: int | None = None,
        **kwargs: Any,
    ) -> Any:
        from acp import RequestError
        from acp.schema import ReadTextFileResponse

        try:
            text = await self.session.read_file(path, line, limit)
        except FileMissing:
            raise RequestError.resource_not_found(path) from None
        except FileRefused as exc:
            raise RequestError.invalid_params({"message": str(exc)}) from None
        return ReadTextFileResponse(content=text)

    async def write_text_file(self, session_id: str, path: str, content: str, **kwargs: Any) -> Any:
        from acp import RequestError
        from acp.schema import WriteTextFileResponse

        try:
            await self.session.write_file(path, content)
        except FileRefused as exc:
            raise RequestError.invalid_params({"message": str(exc)}) from None
        return WriteTextFileResponse()

    async def create_terminal(
        self,
        session_id: str,
        command: str,
        args: list[str] | None = None,
        env: list[Any] | None = None,
        cwd: str | None = None,
        output_byte_limit: int | None = None,
        **kwargs: Any,
    ) -> Any:
        from acp import RequestError
        from acp.schema import CreateTerminalResponse

        variables = {item.name: item.value for item in env or []}
        try:
            terminal_id = await self.session.create_terminal(
                command, list(args or []), variables, cwd, output_byte_limit
            )
        except TerminalRefused as exc:
            raise RequestError.invalid_params({"message": str(exc)}) from None
        return CreateTerminalResponse(terminal_id=terminal_id)

    async def terminal_output(self, session_id: str, terminal_id: str, **kwargs: Any) -> Any:
        from acp.schema import TerminalExitStatus, TerminalOutputResponse

        output, truncated, ended = self._known(terminal_id, self.session.terminals.output)
        status = TerminalExitStatus(**ended) if ended is not None else None
        return TerminalOutputResponse(output=output, truncated=truncated, exit_status=status)

    async def wait_for_terminal_exit(self, session_id: str, terminal_id: str, **kwargs: Any) -> Any:
        from acp.schema import WaitForTerminalExitResponse

        ended = await self._known_async(self.session.terminals.wait(terminal_id))
        return WaitForTerminalExitResponse(**ended)

    async def kill_terminal(self, session_id: str, terminal_id: str, **kwargs: Any) -> Any:
        from acp.schema import KillTerminalResponse

        await self._known_async(self.session.terminals.kill(terminal_id))
        return KillTerminalResponse()

    async def release_terminal(self, session_id: str, terminal_id: str, **kwargs: Any) -> Any:
        from acp.schema import ReleaseTerminalResponse

        await self._known_async(self.session.terminals.release(terminal_id))
        return ReleaseTerminalResponse()

    def _known(self, terminal_id: str, read: Any) -> Any:
        from acp import RequestError

        try:
            return read(terminal_id)
        except TerminalRefused as exc:
            raise RequestError.invalid_params({"message": str(exc)}) from None

    async def _known_async(self, waiting: Any) -> Any:
        from acp import RequestError

        try:
            return await waiting
        except TerminalRefused as exc:
            raise RequestError.invalid_params({"message": str(exc)}) from None

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        from acp import RequestError

        raise RequestError.method_not_found(method)

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        return None
