//===- CAPI.cpp - C API of the symshape dialect ---------------------------===//

#include "symshape-c/Dialects.h"
#include "symshape/Symshape.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/CAPI/Support.h"

using namespace mlir;
using namespace mlir::symshape;

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Symshape, symshape,
                                      mlir::symshape::SymshapeDialect)

bool symshapeAttributeIsAExpr(MlirAttribute attr) {
  return llvm::isa<ExprAttr>(unwrap(attr));
}

uint32_t symshapeExprAttrGetKind(MlirAttribute attr) {
  return static_cast<uint32_t>(llvm::cast<ExprAttr>(unwrap(attr)).getKind());
}

MlirStringRef symshapeExprAttrGetKindName(MlirAttribute attr) {
  return wrap(stringifyExprKind(llvm::cast<ExprAttr>(unwrap(attr)).getKind()));
}

int64_t symshapeExprAttrGetValue(MlirAttribute attr) {
  return llvm::cast<ExprAttr>(unwrap(attr)).getValue();
}

int64_t symshapeExprAttrGetAxis(MlirAttribute attr) {
  return llvm::cast<ExprAttr>(unwrap(attr)).getAxis();
}

MlirStringRef symshapeExprAttrGetName(MlirAttribute attr) {
  return wrap(llvm::cast<ExprAttr>(unwrap(attr)).getName());
}

intptr_t symshapeExprAttrGetNumChildren(MlirAttribute attr) {
  return llvm::cast<ExprAttr>(unwrap(attr)).getChildren().size();
}

MlirAttribute symshapeExprAttrGetChild(MlirAttribute attr, intptr_t pos) {
  return wrap(llvm::cast<ExprAttr>(unwrap(attr)).getChildren()[pos]);
}

bool symshapeAttributeIsAExtent(MlirAttribute attr) {
  return llvm::isa<ExtentAttr>(unwrap(attr));
}

uint32_t symshapeExtentAttrGetGuarantee(MlirAttribute attr) {
  return static_cast<uint32_t>(
      llvm::cast<ExtentAttr>(unwrap(attr)).getGuarantee());
}

MlirStringRef symshapeExtentAttrGetGuaranteeName(MlirAttribute attr) {
  return wrap(
      stringifyGuarantee(llvm::cast<ExtentAttr>(unwrap(attr)).getGuarantee()));
}

MlirAttribute symshapeExtentAttrGetExpr(MlirAttribute attr) {
  return wrap(static_cast<Attribute>(llvm::cast<ExtentAttr>(unwrap(attr)).getExpr()));
}

bool symshapeAttributeIsAShape(MlirAttribute attr) {
  return llvm::isa<ShapeAttr>(unwrap(attr));
}

intptr_t symshapeShapeAttrGetRank(MlirAttribute attr) {
  return llvm::cast<ShapeAttr>(unwrap(attr)).getRank();
}

MlirAttribute symshapeShapeAttrGetExtent(MlirAttribute attr, intptr_t pos) {
  return wrap(static_cast<Attribute>(
      llvm::cast<ShapeAttr>(unwrap(attr)).getExtents()[pos]));
}
