//===- CAPI.cpp - C API registration of the symshape dialect --------------===//

#include "symshape-c/Dialects.h"
#include "symshape/Symshape.h"

#include "mlir/CAPI/Registration.h"

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Symshape, symshape,
                                      mlir::symshape::SymshapeDialect)
