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

#ifdef __cplusplus
}
#endif

#endif /* SYMSHAPE_C_DIALECTS_H */
