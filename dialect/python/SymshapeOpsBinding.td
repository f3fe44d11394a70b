//===- SymshapeOpsBinding.td - Python op class generation ---*- tablegen -*-===//
//
// Input of `mlir-tblgen -gen-python-op-bindings -bind-dialect=symshape`: the
// ODS definitions are the single source of the Python op classes.
//
//===----------------------------------------------------------------------===//

#ifndef SYMSHAPE_OPS_BINDING_TD
#define SYMSHAPE_OPS_BINDING_TD

include "symshape/SymshapeOps.td"

#endif // SYMSHAPE_OPS_BINDING_TD
