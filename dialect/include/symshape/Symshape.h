//===- Symshape.h - symshape dialect C++ declarations -----------*- C++ -*-===//

#ifndef SYMSHAPE_SYMSHAPE_H
#define SYMSHAPE_SYMSHAPE_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

// ExprKind, Guarantee, ScalarSemantics and TruncateStage with their
// stringify/symbolize functions, generated from SymshapeBase.td.
#include "symshape/SymshapeEnums.h.inc"

namespace mlir::symshape {

/// How deeply parentheses, `min(`/`max(` and unary minus may nest in an
/// expression's text. The Python parser (`symshape_mlir.extent.parse`) and
/// the attribute builders of the C API apply the same bound.
constexpr int kMaxExprNesting = 256;

/// How many infix operators (`+ - * floordiv ceildiv mod`) one expression may
/// have. A chain of them is a left-deep tree; the bound keeps every walk over
/// the tree (here and in MLIR) within the stack. Python and the C API
/// builders apply the same bound.
constexpr int kMaxExprOperators = 10000;

/// Whether `name` may name a symbol: `[A-Za-z_][A-Za-z0-9_]*`, not a reserved
/// word of the expression syntax (`min`, `dim`, `floordiv`, `ub`, ...).
bool isValidSymbolName(StringRef name);

/// Whether `kind` has two operands (`add` ... `max`); the others are leaves.
bool isBinaryKind(ExprKind kind);

/// Returns true for a 0-d tensor of signless integer or index elements.
bool isIntegerScalarTensor(Type type);

/// Floor division, ceiling division and a remainder with the divisor's sign.
/// Return std::nullopt on division by zero or int64 overflow.
std::optional<int64_t> evalBinary(ExprKind kind, int64_t lhs, int64_t rhs);

/// Fails with a located error when a `//` comment starts between `begin` and
/// the first `closer` after it (the delimiter ending an expression's text).
LogicalResult rejectComments(AsmParser &parser, SMLoc begin, char closer);

/// Parses a signed decimal int64 literal (`-9223372036854775808` to
/// `9223372036854775807`). Fails with a located error on anything else,
/// including literals beyond the int64 range that the builtin i64 parser
/// would wrap.
ParseResult parseInt64Literal(AsmParser &parser, int64_t &value);

} // namespace mlir::symshape

#include "symshape/SymshapeDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "symshape/SymshapeAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "symshape/SymshapeTypes.h.inc"

#define GET_OP_CLASSES
#include "symshape/SymshapeOps.h.inc"

#endif // SYMSHAPE_SYMSHAPE_H
