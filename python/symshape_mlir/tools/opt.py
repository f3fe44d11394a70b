"""symshape-opt: run symshape and upstream MLIR passes on MLIR source, like mlir-opt.

Reads the input (a file or ``-``), optionally splits it at ``// -----``,
parses each chunk in a context holding every upstream dialect and symshape,
runs the requested pipeline, and prints the result (chunks joined with
``// -----``). Diagnostics go to stderr as ``file:line:col: error: ...`` with
the source line, positions relative to the original file. Exits 0 on success
and 1 on any error (or, with ``--verify-diagnostics``, on any mismatch).
"""

from __future__ import annotations

import logging
import sys
import traceback
from collections.abc import Iterable, Mapping, Sequence

from mlir import ir

from symshape_mlir.context import new_context
from symshape_mlir.passes import PASSES
from symshape_mlir.pipeline import (
    Diagnostic,
    DiagnosticCollector,
    InvalidPipelineError,
    PassPipeline,
    PassRegistry,
    format_diagnostic,
)
from symshape_mlir.pipeline.runner import is_upstream_pass, parse_module_pipeline
from symshape_mlir.tools.opt_cli import (
    PROG,
    HelpRequested,
    OptOptions,
    UsageError,
    list_passes_text,
    parse_arguments,
)
from symshape_mlir.tools.source import SPLIT_MARKER, Chunk, parse_module, split_input
from symshape_mlir.tools.verify_diagnostics import DiagnosticVerifier

__all__ = ["main"]

logger = logging.getLogger(__name__)

_STDIN_NAME = "<stdin>"
_INTERNAL_ERROR = 2


def main(argv: Sequence[str] | None = None) -> int:
    """Runs symshape-opt.

    Args:
        argv: Arguments without the program name; ``sys.argv[1:]`` if None.

    Returns:
        The exit status: 0 on success, 1 on any error, 2 on an internal
        error (a bug: its traceback is printed).
    """
    arguments = sys.argv[1:] if argv is None else list(argv)
    try:
        options = parse_arguments(arguments, PASSES)
    except HelpRequested as request:
        return request.status
    except UsageError as error:
        _fail(f"{error} (try '{PROG} --help')")
        return 1
    if options.list_passes:
        sys.stdout.write(list_passes_text(PASSES))
        return 0
    context = _new_context(options)
    try:
        pipeline = _build_pipeline(options, context, PASSES)
    except (InvalidPipelineError, UsageError) as error:
        _fail(str(error))
        return 1
    try:
        text = _read_input(options.input)
    except OSError as error:
        _fail(f"could not open input file '{options.input}': {error.strerror or error}")
        return 1
    try:
        return _process(text, options, context, pipeline)
    except Exception:
        # A pass or rule raised something other than a located error: a bug.
        _fail(f"internal error: {sys.exc_info()[1]!r}. This is a bug in symshape-mlir; "
              "please report it with the input and this traceback:")
        traceback.print_exc()
        return _INTERNAL_ERROR


def _new_context(options: OptOptions) -> ir.Context:
    """The one place symshape-opt creates its context."""
    return new_context(allow_unregistered_dialects=options.allow_unregistered_dialect)


def _build_pipeline(
    options: OptOptions, context: ir.Context, passes: PassRegistry
) -> PassPipeline | None:
    if options.pass_pipeline is not None:
        elements = parse_module_pipeline(options.pass_pipeline)
    elif options.pass_flags:
        for flag in options.pass_flags:
            if flag.name not in passes and not is_upstream_pass(flag.name, context):
                raise UsageError(
                    f"unknown command line argument '--{flag.name}': neither an option of "
                    f"{PROG} nor a registered pass (try '{PROG} --help' or "
                    f"'{PROG} --list-passes')"
                )
        elements = options.pass_flags
    else:
        return None
    return PassPipeline(
        elements,
        context=context,
        passes=passes,
        print_ir_after_all=options.print_ir_after_all,
        print_generic_op_form=options.print_op_generic,
        print_debuginfo=options.print_debuginfo,
    )


def _process(
    text: str, options: OptOptions, context: ir.Context, pipeline: PassPipeline | None
) -> int:
    filename = _STDIN_NAME if options.input == "-" else options.input
    sources = {filename: text.split("\n")}
    if options.split_input_file:
        chunks, warnings = split_input(text, filename)
        _print_diagnostics(warnings, sources)
    else:
        chunks = [Chunk(text, 1)]
    outputs = []
    succeeded = True
    for chunk in chunks:
        output, chunk_succeeded = _process_chunk(
            chunk, filename, options, context, pipeline, sources
        )
        outputs.append(output)
        succeeded = succeeded and chunk_succeeded
    result = f"{SPLIT_MARKER}\n".join(outputs)
    if options.output == "-":
        sys.stdout.write(result)
        sys.stdout.flush()
    elif succeeded:
        try:
            with open(options.output, "w", encoding="utf-8") as output_file:
                output_file.write(result)
        except OSError as error:
            _fail(f"could not write output file '{options.output}': {error.strerror or error}")
            return 1
    return 0 if succeeded else 1


def _process_chunk(
    chunk: Chunk,
    filename: str,
    options: OptOptions,
    context: ir.Context,
    pipeline: PassPipeline | None,
    sources: Mapping[str, Sequence[str]],
) -> tuple[str, bool]:
    """Parses, transforms and prints one chunk; returns its output and success."""
    collector = DiagnosticCollector()
    module = parse_module(chunk.text, filename, context, collector)
    succeeded = module is not None
    if module is not None and pipeline is not None:
        succeeded = pipeline.run(module, collector)
    output = _print_module(module, options) if module is not None and succeeded else ""
    if options.verify_diagnostics is not None:
        verifier = DiagnosticVerifier(
            chunk.text, filename, only_expected=options.verify_diagnostics == "only-expected"
        )
        for diagnostic in collector.diagnostics:
            verifier.process(diagnostic)
        failures = verifier.finish()
        _print_diagnostics(failures, sources)
        return output, not failures
    _print_diagnostics(collector.diagnostics, sources)
    if not succeeded and not collector.has_errors:
        _fail("pass pipeline failed without a diagnostic")
    return output, succeeded


def _print_module(module: ir.Operation, options: OptOptions) -> str:
    text = module.get_asm(
        print_generic_op_form=options.print_op_generic,
        enable_debug_info=options.print_debuginfo,
        assume_verified=True,
    )
    return f"{text}\n"


def _read_input(path: str) -> str:
    if path == "-":
        return sys.stdin.buffer.read().decode("utf-8", errors="replace")
    with open(path, encoding="utf-8", errors="replace") as input_file:
        return input_file.read()


def _print_diagnostics(
    diagnostics: Iterable[Diagnostic], sources: Mapping[str, Sequence[str]]
) -> None:
    for diagnostic in diagnostics:
        sys.stderr.write(format_diagnostic(diagnostic, sources))
    sys.stderr.flush()


def _fail(message: str) -> None:
    sys.stderr.write(f"{PROG}: error: {message}\n")
    sys.stderr.flush()


if __name__ == "__main__":
    sys.exit(main())
