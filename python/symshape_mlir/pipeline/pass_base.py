"""The base class of every symshape pass: a module pass with typed options.

A pass is a small class (see ``passes/strip_annotations.py``)::

    class InferShapes(ModulePass):
        \"\"\"Infers ... (docstring with before/after IR).\"\"\"

        name = "symshape-infer-shapes"
        summary = "Infer symbolic extents and annotate every tensor value"

        policy: Literal["skip", "override", "refine", "strict"] = option(
            "strict", help="How inferred extents merge with existing annotations"
        )

        def run(self, module: ir.Operation) -> None:
            for op in ...:
                self.error(op, "cannot infer ...", notes=[(other, "operand defined here")])

Subclasses become keyword-only dataclasses automatically; options are the
annotated fields declared with :func:`~symshape_mlir.pipeline.options.option`.
A pass reports diagnostics with :meth:`ModulePass.error`, :meth:`~ModulePass.warning`
and :meth:`~ModulePass.remark` (each with optional notes), or raises
:class:`~symshape_mlir.pipeline.diagnostics.DiagnosticError`; the pass fails
if it reported any error. Passes run on the ``builtin.module`` and walk
functions themselves (MLIR 22.1.8 cannot nest Python passes).

A *pipeline alias* sets ``pipeline`` to pipeline element texts instead of
defining ``run`` (override :meth:`ModulePass.expand` when the expansion
depends on options); the runner splices the expansion in its place.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import logging
import re
import typing
from collections.abc import Iterable, Iterator
from typing import ClassVar

from mlir import ir

from symshape_mlir.pipeline.diagnostics import (
    Diagnostic,
    DiagnosticSink,
    Locatable,
    Note,
    Severity,
)
from symshape_mlir.pipeline.options import OptionSpec, option, option_specs, parse_option_values

__all__ = ["ModulePass", "reporting_to"]

logger = logging.getLogger(__name__)

_NAME_PATTERN = re.compile(r"symshape(-[a-z0-9]+)+")

_current_sink: contextvars.ContextVar[DiagnosticSink | None] = contextvars.ContextVar(
    "symshape_pass_diagnostic_sink", default=None
)


@contextlib.contextmanager
def reporting_to(sink: DiagnosticSink) -> Iterator[None]:
    """Sends the diagnostics of passes run inside this block to ``sink``."""
    token = _current_sink.set(sink)
    try:
        yield
    finally:
        _current_sink.reset(token)


@typing.dataclass_transform(kw_only_default=True, field_specifiers=(option,))
class ModulePass:
    """Base class of symshape passes; see the module docstring.

    Class attributes:
        name: The pass argument, ``symshape-<verb>-<noun>`` in kebab-case.
        summary: One line, shown by ``--list-passes`` and ``--help``.
        pipeline: For a pipeline alias, the pipeline elements it stands for
            (e.g. ``("symshape-infer-shapes", "func.func(canonicalize)")``).
        preserves_analyses: Whether later passes may reuse the inference
            analysis after this one (it changed nothing inference reads).
    """

    name: ClassVar[str]
    summary: ClassVar[str]
    pipeline: ClassVar[tuple[str, ...]] = ()
    #: Whether the inference analysis stays valid after this pass
    #: (:mod:`symshape_mlir.pipeline.analysis`).
    preserves_analyses: ClassVar[bool] = False
    _option_specs: ClassVar[tuple[OptionSpec, ...]] = ()

    def __init_subclass__(cls, **kwargs: typing.Any) -> None:
        super().__init_subclass__(**kwargs)
        _check_declaration(cls)
        dataclasses.dataclass(kw_only=True)(cls)
        cls._option_specs = option_specs(cls)

    @classmethod
    def options(cls) -> tuple[OptionSpec, ...]:
        """The options of this pass, in declaration order."""
        return cls._option_specs

    @classmethod
    def is_alias(cls) -> bool:
        """Whether this pass is a pipeline alias rather than a transformation."""
        return bool(cls.pipeline)

    @classmethod
    def from_options(cls, text: str) -> typing.Self:
        """Creates the pass from its option text (``policy=strict mode=defer``).

        Raises:
            InvalidPipelineError: Unknown, repeated or malformed options.
        """
        return cls(**parse_option_values(cls.name, cls.options(), text))

    def describe(self) -> str:
        """This pass as a pipeline element, with the options that differ from their defaults."""
        given = [
            f"{spec.name}={spec.format(getattr(self, spec.attribute))}"
            for spec in self.options()
            if getattr(self, spec.attribute) != spec.default
        ]
        return f"{self.name}{{{' '.join(given)}}}" if given else self.name

    def expand(self) -> tuple[str, ...]:
        """The pipeline elements a pipeline alias stands for (``pipeline`` by default)."""
        return self.pipeline

    def creates_unregistered_ops(self) -> bool:
        """Whether this pass emits ops of dialects MLIR does not register here
        (IREE's ``util``/``flow`` in generic form). The runner then lets the
        context allow unregistered dialects *before* running: that setting
        cannot change while a pass manager runs."""
        return False

    def run(self, module: ir.Operation) -> None:
        """Transforms or checks ``module`` (a ``builtin.module``) in place."""
        raise NotImplementedError(f"{self.name} defines neither run() nor pipeline")

    def error(self, where: Locatable | None, message: str, *, notes: Iterable[Note] = ()) -> None:
        """Reports an error; the pass fails when ``run`` returns.

        Args:
            where: The operation, value or location the error is about.
            message: The message.
            notes: ``(where, message)`` pairs attached as notes.
        """
        self._report(Diagnostic.at(Severity.ERROR, where, message, notes=notes))

    def warning(self, where: Locatable | None, message: str, *, notes: Iterable[Note] = ()) -> None:
        """Reports a warning (the pass does not fail); arguments as :meth:`error`."""
        self._report(Diagnostic.at(Severity.WARNING, where, message, notes=notes))

    def remark(self, where: Locatable | None, message: str, *, notes: Iterable[Note] = ()) -> None:
        """Reports a remark (the pass does not fail); arguments as :meth:`error`."""
        self._report(Diagnostic.at(Severity.REMARK, where, message, notes=notes))

    def _report(self, diagnostic: Diagnostic) -> None:
        sink = _current_sink.get()
        if sink is None:
            raise RuntimeError(
                f"{self.name}: diagnostics can only be reported while the pass runs in a "
                "pipeline (symshape_mlir.pipeline.run_pipeline)"
            )
        sink.report(diagnostic)


def _check_declaration(cls: type[ModulePass]) -> None:
    where = cls.__qualname__
    name = cls.__dict__.get("name")
    if not isinstance(name, str) or not _NAME_PATTERN.fullmatch(name):
        raise TypeError(f"{where}.name must be a kebab-case 'symshape-<verb>-<noun>', got {name!r}")
    summary = cls.__dict__.get("summary")
    if not isinstance(summary, str) or not summary.strip() or "\n" in summary:
        raise TypeError(f"{where}.summary must be one non-empty line")
    if not (cls.__doc__ or "").strip():
        raise TypeError(f"{where} needs a docstring (what it does, with before/after IR)")
    defines_run = cls.run is not ModulePass.run
    if defines_run == cls.is_alias():
        raise TypeError(f"{where} must define exactly one of run() and pipeline")
