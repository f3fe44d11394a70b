"""The post-order serialization: exact round trips and cross-process stability."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from symshape_mlir.extent import (
    SerializationError,
    dumps,
    from_postorder,
    loads,
    parse_expr,
    to_postorder,
)

GOLDEN = [
    ("symbol", "batch", "v1;s batch"),
    ("negative_constant", "0 - 3", "v1;c -3"),
    ("sum", "2 * a - b + 1", "v1;s a;s b;+ 1 0 2 1 -1"),
    ("product", "a * a * b", "v1;s a;s b;* 0 2 1 1"),
    ("floordiv", "(h + 1) floordiv 2", "v1;s h;+ 1 0 1;c 2;fd 1 2"),
    ("shared_subexpression", "min(a, b) * min(a, b)", "v1;s a;s b;min 0 1;* 2 2"),
    ("op_local", "dim(0, 1) - scalar(2, truncate_size)", "v1;d 0 1;r 2 truncate_size;+ 0 0 1 1 -1"),
    ("ceildiv_and_mod", "(x ceildiv 4) mod 3", "v1;s x;c 4;cd 0 1;c 3;mod 2 3"),
    ("max", "max(a, 7)", "v1;c 7;s a;max 0 1"),
]


@pytest.mark.parametrize(
    ("text", "serialized"), [g[1:] for g in GOLDEN], ids=[g[0] for g in GOLDEN]
)
def test_golden_serialization(text: str, serialized: str) -> None:
    """The compact form is fixed and rebuilds the identical expression."""
    expr = parse_expr(text)
    assert dumps(expr) == serialized
    assert loads(serialized) is expr
    assert from_postorder(to_postorder(expr)) is expr


def test_postorder_records_are_json_friendly() -> None:
    """Records are tuples of strings and integers, root last."""
    nodes = to_postorder(parse_expr("(batch * seq) floordiv 4 + min(n, batch) - 1"))
    assert all(isinstance(f, (str, int)) for node in nodes for f in node)
    assert nodes[-1][0] == "+"
    assert from_postorder([list(node) for node in nodes]) is parse_expr(
        "(batch * seq) floordiv 4 + min(n, batch) - 1"
    )


MALFORMED = [
    ("wrong_header", "v2;s a", "unsupported serialization header"),
    ("no_header", "s a", "unsupported serialization header"),
    ("forward_reference", "v1;fd 1 0;s a", "not an earlier record"),
    ("unknown_kind", "v1;zz 1", "unknown record kind"),
    ("bad_integer", "v1;c x", "expected an integer field"),
    ("bad_symbol", "v1;s 9a", "invalid symbol name"),
    ("wrong_arity", "v1;s a;fd 0", "wrong number of fields"),
    ("huge_exponent", "v1;s a;* 0 1000000", "total at most 1024"),
    ("zero_exponent", "v1;s a;* 0 0", "exponents must be positive"),
]


@pytest.mark.parametrize(
    ("text", "message"), [m[1:] for m in MALFORMED], ids=[m[0] for m in MALFORMED]
)
def test_malformed_input(text: str, message: str) -> None:
    """Malformed input raises SerializationError with the cause."""
    with pytest.raises(SerializationError, match=message):
        loads(text)


def test_empty_record_list() -> None:
    """An empty record list is malformed."""
    with pytest.raises(SerializationError, match="no records"):
        from_postorder([])


def test_stable_across_processes() -> None:
    """Other processes, with other hash seeds, produce the same bytes."""
    exprs = [g[1] for g in GOLDEN] + ["min(batch, seq) * heads + (seq - 1) floordiv 8 - dim(0, 2)"]
    program = (
        "import sys\n"
        "from symshape_mlir.extent import dumps, parse_expr\n"
        "for line in sys.stdin.read().splitlines():\n"
        "    print(dumps(parse_expr(line)))\n"
    )
    expected = [dumps(parse_expr(text)) for text in exprs]
    package_root = Path(sys.modules["symshape_mlir.extent"].__path__[0]).parents[1]
    for seed in ("1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(package_root)}
        result = subprocess.run(
            [sys.executable, "-c", program],
            input="\n".join(exprs),
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
        assert result.stdout.splitlines() == expected
