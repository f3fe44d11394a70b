/*===- Dialects.h - C API of the symshape dialect -----------------*- C -*-===*/

#ifndef SYMSHAPE_C_DIALECTS_H
#define SYMSHAPE_C_DIALECTS_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Symshape, symshape);

/* Expression attributes (#symshape.expr). Kinds follow the ODS enum
 * mlir::symshape::ExprKind: 0 constant, 1 symbol, 2 input axis, 3 runtime
 * scalar, 4 add, 5 sub, 6 mul, 7 floordiv, 8 ceildiv, 9 mod, 10 min, 11 max.
 * The kind's name is its ODS string: "const", "sym", "dim", "scalar", "add",
 * "sub", "mul", "floordiv", "ceildiv", "mod", "min", "max". */
MLIR_CAPI_EXPORTED bool symshapeAttributeIsAExpr(MlirAttribute attr);
MLIR_CAPI_EXPORTED uint32_t symshapeExprAttrGetKind(MlirAttribute attr);
MLIR_CAPI_EXPORTED MlirStringRef symshapeExprAttrGetKindName(MlirAttribute attr);
/* Constant value, or the operand index of an input axis / runtime scalar. */
MLIR_CAPI_EXPORTED int64_t symshapeExprAttrGetValue(MlirAttribute attr);
MLIR_CAPI_EXPORTED int64_t symshapeExprAttrGetAxis(MlirAttribute attr);
/* Symbol name, or the semantics of a runtime scalar. */
MLIR_CAPI_EXPORTED MlirStringRef symshapeExprAttrGetName(MlirAttribute attr);
MLIR_CAPI_EXPORTED intptr_t symshapeExprAttrGetNumChildren(MlirAttribute attr);
MLIR_CAPI_EXPORTED MlirAttribute symshapeExprAttrGetChild(MlirAttribute attr,
                                                          intptr_t pos);

/* Extent attributes (#symshape.extent). Guarantees follow the ODS enum
 * mlir::symshape::Guarantee: 0 exact, 1 upper bound, 2 unknown (null
 * expression), named "exact", "ub", "unknown". */
MLIR_CAPI_EXPORTED bool symshapeAttributeIsAExtent(MlirAttribute attr);
MLIR_CAPI_EXPORTED uint32_t symshapeExtentAttrGetGuarantee(MlirAttribute attr);
MLIR_CAPI_EXPORTED MlirStringRef
symshapeExtentAttrGetGuaranteeName(MlirAttribute attr);
MLIR_CAPI_EXPORTED MlirAttribute symshapeExtentAttrGetExpr(MlirAttribute attr);

/* Shape attributes (#symshape.shape). */
MLIR_CAPI_EXPORTED bool symshapeAttributeIsAShape(MlirAttribute attr);
MLIR_CAPI_EXPORTED intptr_t symshapeShapeAttrGetRank(MlirAttribute attr);
MLIR_CAPI_EXPORTED MlirAttribute symshapeShapeAttrGetExtent(MlirAttribute attr,
                                                            intptr_t pos);

/* Enum attributes (#symshape<semantics index>, #symshape<stage exact>). */
MLIR_CAPI_EXPORTED bool symshapeAttributeIsAScalarSemantics(MlirAttribute attr);
MLIR_CAPI_EXPORTED bool symshapeAttributeIsATruncateStage(MlirAttribute attr);
/* The case name of a symshape enum attribute ("index", "exact", ...); an
 * empty string for any other attribute. */
MLIR_CAPI_EXPORTED MlirStringRef symshapeEnumAttrGetCaseName(MlirAttribute attr);

/* Whether `attr` or an attribute nested in it (an array element, a
 * dictionary value, ...) belongs to the symshape dialect. */
MLIR_CAPI_EXPORTED bool symshapeAttributeMentionsSymshape(MlirAttribute attr);

/* Prints the body of a #symshape.expr, .extent or .shape attribute (the
 * text between its angle brackets: `batch * 2`, `ub(n)`, `[batch, ?]`) to
 * `callback`. Returns false, printing nothing, for any other attribute. */
MLIR_CAPI_EXPORTED bool symshapeAttributePrintBody(MlirAttribute attr,
                                                   MlirStringCallback callback,
                                                   void *userData);

/* Called with the first error of a failed parse: its message and the 0-based
 * byte offset into the parsed text where it was found. */
typedef void (*SymshapeParseErrorCallback)(MlirStringRef message,
                                           intptr_t offset, void *userData);

/* Parses `text` as the body of a #symshape.expr (`kind` 0), .extent (1) or
 * .shape (2) attribute, the text between its angle brackets, with the
 * dialect's parser. Returns the attribute, or a null attribute after calling
 * `onError` once. The symshape dialect must be loaded in `ctx`. Not
 * thread-safe with other diagnostics handlers of `ctx`. */
MLIR_CAPI_EXPORTED MlirAttribute symshapeParseBody(
    MlirContext ctx, int kind, MlirStringRef text,
    SymshapeParseErrorCallback onError, void *userData);

/* Whether `type` is `!symshape.extent`. */
MLIR_CAPI_EXPORTED bool symshapeTypeIsAExtent(MlirType type);

/* Whether `type`, or a type or attribute nested in it (a tensor's element
 * type or encoding, a function's inputs, ...), belongs to the symshape
 * dialect. */
MLIR_CAPI_EXPORTED bool symshapeTypeMentionsSymshape(MlirType type);

/* Builders. Each returns a null attribute, and never asserts, on invalid
 * input: a context without the symshape dialect loaded, an invalid symbol
 * name, a negative operand index or axis, unknown scalar semantics, a kind
 * or guarantee out of range, operands of the wrong attribute kind or from
 * another context. They do not bound the size of an expression: a caller
 * building a tree keeps it within the limits below, which the parser applies
 * to the expression's text, so that the printed attribute reads back. */

/* How deeply parentheses, `min(`/`max(` and unary minus may nest in an
 * expression's text, and how many infix operators (`+ - * floordiv ceildiv
 * mod`) it may hold. */
#define SYMSHAPE_EXPR_MAX_NESTING 256
#define SYMSHAPE_EXPR_MAX_OPERATORS 10000

/* The kind (an ExprKind value) or guarantee (a Guarantee value) with the
 * given ODS name ("add", "ub", ...), or -1 for an unknown name. */
MLIR_CAPI_EXPORTED int32_t symshapeExprKindFromName(MlirStringRef name);
MLIR_CAPI_EXPORTED int32_t symshapeGuaranteeFromName(MlirStringRef name);

MLIR_CAPI_EXPORTED MlirAttribute symshapeExprAttrGetConstant(MlirContext ctx,
                                                             int64_t value);
MLIR_CAPI_EXPORTED MlirAttribute symshapeExprAttrGetSymbol(MlirContext ctx,
                                                           MlirStringRef name);
MLIR_CAPI_EXPORTED MlirAttribute
symshapeExprAttrGetInputAxis(MlirContext ctx, int64_t operand, int64_t axis);
/* `semantics` is "index", "clamp_nonneg" or "truncate_size". */
MLIR_CAPI_EXPORTED MlirAttribute symshapeExprAttrGetRuntimeScalar(
    MlirContext ctx, int64_t operand, MlirStringRef semantics);
/* `kind` is a binary ExprKind (4 add ... 11 max); `lhs` and `rhs` are
 * #symshape.expr attributes of one context. */
MLIR_CAPI_EXPORTED MlirAttribute symshapeExprAttrGetBinary(uint32_t kind,
                                                           MlirAttribute lhs,
                                                           MlirAttribute rhs);
/* `expr` is a #symshape.expr for an exact or upper-bound extent and null for
 * an unknown one. */
MLIR_CAPI_EXPORTED MlirAttribute symshapeExtentAttrGet(MlirContext ctx,
                                                       uint32_t guarantee,
                                                       MlirAttribute expr);
/* `extents` are `rank` #symshape.extent attributes. */
MLIR_CAPI_EXPORTED MlirAttribute symshapeShapeAttrGet(
    MlirContext ctx, intptr_t rank, MlirAttribute const *extents);

#ifdef __cplusplus
}
#endif

#endif /* SYMSHAPE_C_DIALECTS_H */
