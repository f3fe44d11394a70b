/*===- Dialects.h - C API of the symshape dialect -----------------*- C -*-===*/

#ifndef SYMSHAPE_C_DIALECTS_H
#define SYMSHAPE_C_DIALECTS_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Symshape, symshape);

#ifdef __cplusplus
}
#endif

#endif /* SYMSHAPE_C_DIALECTS_H */
