"""Elementwise tensors that compute what an earlier one does, merged into
it (IREE 3.13 fuses them into one dispatch and returns the wrong one).
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import linalg

__all__ = ["merge_equal_elementwise"]


# Builds `#linalg.iterator_type<...>` (the bindings cannot read one back).
_PARALLEL = ir.AttrBuilder.get("IteratorTypeEnum")


# Ops whose operands IREE's CSE compares in any order (OpTrait::IsCommutative).
_COMMUTATIVE = frozenset({
    "arith.addf", "arith.mulf", "arith.addi", "arith.muli", "arith.andi", "arith.ori",
    "arith.xori", "arith.maximumf", "arith.minimumf", "arith.maxnumf", "arith.minnumf",
    "arith.maxsi", "arith.maxui", "arith.minsi", "arith.minui",
})


def _is_identity(attr: ir.Attribute) -> bool:
    amap = ir.AffineMapAttr(attr).value
    return amap == ir.AffineMap.get_identity(amap.n_dims)


class _ElementKeys:
    """Structural keys of the elements of tensors: what an element is
    computed from once every elementwise producer is fused into its
    consumer, with commutative operands in a canonical order. Keys are
    interned as ints; a key mentions an element of some tensor that is not
    elementwise (a "leaf") or not."""

    def __init__(self, callees: dict[str, ir.Operation]) -> None:
        self._ids: dict[tuple, int] = {}
        self._leaves: dict[ir.Value, int] = {}
        self.read_a_leaf: set[int] = set()
        self._elements: dict[ir.Value, int] = {}
        self._callees = callees
        self._calling: set[str] = set()
        # The call sites being looked into: a callee's own leaves differ per site.
        self._scope: tuple[int, ...] = ()

    def _key(self, key: tuple, reads_a_leaf: bool) -> int:
        k = self._ids.setdefault(key, len(self._ids))
        if reads_a_leaf:
            self.read_a_leaf.add(k)
        return k

    def _leaf(self, value: ir.Value, kind: str) -> int:
        return self._key((kind, self._scope, self._leaves.setdefault(value, len(self._leaves))),
                         kind == "element")

    def _scalar(self, value: ir.Value) -> int:
        """A scalar from outside a body: constants by value."""
        owner = value.owner
        if isinstance(owner, ir.OpView) and owner.name == "arith.constant":
            return self._key(("constant", owner.attributes["value"]), False)
        return self._leaf(value, "outside")

    def _op(self, op: ir.Operation, operands: list[int], result: int, element: ir.Type) -> int:
        attrs = op.attributes
        # Not symshape's annotations: stripped later, they differ from op to op.
        named = tuple(sorted(((attrs[i].name, attrs[i].attr) for i in range(len(attrs))
                              if not attrs[i].name.startswith("symshape.")),
                             key=lambda item: item[0]))
        if op.name in _COMMUTATIVE:
            operands = sorted(operands)
        return self._key((op.name, named, element, result, tuple(operands)),
                         any(k in self.read_a_leaf for k in operands))

    def element(self, value: ir.Value) -> int:
        """The key of an element of ``value``."""
        owner = value.owner
        while isinstance(owner, ir.OpView) and owner.name in ("tensor.cast",
                                                              "flow.tensor.tie_shape"):
            value = owner.operands[0]
            owner = value.owner
        if value not in self._elements:
            key = self.produced(value)
            self._elements[value] = self._leaf(value, "element") if key is None else key
        return self._elements[value]

    def produced(self, value: ir.Value) -> int | None:
        """The key of an element of ``value`` if an elementwise op makes it."""
        op = value.owner
        if not (isinstance(op, ir.OpView) and isinstance(value.type, ir.RankedTensorType)):
            return None
        result = ir.OpResult(value).result_number
        shape = ir.RankedTensorType(value.type).shape
        if op.name == "arith.constant":
            attr = op.attributes["value"]
            if isinstance(attr, ir.DenseElementsAttr) and attr.is_splat:
                return self._key(("constant", attr.get_splat_value()), False)
            return None
        if op.name.split(".")[0] in ("arith", "math") and not op.regions:
            if not all(isinstance(v.type, ir.RankedTensorType)
                       and ir.RankedTensorType(v.type).shape == shape
                       for v in [*op.operands, *op.results]):
                return None
            operands = [self.element(v) for v in op.operands]
            return self._op(op, operands, result, ir.RankedTensorType(value.type).element_type)
        if op.name == "linalg.generic":
            inputs = int(ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"])[0])
            parallel = _PARALLEL(linalg.IteratorType.parallel, op.context)
            if not (all(_is_identity(m) for m in ir.ArrayAttr(op.attributes["indexing_maps"]))
                    and all(t == parallel for t in ir.ArrayAttr(op.attributes["iterator_types"]))):
                return None
        elif op.name == "linalg.map":
            inputs = len(op.operands) - 1
        elif op.name == "func.call":
            return self._call(op, result)
        else:
            return None
        block = op.regions[0].blocks[0]
        arguments = list(block.arguments)
        if any(len(list(a.uses)) for a in arguments[inputs:]):
            return None  # reads its init
        env = {arguments[i]: self.element(op.operands[i]) for i in range(inputs)}
        for inner in block.operations:
            if inner.name == "linalg.yield":
                yielded = inner.operands[result]
                return env[yielded] if yielded in env else self._scalar(yielded)
            if inner.regions or not (inner.name.split(".")[0] in ("arith", "math")
                                     or inner.name in ("linalg.index", "tensor.extract")):
                return None
            operands = [env[v] if v in env else
                        self._leaf(v, "outside") if isinstance(v.type, ir.ShapedType)
                        else self._scalar(v) for v in inner.operands]
            for i, r in enumerate(inner.results):
                env[r] = self._op(inner, operands, i, r.type)
        return None

    def _call(self, call: ir.Operation, result: int) -> int | None:
        """A call's result as IREE sees it once it inlines the callee."""
        name = ir.FlatSymbolRefAttr(call.attributes["callee"]).value
        callee = self._callees.get(name)
        if callee is None or name in self._calling or len(callee.regions[0].blocks) != 1:
            return None
        body = callee.regions[0].blocks[0]
        terminator = body.operations[len(body.operations) - 1]
        if terminator.name != "func.return":
            return None
        bound = {arg: self.element(v) for arg, v in zip(body.arguments, call.operands,
                                                        strict=True)}
        site = self._leaves.setdefault(call.results[0], len(self._leaves))
        saved = self._elements, self._scope
        self._elements, self._scope = bound, (*self._scope, site)
        self._calling.add(name)
        try:
            key = self.element(terminator.operands[result])
        finally:
            self._elements, self._scope = saved
            self._calling.discard(name)
        return key if key in self.read_a_leaf else None


def merge_equal_elementwise(func: ir.Operation) -> int:
    """Replaces each elementwise tensor that computes what an earlier one in
    the same block does (once elementwise producers are fused, up to the
    order of commutative operands) by the earlier one; returns how many.

    IREE 3.13 fuses such tensors into one dispatch, where CSE makes them
    one value returned twice; dropping the duplicate result, the dispatch
    region gives its uses the region's first result instead of the equal
    one: ``v + 2v`` (``%also``) came back as ``2v`` (``%two``). Upstream CSE
    does not see that these are equal (a ``linalg.map`` beside an
    ``arith.addf`` with its operands swapped, or a call whose callee IREE
    inlines: a call's result is keyed by what its callee returns):

    .. code-block:: mlir

        %two = arith.addf %v, %v : tensor<?xf32>
        %three = arith.addf %two, %v : tensor<?xf32>
        %also = linalg.map { arith.addf } ins(%v, %two : tensor<?xf32>, tensor<?xf32>)
            outs(%init : tensor<?xf32>)
        // becomes:  return %two, %three, %three
    """
    module = func.parent
    callees = {} if module is None else {
        ir.StringAttr(op.attributes["sym_name"]).value: op.operation
        for op in module.regions[0].blocks[0].operations
        if op.operation.name == "func.func" and op.operation.regions[0].blocks}
    keys = _ElementKeys(callees)
    merged = 0

    def visit(block: ir.Block) -> None:
        nonlocal merged
        first: dict[tuple[str, int], ir.Value] = {}
        for op in list(block.operations):
            for region in op.regions:
                for inner in region.blocks:
                    visit(inner)
            for value in op.results:
                key = keys.produced(value)
                if key is None or key not in keys.read_a_leaf:
                    continue  # a tensor that reads none has its own size
                seen = first.setdefault((value.type, key), value)
                if seen != value:
                    value.replace_all_uses_with(seen)
                    merged += 1

    visit(func.regions[0].blocks[0])
    return merged
