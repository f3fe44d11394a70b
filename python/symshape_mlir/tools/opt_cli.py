"""Command line of symshape-opt, in mlir-opt's conventions.

Options may be spelled with one or two dashes (``-split-input-file``); a
pass is requested by its name as a flag, with its options after ``=``
(``--symshape-infer-shapes=policy=strict``, ``--canonicalize='max-iterations=3'``),
and pass flags run in the order given. Every flag that is not an option of
the tool is taken as a pass flag: a symshape pass, or any upstream MLIR pass
or pass pipeline (validated when the pipeline is built).
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import typing
from collections.abc import Iterator, Sequence
from typing import Literal, NoReturn

from symshape_mlir.pipeline import ModulePass, PassRegistry
from symshape_mlir.pipeline.text import PassElement

__all__ = [
    "PROG",
    "HelpRequested",
    "OptOptions",
    "UsageError",
    "list_passes_text",
    "parse_arguments",
]

logger = logging.getLogger(__name__)

PROG = "symshape-opt"

VerifyLevel = Literal["all", "only-expected"]


class UsageError(Exception):
    """The command line is invalid."""


class HelpRequested(Exception):
    """``--help`` was given and printed; the tool exits with ``status``."""

    def __init__(self, status: int):
        super().__init__(status)
        self.status = status


@dataclasses.dataclass(frozen=True)
class OptOptions:
    """The parsed command line.

    Attributes:
        input: Input file, ``-`` for standard input.
        output: Output file, ``-`` for standard output.
        pass_pipeline: The ``--pass-pipeline`` text, if given.
        pass_flags: Passes requested as flags, in order.
        split_input_file: Process ``// -----``-separated chunks separately.
        verify_diagnostics: The verification level, None when not verifying.
        print_ir_after_all: Print the IR after every pass to stderr.
        allow_unregistered_dialect: Accept operations of unknown dialects.
        print_op_generic: Print operations in generic form.
        print_debuginfo: Print locations.
        list_passes: Print the symshape passes and exit.
    """

    input: str = "-"
    output: str = "-"
    pass_pipeline: str | None = None
    pass_flags: tuple[PassElement, ...] = ()
    split_input_file: bool = False
    verify_diagnostics: VerifyLevel | None = None
    print_ir_after_all: bool = False
    allow_unregistered_dialect: bool = False
    print_op_generic: bool = False
    print_debuginfo: bool = False
    list_passes: bool = False


@dataclasses.dataclass(frozen=True)
class _ToolOption:
    name: str
    help: str
    metavar: str | None = None
    optional_value: str | None = None

    @property
    def flag(self) -> str:
        return f"-{self.name}" if len(self.name) == 1 else f"--{self.name}"


_TOOL_OPTIONS = (
    _ToolOption("o", "output file (default: standard output)", metavar="FILE"),
    _ToolOption(
        "pass-pipeline",
        "textual pass pipeline, e.g. 'builtin.module(symshape-strip-annotations,"
        "func.func(canonicalize))'",
        metavar="PIPELINE",
    ),
    _ToolOption("split-input-file", "process each '// -----'-separated chunk separately"),
    _ToolOption(
        "verify-diagnostics",
        "check emitted diagnostics against expected-* comments "
        "(=only-expected: report only expectations that were not met)",
        metavar="{all,only-expected}",
        optional_value="all",
    ),
    _ToolOption("mlir-print-ir-after-all", "print the IR after each pass to stderr"),
    _ToolOption("allow-unregistered-dialect", "accept operations of unregistered dialects"),
    _ToolOption("mlir-print-op-generic", "print operations in generic form"),
    _ToolOption("mlir-print-debuginfo", "print locations"),
    _ToolOption("list-passes", "list the symshape passes and exit"),
)
_HELP_NAMES = ("h", "help")


def parse_arguments(argv: Sequence[str], passes: PassRegistry) -> OptOptions:
    """Parses the command line.

    Args:
        argv: The arguments, without the program name.
        passes: The symshape passes, for ``--help``.

    Returns:
        The options.

    Raises:
        UsageError: Invalid arguments.
        HelpRequested: ``--help`` was printed.
    """
    tool_args, pass_flags = _separate_pass_flags(argv)
    parser = _build_parser(passes)
    namespace = parser.parse_args(tool_args)
    if namespace.pass_pipeline is not None and pass_flags:
        raise UsageError(
            "--pass-pipeline cannot be combined with pass flags "
            f"({', '.join('--' + flag.name for flag in pass_flags)})"
        )
    return OptOptions(
        input=namespace.input,
        output=namespace.o,
        pass_pipeline=namespace.pass_pipeline,
        pass_flags=tuple(pass_flags),
        split_input_file=namespace.split_input_file,
        verify_diagnostics=namespace.verify_diagnostics,
        print_ir_after_all=namespace.mlir_print_ir_after_all,
        allow_unregistered_dialect=namespace.allow_unregistered_dialect,
        print_op_generic=namespace.mlir_print_op_generic,
        print_debuginfo=namespace.mlir_print_debuginfo,
        list_passes=namespace.list_passes,
    )


def list_passes_text(passes: PassRegistry) -> str:
    """The ``--list-passes`` text: symshape passes and pipelines with their options."""
    transforms = [cls for _, cls in sorted(passes.items()) if not cls.is_alias()]
    aliases = [cls for _, cls in sorted(passes.items()) if cls.is_alias()]
    lines = ["Available Passes:", *_describe(transforms)]
    if aliases:
        lines += ["Available Pass Pipelines:", *_describe(aliases)]
    lines += [
        "",
        "Every upstream MLIR pass and pass pipeline (e.g. --canonicalize, --cse) is",
        "accepted too, as a flag or inside --pass-pipeline; `mlir-opt --list-passes`",
        "lists them.",
    ]
    return "\n".join(lines) + "\n"


def _describe(classes: Sequence[type[ModulePass]]) -> Iterator[str]:
    for cls in classes:
        yield f"  --{cls.name}  -  {cls.summary}"
        for spec in cls.options():
            default = spec.format(spec.default)
            yield f"    --{spec.name}=<{spec.type_label}>  -  {spec.help} (default: {default})"
        if cls.is_alias():
            yield f"    expands to: {','.join(cls.pipeline)}"


def _separate_pass_flags(argv: Sequence[str]) -> tuple[list[str], list[PassElement]]:
    """Splits tool arguments (canonicalized for argparse) from pass flags, keeping order."""
    by_name = {option.name: option for option in _TOOL_OPTIONS}
    tool_args: list[str] = []
    pass_flags: list[PassElement] = []
    tokens = iter(argv)
    for token in tokens:
        if token == "--":
            tool_args += [token, *tokens]
            break
        if token == "-" or not token.startswith("-"):
            tool_args.append(token)
            continue
        name, has_value, value = token.lstrip("-").partition("=")
        if name in _HELP_NAMES:
            tool_args.append("--help")
            continue
        option = by_name.get(name)
        if option is None:
            if not name:
                raise UsageError(f"unknown command line argument '{token}'")
            pass_flags.append(PassElement(name, value))
            continue
        if option.optional_value is not None:
            value = value if has_value and value else option.optional_value
        elif option.metavar is None:
            if has_value:
                raise UsageError(f"option '{option.flag}' takes no value")
            tool_args.append(option.flag)
            continue
        elif not has_value:
            following = next(tokens, None)
            if following is None:
                raise UsageError(f"option '{option.flag}' needs a value")
            value = following
        tool_args.append(
            f"{option.flag}{value}" if option.name == "o" else f"{option.flag}={value}"
        )
    return tool_args, pass_flags


class _ArgumentParser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        if message:
            self._print_message(message)
        raise HelpRequested(status)


def _build_parser(passes: PassRegistry) -> argparse.ArgumentParser:
    parser = _ArgumentParser(
        prog=PROG,
        description="Runs symshape and upstream MLIR passes on MLIR source (mlir-opt conventions).",
        epilog=_passes_help(passes),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        allow_abbrev=False,
        add_help=False,
    )
    parser.add_argument("input", nargs="?", default="-", help="input file (default: '-', stdin)")
    parser.add_argument("-h", "--help", action="help", help="show this help and exit")
    for option in _TOOL_OPTIONS:
        dest = option.name.replace("-", "_")
        if option.optional_value is not None:
            parser.add_argument(
                option.flag,
                dest=dest,
                choices=typing.get_args(VerifyLevel),
                default=None,
                metavar=option.metavar,
                help=option.help,
            )
        elif option.metavar is not None:
            default = "-" if option.name == "o" else None
            parser.add_argument(
                option.flag, dest=dest, default=default, metavar=option.metavar, help=option.help
            )
        else:
            parser.add_argument(option.flag, dest=dest, action="store_true", help=option.help)
    return parser


def _passes_help(passes: PassRegistry) -> str:
    lines = ["pass flags (run in the order given; also usable in --pass-pipeline):"]
    for name, cls in sorted(passes.items()):
        usage = f"--{name}" + ("='OPTION=VALUE ...'" if cls.options() else "")
        lines.append(f"  {usage}")
        lines.append(f"      {cls.summary}")
        for spec in cls.options():
            default = spec.format(spec.default)
            lines.append(f"      {spec.name}=<{spec.type_label}>: {spec.help} (default: {default})")
        if cls.is_alias():
            lines.append(f"      expands to: {','.join(cls.pipeline)}")
    lines += [
        "  --<upstream-pass>[='OPTION=VALUE ...']",
        "      any upstream MLIR pass or pass pipeline, e.g. --canonicalize, --cse",
    ]
    return "\n".join(lines)
