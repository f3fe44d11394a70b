//===- SymshapeOps.td - symshape operations -----------------*- tablegen -*-===//

#ifndef SYMSHAPE_OPS_TD
#define SYMSHAPE_OPS_TD

include "symshape/SymshapeAttrs.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/BuiltinTypes.td"

class Symshape_Op<string mnemonic, list<Trait> traits = []>
    : Op<Symshape_Dialect, mnemonic, traits>;

def Symshape_IntScalarTensor : TypeConstraint<
    CPred<"::mlir::symshape::isIntegerScalarTensor($_self)">,
    "0-d tensor of integer or index", "::mlir::RankedTensorType">;

//===----------------------------------------------------------------------===//
// Extent ops
//===----------------------------------------------------------------------===//

def Symshape_ConstOp : Symshape_Op<"const", [Pure, ConstantLike]> {
  let summary = "A constant extent";
  let description = [{
    ```mlir
    %c = symshape.const 512
    ```
    Intermediate extents may be negative; an extent used as a size must be
    non-negative.
  }];
  let arguments = (ins I64Attr:$value);
  let results = (outs Symshape_ExtentType:$result);
  let assemblyFormat = "custom<Int64>($value) attr-dict";
  let hasFolder = 1;
}

def Symshape_DimOp : Symshape_Op<"dim", [Pure]> {
  let summary = "The exact runtime size of a tensor axis";
  let description = [{
    ```mlir
    %b = symshape.dim %x, 0 : tensor<?x512xf32>
    ```
    Folds to a constant when the axis is static.
  }];
  let arguments = (ins AnyRankedTensor:$source, I64Attr:$axis);
  let results = (outs Symshape_ExtentType:$result);
  let assemblyFormat = "$source `,` $axis attr-dict `:` type($source)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Symshape_RuntimeScalarOp : Symshape_Op<"runtime_scalar", [Pure]> {
  let summary = "An extent read from a 0-d integer tensor";
  let description = [{
    Converting a scalar to a size is never a plain cast: the semantics is
    part of the op. `index` takes the value as it is (a negative value used
    as a size is a runtime error), `clamp_nonneg` and `truncate_size` clamp
    negative values to 0.

    ```mlir
    %n = symshape.runtime_scalar %count truncate_size : tensor<i64>
    ```
  }];
  let arguments = (ins Symshape_IntScalarTensor:$scalar,
                       Symshape_ScalarSemanticsAttr:$semantics);
  let results = (outs Symshape_ExtentType:$result);
  let assemblyFormat = "$scalar `` $semantics attr-dict `:` type($scalar)";
}

class Symshape_BinaryOp<string mnemonic, string sym, list<Trait> traits = []>
    : Symshape_Op<mnemonic, !listconcat([Pure], traits)> {
  let summary = "Extent `" # sym # "`";
  let description = [{
    Integer arithmetic on extents (floor division, remainder with the sign of
    the divisor). Folds when both operands are constant.

    ```mlir
    %r = symshape.}] # mnemonic # [{ %a, %b
    ```
  }];
  let arguments = (ins Symshape_ExtentType:$lhs, Symshape_ExtentType:$rhs);
  let results = (outs Symshape_ExtentType:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict";
  let hasFolder = 1;
}

def Symshape_AddOp : Symshape_BinaryOp<"add", "+", [Commutative]>;
def Symshape_SubOp : Symshape_BinaryOp<"sub", "-">;
def Symshape_MulOp : Symshape_BinaryOp<"mul", "*", [Commutative]>;
def Symshape_FloorDivOp : Symshape_BinaryOp<"floordiv", "floordiv">;
def Symshape_CeilDivOp : Symshape_BinaryOp<"ceildiv", "ceildiv">;
def Symshape_ModOp : Symshape_BinaryOp<"mod", "mod">;
def Symshape_MinOp : Symshape_BinaryOp<"min", "min", [Commutative]>;
def Symshape_MaxOp : Symshape_BinaryOp<"max", "max", [Commutative]>;

def Symshape_ToIndexOp : Symshape_Op<"to_index", [Pure]> {
  let summary = "Uses an extent as an `index` value";
  let description = [{
    ```mlir
    %i = symshape.to_index %n
    %e = tensor.empty(%i) : tensor<?xf32>
    ```
  }];
  let arguments = (ins Symshape_ExtentType:$extent);
  let results = (outs Index:$result);
  let assemblyFormat = "$extent attr-dict";
  let hasFolder = 1;
}

def Symshape_FromIndexOp : Symshape_Op<"from_index", [Pure]> {
  let summary = "Treats an `index` value as an extent";
  let description = [{
    ```mlir
    %n = symshape.from_index %i
    ```
  }];
  let arguments = (ins Index:$value);
  let results = (outs Symshape_ExtentType:$result);
  let assemblyFormat = "$value attr-dict";
  let hasFolder = 1;
}

def Symshape_BoundOp : Symshape_Op<"bound", [Pure]> {
  let summary = "Materializes an upper bound of a tensor axis";
  let description = [{
    The result is the bound of the axis size that inference knows (`b` for
    an axis `ub(b)`, or its exact size), exactly: a tensor allocated with it
    has exact extents, and an axis known only as `ub(b)` provably fits in
    it. It is not the axis size itself: where the arguments do not give the
    symbols of `b`, it is the size of the axis (a size known to be at most
    `b`).

    ```mlir
    %t = symshape.dynamic_truncate %x, %n axis 1 : ...  // [4, ub(seq)]
    %cap = symshape.bound %t, 1 : tensor<4x?xf32>      // exactly seq
    ```
  }];
  let arguments = (ins AnyRankedTensor:$source, I64Attr:$axis);
  let results = (outs Symshape_ExtentType:$result);
  let assemblyFormat = "$source `,` $axis attr-dict `:` type($source)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Shape-sensitive tensor ops
//===----------------------------------------------------------------------===//
//
// These ops implement ReifyRankedShapedTypeOpInterface (attached in
// SymshapeOps.cpp, not declared here: including InferTypeOpInterface.td
// would make ODS add InferTypeOpInterface to every op whose result type is
// buildable, changing the generated Python builders of the extent ops).

def Symshape_ReshapeOp : Symshape_Op<"reshape", [Pure]> {
  let summary = "Reshape to exact op-local target extents";
  let description = [{
    Reinterprets `input` (row-major) with the target extents. Leaves
    `dim(i, a)` / `scalar(i, s)` refer to the op's operands: `#0` is
    `input`, then the extra `shape_operands` (any ranked tensor for `dim`,
    a 0-d integer tensor for `scalar`). Every target extent must be
    exact; the element count must be preserved. The result sizes reify to
    the target extents, except those naming a symbol (`batch`), which the
    operands do not determine.

    ```mlir
    %r = symshape.reshape %x to [dim(0, 0) * dim(0, 1), 768]
        : (tensor<?x?x768xf32>) -> tensor<?x768xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input,
                       Variadic<AnyRankedTensor>:$shape_operands,
                       Symshape_ShapeAttr:$target);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input (`,` $shape_operands^)? `to` custom<ExtentList>($target) attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Symshape_BroadcastInDimOp : Symshape_Op<"broadcast_in_dim", [Pure]> {
  let summary = "Broadcast to exact op-local target extents";
  let description = [{
    Input axis `k` maps to result axis `dims[k]` and must have size 1 or the
    target size there; other result axes are new. Every target extent must
    be exact. The result sizes reify to the target extents, except those
    naming a symbol.

    ```mlir
    %b = symshape.broadcast_in_dim %bias dims [1] to [dim(1, 0), dim(0, 0)]
        : (tensor<512xf32>, tensor<?x512xf32>) -> tensor<?x512xf32>
    ```
    Here `dim(1, 0)` refers to a shape-only operand: extra ranked-tensor
    operands after `input` can be referenced by `dim` leaves.
  }];
  let arguments = (ins AnyRankedTensor:$input,
                       Variadic<AnyRankedTensor>:$shape_operands,
                       DenseI64ArrayAttr:$broadcast_dimensions,
                       Symshape_ShapeAttr:$target);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input (`,` $shape_operands^)? `dims` $broadcast_dimensions `to`
    custom<ExtentList>($target) attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Symshape_DynamicTruncateOp : Symshape_Op<"dynamic_truncate", [Pure]> {
  let summary = "Keeps the first `size` entries along an axis";
  let description = [{
    The result extent along `axis` is
    `min(scalar(1, truncate_size), dim(0, axis))`: a negative `size` keeps
    nothing, a size past the axis keeps everything. `stage` selects what
    shape inference may claim for that axis: `upper_bound` reports
    `ub(dim(0, axis))`, `exact` reports the min expression. Without
    `stage`, the inference pass option decides. Whatever the stage, the
    result sizes reify to the min expression and the input's other sizes.

    ```mlir
    %t = symshape.dynamic_truncate %x, %n axis 1 stage exact
        : (tensor<4x?xf32>, tensor<i64>) -> tensor<4x?xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, Symshape_IntScalarTensor:$size,
                       I64Attr:$axis,
                       OptionalAttr<Symshape_TruncateStageAttr>:$stage);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `,` $size `axis` $axis (`stage` `` $stage^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Symshape_GatherOp : Symshape_Op<"gather", [Pure]> {
  let summary = "Gather with op-local symbolic slice sizes";
  let description = [{
    For every index vector `indices[b..., :]` (last axis), the start of the
    slice along operand axis `start_index_map[k]` is `indices[b..., k]`,
    clamped to `[0, dim - slice_size]`. The result shape is
    `indices.shape[:-1] + [slice_sizes[a] for a not in collapsed_slice_dims]`.
    Collapsed axes need slice size 1. Slice sizes are exact op-local
    expressions (`dim(0, 1)`); `#0` is the operand, `#1` the indices, then
    the extra `shape_operands`. The result sizes reify to the indices' sizes
    and the kept slice sizes, except slice sizes naming a symbol.

    ```mlir
    %g = symshape.gather %table[%ids] start_index_map [0]
        collapsed_slice_dims [0] slice_sizes [1, dim(0, 1)]
        : (tensor<?x?xf32>, tensor<?x1xi64>) -> tensor<?x?xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$operand, AnyRankedTensor:$indices,
                       Variadic<AnyRankedTensor>:$shape_operands,
                       DenseI64ArrayAttr:$start_index_map,
                       DenseI64ArrayAttr:$collapsed_slice_dims,
                       Symshape_ShapeAttr:$slice_sizes);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $operand `[` $indices `]` (`,` $shape_operands^)? `start_index_map`
    $start_index_map `collapsed_slice_dims` $collapsed_slice_dims
    `slice_sizes` custom<ExtentList>($slice_sizes) attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

#endif // SYMSHAPE_OPS_TD
