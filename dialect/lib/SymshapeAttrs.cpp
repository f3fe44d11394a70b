//===- SymshapeAttrs.cpp - expression, extent and shape attributes --------===//
//
// Parsing and printing of the extent expression syntax shared with the Python
// algebra (`symshape_mlir.extent`), and the attribute verifiers.
//
//===----------------------------------------------------------------------===//

#include "symshape/Symshape.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::symshape;

//===----------------------------------------------------------------------===//
// Integer semantics
//===----------------------------------------------------------------------===//

std::optional<int64_t> mlir::symshape::evalBinary(ExprKind kind, int64_t lhs,
                                                  int64_t rhs) {
  switch (kind) {
  case ExprKind::Add:
    return llvm::checkedAdd(lhs, rhs);
  case ExprKind::Sub:
    return llvm::checkedSub(lhs, rhs);
  case ExprKind::Mul:
    return llvm::checkedMul(lhs, rhs);
  case ExprKind::FloorDiv:
  case ExprKind::CeilDiv:
  case ExprKind::Mod: {
    if (rhs == 0 || (lhs == INT64_MIN && rhs == -1))
      return std::nullopt;
    int64_t quot = lhs / rhs, rem = lhs % rhs;
    bool inexact = rem != 0;
    bool sameSign = (lhs < 0) == (rhs < 0);
    if (kind == ExprKind::FloorDiv)
      return inexact && !sameSign ? quot - 1 : quot;
    if (kind == ExprKind::CeilDiv)
      return inexact && sameSign ? quot + 1 : quot;
    return inexact && ((rem < 0) != (rhs < 0)) ? rem + rhs : rem;
  }
  case ExprKind::Min:
    return std::min(lhs, rhs);
  case ExprKind::Max:
    return std::max(lhs, rhs);
  default:
    return std::nullopt;
  }
}

bool mlir::symshape::isIntegerScalarTensor(Type type) {
  auto tensor = llvm::dyn_cast<RankedTensorType>(type);
  if (!tensor || tensor.getRank() != 0)
    return false;
  Type element = tensor.getElementType();
  return element.isIndex() || element.isSignlessInteger();
}

//===----------------------------------------------------------------------===//
// ExprAttr
//===----------------------------------------------------------------------===//

namespace {
constexpr llvm::StringLiteral kReservedWords[] = {
    "min", "max", "dim", "scalar", "floordiv", "ceildiv", "mod", "ub"};

bool isReserved(StringRef word) {
  return llvm::is_contained(kReservedWords, word);
}
} // namespace

bool mlir::symshape::isValidSymbolName(StringRef name) {
  if (name.empty() || isReserved(name))
    return false;
  if (!llvm::isAlpha(name.front()) && name.front() != '_')
    return false;
  return llvm::all_of(name, [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

bool mlir::symshape::isBinaryKind(ExprKind kind) {
  return kind >= ExprKind::Add;
}

namespace {

/// Printing precedence: sums bind loosest, products tighter, leaves tightest.
int precedence(ExprKind kind) {
  switch (kind) {
  case ExprKind::Add:
  case ExprKind::Sub:
    return 1;
  case ExprKind::Mul:
  case ExprKind::FloorDiv:
  case ExprKind::CeilDiv:
  case ExprKind::Mod:
    return 2;
  default:
    return 3;
  }
}

/// The operator of a binary kind: a symbol for `+ - *`, else the kind's ODS
/// name (`floordiv`, `ceildiv`, `mod`, `min`, `max`).
StringRef binarySpelling(ExprKind kind) {
  switch (kind) {
  case ExprKind::Add:
    return "+";
  case ExprKind::Sub:
    return "-";
  case ExprKind::Mul:
    return "*";
  default:
    return stringifyExprKind(kind);
  }
}

void printExpr(raw_ostream &os, ExprAttr expr, int parentPrecedence,
               bool isRightOperand) {
  ExprKind kind = expr.getKind();
  switch (kind) {
  case ExprKind::Constant:
    os << expr.getValue();
    return;
  case ExprKind::Symbol:
    os << expr.getName();
    return;
  case ExprKind::InputAxis:
    os << stringifyExprKind(kind) << "(" << expr.getValue() << ", " << expr.getAxis() << ")";
    return;
  case ExprKind::RuntimeScalar:
    os << stringifyExprKind(kind) << "(" << expr.getValue() << ", " << expr.getName() << ")";
    return;
  case ExprKind::Min:
  case ExprKind::Max:
    os << binarySpelling(kind) << "(";
    printExpr(os, expr.getLhs(), 0, false);
    os << ", ";
    printExpr(os, expr.getRhs(), 0, false);
    os << ")";
    return;
  default:
    break;
  }
  int prec = precedence(kind);
  bool parens = prec < parentPrecedence ||
                (prec == parentPrecedence && isRightOperand);
  if (parens)
    os << "(";
  printExpr(os, expr.getLhs(), prec, false);
  os << " " << binarySpelling(kind) << " ";
  printExpr(os, expr.getRhs(), prec, true);
  if (parens)
    os << ")";
}

ExprAttr parseSum(AsmParser &parser, int depth, int &operators);

/// Fails (with a located error) when a factor at `depth` nests too deeply.
LogicalResult checkNesting(AsmParser &parser, int depth) {
  if (depth <= kMaxExprNesting)
    return success();
  return parser.emitError(parser.getCurrentLocation(),
                          "expression nests deeper than ")
         << kMaxExprNesting << " levels";
}

/// Parses a decimal integer literal when one comes next: digits only, no sign,
/// no hexadecimal, and not the `true`/`false` keywords that MLIR's integer
/// parser also accepts. With `negated`, the literal follows a unary minus and
/// may be 2^63 (INT64_MIN). Fails with a located error on an out-of-range or
/// hexadecimal literal.
OptionalParseResult parseOptionalDecimal(AsmParser &parser, int64_t &value,
                                         bool negated = false) {
  SMLoc loc = parser.getCurrentLocation();
  const char *text = loc.getPointer();
  if (!llvm::isDigit(text[0]))
    return std::nullopt;
  if (text[0] == '0' && text[1] == 'x')
    return parser.emitError(loc, "expected a decimal integer, not a "
                                 "hexadecimal one");
  APInt literal;
  OptionalParseResult integer = parser.parseOptionalInteger(literal);
  if (!integer.has_value() || failed(*integer))
    return integer; // not an integer token (`1.5`), or a reported error
  uint64_t limit = negated ? uint64_t(1) << 63 : uint64_t(INT64_MAX);
  if (literal.getActiveBits() > 64 || literal.getZExtValue() > limit)
    return parser.emitError(loc, "integer literal is out of the int64 range");
  uint64_t magnitude = literal.getZExtValue();
  value = negated ? static_cast<int64_t>(0 - magnitude)
                  : static_cast<int64_t>(magnitude);
  return success();
}

/// Parses the non-negative integer argument of `dim(...)` / `scalar(...)`;
/// `what` names the constraint for a negative one.
ParseResult parseIndexArgument(AsmParser &parser, int64_t &value,
                               StringRef what) {
  SMLoc loc = parser.getCurrentLocation();
  if (succeeded(parser.parseOptionalMinus()))
    return parser.emitError(loc, what);
  OptionalParseResult result = parseOptionalDecimal(parser, value);
  if (!result.has_value())
    return parser.emitError(loc, "expected a non-negative integer");
  return *result;
}

ExprAttr parseFactor(AsmParser &parser, int depth, int &operators) {
  MLIRContext *ctx = parser.getContext();
  SMLoc loc = parser.getCurrentLocation();
  if (failed(checkNesting(parser, depth)))
    return {};
  int64_t value;
  if (succeeded(parser.parseOptionalMinus())) {
    // A negated literal is read whole (so that INT64_MIN reads back), but it
    // nests one level deeper like any other operand of unary minus.
    if (failed(checkNesting(parser, depth + 1)))
      return {};
    OptionalParseResult literal =
        parseOptionalDecimal(parser, value, /*negated=*/true);
    if (literal.has_value())
      return succeeded(*literal) ? ExprAttr::getConstant(ctx, value)
                                 : ExprAttr();
    ExprAttr operand = parseFactor(parser, depth + 1, operators);
    if (!operand)
      return {};
    if (operand.isConstant() && operand.getValue() != INT64_MIN)
      return ExprAttr::getConstant(ctx, -operand.getValue());
    return ExprAttr::getBinary(ExprKind::Sub, ExprAttr::getConstant(ctx, 0),
                               operand);
  }
  if (succeeded(parser.parseOptionalLParen())) {
    ExprAttr inner = parseSum(parser, depth + 1, operators);
    if (!inner || parser.parseRParen())
      return {};
    return inner;
  }
  OptionalParseResult literal = parseOptionalDecimal(parser, value);
  if (literal.has_value())
    return succeeded(*literal) ? ExprAttr::getConstant(ctx, value)
                               : ExprAttr();
  StringRef word;
  if (failed(parser.parseOptionalKeyword(&word))) {
    parser.emitError(loc, "expected an extent expression");
    return {};
  }
  // `min(`, `max(`, `dim(` and `scalar(` are spelled by their kind's ODS
  // name; the other names (`const`, `add`, ...) are plain symbols here.
  std::optional<ExprKind> named = symbolizeExprKind(word);
  if (named == ExprKind::Min || named == ExprKind::Max) {
    ExprAttr lhs, rhs;
    if (parser.parseLParen() || !(lhs = parseSum(parser, depth + 1, operators)) ||
        parser.parseComma() || !(rhs = parseSum(parser, depth + 1, operators)) ||
        parser.parseRParen())
      return {};
    return ExprAttr::getBinary(*named, lhs, rhs);
  }
  if (named == ExprKind::InputAxis) {
    int64_t operand, axis;
    StringRef negative = "dim() operand and axis must be non-negative";
    if (parser.parseLParen() || parseIndexArgument(parser, operand, negative) ||
        parser.parseComma() || parseIndexArgument(parser, axis, negative) ||
        parser.parseRParen())
      return {};
    return ExprAttr::getInputAxis(ctx, operand, axis);
  }
  if (named == ExprKind::RuntimeScalar) {
    int64_t operand;
    StringRef semantics;
    SMLoc semLoc;
    if (parser.parseLParen() ||
        parseIndexArgument(parser, operand,
                           "scalar() operand must be non-negative") ||
        parser.parseComma())
      return {};
    semLoc = parser.getCurrentLocation();
    if (parser.parseKeyword(&semantics) || parser.parseRParen())
      return {};
    std::optional<ScalarSemantics> sem = symbolizeScalarSemantics(semantics);
    if (!sem) {
      parser.emitError(semLoc, "unknown scalar semantics '")
          << semantics << "' (expected index, clamp_nonneg or truncate_size)";
      return {};
    }
    return ExprAttr::getRuntimeScalar(ctx, operand, *sem);
  }
  if (!isValidSymbolName(word)) {
    parser.emitError(loc, "'") << word << "' is not a valid symbol name";
    return {};
  }
  return ExprAttr::getSymbol(ctx, word);
}

/// Counts one more infix operator (at `loc`) against kMaxExprOperators.
LogicalResult countOperator(AsmParser &parser, SMLoc loc, int &operators) {
  if (++operators <= kMaxExprOperators)
    return success();
  return parser.emitError(loc, "expression has more than ")
         << kMaxExprOperators << " operators";
}

ExprAttr parseProduct(AsmParser &parser, int depth, int &operators) {
  ExprAttr lhs = parseFactor(parser, depth, operators);
  while (lhs) {
    SMLoc loc = parser.getCurrentLocation();
    ExprKind kind = ExprKind::Mul;
    StringRef word;
    if (failed(parser.parseOptionalStar())) {
      if (failed(parser.parseOptionalKeyword(
              &word, {stringifyExprKind(ExprKind::FloorDiv),
                      stringifyExprKind(ExprKind::CeilDiv),
                      stringifyExprKind(ExprKind::Mod)})))
        return lhs;
      kind = *symbolizeExprKind(word);
    }
    if (failed(countOperator(parser, loc, operators)))
      return {};
    ExprAttr rhs = parseFactor(parser, depth, operators);
    if (!rhs)
      return {};
    lhs = ExprAttr::getBinary(kind, lhs, rhs);
  }
  return {};
}

ExprAttr parseSum(AsmParser &parser, int depth, int &operators) {
  ExprAttr lhs = parseProduct(parser, depth, operators);
  while (lhs) {
    SMLoc loc = parser.getCurrentLocation();
    ExprKind kind;
    if (succeeded(parser.parseOptionalPlus()))
      kind = ExprKind::Add;
    else if (succeeded(parser.parseOptionalMinus()))
      kind = ExprKind::Sub;
    else
      return lhs;
    if (failed(countOperator(parser, loc, operators)))
      return {};
    ExprAttr rhs = parseProduct(parser, depth, operators);
    if (!rhs)
      return {};
    lhs = ExprAttr::getBinary(kind, lhs, rhs);
  }
  return {};
}
} // namespace

ExprAttr ExprAttr::getConstant(MLIRContext *ctx, int64_t value) {
  return get(ctx, Kind::Constant, value, 0, "", {});
}

ExprAttr ExprAttr::getSymbol(MLIRContext *ctx, StringRef name) {
  return get(ctx, Kind::Symbol, 0, 0, name, {});
}

ExprAttr ExprAttr::getInputAxis(MLIRContext *ctx, int64_t operand,
                                int64_t axis) {
  return get(ctx, Kind::InputAxis, operand, axis, "", {});
}

ExprAttr ExprAttr::getRuntimeScalar(MLIRContext *ctx, int64_t operand,
                                    ScalarSemantics semantics) {
  return get(ctx, Kind::RuntimeScalar, operand, 0,
             stringifyScalarSemantics(semantics), {});
}

ExprAttr ExprAttr::getBinary(Kind kind, ExprAttr lhs, ExprAttr rhs) {
  Attribute children[] = {lhs, rhs};
  return get(lhs.getContext(), kind, 0, 0, "", children);
}

LogicalResult ExprAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               Kind kind, int64_t value, int64_t axis,
                               StringRef name, ArrayRef<Attribute> children) {
  size_t expected = isBinaryKind(kind) ? 2 : 0;
  if (children.size() != expected)
    return emitError() << "expression node expects " << expected
                       << " operands, got " << children.size();
  if (!llvm::all_of(children, [](Attribute a) { return llvm::isa<ExprAttr>(a); }))
    return emitError() << "expression operands must be #symshape.expr";
  if (kind == Kind::Symbol && !isValidSymbolName(name))
    return emitError() << "'" << name << "' is not a valid symbol name";
  if ((kind == Kind::InputAxis || kind == Kind::RuntimeScalar) && value < 0)
    return emitError() << "operand index must be non-negative";
  if (kind == Kind::InputAxis && axis < 0)
    return emitError() << "axis must be non-negative";
  if (kind == Kind::RuntimeScalar && !symbolizeScalarSemantics(name))
    return emitError() << "unknown scalar semantics '" << name << "'";
  return success();
}

ExprAttr ExprAttr::parseBody(AsmParser &parser) {
  int operators = 0;
  return parseSum(parser, /*depth=*/0, operators);
}

ParseResult mlir::symshape::parseInt64Literal(AsmParser &parser,
                                             int64_t &value) {
  SMLoc loc = parser.getCurrentLocation();
  bool negated = succeeded(parser.parseOptionalMinus());
  OptionalParseResult literal = parseOptionalDecimal(parser, value, negated);
  if (!literal.has_value())
    return parser.emitError(loc, "expected a decimal integer");
  return *literal;
}

LogicalResult mlir::symshape::rejectComments(AsmParser &parser, SMLoc begin,
                                             char closer) {
  // MLIR's lexer drops `// ...` comments before the parser sees them: inside
  // an expression `//` would silently cut it short (a Python reader may mean
  // floor division), so comments are not allowed between `begin` and the
  // closing delimiter, as in the Python parser.
  const char *end = parser.getCurrentLocation().getPointer();
  StringRef text(begin.getPointer(), end - begin.getPointer());
  size_t comment = text.find("//");
  if (comment == StringRef::npos || comment > text.find(closer))
    return success();
  return parser.emitError(SMLoc::getFromPointer(text.data() + comment),
                          "'//' is not an operator (it starts a comment); "
                          "write 'floordiv'");
}

void ExprAttr::printBody(raw_ostream &os) const {
  printExpr(os, *this, 0, false);
}

void ExprAttr::walkLeaves(function_ref<void(ExprAttr)> fn) const {
  if (!isBinaryKind(getKind())) {
    fn(*this);
    return;
  }
  getLhs().walkLeaves(fn);
  getRhs().walkLeaves(fn);
}

Attribute ExprAttr::parse(AsmParser &parser, Type) {
  SMLoc begin = parser.getCurrentLocation();
  ExprAttr expr;
  if (parser.parseLess() || !(expr = parseBody(parser)) ||
      failed(rejectComments(parser, begin, '>')) || parser.parseGreater())
    return {};
  return expr;
}

void ExprAttr::print(AsmPrinter &printer) const {
  printer << "<";
  printBody(printer.getStream());
  printer << ">";
}

//===----------------------------------------------------------------------===//
// ExtentAttr
//===----------------------------------------------------------------------===//

ExtentAttr ExtentAttr::getExact(ExprAttr expr) {
  return get(expr.getContext(), Guarantee::Exact, expr);
}

ExtentAttr ExtentAttr::getUpperBound(ExprAttr expr) {
  return get(expr.getContext(), Guarantee::UpperBound, expr);
}

ExtentAttr ExtentAttr::getUnknown(MLIRContext *ctx) {
  return get(ctx, Guarantee::Unknown, ExprAttr());
}

LogicalResult ExtentAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 Guarantee guarantee, ExprAttr expr) {
  if ((guarantee == Guarantee::Unknown) != !expr)
    return emitError() << "an unknown extent has no expression; exact and "
                          "upper-bound extents need one";
  return success();
}

ExtentAttr ExtentAttr::parseBody(AsmParser &parser) {
  MLIRContext *ctx = parser.getContext();
  if (succeeded(parser.parseOptionalQuestion()))
    return getUnknown(ctx);
  if (succeeded(parser.parseOptionalKeyword(
          stringifyGuarantee(Guarantee::UpperBound)))) {
    ExprAttr bound;
    if (parser.parseLParen() || !(bound = ExprAttr::parseBody(parser)) ||
        parser.parseRParen())
      return {};
    return getUpperBound(bound);
  }
  ExprAttr exact = ExprAttr::parseBody(parser);
  return exact ? getExact(exact) : ExtentAttr();
}

void ExtentAttr::printBody(raw_ostream &os) const {
  switch (getGuarantee()) {
  case Guarantee::Exact:
    getExpr().printBody(os);
    return;
  case Guarantee::UpperBound:
    os << stringifyGuarantee(Guarantee::UpperBound) << "(";
    getExpr().printBody(os);
    os << ")";
    return;
  case Guarantee::Unknown:
    os << "?";
    return;
  }
}

Attribute ExtentAttr::parse(AsmParser &parser, Type) {
  SMLoc begin = parser.getCurrentLocation();
  ExtentAttr extent;
  if (parser.parseLess() || !(extent = parseBody(parser)) ||
      failed(rejectComments(parser, begin, '>')) || parser.parseGreater())
    return {};
  return extent;
}

void ExtentAttr::print(AsmPrinter &printer) const {
  printer << "<";
  printBody(printer.getStream());
  printer << ">";
}

//===----------------------------------------------------------------------===//
// ShapeAttr
//===----------------------------------------------------------------------===//

ShapeAttr ShapeAttr::parseBody(AsmParser &parser) {
  SmallVector<ExtentAttr> extents;
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
        ExtentAttr extent = ExtentAttr::parseBody(parser);
        if (!extent)
          return failure();
        extents.push_back(extent);
        return success();
      }))
    return {};
  return get(parser.getContext(), extents);
}

void ShapeAttr::printBody(raw_ostream &os) const {
  os << "[";
  llvm::interleaveComma(getExtents(), os,
                        [&](ExtentAttr extent) { extent.printBody(os); });
  os << "]";
}

Attribute ShapeAttr::parse(AsmParser &parser, Type) {
  SMLoc begin = parser.getCurrentLocation();
  ShapeAttr shape;
  if (parser.parseLess() || !(shape = parseBody(parser)) ||
      failed(rejectComments(parser, begin, '>')) || parser.parseGreater())
    return {};
  return shape;
}

void ShapeAttr::print(AsmPrinter &printer) const {
  printer << "<";
  printBody(printer.getStream());
  printer << ">";
}
