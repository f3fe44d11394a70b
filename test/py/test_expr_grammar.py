"""One expression grammar: the text reader and the attribute parser agree.

:func:`symshape_mlir.extent.parse_expr` reads text with the dialect's parser
as the body of an attribute, in the native module's own context; here every
text is also parsed as ``#symshape.expr<text>`` in a child process's
context (a crash there is a test failure, not a dead test run). Both must
accept or both reject; when both accept, they must read the same
expression. This checks the wrapping: text that closes the attribute early
(``a > b``), comments and brackets.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

from symshape_mlir.extent import ExtentSyntaxError, parse_expr

_CHILD = """
import json, sys
from mlir import ir
import symshape_mlir
out = []
with ir.Context():
    for text in json.load(sys.stdin):
        try:
            attr = ir.Attribute.parse("#symshape.expr<" + text + ">")
        except ir.MLIRError as err:
            out.append([False, str(err)])
        else:
            out.append([True, str(attr)[len("#symshape.expr<"):-1]])
json.dump(out, sys.stdout)
"""


def _cpp_read(texts: list[str]) -> list[tuple[bool, str]]:
    """(accepted, printed body or error) per text, from the C++ parser in a child process."""
    done = subprocess.run(
        [sys.executable, "-c", _CHILD],
        input=json.dumps(texts),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, f"the C++ parser died ({done.returncode}): {done.stderr[-2000:]}"
    return [(bool(a), str(b)) for a, b in json.loads(done.stdout)]


def _python_accepts(text: str) -> bool:
    try:
        parse_expr(text)
    except ExtentSyntaxError:
        return False
    return True


GRAMMAR = [
    # (name, text, accepted)
    ("symbol", "batch", True),
    ("keyword_like_symbols", "true + false + index + i32 + f32", True),
    ("precedence", "a + b * c floordiv 2 - d mod 3 ceildiv e", True),
    ("unary_minus", "- -a * -3", True),
    ("min_max", "min(a, max(b, 2))", True),
    ("leaves", "dim(0, 1) + scalar(2, truncate_size)", True),
    ("leading_zeros", "007", True),
    ("whitespace", "\ta +\r\n b ", True),
    ("int64_max", "9223372036854775807", True),
    ("int64_min", "-9223372036854775808", True),
    ("int64_min_spaced", "a - - 9223372036854775808", True),
    ("nesting_at_limit", "(" * 256 + "a" + ")" * 256, True),
    ("minus_at_limit", "-" * 256 + "1", True),
    ("operators_at_limit", " + ".join(["a"] * 10001), True),
    ("operators_past_limit", " * ".join(["a"] * 10002), False),
    ("empty", "", False),
    ("non_ascii_digit", "\u0663", False),
    ("non_ascii_letter", "b\u00e9", False),
    ("non_ascii_space", "a\u00a0+ b", False),
    ("form_feed", "a\f+ b", False),
    ("hexadecimal", "0x10", False),
    ("hexadecimal_axis", "dim(0x1, 0)", False),
    ("boolean_axis", "dim(true, 0)", False),
    ("negative_zero_axis", "dim(-0, 1)", False),
    ("floor_slashes", "a // 2", False),
    ("comment_to_newline", "a // 2\n + 1", False),
    ("percent", "a % 2", False),
    ("too_large", "9223372036854775808", False),
    ("too_small", "-9223372036854775809", False),
    ("negated_group_too_large", "-(9223372036854775808)", False),
    ("float", "1.5", False),
    ("exponent", "1e5", False),
    ("dotted", "a.b", False),
    ("dollar", "a$b", False),
    ("reserved", "mod + 1", False),
    ("ub_inside", "ub(a)", False),
    ("unknown_inside", "a + ?", False),
    ("ternary_min", "min(a, b, c)", False),
    ("unknown_semantics", "scalar(0, round)", False),
    ("arrow", "a ->b", False),
    ("angle", "a > b", False),
    ("nesting_past_limit", "(" * 257 + "a" + ")" * 257, False),
    ("minus_past_limit", "-" * 257 + "1", False),
    ("thousand_levels", "(" * 1000 + "a" + ")" * 1000, False),
    ("twenty_thousand_levels", "(" * 20000 + "a" + ")" * 20000, False),
    ("twenty_thousand_minuses", "-" * 20000 + "a", False),
]


def test_table_is_read_alike() -> None:
    """Each table text is accepted (or rejected) by both parsers, as the table says."""
    cpp = _cpp_read([g[1] for g in GRAMMAR])
    for (name, text, accepted), (cpp_accepted, detail) in zip(GRAMMAR, cpp, strict=True):
        assert _python_accepts(text) is accepted, name
        assert cpp_accepted is accepted, f"{name}: {detail[:300]}"
        if accepted:
            assert parse_expr(detail) is parse_expr(text), name


_PIECES = [
    "a", "b", "x1", "_d0", "true", "0", "7", "00", "9223372036854775807", "9223372036854775808",
    "0x1F", "\u0663", "+", "-", "*", " floordiv ", " ceildiv ", " mod ", "//", "%", "(", ")",
    ",", "min(", "max(", "dim(0, 1)", "dim(", "scalar(1, index)", " ", "\t", "\n", "ub", "?",
    "[", "]", ".", "$", "1.5", "\u00a0", ">", "->",
]


def _random_texts(count: int, seed: int) -> list[str]:
    """Token soup plus mutations of well-formed expressions."""
    rng = random.Random(seed)
    texts = ["".join(rng.choice(_PIECES) for _ in range(rng.randint(1, 8))) for _ in range(count)]
    leaves = ["a", "b", "3", "dim(0, 1)", "scalar(0, index)", "-2"]
    for _ in range(count):
        text = rng.choice(leaves)
        for _ in range(rng.randint(1, 5)):
            op = rng.choice([" + ", " - ", " * ", " floordiv ", " mod ", " ceildiv "])
            text = rng.choice([f"{text}{op}{rng.choice(leaves)}", f"({text})", f"min({text}, b)"])
        cut = rng.randint(0, len(text))
        texts.append(rng.choice([text, text[:cut] + rng.choice(_PIECES) + text[cut:]]))
    return texts


def test_random_texts_are_read_alike() -> None:
    """Seeded random texts: both parsers accept or reject each, and agree on its meaning."""
    texts = _random_texts(400, seed=14)
    cpp = _cpp_read(texts)
    accepted = 0
    for text, (cpp_accepted, detail) in zip(texts, cpp, strict=True):
        assert _python_accepts(text) is cpp_accepted, f"{text!r}: C++ says {detail[:300]}"
        if cpp_accepted:
            accepted += 1
            assert parse_expr(detail) is parse_expr(text), text
    assert accepted > 100


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("(" * 1000 + "a" + ")" * 1000, ":1:273: expression nests deeper than 256 levels"),
        ("-" * 20000 + "a", ":1:273: expression nests deeper than 256 levels"),
        ("0x10", ":1:16: expected a decimal integer, not a hexadecimal one"),
        (" + ".join(["x"] * 10002), ":1:40018: expression has more than 10000 operators"),
        ("a // 2", ":1:18: '//' is not an operator (it starts a comment); write 'floordiv'"),
    ],
    ids=["thousand_levels", "twenty_thousand_minuses", "hexadecimal", "too_many_operators",
         "floor_slashes"],
)
def test_cpp_errors_are_located(text: str, message: str) -> None:
    """The C++ parser's errors name the place in the attribute text."""
    ((accepted, detail),) = _cpp_read([text])
    assert not accepted
    assert message in detail
