"""load_skill: a skill's instructions (its SKILL.md after the front matter) and the list of its
other files, or one of those files; read-only. Offered only when the session has skills
(``skills.py``); it reads the skill folder itself, so a config skill works though the
config folder is closed to the file tools."""

from __future__ import annotations

import functools

from pydantic import BaseModel, ConfigDict, Field

from ..tools.builtin.blocking import run_blocking
from ..tools.spec import Risk, ToolContext, ToolOutput, ToolSpec
from .skills import SKILL_FILE, SkillBook
from .templates import read_text

MAX_FILE_BYTES = 256 * 1024


class LoadSkillArgs(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")

    name: str = Field(max_length=64, description="The skill's name, as the system prompt lists it.")
    file: str | None = Field(
        None,
        max_length=1000,
        description="One of the files load_skill listed for this skill, to read it instead.",
    )


def load_skill(book: SkillBook, args: LoadSkillArgs) -> ToolOutput:
    skill = book.get(args.name)
    if skill is None:
        names = ", ".join(s.name for s in book.skills) or "none"
        return ToolOutput(f"no skill is named {args.name!r}; skills: {names}", is_error=True)
    if args.file is not None and args.file != SKILL_FILE:
        if args.file not in skill.files:
            return ToolOutput(
                f"skill {skill.name} has no file {args.file!r}; its files: "
                + (", ".join(skill.files) or "none"),
                is_error=True,
            )
        text = read_text(skill.folder / args.file, MAX_FILE_BYTES)
        if text is None:
            return ToolOutput(
                f"{args.file} of skill {skill.name} cannot be read (not a regular file, or "
                "larger than 256 KB)",
                is_error=True,
            )
        return ToolOutput(text)
    parts = [f"# Skill: {skill.name}", "", skill.body]
    if skill.files:
        parts += ["", "[load_skill: this skill's other files, read one with file=PATH:]"]
        parts += [f"- {name}" for name in skill.files]
    return ToolOutput("\n".join(parts))


def load_skill_tool(book: SkillBook) -> ToolSpec:
    async def run(args: LoadSkillArgs, ctx: ToolContext) -> ToolOutput:
        return await run_blocking(functools.partial(load_skill, book, args))

    return ToolSpec(
        name="load_skill",
        description=(
            "Load a skill listed in the system prompt: returns its instructions and the list of "
            "its other files; with file, returns that file's text instead."
        ),
        args_model=LoadSkillArgs,
        risk=Risk.READ,
        run=run,
    )
