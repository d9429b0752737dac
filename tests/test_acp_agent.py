"""`tui-agent acp` as a subprocess, driven by the ACP SDK's own client, against the fake
provider: what it advertises, a prompt answered with text, saved as any session."""

from __future__ import annotations

import json

import pytest

from .acp_helpers import acp_agent
from .fake_provider import FakeProvider
from .run_helpers import KEY, Home, final

pytestmark = pytest.mark.heavy


async def test_initialize_advertises_what_is_served(home: Home) -> None:
    with FakeProvider("openai-chat", api_key=KEY) as server:
        async with acp_agent(home, server) as agent:
            init = agent.init
    capabilities = init.agent_capabilities
    assert capabilities is not None
    assert capabilities.load_session is True
    prompts = capabilities.prompt_capabilities
    assert prompts is not None
    assert (prompts.image, prompts.audio, prompts.embedded_context) == (False, False, False)
    assert init.agent_info is not None and init.agent_info.name == "tui-agent"
    assert home.sessions() == []  # a client that never prompted leaves no session behind


async def test_a_text_prompt_streams_the_answer_and_is_saved(home: Home) -> None:
    with FakeProvider("anthropic", api_key=KEY) as server:
        server.script(final(server.protocol, "Hello from the fake model."))
        async with acp_agent(home, server) as agent:
            session_id = await agent.new_session(home.workspace)
            response = await agent.prompt(session_id, "say hello")
        server.assert_all_consumed()
    assert response.stop_reason == "end_turn"
    assert agent.client.text() == "Hello from the fake model."
    (path,) = home.sessions()
    assert path.stem.startswith(session_id) or session_id in path.name
    records = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
    kinds = [r["type"] for r in records]
    assert "user" in kinds and "assistant" in kinds
    header = records[0]
    assert header.get("workspace") == str(home.workspace.resolve())
