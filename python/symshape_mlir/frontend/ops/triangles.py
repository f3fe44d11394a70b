"""``triu`` and ``tril``: the upper or lower triangle of the last two axes (numpy's).

One ``linalg.generic`` keeps ``x[..., i, j]`` where ``j - i >= k`` (``triu``)
or ``j - i <= k`` (``tril``) and writes zero elsewhere; the diagonal offset
``k`` is a Python int or a 0-d integer tensor read at run time (ONNX
``Trilu``'s optional input).

Example:
    >>> def causal(scores):                  # scores: [batch, seq, seq]
    ...     return tril(scores)               # zero above the diagonal

    .. code-block:: mlir

        %g = linalg.generic {...} ins(%scores : tensor<?x?x?xf32>) outs(%e : tensor<?x?x?xf32>) {
        ^bb0(%a: f32, %acc: f32):
          %i = linalg.index 1 : index
          %j = linalg.index 2 : index
          ...
"""

from __future__ import annotations

from symshape_mlir.frontend.errors import FrontendError, ShapeError
from symshape_mlir.frontend.ops.generic import Body, Operand, emit_empty, emit_generic
from symshape_mlir.frontend.source import user_location
from symshape_mlir.frontend.tensor import Tensor
from symshape_mlir.frontend.vjp import Cotangents, Node, primitive, vjp_rule

__all__ = ["tril", "triu"]


def _triangle(op: str, x: Tensor, k: int | Tensor, upper: bool) -> Tensor:
    where = user_location()
    if x.ndim < 2:
        raise ShapeError(f"{op} at {where}: the input must have rank 2 or more, not {x.ndim}")
    offset: str | None = None
    if isinstance(k, Tensor):
        if k.ndim != 0 or k.dtype.is_float or k.dtype.is_bool:
            raise FrontendError(f"{op} at {where}: k must be an int or a 0-d integer tensor, "
                                f"not {k.mlir_type}")
        trace = x.trace
        raw = trace.ssa("k")
        trace.emit(f"{raw} = tensor.extract {k.value}[] : {k.mlir_type}", where)
        offset = trace.ssa("k")
        trace.emit(f"{offset} = arith.index_cast {raw} : {k.dtype.mlir} to index", where)
    elif isinstance(k, bool) or not isinstance(k, int):
        raise FrontendError(f"{op} at {where}: k must be an int or a 0-d integer tensor, "
                            f"not {k!r}")
    trace, dtype, rank = x.trace, x.dtype, x.ndim
    init = emit_empty(trace, x.symbolic_shape, dtype, [(x, a) for a in range(rank)], where)
    loops = tuple(f"d{a}" for a in range(rank))

    def body(block: Body, args: list[str]) -> str:
        i = block.op(f"linalg.index {rank - 2}", "index")
        j = block.op(f"linalg.index {rank - 1}", "index")
        diagonal = block.op(f"arith.subi {j}, {i}", "index")
        bound = offset if offset is not None else block.const_index(int(k))  # type: ignore[arg-type]
        kept = block.op(f"arith.cmpi {'sge' if upper else 'sle'}, {diagonal}, {bound}", "index")
        zero = block.const(dtype, 0.0 if dtype.is_float else 0)
        return block.op(f"arith.select {kept}, {args[0]}, {zero}", dtype.mlir)

    return emit_generic(trace, [Operand(x, loops)], rank, ["parallel"] * rank, list(loops),
                        x.symbolic_shape, dtype, init, body, where)


@primitive("triu")
def triu(x: Tensor, k: int | Tensor = 0) -> Tensor:
    """``numpy.triu``: elements on and above the ``k``-th diagonal of the last two axes."""
    return _triangle("triu", x, k, upper=True)


@primitive("tril")
def tril(x: Tensor, k: int | Tensor = 0) -> Tensor:
    """``numpy.tril``: elements on and below the ``k``-th diagonal of the last two axes."""
    return _triangle("tril", x, k, upper=False)


@vjp_rule("triu", "tril")
def _triangle_vjp(node: Node, ct: Tensor) -> Cotangents:
    # The kept entries' cotangents, the same triangle of ct.
    return {"x": _triangle(node.name, ct, node.args["k"], upper=node.name == "triu")}
