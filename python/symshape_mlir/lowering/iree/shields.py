"""Every IREE workaround of the compiler, in one ordered table.

Each :class:`Shield` names where it acts (its phase), the IREE version and
the symptom, the upstream-only reproducers in
``test/py/test_iree_known_bugs.py`` that show the fault is still there, the
soundness-fuzzer findings it closed, and whether it is a bug workaround or a
semantic rewrite. ``symshape-resolve{target=iree}`` runs the entries of its
three phases in table order (:func:`apply_shields`); the entries of the
other phases name workarounds that live where they act (the frontend, the
ONNX importer, the index arithmetic of lowering, a pass, the backend, the
runtime), by dotted path.

A reproducer is a strict ``xfail``: when an IREE upgrade fixes its fault
it passes, fails as XPASS, and names the entry to delete (or, for a
reproducer in ``constraints``, the simpler form the entry may then take).
``test/py/test_iree_shield_table.py`` checks that every named reproducer
exists and is a strict ``xfail``, and that every reproducer is named.

What one entry does, ``static_casts`` before lowering:

.. code-block:: mlir

    %c = tensor.cast %t : tensor<?xf32> to tensor<3xf32>
    // becomes
    %d = tensor.dim %t, %c0 : tensor<?xf32>
    %b = "util.optimization_barrier"(%t) : (tensor<?xf32>) -> tensor<?xf32>
    %s = "flow.tensor.tie_shape"(%b, %d) : (tensor<?xf32>, index) -> tensor<?xf32>
    %c = tensor.cast %s : tensor<?xf32> to tensor<3xf32>
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from mlir import ir

from symshape_mlir.inference.state import InferenceState
from symshape_mlir.lowering.iree.branches import tie_branch_results
from symshape_mlir.lowering.iree.broadcasts import shield_unit_broadcasts
from symshape_mlir.lowering.iree.calls import shield_empty_call_operands
from symshape_mlir.lowering.iree.captures import shield_captured_tensors, shield_loop_inits
from symshape_mlir.lowering.iree.casts import shield_static_casts
from symshape_mlir.lowering.iree.contractions import separate_contraction_transposes
from symshape_mlir.lowering.iree.elementwise import merge_equal_elementwise
from symshape_mlir.lowering.iree.hints import insert_upper_bound_hints
from symshape_mlir.lowering.iree.reductions import reduce_untransposed, shield_empty_reductions
from symshape_mlir.lowering.iree.reshapes import shield_reshape_sizes, shield_reshape_sources
from symshape_mlir.lowering.iree.slices import (
    shield_cast_sizes,
    shield_empty_slice_offsets,
    shield_gathered_sources,
    shield_insertions,
    shield_read_offsets,
    shield_reads_of_nothing,
    shield_slices_of_fills,
)
from symshape_mlir.lowering.iree.softmax import softmax_rows

__all__ = ["RESOLVE_PHASES", "SHIELDS", "Phase", "Shield", "ShieldInputs", "apply_shields"]

#: Where a shield acts. ``symshape-resolve{target=iree}`` runs the first
#: three, per function: ``before-lowering`` on symbolic IR (after the entry
#: checks), ``after-lowering`` on the function's upstream IR,
#: ``after-all-functions`` once every function is lowered. ``lowering`` is
#: the index arithmetic of every target; ``relayout-convolutions`` the pass
#: of that name.
Phase = Literal["before-lowering", "after-lowering", "after-all-functions", "frontend",
                "onnx-import", "lowering", "relayout-convolutions", "backend", "runtime"]
RESOLVE_PHASES: tuple[Phase, ...] = ("before-lowering", "after-lowering", "after-all-functions")

#: ``workaround``: IREE miscompiles or rejects the plain form; delete the
#: entry once its reproducers pass. ``semantic``: an equivalent form or
#: setting chosen for what IREE can know or does by default, with no fault
#: to outlive.
Kind = Literal["workaround", "semantic"]

_KNOWN_BUGS = "test/py/test_iree_known_bugs.py::"


def _bugs(*names: str) -> tuple[str, ...]:
    """Pytest node ids of reproducers in ``test_iree_known_bugs.py``."""
    return tuple(_KNOWN_BUGS + name for name in names)


@dataclass(frozen=True)
class ShieldInputs:
    """What the shields of one function may read."""

    #: The module's inference.
    facts: InferenceState
    #: The function's ops with a requirement inference could not prove.
    unproven: set[ir.Operation]


@dataclass(frozen=True)
class Shield:
    """One IREE workaround: what it fixes, and what proves it is still needed."""

    #: A short unique name.
    name: str
    phase: Phase
    kind: Kind
    #: The IREE release the symptom was seen in.
    iree: str
    #: What IREE does to the plain form.
    symptom: str
    #: Dotted paths of the functions (or constants) that make the shielded form.
    where: tuple[str, ...]
    #: Node ids of the strict-xfail upstream-only reproducers of ``symptom``;
    #: empty where there is none.
    reproducers: tuple[str, ...] = ()
    #: Node ids of reproducers of IREE faults that a simpler form of the
    #: shield would run into (why it is not simpler).
    constraints: tuple[str, ...] = ()
    #: Soundness-fuzzer programs (``test/fuzz/soundness.py``) the shield closed.
    findings: tuple[str, ...] = ()
    #: How ``symshape-resolve`` runs it on one function; only in its phases.
    apply: Callable[[ir.Operation, ShieldInputs], object] | None = None

    def __post_init__(self) -> None:
        if (self.phase in RESOLVE_PHASES) != (self.apply is not None):
            raise ValueError(f"shield '{self.name}': symshape-resolve runs exactly the "
                             f"shields of its phases ({', '.join(RESOLVE_PHASES)})")


_IREE = "symshape_mlir.lowering.iree."

SHIELDS: tuple[Shield, ...] = (
    # -- before lowering: symbolic IR, with inference's facts --------------------
    Shield(
        name="upper_bound_hints", phase="before-lowering", kind="semantic", iree="3.13",
        symptom="IREE cannot know a constant upper bound of a dynamic size: after an op "
                "whose result has one, the size is hinted with util.assume.int and the "
                "result tied to it (flow.tensor.tie_shape)",
        where=(_IREE + "hints.insert_upper_bound_hints",),
        apply=lambda func, inputs: insert_upper_bound_hints(func, inputs.facts),
    ),
    Shield(
        name="static_casts", phase="before-lowering", kind="semantic", iree="3.13",
        symptom="IREE reads a cast to a static size as a promise and folds tensor.dim of "
                "its source to that size, which makes the run-time check of the promise "
                "3 == 3: the cast reads its source through a barrier",
        where=(_IREE + "casts.shield_static_casts",),
        apply=lambda func, inputs: shield_static_casts(func, inputs.unproven),
    ),
    Shield(
        name="loop_inits", phase="before-lowering", kind="workaround", iree="3.13",
        symptom="a loop start and another result of one dispatch group get one buffer "
                "(the loop returns the other result's elements); a body dispatch given one "
                "size twice renumbers the duplicate as workload 0 (FoldUniformOperands) "
                "and runs on no workgroup",
        where=(_IREE + "captures.shield_loop_inits",),
        reproducers=_bugs("test_loop_start_shares_a_buffer", "test_loop_over_offset_slice"),
        findings=("p94001864",),
        apply=lambda func, inputs: shield_loop_inits(func, inputs.facts),
    ),
    Shield(
        name="empty_reductions", phase="before-lowering", kind="workaround", iree="3.13",
        symptom="iree-compile dies on a linalg op over an axis of extent 0: naming its "
                "dispatch divides by the loop range (AnnotateDispatches saturatingMul), or "
                "getDefaultDistributedLevelTileSizes crashes; the op's uses get its inits",
        where=(_IREE + "reductions.shield_empty_reductions",),
        reproducers=_bugs("test_matmul_over_no_columns"),
        findings=("p103006310", "p105002233", "p106005574", "p106004937"),
        apply=lambda func, inputs: shield_empty_reductions(func, inputs.facts),
    ),
    # -- after lowering: the function's upstream IR --------------------------------
    Shield(
        name="branch_results", phase="after-lowering", kind="workaround", iree="3.13",
        symptom="a select between dynamic tensors is sized from one operand; a branch "
                "folded into a select of stream resources fails partitioning ('circular "
                "dependency'); two results of a branch yielding one tensor get one buffer; "
                "a returned choice read by a second one is exported in a buffer sized by "
                "its empty branch (OUT_OF_RANGE)",
        where=(_IREE + "branches.tie_branch_results",),
        reproducers=_bugs("test_select_of_dynamic_tensors", "test_branch_folded_into_a_partition",
                          "test_one_tensor_for_two_results"),
        constraints=_bugs("test_branches_of_branches_behind_barriers"),
        findings=("p94001663", "p94006395", "p94004591", "p95000739", "p95000866", "p95001362",
                  "p95000238", "p96000387", "p96000242", "p99002919", "p99003524", "p104004389"),
        apply=lambda func, _: tie_branch_results(func),
    ),
    Shield(
        name="captured_tensors", phase="after-lowering", kind="workaround", iree="3.13",
        symptom="a fill made a stream.async.splat and read before, in and after a loop is "
                "cloned into the partitions around the loop and left outside any execution "
                "region for its body",
        where=(_IREE + "captures.shield_captured_tensors",),
        reproducers=_bugs("test_splat_around_a_loop"),
        findings=("p94005669",),
        apply=lambda func, _: shield_captured_tensors(func),
    ),
    Shield(
        name="slices_of_fills", phase="after-lowering", kind="workaround", iree="3.13",
        symptom="a fill and its slice at an offset read from a tensor share a dispatch "
                "that leaves the slice's copy undistributed ('write affecting operations "
                "on global resources are restricted to workgroup distributed contexts')",
        where=(_IREE + "slices.shield_slices_of_fills",),
        reproducers=_bugs("test_window_of_ones"),
        findings=("p95000677",),
        apply=lambda func, _: shield_slices_of_fills(func),
    ),
    Shield(
        name="folded_empty_reductions", phase="after-lowering", kind="workaround",
        iree="3.13",
        symptom="the crashes of empty_reductions, on sizes that fold to 0 only once "
                "lowered (index arithmetic on constants, sizes hinted by util.assume.int)",
        where=(_IREE + "reductions.shield_empty_reductions",),
        reproducers=_bugs("test_sum_over_a_folded_zero"),
        findings=("p95000891", "p103001420"),
        apply=lambda func, _: shield_empty_reductions(func, None),
    ),
    Shield(
        name="reductions_of_transposes", phase="after-lowering", kind="workaround",
        iree="3.13",
        symptom="a transpose (of a broadcast) fused into the dispatch of its reduction as a "
                "second result that another dispatch computes is left dead and bufferized "
                "on the stack at 2^53 - 1 along the reduced axis ('exceeded stack "
                "allocation limit'); the reduction reads the transpose's source",
        where=(_IREE + "reductions.reduce_untransposed",),
        reproducers=_bugs("test_reduction_of_a_returned_transpose"),
        findings=("p142003437",),
        apply=lambda func, _: reduce_untransposed(func),
    ),
    Shield(
        name="empty_slice_offsets", phase="after-lowering", kind="workaround", iree="3.13",
        symptom="an empty slice at the end of an axis, or one IREE composes with the "
                "slice it reads, is rejected once its offset folds to a constant "
                "('offset 0 is out-of-bounds: 2 >= 2')",
        where=(_IREE + "slices.shield_empty_slice_offsets",),
        reproducers=_bugs("test_empty_slice_at_end", "test_empty_slice_of_a_slice"),
        findings=("p99004092",),
        apply=lambda func, _: shield_empty_slice_offsets(func),
    ),
    Shield(
        name="read_offsets", phase="after-lowering", kind="workaround", iree="3.13",
        symptom="slice offsets read from a tensor are cloned into the consumer's dispatch, "
                "whose dimension collapsing folds the slices' axes as if contiguous "
                "('write affecting operations on global resources')",
        where=(_IREE + "slices.shield_read_offsets",),
        reproducers=_bugs("test_slices_at_a_read_offset"),
        findings=("p99002305", "p99004207", "p100006215", "p100008911"),
        apply=lambda func, _: shield_read_offsets(func),
    ),
    Shield(
        name="cast_sizes", phase="after-lowering", kind="workaround", iree="3.13",
        symptom="slices of two matrices at a width cast to index, summed with one of the "
                "matrices, are collapsed to one axis with the sums as if both were whole "
                "rows; the other slice's copy is left undistributed ('write affecting "
                "operations on global resources')",
        where=(_IREE + "slices.shield_cast_sizes",),
        reproducers=_bugs("test_slices_of_a_cast_width"),
        findings=("p172001639",),
        apply=lambda func, _: shield_cast_sizes(func),
    ),
    Shield(
        name="insertions", phase="after-lowering", kind="workaround", iree="3.13",
        symptom="an insertion's destination is updated in place although a loop also "
                "starts from it (the insertion returns zeros)",
        where=(_IREE + "slices.shield_insertions",),
        reproducers=_bugs("test_insert_beside_loop"),
        constraints=_bugs("test_two_insertions_behind_barriers"),
        apply=lambda func, _: shield_insertions(func),
    ),
    # After ops over nothing give their (empty) inits and insertions read
    # their sources element by element.
    Shield(
        name="reads_of_nothing", phase="after-lowering", kind="workaround", iree="3.13",
        symptom="a slice or an element read of a tensor with an axis of extent 0 is "
                "rejected once its offset folds ('offset 1 is out-of-bounds: 0 >= 0'); "
                "a tensor.empty read element by element (also one that replaced a slice "
                "of nothing) gets a stack allocation that overflows 64 bits or, at a "
                "run-time extent, is rejected ('expected no unbounded stack allocations')",
        where=(_IREE + "slices.shield_reads_of_nothing",),
        reproducers=_bugs("test_slice_of_no_columns", "test_read_of_nothing",
                          "test_spread_of_an_empty_vector"),
        findings=("p94006149", "p99007661", "p106004376", "p106007267", "p181001695"),
        apply=lambda func, _: shield_reads_of_nothing(func),
    ),
    Shield(
        name="gathered_sources", phase="after-lowering", kind="workaround", iree="3.13",
        symptom="a gather fused with a slice at a run-time offset fails to compile; fused "
                "with a column slice it reads the column's first element for every index; "
                "a computed tensor a gather reads and the function returns comes back "
                "unwritten at 0 rows",
        where=(_IREE + "slices.shield_gathered_sources",),
        reproducers=_bugs("test_gather_from_offset_slice", "test_gather_from_column",
                          "test_sum_gathered_and_returned"),
        findings=("p105004732", "p107007316"),
        apply=lambda func, _: shield_gathered_sources(func),
    ),
    Shield(
        name="unit_broadcasts", phase="after-lowering", kind="workaround", iree="3.13",
        symptom="a spread over a 1 x 1 result loses its unit loops (FoldUnitExtentDims) and "
                "BubbleUpExpandShapes makes a slice that fails to verify ('expected rank "
                "to be smaller or equal to the other rank')",
        where=(_IREE + "broadcasts.shield_unit_broadcasts",),
        reproducers=_bugs("test_one_element_spread"),
        findings=("p94003621", "p105003021"),
        apply=lambda func, inputs: shield_unit_broadcasts(func, inputs.facts),
    ),
    Shield(
        name="reshape_sizes", phase="after-lowering", kind="workaround", iree="3.13",
        symptom="run-time reshape target sizes are re-derived as if no size could be 0 "
                "(0 x 4 reshaped to [0, 0] comes back 0 x 4)",
        where=(_IREE + "reshapes.shield_reshape_sizes",),
        reproducers=_bugs("test_reshape_to_square_of_nothing"),
        constraints=_bugs("test_loop_result_reshaped_behind_a_barrier"),
        findings=("p99001512",),
        apply=lambda func, _: shield_reshape_sizes(func),
    ),
    Shield(
        name="reshape_sources", phase="after-lowering", kind="workaround", iree="3.13",
        symptom="partitions around a loop, branch or barrier result that a reshape at "
                "run-time sizes reads, and other ops read too, cannot be ordered ('failed "
                "to schedule execution partitions without cyclic dependencies')",
        where=(_IREE + "reshapes.shield_reshape_sources",),
        reproducers=_bugs("test_choice_flattened_and_sliced"),
        findings=("p102000504", "p103001552"),
        apply=lambda func, _: shield_reshape_sources(func),
    ),
    Shield(
        name="empty_call_operands", phase="after-lowering", kind="workaround",
        iree="3.13",
        symptom="the crashes of empty_reductions, on an extent 0 of a call operand that "
                "IREE carries into the callee once it inlines it (a reduction of a callee's "
                "sum with a tensor of no rows): the operand reaches the call behind a barrier",
        where=(_IREE + "calls.shield_empty_call_operands",),
        reproducers=_bugs("test_reduction_of_a_call_on_nothing"),
        findings=("p172004849",),
        apply=lambda func, inputs: shield_empty_call_operands(func, inputs.facts),
    ),
    Shield(
        name="contraction_transposes", phase="after-lowering", kind="semantic",
        iree="3.13",
        symptom="a transpose of a contraction's result is fused into the contraction as "
                "a permuted output map, and the CPU kernel runs at a fraction of its "
                "speed (attention's head merge after P.V, BERT-base 4 x 384: 29 ms "
                "against 16 ms, one thread): a barrier keeps the transpose out of contractions "
                "of 2^20 multiply-adds or more",
        where=(_IREE + "contractions.separate_contraction_transposes",),
        apply=lambda func, _: separate_contraction_transposes(func),
    ),
    Shield(
        name="softmax_rows", phase="after-lowering", kind="semantic", iree="3.13",
        symptom="a softmax over the last axis, raised to linalg.softmax on the tensor's own "
                "axes, is split along each leading axis by a divisor of its extent: one row "
                "per workgroup where an extent is prime (wav2vec2's attention, 4x4x199x199: "
                "1.78 ms against 1.1 ms over 3,184 rows, one thread), and its exponentials "
                "are computed twice: the softmax runs over the rows, a static one of at most "
                "8 MiB with its exponentials written once (rows of 99: 0.25 -> 0.16 ms), any "
                "other as one linalg.softmax",
        where=(_IREE + "softmax.softmax_rows",),
        apply=lambda func, _: softmax_rows(func),
    ),
    # -- after all functions: a call is keyed by its lowered callee ----------------
    Shield(
        name="equal_elementwise", phase="after-all-functions", kind="workaround",
        iree="3.13",
        symptom="equal elementwise results fused into one dispatch: the duplicate's uses "
                "get the region's first result (dropUnusedAndRedundantDispatchRegionResults)",
        where=(_IREE + "elementwise.merge_equal_elementwise",),
        reproducers=_bugs("test_sums_beside_their_operand"),
        apply=lambda func, _: merge_equal_elementwise(func),
    ),
    # -- elsewhere: run where they act ---------------------------------------------
    Shield(
        name="channels_last", phase="relayout-convolutions", kind="semantic", iree="3.13",
        symptom="NCHW (and NCW) convolutions are vectorized along the output width, "
                "strided gathers above stride 1 (resnet's 3x3 stride-2 convolutions at 15 "
                "GFLOP/s against 90 channels-last)",
        where=(_IREE + "layouts.convolutions_channels_last",),
    ),
    Shield(
        name="convolution_widths", phase="relayout-convolutions", kind="semantic", iree="3.13",
        symptom="a static channels-last convolution's output columns past the last multiple "
                "of 8 are computed element by element (unet's 3x33x47x8 one: 810 us against "
                "177 us at width 48): a remainder of 4 or more is computed as a whole tile "
                "and sliced off",
        where=(_IREE + "widths.pad_convolution_widths",),
    ),
    Shield(
        name="convolution_patches", phase="relayout-convolutions", kind="semantic",
        iree="3.13",
        symptom="a channels-last convolution with a dynamic output height or width is "
                "computed nearly element by element (resnet's stem at 2x96x80: 3.0 ms "
                "against 115 us static), and so is one over a single input channel, static "
                "too (wav2vec2's first, 4x4000 samples: 406 us against 33): its windows are "
                "copied out and multiplied by the kernel as one matrix product; a dynamic "
                "depthwise one is a sum of strided slices times the kernel's rows",
        where=(_IREE + "patches.convolutions_as_matmuls", _IREE + "patches.depthwise_as_taps"),
    ),
    Shield(
        name="unsigned_scalars", phase="frontend", kind="workaround", iree="3.13",
        symptom="no 0-d unsigned input or result compiles: such inputs are refused, such "
                "results widened to a signed type",
        where=("symshape_mlir.frontend.tracing._argument",
               "symshape_mlir.frontend.tracing._returned"),
    ),
    Shield(
        name="bool_constants", phase="frontend", kind="workaround", iree="3.13",
        symptom="i1 hex data is read as one byte per element while MLIR prints packed bits "
                "('elements hex data size is invalid'): large boolean constants are i32 "
                "compared with zero",
        where=("symshape_mlir.frontend.ops.constants.BOOL_LIST_LIMIT",),
    ),
    Shield(
        name="f64_math", phase="frontend", kind="workaround", iree="3.13",
        symptom="llvm-cpu cannot compile sin, cos, tanh and erf of f64 (no lowering, or no "
                "libm to link): computed in f32",
        where=("symshape_mlir.frontend.ops.unary._F32_ONLY",),
    ),
    Shield(
        name="f64_fmod", phase="frontend", kind="workaround", iree="3.13",
        symptom="llvm-cpu cannot link fmod for f64: a - trunc(a / b) * b",
        where=("symshape_mlir.frontend.ops.elementwise._fmod",
               "symshape_mlir.onnx.ops.elementwise.mod"),
    ),
    Shield(
        name="chained_scatters", phase="frontend", kind="workaround", iree="3.13",
        symptom="reductions chained through their inits are not distributed ('write "
                "affecting operations on global resources are restricted to workgroup "
                "distributed contexts', torchvision swin_t): a scatter reduces from its "
                "own fill",
        where=("symshape_mlir.frontend.ops.scatter._scatter",),
    ),
    Shield(
        name="f16_normalizations", phase="onnx-import", kind="workaround", iree="3.13",
        symptom="the CPU backend fails to link a fused f16 softmax for want of fmaxf: "
                "softmax and the normalizations compute in f32",
        where=("symshape_mlir.onnx.ops.nn._wide",),
    ),
    Shield(
        name="narrow_index_casts", phase="lowering", kind="workaround", iree="3.13",
        symptom="i8 and i16 values cast to index are zero-extended (-3 : i8 becomes 253): "
                "they are clamped in i64 first",
        where=("symshape_mlir.lowering.index_builder.IndexBuilder.scalar_at",),
    ),
    Shield(
        name="checked_multiply", phase="lowering", kind="workaround", iree="3.13",
        symptom="no extended multiply on the host: a product is exact iff "
                "product / lhs == rhs",
        where=("symshape_mlir.lowering.index_builder.IndexBuilder._mul_overflows",),
    ),
    Shield(
        name="f64_stays_f64", phase="backend", kind="semantic", iree="3.13",
        symptom="llvm-cpu demotes f64 to f32 by default and changes the function's "
                "signature: --iree-input-demote-f64-to-f32=false",
        where=("symshape_mlir.backend.targets.TARGETS",),
    ),
    Shield(
        name="cuda_arch", phase="backend", kind="workaround", iree="3.13",
        symptom="sm_90, sm_90a and sm_100 fail to compile: cuda defaults to sm_89 PTX",
        where=("symshape_mlir.backend.targets.TARGETS",),
    ),
    Shield(
        name="activation_contractions", phase="runtime", kind="workaround", iree="3.13",
        symptom="dynamic contractions of two activations (attention's scores) fail to "
                "compile with data tiling ('affine.delinearize_index ... statically "
                "non-positive'): such modules, or any that fails with it, compile without",
        where=("symshape_mlir.runtime.executable._contracts_activations",
               "symshape_mlir.runtime.executable.Executable._compile_text"),
    ),
)


def apply_shields(phase: Phase, func: ir.Operation, inputs: ShieldInputs) -> None:
    """Runs the shields of ``phase`` on ``func``, in table order.

    Args:
        phase: one of :data:`RESOLVE_PHASES`.
        func: the ``func.func`` to shield.
        inputs: what the shields may read.
    """
    for shield in SHIELDS:
        if shield.phase == phase and shield.apply is not None:
            shield.apply(func, inputs)
