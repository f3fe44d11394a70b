//===- SymshapeModule.cpp - Python registration of the symshape dialect ---===//
//
// A minimal extension: it receives upstream `mlir.ir` objects as C API
// capsules and registers the dialect through the C API, so users keep plain
// `mlir.ir` objects and every upstream dialect and pass.
//
//===----------------------------------------------------------------------===//

#include "mlir-c/Bindings/Python/Interop.h"
#include "symshape-c/Dialects.h"

#include <nanobind/nanobind.h>

namespace nb = nanobind;

namespace {
nb::object capsuleOf(nb::handle object, const char *expected) {
  if (!nb::hasattr(object, MLIR_PYTHON_CAPI_PTR_ATTR))
    throw nb::type_error(expected);
  return nb::getattr(object, MLIR_PYTHON_CAPI_PTR_ATTR);
}

MlirAttribute toAttribute(nb::handle object) {
  nb::object capsule = capsuleOf(object, "expected an mlir.ir.Attribute");
  MlirAttribute attr = mlirPythonCapsuleToAttribute(capsule.ptr());
  if (mlirAttributeIsNull(attr))
    throw nb::type_error("expected an mlir.ir.Attribute");
  return attr;
}

nb::str toStr(MlirStringRef text) { return nb::str(text.data, text.length); }

/// Decodes an expression into nested tuples, e.g. ("add", ("sym", "batch"),
/// ("const", 1)); leaves are ("const", v), ("sym", name), ("dim", operand,
/// axis) and ("scalar", operand, semantics). The tags are the ODS names of
/// the kinds (`symshapeExprAttrGetKindName`).
nb::object decodeExpr(MlirAttribute attr) {
  nb::str name = toStr(symshapeExprAttrGetKindName(attr));
  switch (symshapeExprAttrGetKind(attr)) {
  case 0: // constant
    return nb::make_tuple(name, symshapeExprAttrGetValue(attr));
  case 1: // symbol
    return nb::make_tuple(name, toStr(symshapeExprAttrGetName(attr)));
  case 2: // input axis
    return nb::make_tuple(name, symshapeExprAttrGetValue(attr),
                          symshapeExprAttrGetAxis(attr));
  case 3: // runtime scalar
    return nb::make_tuple(name, symshapeExprAttrGetValue(attr),
                          toStr(symshapeExprAttrGetName(attr)));
  default:
    return nb::make_tuple(name, decodeExpr(symshapeExprAttrGetChild(attr, 0)),
                          decodeExpr(symshapeExprAttrGetChild(attr, 1)));
  }
}

/// The guarantee is its ODS name (`symshapeExtentAttrGetGuaranteeName`).
nb::object decodeExtent(MlirAttribute attr) {
  MlirAttribute expr = symshapeExtentAttrGetExpr(attr);
  return nb::make_tuple(toStr(symshapeExtentAttrGetGuaranteeName(attr)),
                        mlirAttributeIsNull(expr) ? nb::none() : decodeExpr(expr));
}
} // namespace

NB_MODULE(_symshape, m) {
  m.doc() = "Registers the symshape dialect with upstream MLIR Python objects.";

  m.def(
      "register_dialect",
      [](nb::handle context, bool load) {
        nb::object capsule = capsuleOf(context, "expected an mlir.ir.Context");
        MlirContext ctx = mlirPythonCapsuleToContext(capsule.ptr());
        if (mlirContextIsNull(ctx))
          throw nb::type_error("expected an mlir.ir.Context");
        MlirDialectHandle handle = mlirGetDialectHandle__symshape__();
        mlirDialectHandleRegisterDialect(handle, ctx);
        if (load)
          mlirDialectHandleLoadDialect(handle, ctx);
      },
      nb::arg("context"), nb::arg("load") = true,
      "Registers (and by default loads) the dialect into a context.");

  m.def(
      "insert_into_registry",
      [](nb::handle registry) {
        nb::object capsule =
            capsuleOf(registry, "expected an mlir.ir.DialectRegistry");
        MlirDialectRegistry reg =
            mlirPythonCapsuleToDialectRegistry(capsule.ptr());
        if (mlirDialectRegistryIsNull(reg))
          throw nb::type_error("expected an mlir.ir.DialectRegistry");
        mlirDialectHandleInsertDialect(mlirGetDialectHandle__symshape__(), reg);
      },
      nb::arg("registry"),
      "Inserts the dialect into a dialect registry.");

  m.def(
      "decode",
      [](nb::handle object) -> nb::object {
        MlirAttribute attr = toAttribute(object);
        if (symshapeAttributeIsAExpr(attr))
          return decodeExpr(attr);
        if (symshapeAttributeIsAExtent(attr))
          return decodeExtent(attr);
        if (symshapeAttributeIsAShape(attr)) {
          nb::list extents;
          for (intptr_t i = 0, e = symshapeShapeAttrGetRank(attr); i < e; ++i)
            extents.append(decodeExtent(symshapeShapeAttrGetExtent(attr, i)));
          return extents;
        }
        throw nb::type_error("expected a #symshape.expr, #symshape.extent or "
                             "#symshape.shape attribute");
      },
      nb::arg("attribute"),
      "Decodes a symshape attribute into nested tuples (an expression), a "
      "(guarantee, expression) pair (an extent) or a list of pairs (a shape).");
}
