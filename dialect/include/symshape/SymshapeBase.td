//===- SymshapeBase.td - symshape dialect definition --------*- tablegen -*-===//
//
// The symshape dialect: tensor extents as symbolic expressions tagged with a
// guarantee (exact, upper bound, unknown).
//
//===----------------------------------------------------------------------===//

#ifndef SYMSHAPE_BASE_TD
#define SYMSHAPE_BASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Symshape_Dialect : Dialect {
  let name = "symshape";
  let summary = "Symbolic tensor extents with exact / upper-bound / unknown guarantees";
  let description = [{
    The `symshape` dialect models the extents of tensors as symbolic
    expressions over constants, named axes (`batch`, `seq`), op-local input
    axis sizes (`dim(0, 1)`), and op-local runtime scalars
    (`scalar(1, truncate_size)`), combined with `+ - * floordiv ceildiv mod
    min max`. Each extent carries a guarantee: exact, upper bound (`ub(e)`)
    or unknown (`?`). Rank is always exact.

    Shape-sensitive ops (`symshape.reshape`, `symshape.broadcast_in_dim`,
    `symshape.gather`) carry their required output extents as op-local
    expressions; `symshape.dynamic_truncate` produces an extent that depends
    on a runtime value. Compute stays in upstream dialects.
  }];
  let cppNamespace = "::mlir::symshape";
  // Reifying result shapes (ReifyRankedShapedTypeOpInterface) builds `arith`
  // and `tensor` ops.
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let extraClassDeclaration = [{
    /// Discardable attribute holding inferred shapes of an op's results.
    static constexpr ::llvm::StringLiteral kShapeAttrName = "symshape.shape";
    /// Discardable attribute holding the inferred value of a scalar result
    /// (an extent) or the elements of a 1-D integer result (a shape).
    static constexpr ::llvm::StringLiteral kValueAttrName = "symshape.value";
    /// Function argument attribute naming the axes of the argument.
    static constexpr ::llvm::StringLiteral kAxesAttrName = "symshape.axes";
    /// Function attribute listing the named axes that calls may pad up to
    /// a power of two (the function's results do not mix those positions).
    static constexpr ::llvm::StringLiteral kBucketAttrName = "symshape.bucket";
    /// Discardable function attribute holding the value range of each fresh
    /// symbol (`_dN`) its annotations mention: `#symshape.shape<[lo, hi]>`.
    static constexpr ::llvm::StringLiteral kRangesAttrName = "symshape.ranges";
    /// Discardable attribute listing the requirements of an op that a run-time
    /// check already establishes (`symshape-verify-contract{mode=defer}`
    /// emitted it): `symshape-resolve` emits no second check for them.
    static constexpr ::llvm::StringLiteral kCheckedAttrName = "symshape.checked";
  }];
}

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

// The case strings are the names the Python decoder reports
// (`symshape_mlir.attributes.decode`) and, where the syntax has one, the
// keyword of the expression syntax (`floordiv`, `min(`, `dim(`, `ub(`).
def Symshape_ExprKind : I32EnumAttr<"ExprKind",
    "node kind of an extent expression (the values are stable)", [
      I32EnumAttrCase<"Constant", 0, "const">,
      I32EnumAttrCase<"Symbol", 1, "sym">,
      I32EnumAttrCase<"InputAxis", 2, "dim">,
      I32EnumAttrCase<"RuntimeScalar", 3, "scalar">,
      I32EnumAttrCase<"Add", 4, "add">,
      I32EnumAttrCase<"Sub", 5, "sub">,
      I32EnumAttrCase<"Mul", 6, "mul">,
      I32EnumAttrCase<"FloorDiv", 7, "floordiv">,
      I32EnumAttrCase<"CeilDiv", 8, "ceildiv">,
      I32EnumAttrCase<"Mod", 9, "mod">,
      I32EnumAttrCase<"Min", 10, "min">,
      I32EnumAttrCase<"Max", 11, "max">
    ]> {
  let cppNamespace = "::mlir::symshape";
  let genSpecializedAttr = 0;
}

def Symshape_Guarantee : I32EnumAttr<"Guarantee",
    "the guarantee an extent carries (the values are stable)", [
      I32EnumAttrCase<"Exact", 0, "exact">,
      I32EnumAttrCase<"UpperBound", 1, "ub">,
      I32EnumAttrCase<"Unknown", 2, "unknown">
    ]> {
  let cppNamespace = "::mlir::symshape";
  let genSpecializedAttr = 0;
}

def Symshape_ScalarSemantics : I32EnumAttr<"ScalarSemantics",
    "how a runtime integer scalar becomes an extent", [
      I32EnumAttrCase<"index", 0>,
      I32EnumAttrCase<"clamp_nonneg", 1>,
      I32EnumAttrCase<"truncate_size", 2>
    ]> {
  let cppNamespace = "::mlir::symshape";
  let genSpecializedAttr = 0;
}

def Symshape_ScalarSemanticsAttr : EnumAttr<Symshape_Dialect,
    Symshape_ScalarSemantics, "semantics"> {
  let assemblyFormat = "$value";
}

def Symshape_TruncateStage : I32EnumAttr<"TruncateStage",
    "which extent dynamic_truncate reports for the truncated axis", [
      I32EnumAttrCase<"upper_bound", 0>,
      I32EnumAttrCase<"exact", 1>
    ]> {
  let cppNamespace = "::mlir::symshape";
  let genSpecializedAttr = 0;
}

def Symshape_TruncateStageAttr : EnumAttr<Symshape_Dialect,
    Symshape_TruncateStage, "stage"> {
  let assemblyFormat = "$value";
}

#endif // SYMSHAPE_BASE_TD
