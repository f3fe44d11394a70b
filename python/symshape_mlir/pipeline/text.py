"""Parser for MLIR's textual pass-pipeline syntax.

``PassManager.parse`` cannot see Python passes, so the pipeline text is
parsed here into elements; upstream elements are later handed back to MLIR
as text. Grammar (as in MLIR)::

    pipeline ::= op-name `(` element-list? `)`
    element  ::= op-name `(` element-list? `)`     # nested pass manager
               | pass-name (`{` options `}`)?
    element-list ::= element (`,` element)*

Option text is kept verbatim (balanced braces, quotes respected) and parsed
by the pass it belongs to.
"""

from __future__ import annotations

import dataclasses
import logging
import re
from typing import TypeAlias

from symshape_mlir.pipeline.errors import InvalidPipelineError

__all__ = [
    "NestedPipeline",
    "PassElement",
    "PipelineElement",
    "parse_pipeline",
    "parse_pipeline_elements",
]

logger = logging.getLogger(__name__)

_NAME = re.compile(r"[A-Za-z_][\w.$-]*")


@dataclasses.dataclass(frozen=True)
class PassElement:
    """A pass or registered pipeline, with its raw option text ('' when none)."""

    name: str
    options: str = ""

    def to_text(self) -> str:
        """The element as pipeline text."""
        return f"{self.name}{{{self.options}}}" if self.options.strip() else self.name


@dataclasses.dataclass(frozen=True)
class NestedPipeline:
    """A pass manager nested on an operation name, e.g. ``func.func(cse)``."""

    anchor: str
    elements: tuple[PipelineElement, ...]

    def to_text(self) -> str:
        """The nested pipeline as pipeline text."""
        return f"{self.anchor}({','.join(element.to_text() for element in self.elements)})"


PipelineElement: TypeAlias = "PassElement | NestedPipeline"


MAX_NESTING = 64
"""Deepest pipeline nesting accepted (``builtin.module(func.func(...))`` is 2)."""


def parse_pipeline(text: str) -> NestedPipeline:
    """Parses a full pipeline such as ``builtin.module(cse,func.func(canonicalize))``.

    Args:
        text: The pipeline text.

    Returns:
        The top-level pipeline with its anchor operation name.

    Raises:
        InvalidPipelineError: The text is malformed or not anchored.
    """
    parser = _Parser(text)
    element = parser.element()
    parser.expect_end()
    if not isinstance(element, NestedPipeline):
        raise InvalidPipelineError(
            f"pass pipeline '{text}' must be anchored on an operation, e.g. 'builtin.module(...)'"
        )
    return element


def parse_pipeline_elements(text: str) -> tuple[PipelineElement, ...]:
    """Parses a comma-separated element list such as ``cse,func.func(canonicalize)``.

    Raises:
        InvalidPipelineError: The text is malformed.
    """
    parser = _Parser(text)
    elements = parser.element_list(closing="")
    parser.expect_end()
    return elements


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.position = 0
        self.depth = 0

    def element_list(self, closing: str) -> tuple[PipelineElement, ...]:
        self._skip_space()
        if self._peek() == closing:
            return ()
        elements = [self.element()]
        while True:
            self._skip_space()
            if self._peek() != ",":
                return tuple(elements)
            self.position += 1
            elements.append(self.element())

    def element(self) -> PipelineElement:
        self._skip_space()
        match = _NAME.match(self.text, self.position)
        if match is None:
            raise self._error("expected a pass or operation name")
        self.position = match.end()
        name = match.group()
        self._skip_space()
        if self._peek() == "(":
            self.position += 1
            self.depth += 1
            if self.depth > MAX_NESTING:
                raise self._error(f"pipeline nested deeper than {MAX_NESTING} levels")
            elements = self.element_list(closing=")")
            self.depth -= 1
            self._skip_space()
            if self._peek() != ")":
                raise self._error(f"expected ',' or ')' in the pipeline nested on '{name}'")
            self.position += 1
            return NestedPipeline(name, elements)
        if self._peek() == "{":
            return PassElement(name, self._options(name))
        return PassElement(name)

    def expect_end(self) -> None:
        self._skip_space()
        if not self._at_end():
            raise self._error("unexpected text")

    def _options(self, name: str) -> str:
        start = self.position + 1
        depth = 0
        quote = ""
        for position in range(self.position, len(self.text)):
            char = self.text[position]
            if quote:
                quote = "" if char == quote else quote
            elif char in "'\"":
                quote = char
            elif char == "{":
                depth += 1
            elif char == "}":
                depth -= 1
                if depth == 0:
                    self.position = position + 1
                    return self.text[start:position]
        raise self._error(f"missing '}}' closing the options of '{name}'")

    def _skip_space(self) -> None:
        while not self._at_end() and self.text[self.position].isspace():
            self.position += 1

    def _peek(self) -> str:
        return "" if self._at_end() else self.text[self.position]

    def _at_end(self) -> bool:
        return self.position >= len(self.text)

    def _error(self, message: str) -> InvalidPipelineError:
        return InvalidPipelineError(
            f"invalid pass pipeline '{self.text}': {message} at column {self.position + 1}"
        )
