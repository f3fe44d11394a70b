"""Typed pass options: declared as dataclass fields, parsed from ``key=value`` text.

A pass declares each option as an annotated class attribute whose value is
:func:`option`; the field name in snake_case is the option name in
kebab-case (``max_depth`` is written ``max-depth=3``). Supported types:
``bool``, ``int``, ``float``, ``str`` and ``Literal["a", "b", ...]`` (a
choice among strings).

The option text follows MLIR's pass-option syntax: whitespace-separated
``key=value`` entries; a value may be quoted (``'...'`` or ``"..."``) or
brace-enclosed (``{...}``), and the quotes or braces are removed; a ``bool``
option given without a value is set to true.
"""

from __future__ import annotations

import dataclasses
import logging
import typing
from collections.abc import Mapping
from typing import Any, Literal

from symshape_mlir.pipeline.errors import InvalidPipelineError

__all__ = ["OptionSpec", "option", "option_specs", "parse_option_values", "split_option_text"]

logger = logging.getLogger(__name__)

_HELP_KEY = "symshape.help"

_SCALAR_TYPES: Mapping[type, str] = {bool: "bool", int: "int", float: "float", str: "string"}

_BOOL_VALUES: Mapping[str, bool] = {
    "true": True,
    "1": True,
    "false": False,
    "0": False,
}


def option(default: Any, *, help: str) -> Any:
    """Declares a pass option (a dataclass field with its help text).

    Args:
        default: The value when the option is not given.
        help: One line describing the option, shown by ``--help``.

    Returns:
        A dataclass field specifier.
    """
    return dataclasses.field(default=default, metadata={_HELP_KEY: help})


@dataclasses.dataclass(frozen=True)
class OptionSpec:
    """One option of a pass, as derived from its dataclass field.

    Attributes:
        name: The option name in pipelines (kebab-case).
        attribute: The dataclass field name.
        kind: ``bool``, ``int``, ``float`` or ``str``.
        choices: The allowed values of a ``Literal`` option; empty otherwise.
        default: The default value.
        help: One-line help text.
    """

    name: str
    attribute: str
    kind: type
    choices: tuple[str, ...]
    default: Any
    help: str

    @property
    def type_label(self) -> str:
        """How ``--help`` shows the value type, e.g. ``int`` or ``skip|strict``."""
        return "|".join(self.choices) if self.choices else _SCALAR_TYPES[self.kind]

    def convert(self, pass_name: str, text: str | None) -> Any:
        """Converts an option value written in a pipeline.

        Args:
            pass_name: The pass, for error messages.
            text: The value text; None when the option was given without ``=``.

        Returns:
            The typed value.

        Raises:
            InvalidPipelineError: The value is missing, malformed or not one
                of the choices.
        """
        if text is None:
            if self.kind is bool:
                return True
            raise InvalidPipelineError(f"{pass_name}: option '{self.name}' needs a value")
        if self.choices:
            if text in self.choices:
                return text
            raise self._invalid(pass_name, text, "one of: " + ", ".join(self.choices))
        if self.kind is bool:
            if text.lower() in _BOOL_VALUES:
                return _BOOL_VALUES[text.lower()]
            raise self._invalid(pass_name, text, "true or false")
        if self.kind is int:
            try:
                return int(text, 0)
            except ValueError:
                raise self._invalid(pass_name, text, "an integer") from None
        if self.kind is float:
            try:
                return float(text)
            except ValueError:
                raise self._invalid(pass_name, text, "a number") from None
        return text

    def format(self, value: Any) -> str:
        """Writes a value the way a pipeline spells it."""
        if isinstance(value, bool):
            return "true" if value else "false"
        text = str(value)
        if text == "" or any(char.isspace() or char in "{}'\"," for char in text):
            return '"' + text + '"'
        return text

    def _invalid(self, pass_name: str, text: str, expected: str) -> InvalidPipelineError:
        return InvalidPipelineError(
            f"{pass_name}: invalid value '{text}' for option '{self.name}' (expected {expected})"
        )


def option_specs(cls: type) -> tuple[OptionSpec, ...]:
    """Describes the options of a pass class (a dataclass).

    Args:
        cls: The pass class.

    Returns:
        One spec per dataclass field, in declaration order.

    Raises:
        TypeError: A field has no default, no help text or an unsupported type.
    """
    hints = typing.get_type_hints(cls)
    specs = []
    for field in dataclasses.fields(cls):
        where = f"{cls.__qualname__}.{field.name}"
        if field.default is dataclasses.MISSING:
            raise TypeError(f"pass option {where} needs a default (declare it with option())")
        help_text = field.metadata.get(_HELP_KEY)
        if not help_text:
            raise TypeError(f"pass option {where} needs help text (declare it with option())")
        kind, choices = _kind_of(hints[field.name], where)
        specs.append(
            OptionSpec(
                name=field.name.replace("_", "-"),
                attribute=field.name,
                kind=kind,
                choices=choices,
                default=field.default,
                help=help_text,
            )
        )
    return tuple(specs)


def parse_option_values(pass_name: str, specs: tuple[OptionSpec, ...], text: str) -> dict[str, Any]:
    """Parses the option text of one pass into constructor keyword arguments.

    Args:
        pass_name: The pass, for error messages.
        specs: The options of the pass.
        text: The text between the braces of ``name{...}``.

    Returns:
        Field name to typed value, for the options given.

    Raises:
        InvalidPipelineError: Unknown, repeated or malformed options.
    """
    by_name = {spec.name: spec for spec in specs}
    values: dict[str, Any] = {}
    for key, value in split_option_text(pass_name, text):
        spec = by_name.get(key)
        if spec is None:
            known = ", ".join(by_name) if by_name else "none"
            raise InvalidPipelineError(
                f"{pass_name}: unknown option '{key}' (options of this pass: {known})"
            )
        if spec.attribute in values:
            raise InvalidPipelineError(f"{pass_name}: option '{key}' is given more than once")
        values[spec.attribute] = spec.convert(pass_name, value)
    return values


def split_option_text(pass_name: str, text: str) -> list[tuple[str, str | None]]:
    """Splits ``key=value key2='v w' flag`` into ``(key, value or None)`` pairs.

    Args:
        pass_name: The pass, for error messages.
        text: The option text.

    Returns:
        The entries in order, with quotes and braces around values removed.

    Raises:
        InvalidPipelineError: Unterminated quotes or braces, or an empty key.
    """
    entries: list[tuple[str, str | None]] = []
    position = 0
    length = len(text)
    while True:
        while position < length and text[position].isspace():
            position += 1
        if position == length:
            return entries
        start = position
        while position < length and not text[position].isspace() and text[position] != "=":
            position += 1
        key = text[start:position]
        if not key:
            raise InvalidPipelineError(f"{pass_name}: missing option name before '=' in '{text}'")
        if position == length or text[position] != "=":
            entries.append((key, None))
            continue
        value, position = _read_value(pass_name, text, position + 1)
        entries.append((key, value))


def _read_value(pass_name: str, text: str, position: int) -> tuple[str, int]:
    length = len(text)
    if position < length and text[position] in "'\"":
        quote = text[position]
        end = text.find(quote, position + 1)
        if end < 0:
            raise InvalidPipelineError(f"{pass_name}: unterminated {quote} in options '{text}'")
        return text[position + 1 : end], end + 1
    if position < length and text[position] == "{":
        depth = 0
        for end in range(position, length):
            depth += {"{": 1, "}": -1}.get(text[end], 0)
            if depth == 0:
                return text[position + 1 : end], end + 1
        raise InvalidPipelineError(f"{pass_name}: unterminated '{{' in options '{text}'")
    end = position
    while end < length and not text[end].isspace():
        end += 1
    return text[position:end], end


def _kind_of(hint: Any, where: str) -> tuple[type, tuple[str, ...]]:
    if typing.get_origin(hint) is Literal:
        choices = typing.get_args(hint)
        if not choices or not all(isinstance(choice, str) for choice in choices):
            raise TypeError(f"pass option {where}: Literal choices must be strings")
        return str, tuple(choices)
    if hint in _SCALAR_TYPES:
        return hint, ()
    raise TypeError(
        f"pass option {where} has unsupported type {hint!r} "
        "(use bool, int, float, str or Literal[...])"
    )
