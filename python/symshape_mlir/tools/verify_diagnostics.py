"""``--verify-diagnostics``: match emitted diagnostics against ``expected-*`` comments.

Same semantics as MLIR 22's ``SourceMgrDiagnosticVerifierHandler``:

- A comment ``expected-<kind>[-re] [@<where>] {{<text>}}`` (kind ``error``,
  ``warning``, ``note`` or ``remark``) anywhere on a line expects one
  diagnostic of that kind on that line whose message *contains* ``<text>``.
  ``<text>`` runs from the first ``{{`` to the ``}}`` ending the line.
- ``<where>``: ``@+N`` / ``@-N`` (N lines below / above), ``@below`` (the
  next line that holds no ``expected-*``), ``@above`` (the previous such
  line), ``@unknown`` (a diagnostic without file location).
- With ``-re``, each ``{{regex}}`` block inside ``<text>`` is a regular
  expression and the rest is literal; the message must contain a match.
  Regexes use Python's ``re`` syntax (MLIR uses POSIX extended regexes; the
  common subset behaves the same).
- Notes are matched like diagnostics of their own. Notes MLIR attaches to
  verifier errors ("see current operation: ...") are dropped first, as
  mlir-opt does not produce them when verifying diagnostics.
- One expectation absorbs every matching diagnostic. Failures, reported as
  errors: ``unexpected <kind>: <message>`` at the diagnostic's location;
  ``'<kind>' diagnostic emitted when expecting a '<kind>'`` when only the
  kind differs; ``expected <kind> "<text>" was not produced`` at the
  comment. ``only-expected`` mode reports missing expectations only.
- Diagnostics located in another file than the checked one never match.
"""

from __future__ import annotations

import dataclasses
import logging
import re
from collections.abc import Iterator

from symshape_mlir.pipeline import Diagnostic, Severity, SourceLoc

__all__ = ["DiagnosticVerifier"]

logger = logging.getLogger(__name__)

_EXPECTED = re.compile(
    r"expected-(error|note|remark|warning)(-re)?"
    r" *(@([+-][0-9]+|above|below|unknown))? *\{\{(.*)\}\}$"
)


@dataclasses.dataclass
class _Expectation:
    severity: Severity
    line: int
    location: SourceLoc
    text: str
    pattern: re.Pattern[str] | None = None
    matched: bool = False

    def matches(self, message: str) -> bool:
        if self.pattern is not None:
            return self.pattern.search(message) is not None
        return self.text in message


class DiagnosticVerifier:
    """Checks the diagnostics of one source buffer against its ``expected-*`` comments.

    Example:
        >>> verifier = DiagnosticVerifier(text, "test.mlir")
        >>> for diagnostic in collector.diagnostics:
        ...     verifier.process(diagnostic)
        >>> failures = verifier.finish()  # empty when everything matched
    """

    def __init__(self, text: str, filename: str, *, only_expected: bool = False):
        """Reads the expectations of ``text``.

        Args:
            text: The checked source; its line numbers are the ones matched.
            filename: The file name diagnostics must carry to match.
            only_expected: Report only expectations that were not met.
        """
        self._filename = filename
        self._only_expected = only_expected
        self._failures: list[Diagnostic] = []
        self._by_line: dict[int, list[_Expectation]] = {}
        self._unknown: list[_Expectation] = []
        self._ordered = list(self._scan(text))

    def process(self, diagnostic: Diagnostic) -> None:
        """Matches one emitted diagnostic and each of its notes."""
        diagnostic = diagnostic.without_current_operation_notes()
        self._process_one(diagnostic)
        for note in diagnostic.notes:
            self._process_one(note)

    def finish(self) -> list[Diagnostic]:
        """Returns every failure: mismatches seen so far, then unmet expectations."""
        failures = list(self._failures)
        for expectation in self._ordered:
            if not expectation.matched:
                failures.append(
                    _failure(
                        expectation.location,
                        f'expected {expectation.severity.value} "{expectation.text}" '
                        "was not produced",
                    )
                )
        return failures

    def _process_one(self, diagnostic: Diagnostic) -> None:
        location = diagnostic.location
        if location is None:
            candidates = self._unknown
        elif location.filename == self._filename:
            candidates = self._by_line.get(location.line, [])
        else:
            candidates = []
        near_miss = None
        for expectation in candidates:
            if expectation.matches(diagnostic.message):
                if expectation.severity is diagnostic.severity:
                    expectation.matched = True
                    return
                near_miss = expectation
        if self._only_expected:
            return
        if near_miss is not None:
            self._failures.append(
                _failure(
                    near_miss.location,
                    f"'{diagnostic.severity.value}' diagnostic emitted when expecting a "
                    f"'{near_miss.severity.value}'",
                )
            )
            return
        self._failures.append(
            dataclasses.replace(
                diagnostic,
                severity=Severity.ERROR,
                message=f"unexpected {diagnostic.severity.value}: {diagnostic.message}",
                notes=(),
            )
        )

    def _scan(self, text: str) -> Iterator[_Expectation]:
        lines = text.split("\n")
        last_plain_line = 1
        waiting_for_next_line: list[_Expectation] = []
        for index, line in enumerate(lines):
            number = index + 1
            match = _EXPECTED.search(line.rstrip())
            if match is None:
                for expectation in waiting_for_next_line:
                    self._place(expectation, number)
                waiting_for_next_line.clear()
                last_plain_line = number
                continue
            kind, regex_suffix, _, where, body = match.groups()
            location = SourceLoc(self._filename, number, match.start() + 1)
            expectation = _Expectation(Severity(kind), number, location, body)
            if regex_suffix:
                try:
                    expectation.pattern = _compile(body)
                except ValueError as error:
                    self._failures.append(_failure(location, str(error)))
                    continue
            if where is None:
                self._place(expectation, number)
            elif where == "unknown":
                self._unknown.append(expectation)
            elif where == "above":
                self._place(expectation, last_plain_line)
            elif where == "below":
                waiting_for_next_line.append(expectation)
            else:
                self._place(expectation, number + int(where))
            yield expectation
        for expectation in waiting_for_next_line:
            self._place(expectation, len(lines))

    def _place(self, expectation: _Expectation, line: int) -> None:
        expectation.line = line
        self._by_line.setdefault(line, []).append(expectation)


def _compile(body: str) -> re.Pattern[str]:
    parts = []
    rest = body
    while rest:
        start = rest.find("{{")
        if start < 0:
            parts.append(re.escape(rest))
            break
        parts.append(re.escape(rest[:start]))
        rest = rest[start + 2 :]
        end = rest.find("}}")
        if end < 0:
            raise ValueError("found start of regex with no end '}}'")
        try:
            re.compile(rest[:end])
        except re.error as error:
            raise ValueError(f"invalid regex: {error}") from None
        parts.append(f"({rest[:end]})")
        rest = rest[end + 2 :]
    return re.compile("".join(parts))


def _failure(location: SourceLoc, message: str) -> Diagnostic:
    return Diagnostic(Severity.ERROR, message, location=location)
