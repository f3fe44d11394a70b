"""Random symshape programs in MLIR text, each with a numpy reference interpreter.

A program is one public ``func.func`` over fixed arguments::

    %x   : tensor<?x?xf32> {symshape.axes = [a, b]}
    %y   : tensor<?x?xf32> (axes [a, b], [a, c], [2 * a, b], [b, a] or none)
    %v   : tensor<?xf32>   {symshape.axes = [b]}
    %ids : tensor<?x1xi64> {symshape.axes = [m, 1]}
    %n0  : tensor<i64>, %n1 : tensor<i32>, %n2 : tensor<i64>   (scalars, may be negative)

followed by 3-8 random ops (truncation in both stages, bounds, casts, slices,
expand/collapse, reshapes, broadcast, gather, elementwise and named linalg
ops, ``scf.if``/``scf.for``, calls). Every op result is returned, so each
intermediate value is observable and nothing is dead code.

The generator records, beside the text, one reference step per op: a numpy
function over the concrete values of the earlier SSA names that computes the
op's result, or raises :class:`Invalid` when the op's run-time requirement
fails (sizes that disagree, a slice out of bounds, a negative size, ...). A
program generated with ``exact=True`` from the same seed is the same program
with every upper bound replaced by an exact extent (``stage exact`` instead
of ``stage upper_bound``, ``symshape.dim`` instead of ``symshape.bound``).

Three IREE 3.13 miscompiles of plain upstream IR (no symshape involved) are
steered around, so that a mismatch points at this project: a reduction
(``linalg.reduce``, ``linalg.matmul``) of a value computed from a
``linalg.fill`` (the splat reduces to 1); an ``insert_slice`` into a value
that has other readers (written in place: the destination is a private copy
here); an ``scf.for`` accumulating a value computed by a gather.
"""

from __future__ import annotations

import dataclasses
import logging
import random
import re
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import numpy as np

__all__ = [
    "ArgSpec",
    "Binding",
    "BoundBelowSize",
    "Invalid",
    "Program",
    "generate",
    "make_inputs",
]

logger = logging.getLogger(__name__)

Env = dict[str, Any]
"""SSA name (without ``%``) to its concrete value: an ndarray or an int."""

Binding = dict[str, int]
"""Named axes and scalar values of one call: a, b, c, m, n0, n1, n2 (+ perturbations)."""


class BoundBelowSize(Exception):
    """A ``symshape.bound`` evaluates below the size of its axis: not a bound."""


class Invalid(Exception):
    """The program is invalid on these inputs: an op's run-time requirement fails."""

    def __init__(self, op: str, reason: str, *, strict: bool = True) -> None:
        super().__init__(f"{op}: {reason}")
        self.op = op
        self.reason = reason
        #: False where the op's semantics leave it open (an empty slice at an
        #: offset past the end): a clean error and numpy's answer both pass.
        self.strict = strict


@dataclasses.dataclass(frozen=True)
class ArgSpec:
    """A function argument.

    Attributes:
        name: SSA name without ``%``.
        type: Its MLIR type.
        decl: ``symshape.axes`` entries as text, or None when not declared.
    """

    name: str
    type: str
    decl: tuple[str, ...] | None = None


@dataclasses.dataclass
class Val:
    """A tensor value of the program being generated.

    Attributes:
        name: SSA name without ``%``.
        dims: Static extent per axis, None where dynamic.
        bnd: Per axis, the concrete upper bound inference should give it
            (what ``symshape.bound`` evaluates to at run time).
    """

    name: str
    dims: list[int | None]
    bnd: list[Callable[[Env], int]]

    @property
    def rank(self) -> int:
        """The rank."""
        return len(self.dims)

    @property
    def ty(self) -> str:
        """The MLIR tensor type."""
        return tensor_type(self.dims)


def tensor_type(dims: Sequence[int | None], elem: str = "f32") -> str:
    """``tensor<?x3xf32>`` for ``[None, 3]``."""
    if not dims:
        return f"tensor<{elem}>"
    return "tensor<" + "x".join("?" if d is None else str(d) for d in dims) + f"x{elem}>"


@dataclasses.dataclass
class Program:
    """A generated program.

    Attributes:
        name: The function's name (also prefixes its private callees).
        text: The MLIR module text (the function and its callees).
        args: The function's arguments.
        results: SSA names of the returned values, in order.
        result_ops: The op that produced each result (for reports).
        ops: Op names used, in order (for reports and dedup).
        steps: The reference interpreter, one step per generated op.
        exact: Whether bounds were replaced by exact extents.
        uses_bound: Whether the program uses an upper bound anywhere.
        seed: The generator seed.
    """

    name: str
    text: str
    args: list[ArgSpec]
    results: list[str]
    result_ops: list[str]
    ops: list[str]
    steps: list[Callable[[Env], None]]
    exact: bool
    uses_bound: bool
    seed: int

    def reference(
        self,
        inputs: Sequence[np.ndarray],
        *,
        actual_bounds: bool = False,
        bounds: dict[str, int | None] | None = None,
    ) -> list[np.ndarray]:
        """numpy's results for the inputs.

        Args:
            inputs: The arguments.
            actual_bounds: what ``symshape.bound`` evaluates to when ``bounds``
                does not say: False takes the declared one (the source's
                bound), True the size itself (the tightest one).
            bounds: per ``symshape.bound`` (its SSA name), the value the
                compiler gives it: an integer, or None for the axis size.

        Raises:
            Invalid: The inputs violate a requirement of the program.
            BoundBelowSize: A value in ``bounds`` is below its axis size.
        """
        env: Env = {"__actual_bounds": actual_bounds, "__bounds": bounds or {}}
        check_axes(self.args, inputs)
        for spec, value in zip(self.args, inputs, strict=True):
            env[spec.name] = value
        for step in self.steps:
            step(env)
        return [np.asarray(env[r]) for r in self.results]


def check_axes(args: Sequence[ArgSpec], inputs: Sequence[np.ndarray]) -> Binding:
    """Binds the named axes of the arguments, as the entry checks must.

    Raises:
        Invalid: Two arguments disagree on an axis, or a declared expression
            (``2 * a``) does not hold.
    """
    bound: Binding = {}
    later: list[tuple[str, int, str]] = []
    for spec, value in zip(args, inputs, strict=True):
        if spec.decl is None:
            continue
        for axis, entry in enumerate(spec.decl):
            have = int(value.shape[axis])
            if entry.isidentifier():
                if entry in bound and bound[entry] != have:
                    raise Invalid(
                        "symshape.axes",
                        f"axis '{entry}': {spec.name} has {have}, "
                        f"another argument has {bound[entry]}",
                    )
                bound[entry] = have
            elif entry.isdigit():
                if int(entry) != have:
                    raise Invalid("symshape.axes", f"{spec.name} axis {axis} is {have}")
            else:
                later.append((entry, have, spec.name))
    for entry, have, name in later:
        want = eval(entry, {}, dict(bound))
        if want != have:
            raise Invalid("symshape.axes", f"{name} has {have}, '{entry}' is {want}")
    return bound


class _Builder:
    """Emits one program's text and reference steps."""

    def __init__(
        self, rng: random.Random, name: str, exact: bool, seed: int, max_ops: int | None = None
    ) -> None:
        self.rng = rng
        self.fname = name
        self.exact = exact
        self.seed = seed
        self.lines: list[str] = []
        self.callees: list[str] = []
        self.steps: list[Callable[[Env], None]] = []
        self.count = 0
        self.pool: list[Val] = []
        self.results: list[Val] = []
        self.result_ops: list[str] = []
        self.ops: list[str] = []
        self.uses_bound = False
        self.max_ops = max_ops
        #: Values that may be splats (computed from a `linalg.fill`).
        self.splat: set[str] = set()
        #: Values computed from a `symshape.gather`.
        self.gathered: set[str] = set()

    # -- helpers ---------------------------------------------------------------------

    def fresh(self, prefix: str = "t") -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def emit(self, line: str) -> None:
        self.lines.append("  " + line)

    def step(self, fn: Callable[[Env], None]) -> None:
        self.steps.append(fn)

    def const_index(self, value: int) -> str:
        name = self.fresh("c")
        self.emit(f"%{name} = arith.constant {value} : index")
        self.step(lambda env, name=name, value=value: env.__setitem__(name, value))
        return name

    def size(
        self, v: Val, axis: int, kinds: Sequence[str] = ("dim", "dim", "symdim", "bound")
    ) -> str:
        """An ``index`` SSA value for axis ``axis`` of ``v``: exact or an upper bound."""
        kind = self.rng.choice(list(kinds))
        name = self.fresh("s")
        if kind == "dim":
            c = self.const_index(axis)
            self.emit(f"%{name} = tensor.dim %{v.name}, %{c} : {v.ty}")
            self.step(lambda env, n=name: env.__setitem__(n, int(env[v.name].shape[axis])))
            return name
        ext = self.fresh("e")
        if kind == "bound" and not self.exact:
            self.uses_bound = True
            self.emit(f"%{ext} = symshape.bound %{v.name}, {axis} : {v.ty}")
            bnd = v.bnd[axis]

            def run(
                env: Env, n: str = name, e: str = ext, bnd: Callable[[Env], int] = bnd
            ) -> None:
                actual = int(env[v.name].shape[axis])
                given = env["__bounds"]
                if e in given:
                    value = actual if given[e] is None else given[e]
                    if value < actual:
                        raise BoundBelowSize(f"symshape.bound %{e} is {value}, its axis {actual}")
                    env[n] = value
                else:
                    env[n] = actual if env["__actual_bounds"] else int(bnd(env))

            self.step(run)
        else:
            self.emit(f"%{ext} = symshape.dim %{v.name}, {axis} : {v.ty}")
            self.step(lambda env, n=name: env.__setitem__(n, int(env[v.name].shape[axis])))
        self.emit(f"%{name} = symshape.to_index %{ext}")
        return name

    def scalar_index(self) -> tuple[str, str]:
        """An ``index`` SSA value read from a scalar argument with ``index`` semantics."""
        form = self.rng.choice(["i64", "i32", "tensor_index"])
        ext = self.fresh("e")
        name = self.fresh("s")
        if form == "i64":
            self.emit(f"%{ext} = symshape.runtime_scalar %n2 index : tensor<i64>")
            src = "n2"
        elif form == "i32":
            self.emit(f"%{ext} = symshape.runtime_scalar %n1 index : tensor<i32>")
            src = "n1"
        else:
            t = self.fresh("ti")
            self.emit(f"%{t} = arith.index_cast %n2 : tensor<i64> to tensor<index>")
            self.emit(f"%{ext} = symshape.runtime_scalar %{t} index : tensor<index>")
            src = "n2"
        self.emit(f"%{name} = symshape.to_index %{ext}")
        self.step(lambda env, n=name: env.__setitem__(n, int(env[src])))
        return name, f"runtime_scalar({form}, index)"

    def empty(self, dims: Sequence[int | None], sizes: Sequence[str], op: str) -> str:
        """``tensor.empty`` with the given size operands (dynamic axes only)."""
        name = self.fresh("init")
        dyn = [s for d, s in zip(dims, sizes, strict=True) if d is None]
        self.emit(
            f"%{name} = tensor.empty({', '.join('%' + s for s in dyn)}) : {tensor_type(dims)}"
        )

        def run(env: Env) -> None:
            shape = []
            for d, s in zip(dims, sizes, strict=True):
                size = env[s] if d is None else d
                if size < 0:
                    raise Invalid(op, f"negative size {size} for tensor.empty")
                shape.append(size)
            env[name] = np.zeros(shape, np.float32)

        self.step(run)
        return name

    def zero_init(self, dims: Sequence[int | None], sizes: Sequence[str], op: str) -> str:
        init = self.empty(dims, sizes, op)
        z = self.fresh("z")
        name = self.fresh("fill")
        self.emit(f"%{z} = arith.constant 0.0 : f32")
        ty = tensor_type(dims)
        self.emit(f"%{name} = linalg.fill ins(%{z} : f32) outs(%{init} : {ty}) -> {ty}")
        self.step(lambda env: env.__setitem__(name, np.zeros(env[init].shape, np.float32)))
        return name

    def add_result(self, v: Val, op: str) -> Val:
        self.pool.append(v)
        self.results.append(v)
        self.result_ops.append(op)
        self.ops.append(op)
        return v

    def pick(self, pred: Callable[[Val], bool] = lambda v: True) -> Val | None:
        choices = [v for v in self.pool if pred(v)]
        if not choices:
            return None
        # Prefer recent values: programs become chains.
        weights = [1 + i for i in range(len(choices))]
        return self.rng.choices(choices, weights)[0]

    def same_type(self, a: Val) -> Val | None:
        return self.pick(lambda v: v.dims == a.dims)

    @staticmethod
    def actual(name: str, axis: int) -> Callable[[Env], int]:
        return lambda env: int(env[name].shape[axis])

    def private_copy(self, d: Val) -> str:
        """A copy of rank-2 ``d`` (``d + 0.0``) that nothing else reads.

        IREE 3.13 writes an in-place update (``insert_slice``, a loop's
        ``iter_args``) into the buffer of its destination even when that is a
        function argument, a view of one, or has other readers, which then see
        the new values: such destinations are private copies here.
        """
        dims = [self.fresh("dd") for _ in range(d.rank)]
        for i, dd in enumerate(dims):
            c = self.const_index(i)
            self.emit(f"%{dd} = tensor.dim %{d.name}, %{c} : {d.ty}")
        dyn = [dd for dd, k in zip(dims, d.dims, strict=True) if k is None]
        empty = self.fresh("init")
        self.emit(f"%{empty} = tensor.empty({', '.join('%' + x for x in dyn)}) : {d.ty}")
        ids = ", ".join(f"d{i}" for i in range(d.rank))
        amap = f"affine_map<({ids}) -> ({ids})>"
        par = ", ".join(['"parallel"'] * d.rank)
        dest = self.fresh("dest")
        self.emit(
            f"%{dest} = linalg.generic {{indexing_maps = [{amap}, {amap}], "
            f"iterator_types = [{par}]}} ins(%{d.name} : {d.ty}) "
            f"outs(%{empty} : {d.ty}) {{"
        )
        self.lines.append("  ^bb0(%i0: f32, %o: f32):")
        self.lines.append("    %zero = arith.constant 0.0 : f32")
        self.lines.append("    %q = arith.addf %i0, %zero : f32")
        self.lines.append("    linalg.yield %q : f32")
        self.lines.append(f"  }} -> {d.ty}")
        return dest

    # -- ops ---------------------------------------------------------------------------

    def op_truncate(self) -> bool:
        v = self.pick(lambda v: v.rank >= 1)
        if v is None:
            return False
        axis = self.rng.randrange(v.rank)
        scalar, sty = self.rng.choice([("n0", "tensor<i64>"), ("n1", "tensor<i32>")])
        stage = self.rng.choice(["upper_bound", "upper_bound", "exact"])
        if self.exact:
            stage = "exact"
        if stage == "upper_bound":
            self.uses_bound = True
        dims = list(v.dims)
        dims[axis] = None
        r = self.fresh("tr")
        self.emit(
            f"%{r} = symshape.dynamic_truncate %{v.name}, %{scalar} axis {axis} "
            f"stage {stage} : ({v.ty}, {sty}) -> {tensor_type(dims)}"
        )

        def run(env: Env) -> None:
            x = env[v.name]
            keep = max(0, min(int(env[scalar]), x.shape[axis]))
            env[r] = np.take(x, np.arange(keep), axis=axis)

        self.step(run)
        bnd = list(v.bnd)
        bnd[axis] = v.bnd[axis] if stage == "upper_bound" else self.actual(r, axis)
        self.add_result(Val(r, dims, bnd), f"symshape.dynamic_truncate[{stage}]")
        return True

    def op_elementwise(self) -> bool:
        a = self.pick(lambda v: v.rank >= 1)
        if a is None:
            return False
        b = self.same_type(a)
        form = self.rng.choice(["arith", "generic", "generic_unary", "map", "copy"])
        r = self.fresh("ew")
        if form == "arith":
            assert b is not None
            self.emit(f"%{r} = arith.addf %{a.name}, %{b.name} : {a.ty}")
            ins = [a, b]
            init = None
            op = "arith.addf"
        else:
            ins = [a] if form in ("generic_unary", "copy") else [a, b]
            src = self.rng.choice(ins)
            init = self.empty(a.dims, [self.size(src, i) for i in range(a.rank)], form)
            ids = ", ".join(f"d{i}" for i in range(a.rank))
            amap = f"affine_map<({ids}) -> ({ids})>"
            ins_txt = ", ".join(f"%{v.name}" for v in ins)
            tys_txt = ", ".join(v.ty for v in ins)
            par = ", ".join(['"parallel"'] * a.rank)
            if form == "map":
                self.emit(
                    f"%{r} = linalg.map {{ arith.addf }} ins(%{a.name}, %{b.name} : "
                    f"{a.ty}, {b.ty}) outs(%{init} : {a.ty})"
                )
                ins = [a, b]
                op = "linalg.map"
            elif form == "copy":
                self.emit(
                    f"%{r} = linalg.copy ins(%{a.name} : {a.ty}) outs(%{init} : {a.ty}) -> {a.ty}"
                )
                op = "linalg.copy"
            else:
                maps = ", ".join([amap] * (len(ins) + 1))
                self.emit(
                    f"%{r} = linalg.generic {{indexing_maps = [{maps}], "
                    f"iterator_types = [{par}]}} ins({ins_txt} : {tys_txt}) "
                    f"outs(%{init} : {a.ty}) {{"
                )
                args = ", ".join(f"%i{k}: f32" for k in range(len(ins)))
                self.lines.append(f"  ^bb0({args}, %o: f32):")
                if len(ins) == 2:
                    self.lines.append("    %q = arith.addf %i0, %i1 : f32")
                else:
                    self.lines.append("    %q = arith.addf %i0, %i0 : f32")
                self.lines.append("    linalg.yield %q : f32")
                self.lines.append(f"  }} -> {a.ty}")
                op = "linalg.generic"

        def run(env: Env) -> None:
            shapes = [env[v.name].shape for v in ins]
            if init is not None:
                shapes.append(env[init].shape)
            if any(s != shapes[0] for s in shapes):
                raise Invalid(op, f"operand shapes differ: {shapes}")
            x = env[ins[0].name]
            env[r] = x + (env[ins[1].name] if len(ins) == 2 else x) if op != "linalg.copy" else x

        self.step(run)
        self.add_result(Val(r, list(a.dims), list(a.bnd)), op)
        return True

    def op_transpose(self, a: Val | None = None) -> bool:
        a = a or self.pick(lambda v: v.rank == 2)
        if a is None:
            return False
        dims = [a.dims[1], a.dims[0]]
        init = self.empty(dims, [self.size(a, 1), self.size(a, 0)], "linalg.transpose")
        r = self.fresh("tp")
        self.emit(
            f"%{r} = linalg.transpose ins(%{a.name} : {a.ty}) outs(%{init} : "
            f"{tensor_type(dims)}) permutation = [1, 0]"
        )

        def run(env: Env) -> None:
            x = env[a.name]
            if env[init].shape != x.T.shape:
                raise Invalid("linalg.transpose", f"init {env[init].shape} vs input {x.shape}")
            env[r] = x.T.copy()

        self.step(run)
        self.add_result(Val(r, dims, [a.bnd[1], a.bnd[0]]), "linalg.transpose")
        return True

    def op_reduce(self) -> bool:
        a = self.pick(lambda v: v.rank >= 1 and v.name not in self.splat)
        if a is None:
            return False
        d = self.rng.randrange(a.rank)
        keep = [i for i in range(a.rank) if i != d]
        dims = [a.dims[i] for i in keep]
        init = self.zero_init(dims, [self.size(a, i) for i in keep], "linalg.reduce")
        r = self.fresh("red")
        self.emit(
            f"%{r} = linalg.reduce ins(%{a.name} : {a.ty}) outs(%{init} : "
            f"{tensor_type(dims)}) dimensions = [{d}]"
        )
        self.lines.append("    (%in: f32, %acc: f32) {")
        self.lines.append("      %q = arith.addf %in, %acc : f32")
        self.lines.append("      linalg.yield %q : f32")
        self.lines.append("    }")

        def run(env: Env) -> None:
            x = env[a.name]
            want = tuple(x.shape[i] for i in keep)
            if env[init].shape != want:
                raise Invalid("linalg.reduce", f"init {env[init].shape} vs {want}")
            env[r] = x.sum(axis=d).astype(np.float32)

        self.step(run)
        self.add_result(Val(r, dims, [a.bnd[i] for i in keep]), "linalg.reduce")
        return True

    def op_matmul(self) -> bool:
        a = self.pick(lambda v: v.rank == 2 and v.name not in self.splat)
        if a is None:
            return False
        b = self.pick(lambda v: v.rank == 2 and v.name not in self.splat)
        assert b is not None
        if self.rng.random() < 0.5:
            # b = transpose(a') of a value shaped like a: k matches when a' = a.
            shaped = self.pick(lambda v: v.dims == a.dims and v.name not in self.splat)
            if shaped is None or not self.op_transpose(shaped):
                return False
            b = self.results[-1]
        dims = [a.dims[0], b.dims[1]]
        init = self.zero_init(dims, [self.size(a, 0), self.size(b, 1)], "linalg.matmul")
        r = self.fresh("mm")
        self.emit(
            f"%{r} = linalg.matmul ins(%{a.name}, %{b.name} : {a.ty}, {b.ty}) "
            f"outs(%{init} : {tensor_type(dims)}) -> {tensor_type(dims)}"
        )

        def run(env: Env) -> None:
            x, y = env[a.name], env[b.name]
            if x.shape[1] != y.shape[0]:
                raise Invalid("linalg.matmul", f"K differs: {x.shape} @ {y.shape}")
            if env[init].shape != (x.shape[0], y.shape[1]):
                raise Invalid("linalg.matmul", f"init {env[init].shape}")
            env[r] = (x @ y).astype(np.float32)

        self.step(run)
        self.add_result(Val(r, dims, [a.bnd[0], b.bnd[1]]), "linalg.matmul")
        return True

    def op_fill(self) -> bool:
        a = self.pick(lambda v: v.rank >= 1)
        if a is None:
            return False
        sizes = [self.size(a, i) for i in range(a.rank)]
        init = self.empty(a.dims, sizes, "linalg.fill")
        one = self.fresh("one")
        r = self.fresh("fl")
        self.emit(f"%{one} = arith.constant 1.0 : f32")
        self.emit(f"%{r} = linalg.fill ins(%{one} : f32) outs(%{init} : {a.ty}) -> {a.ty}")
        self.step(lambda env: env.__setitem__(r, np.ones(env[init].shape, np.float32)))
        self.add_result(
            Val(r, list(a.dims), [self.actual(r, i) for i in range(a.rank)]), "linalg.fill"
        )
        return True

    def op_cast(self) -> bool:
        a = self.pick(lambda v: any(d is None for d in v.dims))
        if a is None:
            return False
        axis = self.rng.choice([i for i, d in enumerate(a.dims) if d is None])
        k = self.rng.choice([0, 1, 2, 3])
        dims = list(a.dims)
        dims[axis] = k
        r = self.fresh("cs")
        self.emit(f"%{r} = tensor.cast %{a.name} : {a.ty} to {tensor_type(dims)}")

        def run(env: Env) -> None:
            x = env[a.name]
            if x.shape[axis] != k:
                raise Invalid("tensor.cast", f"axis {axis} is {x.shape[axis]}, cast to {k}")
            env[r] = x

        self.step(run)
        v = self.add_result(Val(r, dims, [self.actual(r, i) for i in range(a.rank)]), "tensor.cast")
        if self.rng.random() < 0.5:
            r2 = self.fresh("cs")
            self.emit(f"%{r2} = tensor.cast %{r} : {v.ty} to {tensor_type([None] * a.rank)}")
            self.step(lambda env: env.__setitem__(r2, env[r]))
            self.add_result(Val(r2, [None] * a.rank, list(v.bnd)), "tensor.cast[dyn]")
        return True

    def op_extract_slice(self) -> bool:
        a = self.pick(lambda v: v.rank >= 1)
        if a is None:
            return False
        offs: list[str] = []
        sizes: list[str] = []
        for i in range(a.rank):
            o = self.rng.choice(["0", "0", "1", "scalar"])
            if o == "scalar":
                o, _ = self.scalar_index()
                o_txt = "%" + o
            elif o == "1":
                o = self.const_index(1)
                o_txt = "%" + o
            else:
                o = self.const_index(0)
                # The verifier rejects a static offset at a static extent of 0.
                o_txt = "0" if a.dims[i] != 0 else "%" + o
            form = self.rng.choice(["full", "full", "half", "scalar", "one"])
            s = self.fresh("sz")
            if form == "scalar":
                s, _ = self.scalar_index()
            elif form == "one":
                s = self.const_index(1)
            else:
                d = self.size(a, i)
                if form == "full":
                    self.emit(f"%{s} = arith.subi %{d}, %{o} : index")
                    self.step(lambda env, s=s, d=d, o=o: env.__setitem__(s, env[d] - env[o]))
                else:
                    two = self.const_index(2)
                    self.emit(f"%{s} = arith.floordivsi %{d}, %{two} : index")
                    self.step(lambda env, s=s, d=d: env.__setitem__(s, env[d] // 2))
            offs.append(o_txt if o_txt == "0" else "%" + o)
            sizes.append(s)
        r = self.fresh("sl")
        dims = [None] * a.rank
        off_names = [None if t == "0" else t[1:] for t in offs]
        self.emit(
            f"%{r} = tensor.extract_slice %{a.name}[{', '.join(offs)}] "
            f"[{', '.join('%' + s for s in sizes)}] [{', '.join(['1'] * a.rank)}] : "
            f"{a.ty} to {tensor_type(dims)}"
        )

        def run(env: Env) -> None:
            x = env[a.name]
            index = []
            for i in range(a.rank):
                o = 0 if off_names[i] is None else env[off_names[i]]
                s = env[sizes[i]]
                if o < 0 or s < 0 or o + s > x.shape[i]:
                    raise Invalid(
                        "tensor.extract_slice",
                        f"axis {i}: offset {o} size {s} of {x.shape[i]}",
                        strict=s != 0 or o < 0,
                    )
                index.append(slice(o, o + s))
            env[r] = x[tuple(index)]

        self.step(run)
        self.add_result(
            Val(r, dims, [self.actual(r, i) for i in range(a.rank)]), "tensor.extract_slice"
        )
        return True

    def op_insert_slice(self) -> bool:
        s = self.pick(lambda v: v.rank == 2 and v.dims == [None, None])
        if s is None:
            return False
        d = self.pick(lambda v: v.rank == 2)
        assert d is not None
        sizes = [self.size(s, i) for i in range(2)]
        off = self.rng.choice([0, 0, 1])
        r = self.fresh("ins")
        # IREE 3.13 writes an insert_slice in place into its destination even
        # when the destination is a function argument or has other readers
        # (they then see the inserted values): insert into a private copy.
        dest = self.private_copy(d)
        # The verifier rejects a static offset at or past a static extent.
        offsets = [
            str(o) if d.dims[i] is None or o < d.dims[i] else "%" + self.const_index(o)
            for i, o in enumerate((off, 0))
        ]
        self.emit(
            f"%{r} = tensor.insert_slice %{s.name} into %{dest}[{', '.join(offsets)}] "
            f"[%{sizes[0]}, %{sizes[1]}] [1, 1] : {s.ty} into {d.ty}"
        )

        def run(env: Env) -> None:
            src, dst = env[s.name], env[d.name]
            sz = (env[sizes[0]], env[sizes[1]])
            if sz != src.shape:
                raise Invalid("tensor.insert_slice", f"sizes {sz} vs source {src.shape}")
            if off + sz[0] > dst.shape[0] or sz[1] > dst.shape[1]:
                raise Invalid("tensor.insert_slice", f"{sz} at [{off}, 0] into {dst.shape}")
            out = dst.copy()
            out[off : off + sz[0], : sz[1]] = src
            env[r] = out

        self.step(run)
        self.add_result(Val(r, list(d.dims), list(d.bnd)), "tensor.insert_slice")
        return True

    def op_expand(self) -> bool:
        a = self.pick(lambda v: v.rank in (1, 2) and v.dims[-1] is None)
        if a is None:
            return False
        last = a.rank - 1
        d = self.size(a, last)
        h = self.fresh("h")
        two = self.const_index(2)
        self.emit(f"%{h} = arith.floordivsi %{d}, %{two} : index")
        self.step(lambda env: env.__setitem__(h, env[d] // 2))
        lead: list[str] = []
        if a.rank == 2:
            lead = ["%" + self.size(a, 0)] if a.dims[0] is None else [str(a.dims[0])]
            assoc = "[[0], [1, 2]]"
        else:
            assoc = "[[0, 1]]"
        dims = [*a.dims[:-1], None, 2]
        r = self.fresh("ex")
        out = ", ".join([*lead, "%" + h, "2"])
        self.emit(
            f"%{r} = tensor.expand_shape %{a.name} {assoc} output_shape [{out}] : "
            f"{a.ty} into {tensor_type(dims)}"
        )
        lead_name = lead[0][1:] if lead and lead[0].startswith("%") else None

        def run(env: Env) -> None:
            x = env[a.name]
            hv = env[h]
            if lead_name is not None and env[lead_name] != x.shape[0]:
                raise Invalid(
                    "tensor.expand_shape", f"output axis 0 {env[lead_name]} vs {x.shape[0]}"
                )
            if hv < 0 or hv * 2 != x.shape[-1]:
                raise Invalid("tensor.expand_shape", f"{hv} * 2 != {x.shape[-1]}")
            env[r] = x.reshape(*x.shape[:-1], hv, 2)

        self.step(run)
        self.add_result(
            Val(r, dims, [self.actual(r, i) for i in range(len(dims))]), "tensor.expand_shape"
        )
        return True

    def op_collapse(self) -> bool:
        a = self.pick(lambda v: v.rank in (2, 3))
        if a is None:
            return False
        if a.rank == 2:
            assoc, dims = "[[0, 1]]", [None if None in a.dims else a.dims[0] * a.dims[1]]
        else:
            d01 = None if None in a.dims[:2] else a.dims[0] * a.dims[1]
            assoc, dims = "[[0, 1], [2]]", [d01, a.dims[2]]
        r = self.fresh("co")
        self.emit(
            f"%{r} = tensor.collapse_shape %{a.name} {assoc} : {a.ty} into {tensor_type(dims)}"
        )

        def run(env: Env) -> None:
            x = env[a.name]
            env[r] = x.reshape(x.shape[0] * x.shape[1], *x.shape[2:])

        self.step(run)
        self.add_result(
            Val(r, dims, [self.actual(r, i) for i in range(len(dims))]), "tensor.collapse_shape"
        )
        return True

    def op_symreshape(self) -> bool:
        a = self.pick(lambda v: v.rank >= 1)
        if a is None:
            return False
        forms = ["split"] + (["flatten"] if a.rank >= 2 else []) + ["like"]
        form = self.rng.choice(forms)
        operands = f"%{a.name}"
        types = [a.ty]
        if form == "flatten":
            target = [" * ".join(f"dim(0, {i})" for i in range(a.rank))]
        elif form == "split":
            target = [f"dim(0, {i})" for i in range(a.rank - 1)]
            target += [f"dim(0, {a.rank - 1}) floordiv 2", "2"]
        else:
            b = self.pick(lambda v: v.rank >= 1 and v is not a)
            if b is None:
                return False
            operands += f", %{b.name}"
            types.append(b.ty)
            target = [f"dim(1, {i})" for i in range(b.rank)]
        dims: list[int | None] = [2 if t == "2" else None for t in target]
        r = self.fresh("rs")
        self.emit(
            f"%{r} = symshape.reshape {operands} to [{', '.join(target)}] : "
            f"({', '.join(types)}) -> {tensor_type(dims)}"
        )
        other = None if form != "like" else b.name

        def run(env: Env) -> None:
            x = env[a.name]
            if form == "flatten":
                shape = (x.size,)
            elif form == "split":
                shape = (*x.shape[:-1], x.shape[-1] // 2, 2)
            else:
                shape = env[other].shape
            if int(np.prod(shape)) != x.size:
                raise Invalid("symshape.reshape", f"{x.shape} to {shape}")
            env[r] = x.reshape(shape)

        self.step(run)
        self.add_result(
            Val(r, dims, [self.actual(r, i) for i in range(len(dims))]), "symshape.reshape"
        )
        return True

    def op_onnx_reshape(self) -> bool:
        a = self.pick(lambda v: v.rank == 2)
        if a is None:
            return False
        form = self.rng.choice(["keep0", "pairs"])
        d0 = self.size(a, 0, ("dim", "dim", "bound"))
        d1 = self.size(a, 1, ("dim",))
        if form == "keep0":
            # [d0, -1]: -1 = numel floordiv d0; numel from the true dims.
            t0 = self.size(a, 0, ("dim",))
            numel2 = self.fresh("numel")
            self.emit(f"%{numel2} = arith.muli %{t0}, %{d1} : index")
            rest = self.fresh("rest")
            self.emit(f"%{rest} = arith.divsi %{numel2}, %{d0} : index")
            first = d0
        else:
            # [-1, 2]: -1 = numel floordiv 2.
            t0 = self.size(a, 0, ("dim",))
            numel2 = self.fresh("numel")
            self.emit(f"%{numel2} = arith.muli %{t0}, %{d1} : index")
            two = self.const_index(2)
            first = self.fresh("rest")
            self.emit(f"%{first} = arith.divsi %{numel2}, %{two} : index")
            rest = two
        i0, i1 = self.fresh("i"), self.fresh("i")
        self.emit(f"%{i0} = arith.index_cast %{first} : index to i64")
        self.emit(f"%{i1} = arith.index_cast %{rest} : index to i64")
        shp = self.fresh("shape")
        self.emit(f"%{shp} = tensor.from_elements %{i0}, %{i1} : tensor<2xi64>")
        dims: list[int | None] = [None, None] if form == "keep0" else [None, 2]
        r = self.fresh("ox")
        self.emit(
            f"%{r} = tensor.reshape %{a.name}(%{shp}) : ({a.ty}, tensor<2xi64>) -> "
            f"{tensor_type(dims)}"
        )

        def run(env: Env) -> None:
            x = env[a.name]
            n = x.shape[0] * x.shape[1]
            if form == "keep0":
                div = env[d0]
                if div == 0:
                    raise Invalid("arith.divsi", "division by zero")
                shape = (div, n // div)
            else:
                shape = (n // 2, 2)
            if shape[0] * shape[1] != n or min(shape) < 0:
                raise Invalid("tensor.reshape", f"{x.shape} to {shape}")
            env[r] = x.reshape(shape)

        self.step(run)
        self.add_result(Val(r, dims, [self.actual(r, i) for i in range(2)]), "tensor.reshape")
        return True

    def op_broadcast(self) -> bool:
        form = self.rng.choice(["vector", "matrix", "new_axis"])
        if form == "new_axis":
            a = self.pick(lambda v: 1 <= v.rank <= 2)
            if a is None:
                return False
            target = ["3"] + [f"dim(0, {i})" for i in range(a.rank)]
            bdims = list(range(1, a.rank + 1))
            operands, types = f"%{a.name}", a.ty
            dims: list[int | None] = [3, *([None] * a.rank)]
            t = None
        else:
            a = self.pick(lambda v: v.rank == (1 if form == "vector" else 2))
            t = self.pick(lambda v: v.rank == 2)
            if a is None or t is None:
                return False
            target = ["dim(1, 0)", "dim(1, 1)"]
            bdims = [1] if form == "vector" else [0, 1]
            operands, types = f"%{a.name}, %{t.name}", f"{a.ty}, {t.ty}"
            dims = [None, None]
        r = self.fresh("bc")
        self.emit(
            f"%{r} = symshape.broadcast_in_dim {operands} dims "
            f"[{', '.join(map(str, bdims))}] to [{', '.join(target)}] : ({types}) -> "
            f"{tensor_type(dims)}"
        )
        tname = None if t is None else t.name

        def run(env: Env) -> None:
            x = env[a.name]
            shape = (3, *x.shape) if tname is None else env[tname].shape
            for k, d in enumerate(bdims):
                if x.shape[k] not in (1, shape[d]):
                    raise Invalid(
                        "symshape.broadcast_in_dim",
                        f"input axis {k} is {x.shape[k]}, target {shape[d]}",
                    )
            expanded = x.reshape(
                [x.shape[bdims.index(i)] if i in bdims else 1 for i in range(len(shape))]
            )
            env[r] = np.broadcast_to(expanded, shape).copy()

        self.step(run)
        bnd = [lambda env: 3, *a.bnd] if t is None else list(t.bnd)
        self.add_result(Val(r, dims, bnd), "symshape.broadcast_in_dim")
        return True

    def op_gather(self) -> bool:
        a = self.pick(lambda v: v.rank == 2)
        if a is None:
            return False
        w = self.pick(lambda v: v.rank == 2) if self.rng.random() < 0.4 else None
        size = "dim(0, 1)" if w is None else "dim(2, 1)"
        extra = "" if w is None else f", %{w.name}"
        extra_ty = "" if w is None else f", {w.ty}"
        r = self.fresh("ga")
        self.emit(
            f"%{r} = symshape.gather %{a.name}[%ids]{extra} start_index_map [0] "
            f"collapsed_slice_dims [0] slice_sizes [1, {size}] : "
            f"({a.ty}, tensor<?x1xi64>{extra_ty}) -> tensor<?x?xf32>"
        )
        wname = None if w is None else w.name

        def run(env: Env) -> None:
            x, ids = env[a.name], env["ids"]
            s = x.shape[1] if wname is None else env[wname].shape[1]
            if x.shape[0] < 1:
                raise Invalid("symshape.gather", "slice size 1 > operand axis 0 of size 0")
            if s > x.shape[1]:
                raise Invalid("symshape.gather", f"slice size {s} > operand axis 1 ({x.shape[1]})")
            rows = np.clip(ids[:, 0], 0, x.shape[0] - 1)
            env[r] = x[rows][:, :s].copy()

        self.step(run)
        self.add_result(
            Val(
                r,
                [None, None],
                [lambda env: env["ids"].shape[0], (a.bnd[1] if w is None else w.bnd[1])],
            ),
            "symshape.gather",
        )
        return True

    def op_if(self) -> bool:
        a = self.pick()
        assert a is not None
        b = self.same_type(a)
        assert b is not None
        nv, k, cond, r = self.fresh("nv"), self.fresh("k"), self.fresh("cond"), self.fresh("if")
        self.emit(f"%{nv} = tensor.extract %n0[] : tensor<i64>")
        self.emit(f"%{k} = arith.constant 2 : i64")
        self.emit(f"%{cond} = arith.cmpi sgt, %{nv}, %{k} : i64")
        self.emit(f"%{r} = scf.if %{cond} -> ({a.ty}) {{")
        self.emit(f"  scf.yield %{a.name} : {a.ty}")
        self.emit("} else {")
        self.emit(f"  scf.yield %{b.name} : {b.ty}")
        self.emit("}")
        self.step(
            lambda env: env.__setitem__(r, env[a.name] if int(env["n0"]) > 2 else env[b.name])
        )
        bnd = [lambda env, p=p, q=q: max(p(env), q(env)) for p, q in zip(a.bnd, b.bnd)]
        self.add_result(Val(r, list(a.dims), bnd), "scf.if")
        return True

    def op_for(self) -> bool:
        a = self.pick(lambda v: v.rank >= 1 and v.name not in self.gathered)
        if a is None:
            return False
        lb, st = self.const_index(0), self.const_index(1)
        nv, ub, r = self.fresh("nv"), self.fresh("ub"), self.fresh("for")
        self.emit(f"%{nv} = tensor.extract %n1[] : tensor<i32>")
        self.emit(f"%{ub} = arith.index_cast %{nv} : i32 to index")
        init = self.private_copy(a)
        self.emit(
            f"%{r} = scf.for %iv = %{lb} to %{ub} step %{st} iter_args(%acc = %{init})"
            f" -> ({a.ty}) {{"
        )
        self.emit(f"  %q = arith.addf %acc, %{a.name} : {a.ty}")
        self.emit(f"  scf.yield %q : {a.ty}")
        self.emit("}")

        def run(env: Env) -> None:
            x = env[a.name]
            acc = x
            for _ in range(max(0, int(env["n1"]))):
                acc = acc + x
            env[r] = acc

        self.step(run)
        self.add_result(Val(r, list(a.dims), list(a.bnd)), "scf.for")
        return True

    def op_call(self) -> bool:
        a = self.pick(lambda v: v.rank == 2 and v.dims == [None, None])
        if a is None:
            return False
        b = self.same_type(a)
        assert b is not None
        callee = f"{self.fname}_c{len(self.callees)}"
        ty = a.ty
        decl_b = self.rng.choice(["[p, q]", "[p, q]", "[p, q]"])
        self.callees.append(
            f"func.func private @{callee}(%p: {ty} {{symshape.axes = #symshape.shape<[p, q]>}},"
            f" %q: {ty} {{symshape.axes = #symshape.shape<{decl_b}>}}) -> {ty} {{\n"
            f"  %s = arith.addf %p, %q : {ty}\n  return %s : {ty}\n}}"
        )
        r = self.fresh("call")
        self.emit(f"%{r} = func.call @{callee}(%{a.name}, %{b.name}) : ({ty}, {ty}) -> {ty}")

        def run(env: Env) -> None:
            x, y = env[a.name], env[b.name]
            if x.shape != y.shape:
                raise Invalid("func.call", f"arguments {x.shape} and {y.shape}")
            env[r] = x + y

        self.step(run)
        self.add_result(Val(r, [None, None], list(a.bnd)), "func.call")
        return True

    OPS: ClassVar[dict[str, float]] = {
        "truncate": 3.0,
        "elementwise": 3.0,
        "transpose": 1.0,
        "reduce": 1.0,
        "matmul": 0.7,
        "fill": 0.7,
        "cast": 1.2,
        "extract_slice": 1.5,
        "insert_slice": 0.8,
        "expand": 1.0,
        "collapse": 0.7,
        "symreshape": 1.0,
        "onnx_reshape": 1.0,
        "broadcast": 1.0,
        "gather": 0.8,
        "if": 0.7,
        "for": 0.5,
        "call": 0.8,
    }

    def build(self) -> Program:
        rng = self.rng
        ydecl = rng.choice([("a", "b"), ("a", "c"), ("2 * a", "b"), ("b", "a"), None])
        args = [
            ArgSpec("x", "tensor<?x?xf32>", ("a", "b")),
            ArgSpec("y", "tensor<?x?xf32>", ydecl),
            ArgSpec("v", "tensor<?xf32>", ("b",)),
            ArgSpec("ids", "tensor<?x1xi64>", ("m", "1")),
            ArgSpec("n0", "tensor<i64>"),
            ArgSpec("n1", "tensor<i32>"),
            ArgSpec("n2", "tensor<i64>"),
        ]
        for spec in args[:3]:
            rank = spec.type.count("?")
            self.pool.append(
                Val(spec.name, [None] * rank, [self.actual(spec.name, i) for i in range(rank)])
            )
        names = list(self.OPS)
        weights = [self.OPS[n] for n in names]
        target = rng.choice([3, 3, 4, 4, 5, 6, 7, 8])
        if self.max_ops is not None:
            target = min(target, self.max_ops)
        tries = 0
        while len(self.results) < target and tries < 50:
            tries += 1
            op = rng.choices(names, weights)[0]
            mark = (
                len(self.lines),
                len(self.steps),
                len(self.pool),
                len(self.results),
                len(self.result_ops),
                len(self.ops),
                self.count,
            )
            if getattr(self, f"op_{op}")():
                # IREE 3.13 miscompiles a reduction of a splat (linalg.reduce
                # of a linalg.fill gives 1, not the size): values computed from
                # a fill are kept out of reductions (see `self.splat`).
                new_text = "\n".join(self.lines[mark[0] :])
                if op == "fill" or any(re.search(rf"%{name}\b", new_text) for name in self.splat):
                    self.splat.update(v.name for v in self.results[mark[3] :])
                # IREE 3.13 also miscompiles an scf.for accumulating a value
                # computed by a gather (the lowered gather reads with
                # tensor.extract): loops stay off gathered values.
                if op == "gather" or any(
                    re.search(rf"%{name}\b", new_text) for name in self.gathered
                ):
                    self.gathered.update(v.name for v in self.results[mark[3] :])
            else:
                # Roll back whatever a failed attempt emitted.
                del self.lines[mark[0] :]
                del self.steps[mark[1] :]
                del self.pool[mark[2] :]
                del self.results[mark[3] :]
                del self.result_ops[mark[4] :]
                del self.ops[mark[5] :]
        header = ", ".join(
            f"%{s.name}: {s.type}"
            + (
                ""
                if s.decl is None
                else f" {{symshape.axes = #symshape.shape<[{', '.join(s.decl)}]>}}"
            )
            for s in args
        )
        rtypes = ", ".join(v.ty for v in self.results)
        body = [
            f"func.func @{self.fname}({header}) -> ({rtypes}) {{",
            *self.lines,
            f"  return {', '.join('%' + v.name for v in self.results)} : {rtypes}",
            "}",
        ]
        text = "\n".join(body + self.callees) + "\n"
        return Program(
            self.fname,
            text,
            args,
            [v.name for v in self.results],
            list(self.result_ops),
            list(self.ops),
            list(self.steps),
            self.exact,
            self.uses_bound,
            self.seed,
        )


def generate(seed: int, name: str, *, exact: bool = False, max_ops: int | None = None) -> Program:
    """The program of a seed.

    Args:
        seed: The seed.
        name: The function name.
        exact: The variant with every upper bound replaced by an exact extent.
        max_ops: Keep only the first ops (a prefix of the same program), to
            shrink a reproducer.
    """
    return _Builder(random.Random(seed), name, exact, seed, max_ops).build()


def make_inputs(
    program: Program, rng: random.Random, count: int
) -> list[tuple[Binding, list[np.ndarray]]]:
    """Random arguments for ``count`` calls (zero sizes, negative scalars, disagreeing axes)."""
    calls = []
    for k in range(count):

        def axis() -> int:
            return 0 if rng.random() < 0.15 else rng.randint(1, 5)

        b: Binding = {
            "a": axis(),
            "b": axis(),
            "c": axis(),
            "m": rng.randint(0, 4),
            "n0": rng.randint(-3, 7),
            "n1": rng.randint(-2, 4),
            "n2": rng.randint(-3, 6),
        }
        if k == 0:
            b.update(a=3, b=4, c=4, n0=2, n1=1, n2=1)  # a friendly call first
        if rng.random() < 0.5:
            b["c"] = b["b"]
        nprng = np.random.default_rng(rng.randrange(2**32))

        def data(*shape: int, nprng: np.random.Generator = nprng) -> np.ndarray:
            return nprng.integers(-4, 5, size=shape).astype(np.float32)

        inputs: list[np.ndarray] = []
        for spec in program.args:
            if spec.name == "x":
                inputs.append(data(b["a"], b["b"]))
            elif spec.name == "y":
                env = dict(b)
                decl = spec.decl or ("a", "c")
                shape = [int(eval(e, {}, env)) for e in decl]
                if spec.decl is not None and rng.random() < 0.15:
                    i = rng.randrange(2)
                    shape[i] += 1
                    b["perturbed"] = 1
                inputs.append(data(*shape))
            elif spec.name == "v":
                n = b["b"] if rng.random() < 0.9 else b["b"] + 1
                inputs.append(data(n))
            elif spec.name == "ids":
                inputs.append(nprng.integers(-2, 8, size=(b["m"], 1)).astype(np.int64))
            elif spec.name == "n1":
                inputs.append(np.array(b["n1"], np.int32))
            else:
                inputs.append(np.array(b[spec.name], np.int64))
        calls.append((b, inputs))
    return calls
