"""Randomized programs mixing truncation, reshape and broadcast against the contract.

Each program is generated together with a concrete model of its shapes. It
runs through ``symshape-infer-shapes``, ``symshape-verify-contract`` (reject,
with unprovable equations rejected too: ``unproven=reject``) and
``symshape-check-guarantees``:

* accepted programs never violate a reshape (element count) or broadcast
  (each input axis is 1 or its target) equation on random concrete inputs;
* rejected programs are rejected at an op whose equation is at stake, and
  the message names that op and a field of it.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest
from mlir import ir

import symshape_mlir
from symshape_mlir.passes import run_pipeline
from symshape_mlir.pipeline import PipelineError

PIPELINE = (
    "builtin.module(symshape-infer-shapes,symshape-verify-contract{unproven=reject},"
    "symshape-check-guarantees)"
)
PROGRAMS = 240
INPUTS_PER_PROGRAM = 40

Shape = tuple[int, ...]
Env = dict[str, int]


@dataclass
class Step:
    """One generated op: its text, name, fields, and its concrete semantics."""

    line: int
    op_name: str
    fields: tuple[str, ...]
    #: Concrete output shape from the input shapes and the scalars; raises
    #: AssertionError when the op's equation is violated.
    run: Callable[[list[Shape], Env], Shape]


@dataclass
class Program:
    text: str
    steps: list[Step] = field(default_factory=list)


def _ty(rank: int) -> str:
    return "tensor<" + "x".join(["?"] * rank) + ("x" if rank else "") + "f32>"


def generate(rng: random.Random) -> Program:
    """A random program over x: [a, b] and scalars n0, n1."""
    lines = [
        "func.func @f(%x: tensor<?x?xf32> {symshape.axes = #symshape.shape<[a, b]>},",
        "             %n0: tensor<i64>, %n1: tensor<i64>) {",
    ]
    steps: list[Step] = []
    current, rank = "%x", 2
    values: dict[str, int] = {"%x": 0}  # SSA name -> index into the shapes list

    for count in range(1, rng.randint(1, 4) + 1):
        name = f"%v{count}"
        line = len(lines) + 1
        src = values[current]
        choice = rng.choice(["truncate", "reshape", "broadcast"])
        if choice == "truncate":
            axis = rng.randrange(rank)
            scalar = rng.choice(["%n0", "%n1"])
            stage = rng.choice(["", " stage exact", " stage upper_bound"])
            lines.append(f"  {name} = symshape.dynamic_truncate {current}, {scalar} axis {axis}"
                         f"{stage} : ({_ty(rank)}, tensor<i64>) -> {_ty(rank)}")

            def run(shapes: list[Shape], env: Env, src: int = src, axis: int = axis,
                    scalar: str = scalar) -> Shape:
                shape = list(shapes[src])
                shape[axis] = min(max(env[scalar.lstrip("%")], 0), shape[axis])
                return tuple(shape)

            steps.append(Step(line, "symshape.dynamic_truncate", (), run))
        elif choice == "reshape":
            form = rng.choice(["flatten", "split", "like_x"] if rank == 2 else
                              ["flatten", "split"] if rank > 2 else ["split", "like_x"])
            if form == "flatten":
                target = " * ".join(f"dim(0, {i})" for i in range(rank))
                targets, operands, new_rank = [target], current, 1
            elif form == "split":
                new_rank = rank + 1
                targets = [f"dim(0, {i})" for i in range(rank - 1)]
                targets += [f"dim(0, {rank - 1}) floordiv 2", "2"]
                operands = current
            else:
                targets, operands, new_rank = ["dim(1, 0)", "dim(1, 1)"], f"{current}, %x", 2
            types = f"({_ty(rank)}{', ' + _ty(2) if form == 'like_x' else ''})"
            lines.append(f"  {name} = symshape.reshape {operands} to [{', '.join(targets)}]"
                         f" : {types} -> {_ty(new_rank)}")

            def run(shapes: list[Shape], env: Env, src: int = src, form: str = form) -> Shape:
                shape = shapes[src]
                if form == "flatten":
                    out: Shape = (_prod(shape),)
                elif form == "split":
                    out = (*shape[:-1], shape[-1] // 2, 2)
                else:
                    out = shapes[0]
                assert _prod(out) == _prod(shape), "reshape changes the element count"
                return out

            steps.append(Step(line, "symshape.reshape",
                              ("reshape target extent", "element count"), run))
            rank = new_rank
        else:
            form = rng.choice(["new_axis", "like_x"] if rank == 2 else ["new_axis"])
            if form == "new_axis":
                dims = ", ".join(str(i + 1) for i in range(rank))
                targets = ["3"] + [f"dim(0, {i})" for i in range(rank)]
                lines.append(f"  {name} = symshape.broadcast_in_dim {current} dims [{dims}] to "
                             f"[{', '.join(targets)}] : ({_ty(rank)}) -> {_ty(rank + 1)}")
                new_rank = rank + 1
            else:
                lines.append(f"  {name} = symshape.broadcast_in_dim {current}, %x dims [0, 1] to "
                             f"[dim(1, 0), dim(1, 1)] : ({_ty(2)}, {_ty(2)}) -> {_ty(2)}")
                new_rank = 2

            def run(shapes: list[Shape], env: Env, src: int = src, form: str = form) -> Shape:
                shape = shapes[src]
                target = (3, *shape) if form == "new_axis" else shapes[0]
                mapped = target[1:] if form == "new_axis" else target
                for have, want in zip(shape, mapped):
                    assert have in (1, want), "broadcast input axis is neither 1 nor the target"
                return target

            steps.append(Step(line, "symshape.broadcast_in_dim",
                              ("broadcast_in_dim target extent", "input axis"), run))
            rank = new_rank
        values[name] = len(values)
        current = name
    lines += ["  return", "}"]
    return Program("\n".join(lines) + "\n", steps)


def _prod(shape: Shape) -> int:
    result = 1
    for d in shape:
        result *= d
    return result


def _violation(program: Program, env: Env) -> Step | None:
    """The first step whose equation fails on these inputs, if any."""
    shapes: list[Shape] = [(env["a"], env["b"])]
    for step in program.steps:
        try:
            shapes.append(step.run(shapes, env))
        except AssertionError:
            return step
    return None


def _random_env(rng: random.Random) -> Env:
    return {"a": rng.randint(0, 7), "b": rng.randint(0, 7),
            "n0": rng.randint(-2, 8), "n1": rng.randint(-2, 8)}


@pytest.mark.parametrize("seed", range(PROGRAMS), ids=lambda s: f"seed{s}")
def test_contract_on_random_program(seed: int) -> None:
    """Accepted programs never break an equation; rejections name the right op and field."""
    rng = random.Random(seed)
    program = generate(rng)
    with symshape_mlir.new_context():
        module = ir.Module.parse(program.text)
        try:
            run_pipeline(module, PIPELINE)
            rejected = None
        except PipelineError as error:
            rejected = error
    if rejected is None:
        for _ in range(INPUTS_PER_PROGRAM):
            env = _random_env(rng)
            step = _violation(program, env)
            assert step is None, (
                f"accepted program violates {step.op_name} at line {step.line} with {env}:\n"
                f"{program.text}")
        return
    by_line = {step.line: step for step in program.steps}
    for diagnostic in rejected.errors:
        assert diagnostic.location is not None, str(rejected)
        step = by_line.get(diagnostic.location.line)
        assert step is not None, f"error not at a generated op: {rejected}\n{program.text}"
        assert step.fields, f"{step.op_name} needs no exact extent: {rejected}"
        assert f"'{step.op_name}' op" in diagnostic.message, str(rejected)
        assert any(f in diagnostic.message for f in step.fields), str(rejected)


def test_generator_covers_both_outcomes() -> None:
    """The generated programs include accepted and rejected ones."""
    outcomes = set()
    for seed in range(60):
        program = generate(random.Random(seed))
        with symshape_mlir.new_context():
            module = ir.Module.parse(program.text)
            try:
                run_pipeline(module, PIPELINE)
                outcomes.add("accepted")
            except PipelineError:
                outcomes.add("rejected")
    assert outcomes == {"accepted", "rejected"}
