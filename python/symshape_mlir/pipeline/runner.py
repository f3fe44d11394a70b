"""Builds one ``mlir.passmanager.PassManager`` mixing symshape and upstream passes.

The pipeline text is parsed here (:mod:`symshape_mlir.pipeline.text`);
pipeline aliases are expanded, our passes are instantiated from their option
text, and consecutive upstream elements are grouped and handed to
``PassManager.add(text)``, which validates them. Everything is validated
before anything runs. Our passes are added as module-level callables
(``PassManager.add(callable, ...)``): nesting one under ``func.func`` is
rejected here because MLIR 22.1.8 aborts the process on it. The pass manager
verifies the IR after every pass, ours included.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import logging
import os
import re
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence

from mlir import ir, passmanager

from symshape_mlir.errors import LocatedError
from symshape_mlir.pipeline.analysis import AnalysisCache, sharing
from symshape_mlir.pipeline.diagnostics import (
    Diagnostic,
    DiagnosticCollector,
    DiagnosticError,
    Severity,
)
from symshape_mlir.pipeline.errors import InvalidPipelineError, PipelineError
from symshape_mlir.pipeline.pass_base import ModulePass, reporting_to
from symshape_mlir.pipeline.text import (
    PassElement,
    PipelineElement,
    parse_pipeline,
    parse_pipeline_elements,
)

__all__ = [
    "PassPipeline",
    "PassRegistry",
    "is_upstream_pass",
    "parse_module_pipeline",
    "run_pipeline",
]

logger = logging.getLogger(__name__)

PassRegistry = Mapping[str, type[ModulePass]]
"""Pass name to pass class, like ``symshape_mlir.passes.PASSES``."""

MODULE_ANCHOR = "builtin.module"

_MLIR_PIPELINE_ERROR = re.compile(r"^MLIR Textual PassPipeline Parser:\d+:\d+: error: (.*)$")
_UPSTREAM_NAME = re.compile(r"[A-Za-z_][\w.$-]*")


@dataclasses.dataclass(frozen=True)
class _UpstreamStep:
    text: str


_Step = ModulePass | _UpstreamStep


class PassPipeline:
    """A validated pipeline bound to a context, runnable on its modules.

    Example:
        >>> pipeline = PassPipeline.parse(
        ...     "builtin.module(symshape-strip-annotations,canonicalize)",
        ...     context=ctx, passes=symshape_mlir.passes.PASSES)
        >>> collector = DiagnosticCollector()
        >>> ok = pipeline.run(module.operation, collector)
    """

    def __init__(
        self,
        elements: Sequence[PipelineElement],
        *,
        context: ir.Context,
        passes: PassRegistry,
        print_ir_after_all: bool = False,
        print_generic_op_form: bool = False,
        print_debuginfo: bool = False,
    ):
        """Validates the elements of a ``builtin.module`` pipeline and builds its pass manager.

        Args:
            elements: The elements nested directly under ``builtin.module``.
            context: The context of the modules it will run on.
            passes: The symshape passes by name (``symshape_mlir.passes.PASSES``).
            print_ir_after_all: Print the IR to stderr after every pass.
            print_generic_op_form: Print that IR in generic form.
            print_debuginfo: Print locations in that IR.

        Raises:
            InvalidPipelineError: Unknown pass, bad option, malformed text, or
                a symshape pass nested under another operation.
        """
        self._passes = passes
        self._context = context
        self._collector: DiagnosticCollector | None = None
        self._analyses = AnalysisCache()
        self._preserved_by = -1
        self.steps: tuple[_Step, ...] = tuple(self._plan(elements, active_aliases=()))
        self._pass_manager = self._build(context)
        if print_ir_after_all:
            self._pass_manager.enable_ir_printing(
                print_after_all=True,
                print_generic_op_form=print_generic_op_form,
                enable_debug_info=print_debuginfo,
            )

    @classmethod
    def parse(
        cls,
        text: str,
        *,
        context: ir.Context,
        passes: PassRegistry,
    ) -> PassPipeline:
        """Parses ``builtin.module(...)`` text into a pipeline bound to ``context``.

        Raises:
            InvalidPipelineError: As the constructor, or the text is malformed
                or not anchored on ``builtin.module``.
        """
        return cls(parse_module_pipeline(text), context=context, passes=passes)

    @property
    def description(self) -> str:
        """The pipeline with aliases expanded, as text."""
        texts = [
            step.text if isinstance(step, _UpstreamStep) else step.describe() for step in self.steps
        ]
        return f"{MODULE_ANCHOR}({','.join(texts)})"

    def run(self, module: ir.Operation, collector: DiagnosticCollector,
            analyses: AnalysisCache | None = None) -> bool:
        """Runs the pipeline on ``module`` in place.

        Every diagnostic (MLIR's and our passes') goes to ``collector``, in
        emission order. Exceptions other than
        :class:`~symshape_mlir.pipeline.diagnostics.DiagnosticError` raised by
        a pass are bugs and propagate.

        Args:
            module: A ``builtin.module`` operation of this pipeline's context.
            collector: Receives the diagnostics.
            analyses: What the caller inferred of ``module`` already (kept
                until the first pass that does not preserve it); a fresh
                cache when not given.

        Returns:
            Whether the pipeline succeeded.

        Raises:
            ValueError: ``module`` belongs to another context.
        """
        if module.context is not self._context:
            raise ValueError("the module belongs to another context than the pipeline")
        logger.debug("running %s", self.description)
        if any(isinstance(step, ModulePass) and step.creates_unregistered_ops()
               for step in self.steps):
            module.context.allow_unregistered_dialects = True
        self._collector = collector
        self._analyses = AnalysisCache() if analyses is None else analyses
        self._preserved_by = -1
        sys.stderr.flush()
        try:
            with collector.attached(module.context), reporting_to(collector), \
                    sharing(self._analyses):
                self._pass_manager.run(module)
        except ir.MLIRError:
            return False
        finally:
            self._collector = None
            sys.stderr.flush()
        return True

    def _plan(
        self, elements: Sequence[PipelineElement], active_aliases: tuple[str, ...]
    ) -> Iterator[_Step]:
        for element in elements:
            if isinstance(element, PassElement) and element.name in self._passes:
                yield from self._plan_python(element, active_aliases)
            else:
                self._reject_nested_python(element)
                yield _UpstreamStep(element.to_text())

    def _plan_python(
        self, element: PassElement, active_aliases: tuple[str, ...]
    ) -> Iterator[_Step]:
        instance = self._passes[element.name].from_options(element.options)
        if not instance.is_alias():
            yield instance
            return
        if instance.name in active_aliases:
            chain = " -> ".join((*active_aliases, instance.name))
            raise InvalidPipelineError(
                f"pipeline alias '{instance.name}' expands to itself ({chain})"
            )
        expansion = parse_pipeline_elements(",".join(instance.expand()))
        yield from self._plan(expansion, (*active_aliases, instance.name))

    def _reject_nested_python(self, element: PipelineElement) -> None:
        if isinstance(element, PassElement):
            return
        for child in element.elements:
            if isinstance(child, PassElement) and child.name in self._passes:
                raise InvalidPipelineError(
                    f"'{child.name}' runs on the top-level '{MODULE_ANCHOR}' and cannot be "
                    f"nested under '{element.anchor}': symshape passes walk the functions of "
                    "the module themselves"
                )
            self._reject_nested_python(child)

    def _build(self, context: ir.Context) -> passmanager.PassManager:
        pass_manager = passmanager.PassManager(MODULE_ANCHOR, context=context)
        pass_manager.enable_verifier(True)
        upstream: list[str] = []
        for index, step in enumerate((*self.steps, None)):
            if isinstance(step, _UpstreamStep):
                upstream.append(step.text)
                continue
            if upstream:
                _add_upstream(pass_manager, ",".join(upstream))
                upstream = []
            if step is not None:
                pass_manager.add(
                    functools.partial(self._run_python_pass, step, index),
                    name=type(step).__name__,
                    argument=step.name,
                    description=step.summary,
                )
        return pass_manager

    def _run_python_pass(
        self, instance: ModulePass, index: int, op: ir.Operation,
        pass_: passmanager.ExternalPass,
    ) -> None:
        collector = self._collector
        assert collector is not None, "Python passes only run inside PassPipeline.run"
        # The analysis survives only a chain of our passes that preserve it.
        if self._preserved_by != index - 1:
            self._analyses.invalidate()
        errors_before = collector.error_count
        try:
            instance.run(op)
        except DiagnosticError as error:
            collector.report(error.diagnostic)
        except LocatedError as error:
            collector.report(Diagnostic.at(Severity.ERROR, error.location, error.message,
                                           notes=error.notes))
        except RecursionError:
            deepest, depth = _deepest(op)
            collector.report(Diagnostic.at(
                Severity.ERROR, deepest, f"{instance.name}: the IR is nested too deeply to "
                                         f"process ({depth} levels of regions here)"))
        if instance.preserves_analyses:
            self._preserved_by = index
        else:
            self._analyses.invalidate()
            self._preserved_by = -1
        if collector.error_count > errors_before:
            pass_.signal_pass_failure()


def _deepest(root: ir.Operation) -> tuple[ir.Operation, int]:
    """The most deeply nested op under ``root`` and its depth (walked without recursion)."""
    best, best_depth = root, 0
    stack = [(root, 0)]
    while stack:
        op, depth = stack.pop()
        if depth > best_depth:
            best, best_depth = op, depth
        for region in op.regions:
            for block in region.blocks:
                for inner in block.operations:
                    stack.append((inner.operation, depth + 1))
    return best, best_depth


def run_pipeline(
    module: ir.Module | ir.Operation | ir.OpView,
    pipeline: str,
    *,
    passes: PassRegistry,
    analyses: AnalysisCache | None = None,
) -> tuple[Diagnostic, ...]:
    """Runs a textual pipeline mixing symshape and upstream passes on a module.

    Args:
        module: The ``builtin.module`` to transform in place.
        pipeline: E.g. ``"builtin.module(symshape-strip-annotations,canonicalize)"``.
        passes: The symshape passes by name (``symshape_mlir.passes.PASSES``).
        analyses: The caller's inference of ``module``, which the first
            passes reuse (see :meth:`PassPipeline.run`).

    Returns:
        The non-error diagnostics (warnings, remarks) the run emitted.

    Raises:
        InvalidPipelineError: The pipeline is invalid; nothing ran.
        PipelineError: A pass failed or the IR did not verify; its
            ``diagnostics`` hold every diagnostic emitted.
    """
    operation = module.operation
    built = PassPipeline.parse(pipeline, context=operation.context, passes=passes)
    collector = DiagnosticCollector()
    if not built.run(operation, collector, analyses):
        diagnostics = list(collector.diagnostics)
        if not collector.has_errors:
            diagnostics.append(
                Diagnostic(Severity.ERROR, "pass pipeline failed without a diagnostic")
            )
        raise PipelineError(diagnostics)
    return tuple(collector.diagnostics)


def parse_module_pipeline(text: str) -> tuple[PipelineElement, ...]:
    """Parses ``builtin.module(...)`` text into the elements nested in the module.

    Raises:
        InvalidPipelineError: The text is malformed or not anchored on
            ``builtin.module``.
    """
    pipeline = parse_pipeline(text)
    if pipeline.anchor != MODULE_ANCHOR:
        raise InvalidPipelineError(
            f"pass pipeline '{text}' must be anchored on '{MODULE_ANCHOR}', not '{pipeline.anchor}'"
        )
    return pipeline.elements


def is_upstream_pass(name: str, context: ir.Context) -> bool:
    """Whether ``name`` is a registered upstream MLIR pass or pass pipeline."""
    if not _UPSTREAM_NAME.fullmatch(name):
        return False
    try:
        with _native_stderr_captured():
            passmanager.PassManager.parse(f"{MODULE_ANCHOR}({name})", context=context)
    except ValueError:
        return False
    return True


def _add_upstream(pass_manager: passmanager.PassManager, text: str) -> None:
    try:
        with _native_stderr_captured() as native:
            pass_manager.add(text)
    except ValueError as error:
        raise InvalidPipelineError(_describe_mlir_error(str(error), native.text)) from None


def _describe_mlir_error(message: str, native: str) -> str:
    """Condenses MLIR's pipeline errors (exception text and native stderr) to one line.

    The textual-pipeline parser's ``...Parser:1:N: error: msg`` lines keep only
    ``msg`` (the pipeline echo and caret after them are dropped), LLVM option
    errors keep their text, and "to inner pipeline" context lines are dropped.
    """
    kept: list[str] = []
    skip = 0
    for raw in [*native.splitlines(), *message.splitlines()]:
        line = raw.strip()
        if skip and line:
            skip -= 1
            continue
        match = _MLIR_PIPELINE_ERROR.match(line)
        if match:
            kept.append(match.group(1))
            skip = 2
        elif line and not line.endswith("to inner pipeline"):
            kept.append(line.lstrip(": "))
    return "; ".join(dict.fromkeys(kept))


@dataclasses.dataclass
class _NativeOutput:
    text: str = ""


@contextlib.contextmanager
def _native_stderr_captured() -> Iterator[_NativeOutput]:
    """Captures what C++ writes to file descriptor 2 (LLVM option errors) meanwhile."""
    captured = _NativeOutput()
    sys.stderr.flush()
    with tempfile.TemporaryFile() as sink:
        saved = os.dup(2)
        os.dup2(sink.fileno(), 2)
        try:
            yield captured
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            sink.seek(0)
            captured.text = sink.read().decode(errors="replace")
