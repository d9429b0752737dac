"""The tools layer: tool specs, strict argument validation, the sandbox and the built-in tools."""

from .arguments import InvalidArguments, arguments_digest, canonical_json, parse_arguments
from .registry import DuplicateToolError, ToolRegistry, builtin_registry
from .sandbox import SandboxError, resolve_in_workspace
from .spec import Risk, ToolContext, ToolOutput, ToolSpec
from .user_defined import UserToolError, build_user_tool, user_tool_specs
from .validation import InvalidCall, ValidatedCall, validate_call, validate_edited

__all__ = [
    "DuplicateToolError",
    "InvalidArguments",
    "InvalidCall",
    "Risk",
    "SandboxError",
    "ToolContext",
    "ToolOutput",
    "ToolRegistry",
    "ToolSpec",
    "UserToolError",
    "ValidatedCall",
    "arguments_digest",
    "build_user_tool",
    "builtin_registry",
    "canonical_json",
    "parse_arguments",
    "resolve_in_workspace",
    "user_tool_specs",
    "validate_call",
    "validate_edited",
]
