"""``einsum``: numpy's Einstein summation as one ``linalg.generic``.

Each letter is a loop: the output's letters are parallel loops, the others
reductions (the sum of products over them). Subscripts are explicit
(``"bij,bjk->bik"``) or implicit (the output is the letters that appear
once, in alphabetical order); ``...`` stands for the axes not named,
aligned on the right across operands (an axis of extent 1 is not
broadcast: ``...`` axes that meet must be the same extent). A letter's
axes must be the same extent in every operand (checked at run time where
not proven). A letter repeated within one operand (a diagonal) is not
supported.

Example:
    >>> def f(q, k):                                  # [b, s, d] each
    ...     return einsum("bsd,btd->bst", q, k)       # [b, s, s]
"""

from __future__ import annotations

import string
from collections.abc import Sequence

from symshape_mlir.extent.guarantee import ShapeExtent
from symshape_mlir.frontend.dtypes import DType, promote
from symshape_mlir.frontend.errors import FrontendError, ShapeError
from symshape_mlir.frontend.ops.elementwise import astype
from symshape_mlir.frontend.ops.generic import Body, Operand, emit_empty, emit_fill, emit_generic
from symshape_mlir.frontend.ops.shape_ops import expand_like, insert_unit_axes
from symshape_mlir.frontend.source import SourceLocation, user_location
from symshape_mlir.frontend.tensor import Tensor
from symshape_mlir.frontend.tracer import tensor_type
from symshape_mlir.frontend.vjp import Cotangents, Node, primitive, vjp_rule
from symshape_mlir.shapes.shape import Shape

__all__ = ["einsum"]


def _parse(subscripts: str, operands: Sequence[Tensor],
           where: SourceLocation) -> tuple[list[list[str]], list[str]]:
    """Per operand its letters, and the output's (``...`` spelled with capitals)."""
    text = subscripts.replace(" ", "")
    inputs, arrow, output = text.partition("->")
    parts = inputs.split(",")
    if len(parts) != len(operands):
        raise FrontendError(f"einsum at {where}: {len(parts)} operand subscripts for "
                            f"{len(operands)} operands")
    spans = [t.ndim - len(p.replace("...", "")) for p, t in zip(parts, operands, strict=True)]
    ellipsis = max([s for p, s in zip(parts, spans, strict=True) if "..." in p], default=0)
    fill = list(string.ascii_uppercase[:ellipsis])
    letters: list[list[str]] = []
    for part, tensor, span in zip(parts, operands, spans, strict=True):
        head, dots, tail = part.partition("...")
        if any(not (c.isascii() and c.islower()) for c in head + tail):
            raise FrontendError(f"einsum at {where}: subscripts are lowercase letters, got "
                                f"{part!r}")
        if span < 0 or (not dots and span != 0):
            raise FrontendError(f"einsum at {where}: subscripts {part!r} do not match rank "
                                f"{tensor.ndim}")
        # `...` axes align on the right, as numpy broadcasts them.
        names = [*head, *(fill[ellipsis - span:] if dots else []), *tail]
        if len(set(names)) != len(names):
            raise FrontendError(f"einsum at {where}: a letter repeated within one operand "
                                f"({part!r}) is not supported")
        letters.append(names)
    if arrow:
        head, dots, tail = output.partition("...")
        out = [*head, *fill, *tail] if dots else [*output]
        if any(not (c.isascii() and c.islower()) for c in head + tail):
            raise FrontendError(f"einsum at {where}: output subscripts are lowercase letters, "
                                f"got {output!r}")
        if ellipsis and not dots:
            raise FrontendError(f"einsum at {where}: the output must keep '...'")
        if len(set(out)) != len(out):
            raise FrontendError(f"einsum at {where}: an output letter is repeated")
        known = {c for names in letters for c in names}
        missing = [c for c in out if c not in known]
        if missing:
            raise FrontendError(f"einsum at {where}: output letter {missing[0]!r} is in no "
                                "operand")
    else:
        counts: dict[str, int] = {}
        for names in letters:
            for c in names:
                counts[c] = counts.get(c, 0) + 1
        out = fill + sorted(c for c, n in counts.items() if n == 1 and c.islower())
    return letters, out


@primitive("einsum")
def einsum(subscripts: str, *operands: Tensor) -> Tensor:
    """``numpy.einsum(subscripts, *operands)`` (see the module docstring)."""
    where = user_location()
    if not isinstance(subscripts, str):
        raise FrontendError(f"einsum at {where}: the first argument is the subscripts string")
    if not operands or any(not isinstance(t, Tensor) for t in operands):
        raise FrontendError(f"einsum at {where}: expects traced tensors after the subscripts")
    letters, out = _parse(subscripts, operands, where)
    dtype: DType = operands[0].dtype
    for t in operands[1:]:
        dtype = promote(dtype, t.dtype)
    tensors = [astype(t, dtype, where) for t in operands]
    extents: dict[str, tuple[Tensor, int, ShapeExtent]] = {}
    for tensor, names in zip(tensors, letters, strict=True):
        for axis, c in enumerate(names):
            extent = tensor.shape[axis]
            if c in extents:
                known = extents[c][2]
                if known.is_exact and extent.is_exact and known.expr is not None and \
                        extent.expr is not None and known.expr.const_value is not None and \
                        extent.expr.const_value is not None and known != extent:
                    raise ShapeError(f"einsum at {where}: letter {c!r} has extents {known} and "
                                     f"{extent}")
            else:
                extents[c] = (tensor, axis, extent)
    loops = out + sorted(c for c in extents if c not in out)
    dim = {c: f"d{i}" for i, c in enumerate(loops)}
    shape = Shape([extents[c][2] for c in out])
    trace = tensors[0].trace
    init = emit_empty(trace, shape, dtype, [extents[c][:2] for c in out], where)
    reducing = len(loops) > len(out)
    if reducing:
        init = emit_fill(trace, init, dtype, 0, tensor_type(shape, dtype), where)
    mul, add = ("arith.mulf", "arith.addf") if dtype.is_float else ("arith.muli", "arith.addi")
    if dtype.is_bool:
        mul, add = "arith.andi", "arith.ori"

    def body(block: Body, args: list[str]) -> str:
        product = args[0]
        for value in args[1:-1]:
            product = block.op(f"{mul} {product}, {value}", dtype.mlir)
        return block.op(f"{add} {args[-1]}, {product}", dtype.mlir) if reducing else product

    return emit_generic(
        trace, [Operand(t, tuple(dim[c] for c in names))
                for t, names in zip(tensors, letters, strict=True)],
        len(loops), ["parallel"] * len(out) + ["reduction"] * (len(loops) - len(out)),
        [dim[c] for c in out], shape, dtype, init, body, where)


@vjp_rule("einsum")
def _einsum_vjp(node: Node, ct: Tensor) -> Cotangents:
    # The cotangent of an operand is the einsum of the output's cotangent with
    # the other operands into its letters; letters only it has (summed away)
    # are repeated back.
    operands: tuple[Tensor, ...] = node.args["operands"]
    letters, out = _parse(node.args["subscripts"], operands, node.where)
    names = sorted({c for group in letters for c in group} | set(out))
    plain = dict(zip(names, string.ascii_lowercase, strict=False))
    grads: list[Tensor | None] = []
    for index, operand in enumerate(operands):
        if not node.wants(operand):
            grads.append(None)
            continue
        others = [(out, ct)] + [(letters[j], operands[j]) for j in range(len(operands))
                                if j != index]
        known = {c for group, _ in others for c in group}
        target = [c for c in letters[index] if c in known]
        spec = ",".join("".join(plain[c] for c in group) for group, _ in others)
        grad = einsum(f"{spec}->{''.join(plain[c] for c in target)}", *(t for _, t in others))
        missing = [axis for axis, c in enumerate(letters[index]) if c not in known]
        if missing:
            grad = expand_like(insert_unit_axes(grad, missing, node.where), operand, node.where)
        grads.append(grad)
    return {"operands": grads}
