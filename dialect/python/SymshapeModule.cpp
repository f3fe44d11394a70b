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
}
