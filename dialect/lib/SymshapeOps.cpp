//===- SymshapeOps.cpp - symshape dialect, ops, verifiers, folders --------===//

#include "symshape/Symshape.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::symshape;

#include "symshape/SymshapeDialect.cpp.inc"
#include "symshape/SymshapeEnums.cpp.inc"

//===----------------------------------------------------------------------===//
// Custom directive: a bracketed extent list (`[batch, dim(0, 1) * 2]`)
//===----------------------------------------------------------------------===//

static ParseResult parseExtentList(OpAsmParser &parser, ShapeAttr &shape) {
  SMLoc begin = parser.getCurrentLocation();
  shape = ShapeAttr::parseBody(parser);
  return success(shape && succeeded(rejectComments(parser, begin, ']')));
}

static void printExtentList(OpAsmPrinter &printer, Operation *, ShapeAttr shape) {
  shape.printBody(printer.getStream());
}

static ParseResult parseInt64(OpAsmParser &parser, IntegerAttr &attr) {
  int64_t value;
  if (failed(parseInt64Literal(parser, value)))
    return failure();
  attr = parser.getBuilder().getI64IntegerAttr(value);
  return success();
}

static void printInt64(OpAsmPrinter &printer, Operation *, IntegerAttr attr) {
  printer << attr.getInt();
}

#define GET_ATTRDEF_CLASSES
#include "symshape/SymshapeAttrs.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "symshape/SymshapeTypes.cpp.inc"

#define GET_OP_CLASSES
#include "symshape/SymshapeOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Dialect
//===----------------------------------------------------------------------===//

/// Attaches ReifyRankedShapedTypeOpInterface to the tensor ops (defined
/// with the interface's implementation, at the end of this file).
static void attachReifyModels(MLIRContext &ctx);

void SymshapeDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "symshape/SymshapeAttrs.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "symshape/SymshapeTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "symshape/SymshapeOps.cpp.inc"
      >();
  attachReifyModels(*getContext());
}

Operation *SymshapeDialect::materializeConstant(OpBuilder &builder,
                                                Attribute value, Type type,
                                                Location loc) {
  auto intAttr = llvm::dyn_cast<IntegerAttr>(value);
  if (!intAttr || !llvm::isa<ExtentType>(type))
    return nullptr;
  return ConstOp::create(builder, loc, type,
                         builder.getI64IntegerAttr(intAttr.getInt()));
}

namespace {
std::string printed(ExprAttr expr) {
  std::string text;
  llvm::raw_string_ostream os(text);
  expr.printBody(os);
  return text;
}

std::string printed(ExtentAttr extent) {
  std::string text;
  llvm::raw_string_ostream os(text);
  extent.printBody(os);
  return text;
}

/// Evaluates an op-local expression whose leaves are constants or static
/// axes of the op's operands into `value` (std::nullopt when a leaf is
/// dynamic). Fails when the arithmetic is undefined on int64: a zero divisor
/// (reported by verifyDivisors) or an overflow.
LogicalResult evalStatic(ExprAttr expr, ValueRange operands,
                         std::optional<int64_t> &value) {
  switch (expr.getKind()) {
  case ExprKind::Constant:
    value = expr.getValue();
    return success();
  case ExprKind::InputAxis: {
    value = std::nullopt;
    if (expr.getValue() >= static_cast<int64_t>(operands.size()))
      return success();
    auto type = llvm::cast<RankedTensorType>(operands[expr.getValue()].getType());
    if (expr.getAxis() < type.getRank() && !type.isDynamicDim(expr.getAxis()))
      value = type.getDimSize(expr.getAxis());
    return success();
  }
  case ExprKind::Symbol:
  case ExprKind::RuntimeScalar:
    value = std::nullopt;
    return success();
  default: {
    std::optional<int64_t> lhs, rhs;
    if (failed(evalStatic(expr.getLhs(), operands, lhs)) ||
        failed(evalStatic(expr.getRhs(), operands, rhs)))
      return failure();
    value = std::nullopt;
    if (!lhs || !rhs)
      return success();
    value = evalBinary(expr.getKind(), *lhs, *rhs);
    return success(value.has_value());
  }
  }
}

/// Reports a division whose divisor is statically zero.
LogicalResult verifyDivisors(Operation *op, ExprAttr expr, ValueRange operands,
                             StringRef field) {
  if (expr.getKind() < ExprKind::Add)
    return success();
  if (failed(verifyDivisors(op, expr.getLhs(), operands, field)) ||
      failed(verifyDivisors(op, expr.getRhs(), operands, field)))
    return failure();
  ExprKind kind = expr.getKind();
  if (kind != ExprKind::FloorDiv && kind != ExprKind::CeilDiv &&
      kind != ExprKind::Mod)
    return success();
  std::optional<int64_t> divisor;
  if (succeeded(evalStatic(expr.getRhs(), operands, divisor)) && divisor &&
      *divisor == 0)
    return op->emitOpError() << field << ": division by zero in '"
                             << printed(expr) << "'";
  return success();
}

/// Checks the leaves of an op-local expression against the op's operands.
LogicalResult verifyLeaves(Operation *op, ExprAttr expr, ValueRange operands,
                           StringRef field) {
  LogicalResult result = success();
  expr.walkLeaves([&](ExprAttr leaf) {
    if (failed(result))
      return;
    int64_t numOperands = operands.size();
    switch (leaf.getKind()) {
    case ExprKind::InputAxis: {
      if (leaf.getValue() >= numOperands) {
        result = op->emitOpError()
                 << field << ": '" << printed(leaf) << "' refers to operand #"
                 << leaf.getValue() << " but the op has " << numOperands
                 << " operands";
        return;
      }
      auto type = llvm::dyn_cast<RankedTensorType>(
          operands[leaf.getValue()].getType());
      if (!type || leaf.getAxis() >= type.getRank())
        result = op->emitOpError()
                 << field << ": '" << printed(leaf) << "' is out of range for "
                 << operands[leaf.getValue()].getType();
      return;
    }
    case ExprKind::RuntimeScalar:
      if (leaf.getValue() >= numOperands) {
        result = op->emitOpError()
                 << field << ": '" << printed(leaf) << "' refers to operand #"
                 << leaf.getValue() << " but the op has " << numOperands
                 << " operands";
        return;
      }
      if (!isIntegerScalarTensor(operands[leaf.getValue()].getType()))
        result = op->emitOpError()
                 << field << ": '" << printed(leaf)
                 << "' needs a 0-d integer tensor operand, got "
                 << operands[leaf.getValue()].getType();
      return;
    default:
      return;
    }
  });
  return result;
}

/// Verifies a list of op-local target extents for `field` ("reshape target",
/// ...): exact, leaves valid, constant extents non-negative and consistent
/// with the static dims in `resultShape`. Fills `values` with the statically
/// known extents.
LogicalResult verifyTargets(Operation *op, ShapeAttr shape,
                            ArrayRef<int64_t> resultShape, StringRef field,
                            SmallVectorImpl<std::optional<int64_t>> &values) {
  ValueRange operands = op->getOperands();
  if (shape.getRank() != static_cast<int64_t>(resultShape.size()))
    return op->emitOpError() << field << " has " << shape.getRank()
                             << " extents but the result has rank "
                             << resultShape.size();
  for (auto [i, extent] : llvm::enumerate(shape.getExtents())) {
    std::string name = (field + " extent " + Twine(i)).str();
    if (!extent.isExact())
      return op->emitOpError() << name << " must be exact, got '"
                               << printed(extent) << "'";
    if (failed(verifyLeaves(op, extent.getExpr(), operands, name)) ||
        failed(verifyDivisors(op, extent.getExpr(), operands, name)))
      return failure();
    std::optional<int64_t> value;
    if (failed(evalStatic(extent.getExpr(), operands, value)))
      return op->emitOpError() << name << " overflows int64 in '"
                               << printed(extent) << "'";
    if (value && *value < 0)
      return op->emitOpError() << name << " is negative (" << *value << ")";
    if (value && !ShapedType::isDynamic(resultShape[i]) &&
        resultShape[i] != *value)
      return op->emitOpError()
             << name << " is " << *value << " but result dimension " << i
             << " is " << resultShape[i];
    values.push_back(value);
  }
  return success();
}

LogicalResult verifyAxis(Operation *op, Type type, int64_t axis) {
  int64_t rank = llvm::cast<RankedTensorType>(type).getRank();
  if (axis < 0 || axis >= rank)
    return op->emitOpError() << "axis " << axis << " is out of range for rank "
                             << rank;
  return success();
}

LogicalResult verifySameElementType(Operation *op, Type lhs, Type rhs) {
  if (getElementTypeOrSelf(lhs) != getElementTypeOrSelf(rhs))
    return op->emitOpError() << "result element type "
                             << getElementTypeOrSelf(rhs)
                             << " differs from input element type "
                             << getElementTypeOrSelf(lhs);
  return success();
}

LogicalResult verifyAxisList(Operation *op, ArrayRef<int64_t> axes,
                             int64_t rank, StringRef field) {
  llvm::SmallSet<int64_t, 8> seen;
  for (int64_t axis : axes) {
    if (axis < 0 || axis >= rank)
      return op->emitOpError() << field << " entry " << axis
                               << " is out of range for rank " << rank;
    if (!seen.insert(axis).second)
      return op->emitOpError() << field << " repeats axis " << axis;
  }
  return success();
}
} // namespace

/// Verifies `symshape.bucket` on a function: a list of axis names, each
/// declared by the `symshape.axes` of some argument.
static LogicalResult verifyBucket(Operation *op, Attribute value) {
  StringRef name = SymshapeDialect::kBucketAttrName;
  auto function = llvm::dyn_cast<FunctionOpInterface>(op);
  if (!function)
    return op->emitError() << "'" << name << "' is only valid on a function";
  auto list = llvm::dyn_cast<ArrayAttr>(value);
  if (!list || list.empty() ||
      !llvm::all_of(list, [](Attribute a) { return llvm::isa<StringAttr>(a); }))
    return op->emitError() << "'" << name
                           << "' must be a non-empty list of axis names";
  llvm::SmallSet<StringRef, 8> declared;
  for (unsigned i = 0, e = function.getNumArguments(); i < e; ++i) {
    auto axes = function.getArgAttrOfType<ShapeAttr>(
        i, SymshapeDialect::kAxesAttrName);
    if (!axes)
      continue;
    for (ExtentAttr extent : axes.getExtents())
      if (extent.isExact())
        extent.getExpr().walkLeaves([&](ExprAttr leaf) {
          if (leaf.getKind() == ExprKind::Symbol)
            declared.insert(leaf.getName());
        });
  }
  for (Attribute axis : list) {
    StringRef axisName = llvm::cast<StringAttr>(axis).getValue();
    if (!declared.contains(axisName))
      return op->emitError() << "'" << name << "' names '" << axisName
                             << "', which no argument's '"
                             << SymshapeDialect::kAxesAttrName << "' declares";
  }
  return success();
}

/// Verifies `symshape.ranges` on a function: per fresh symbol (`_dN`), its
/// value range as `#symshape.shape<[lo, hi]>` (`lo` exact, `hi` exact or `?`).
static LogicalResult verifyRanges(Operation *op, Attribute value) {
  StringRef name = SymshapeDialect::kRangesAttrName;
  if (!llvm::isa<FunctionOpInterface>(op))
    return op->emitError() << "'" << name << "' is only valid on a function";
  auto ranges = llvm::dyn_cast<DictionaryAttr>(value);
  if (!ranges)
    return op->emitError() << "'" << name
                           << "' must be a dictionary from fresh symbols to "
                              "#symshape.shape<[lo, hi]>";
  for (NamedAttribute entry : ranges) {
    StringRef symbol = entry.getName().getValue();
    if (symbol.size() < 3 || !symbol.starts_with("_d") ||
        !llvm::all_of(symbol.drop_front(2),
                      [](char c) { return c >= '0' && c <= '9'; }))
      return op->emitError() << "'" << name << "' names '" << symbol
                             << "', which is not a fresh symbol (_dN)";
    auto range = llvm::dyn_cast<ShapeAttr>(entry.getValue());
    if (!range || range.getRank() != 2 || !range.getExtents()[0].isExact() ||
        range.getExtents()[1].getGuarantee() == Guarantee::UpperBound)
      return op->emitError()
             << "'" << name << "' gives '" << symbol
             << "' a range that is not #symshape.shape<[lo, hi]> with an exact "
                "lo and an exact or unknown hi";
  }
  return success();
}

/// Verifies `symshape.checked`: a non-empty list of requirement names.
static LogicalResult verifyChecked(Operation *op, Attribute value) {
  auto list = llvm::dyn_cast<ArrayAttr>(value);
  if (!list || list.empty() ||
      !llvm::all_of(list, [](Attribute a) { return llvm::isa<StringAttr>(a); }))
    return op->emitError() << "'" << SymshapeDialect::kCheckedAttrName
                           << "' must be a non-empty list of requirement names";
  return success();
}

LogicalResult SymshapeDialect::verifyOperationAttribute(Operation *op,
                                                        NamedAttribute attr) {
  if (attr.getName() == kBucketAttrName)
    return verifyBucket(op, attr.getValue());
  if (attr.getName() == kCheckedAttrName)
    return verifyChecked(op, attr.getValue());
  if (attr.getName() == kRangesAttrName)
    return verifyRanges(op, attr.getValue());
  if (attr.getName() == kValueAttrName) {
    if (op->getNumResults() != 1 ||
        !llvm::isa<ExtentAttr, ShapeAttr>(attr.getValue()))
      return op->emitError()
             << "'" << kValueAttrName
             << "' must be a #symshape.extent (a scalar result) or a "
                "#symshape.shape (the elements of a 1-D result) on a "
                "single-result op";
    return success();
  }
  if (attr.getName() != kShapeAttrName)
    return op->emitError() << "unknown symshape attribute '"
                           << attr.getName().getValue() << "'";
  auto checkRank = [&](ShapeAttr shape, Type type) -> LogicalResult {
    auto tensor = llvm::dyn_cast<RankedTensorType>(type);
    if (tensor && tensor.getRank() != shape.getRank())
      return op->emitError() << "'" << kShapeAttrName << "' has rank "
                             << shape.getRank() << " but the result type is "
                             << type;
    return success();
  };
  if (auto shape = llvm::dyn_cast<ShapeAttr>(attr.getValue())) {
    if (op->getNumResults() != 1)
      return op->emitError() << "'" << kShapeAttrName
                             << "' must be a list of shapes for an op with "
                             << op->getNumResults() << " results";
    return checkRank(shape, op->getResult(0).getType());
  }
  auto list = llvm::dyn_cast<ArrayAttr>(attr.getValue());
  if (!list || list.size() != op->getNumResults() ||
      !llvm::all_of(list, [](Attribute a) { return llvm::isa<ShapeAttr>(a); }))
    return op->emitError() << "'" << kShapeAttrName
                           << "' must be a #symshape.shape or a list of one "
                              "#symshape.shape per result";
  for (auto [shape, result] : llvm::zip(list, op->getResults()))
    if (failed(checkRank(llvm::cast<ShapeAttr>(shape), result.getType())))
      return failure();
  return success();
}

/// A division in `expr` by the constant 0, if any. The depth is bounded by
/// the attribute parser's nesting limit.
static ExprAttr findZeroDivision(ExprAttr expr) {
  if (expr.getChildren().empty())
    return {};
  ExprKind kind = expr.getKind();
  if ((kind == ExprKind::FloorDiv || kind == ExprKind::CeilDiv ||
       kind == ExprKind::Mod) &&
      expr.getRhs().isConstant() && expr.getRhs().getValue() == 0)
    return expr;
  for (Attribute child : expr.getChildren())
    if (ExprAttr found = findZeroDivision(llvm::cast<ExprAttr>(child)))
      return found;
  return {};
}

LogicalResult SymshapeDialect::verifyRegionArgAttribute(Operation *op,
                                                        unsigned regionIndex,
                                                        unsigned argIndex,
                                                        NamedAttribute attr) {
  if (attr.getName() != kAxesAttrName)
    return op->emitError() << "unknown symshape argument attribute '"
                           << attr.getName().getValue() << "'";
  auto shape = llvm::dyn_cast<ShapeAttr>(attr.getValue());
  if (!shape)
    return op->emitError() << "'" << kAxesAttrName << "' of argument "
                           << argIndex << " must be a #symshape.shape";
  // Read the declared type: a declaration has no entry block, and a generic
  // form may list fewer block arguments than its function type.
  auto function = llvm::dyn_cast<FunctionOpInterface>(op);
  if (!function || regionIndex != 0 || argIndex >= function.getNumArguments())
    return op->emitError() << "'" << kAxesAttrName
                           << "' is only valid on function arguments";
  Type argType = function.getArgumentTypes()[argIndex];
  auto tensor = llvm::dyn_cast<RankedTensorType>(argType);
  if (!tensor)
    return op->emitError() << "'" << kAxesAttrName << "' on argument "
                           << argIndex << " of non-tensor type " << argType;
  if (tensor.getRank() != shape.getRank())
    return op->emitError() << "'" << kAxesAttrName << "' of argument "
                           << argIndex << " names " << shape.getRank()
                           << " axes but the argument has rank "
                           << tensor.getRank();
  for (auto [i, extent] : llvm::enumerate(shape.getExtents())) {
    if (!extent.isExact())
      return op->emitError() << "axis " << i << " of argument " << argIndex
                             << " must be exact, got '" << printed(extent)
                             << "'";
    LogicalResult result = success();
    extent.getExpr().walkLeaves([&](ExprAttr leaf) {
      if (succeeded(result) && leaf.getKind() != ExprKind::Constant &&
          leaf.getKind() != ExprKind::Symbol)
        result = op->emitError()
                 << "axis " << i << " of argument " << argIndex
                 << " may only use constants and named symbols, got '"
                 << printed(leaf) << "'";
    });
    if (failed(result))
      return failure();
    if (ExprAttr division = findZeroDivision(extent.getExpr()))
      return op->emitError() << "axis " << i << " of argument " << argIndex
                             << " divides by the constant 0 in '"
                             << printed(division) << "'";
    if (extent.getExpr().isConstant()) {
      int64_t value = extent.getExpr().getValue();
      if (value < 0 || (!tensor.isDynamicDim(i) && tensor.getDimSize(i) != value))
        return op->emitError() << "axis " << i << " of argument " << argIndex
                               << " is declared " << value
                               << " but the argument type is " << argType;
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Extent ops
//===----------------------------------------------------------------------===//

OpFoldResult ConstOp::fold(FoldAdaptor) { return getValueAttr(); }

LogicalResult DimOp::verify() {
  return verifyAxis(*this, getSource().getType(), getAxis());
}

OpFoldResult DimOp::fold(FoldAdaptor) {
  auto type = llvm::cast<RankedTensorType>(getSource().getType());
  int64_t axis = getAxis();
  if (axis < 0 || axis >= type.getRank() || type.isDynamicDim(axis))
    return {};
  return IntegerAttr::get(IntegerType::get(getContext(), 64),
                          type.getDimSize(axis));
}

LogicalResult BoundOp::verify() {
  return verifyAxis(*this, getSource().getType(), getAxis());
}

namespace {
/// Folds a binary extent op: both constant, or an identity element.
OpFoldResult foldBinary(Operation *op, ExprKind kind, Attribute lhsAttr,
                        Attribute rhsAttr) {
  auto lhs = llvm::dyn_cast_if_present<IntegerAttr>(lhsAttr);
  auto rhs = llvm::dyn_cast_if_present<IntegerAttr>(rhsAttr);
  auto i64 = IntegerType::get(op->getContext(), 64);
  if (lhs && rhs) {
    std::optional<int64_t> value = evalBinary(kind, lhs.getInt(), rhs.getInt());
    if (!value)
      return {};
    return IntegerAttr::get(i64, *value);
  }
  Value lhsValue = op->getOperand(0), rhsValue = op->getOperand(1);
  auto isConst = [](IntegerAttr attr, int64_t v) {
    return attr && attr.getInt() == v;
  };
  switch (kind) {
  case ExprKind::Add:
    if (isConst(rhs, 0))
      return lhsValue;
    if (isConst(lhs, 0))
      return rhsValue;
    return {};
  case ExprKind::Sub:
    if (isConst(rhs, 0))
      return lhsValue;
    if (lhsValue == rhsValue)
      return IntegerAttr::get(i64, 0);
    return {};
  case ExprKind::Mul:
    if (isConst(rhs, 1))
      return lhsValue;
    if (isConst(lhs, 1))
      return rhsValue;
    if (isConst(rhs, 0) || isConst(lhs, 0))
      return IntegerAttr::get(i64, 0);
    return {};
  case ExprKind::FloorDiv:
  case ExprKind::CeilDiv:
    if (isConst(rhs, 1))
      return lhsValue;
    return {};
  case ExprKind::Mod:
    if (isConst(rhs, 1) || isConst(rhs, -1))
      return IntegerAttr::get(i64, 0);
    return {};
  case ExprKind::Min:
  case ExprKind::Max:
    if (lhsValue == rhsValue)
      return lhsValue;
    return {};
  default:
    return {};
  }
}
} // namespace

#define SYMSHAPE_BINARY_FOLD(OP, KIND)                                          \
  OpFoldResult OP::fold(FoldAdaptor adaptor) {                                  \
    return foldBinary(*this, ExprKind::KIND, adaptor.getLhs(),                  \
                      adaptor.getRhs());                                        \
  }
SYMSHAPE_BINARY_FOLD(AddOp, Add)
SYMSHAPE_BINARY_FOLD(SubOp, Sub)
SYMSHAPE_BINARY_FOLD(MulOp, Mul)
SYMSHAPE_BINARY_FOLD(FloorDivOp, FloorDiv)
SYMSHAPE_BINARY_FOLD(CeilDivOp, CeilDiv)
SYMSHAPE_BINARY_FOLD(ModOp, Mod)
SYMSHAPE_BINARY_FOLD(MinOp, Min)
SYMSHAPE_BINARY_FOLD(MaxOp, Max)
#undef SYMSHAPE_BINARY_FOLD

OpFoldResult ToIndexOp::fold(FoldAdaptor) {
  if (auto from = getExtent().getDefiningOp<FromIndexOp>())
    return from.getValue();
  return {};
}

OpFoldResult FromIndexOp::fold(FoldAdaptor) {
  if (auto to = getValue().getDefiningOp<ToIndexOp>())
    return to.getExtent();
  return {};
}

//===----------------------------------------------------------------------===//
// Shape-sensitive tensor ops
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  auto inputType = llvm::cast<RankedTensorType>(getInput().getType());
  auto resultType = llvm::cast<RankedTensorType>(getResult().getType());
  if (failed(verifySameElementType(*this, inputType, resultType)))
    return failure();
  SmallVector<std::optional<int64_t>> values;
  if (failed(verifyTargets(*this, getTarget(), resultType.getShape(),
                           "reshape target", values)))
    return failure();
  if (!inputType.hasStaticShape() ||
      !llvm::all_of(values, [](auto v) { return v.has_value(); }))
    return success();
  // Element counts are products of int64 sizes: an overflow is an error,
  // never a wrapped count that happens to match.
  auto product = [](auto sizes) -> std::optional<int64_t> {
    std::optional<int64_t> count = 1;
    for (std::optional<int64_t> size : sizes)
      if (!(count = llvm::checkedMul(*count, *size)))
        return std::nullopt;
    return count;
  };
  std::optional<int64_t> inputCount = product(inputType.getShape());
  if (!inputCount)
    return emitOpError() << "reshape input element count overflows int64";
  std::optional<int64_t> targetCount = product(values);
  if (!targetCount)
    return emitOpError() << "reshape target element count overflows int64";
  if (*targetCount != *inputCount)
    return emitOpError() << "reshape changes the element count from "
                         << *inputCount << " to " << *targetCount;
  return success();
}

LogicalResult BroadcastInDimOp::verify() {
  auto inputType = llvm::cast<RankedTensorType>(getInput().getType());
  auto resultType = llvm::cast<RankedTensorType>(getResult().getType());
  if (failed(verifySameElementType(*this, inputType, resultType)))
    return failure();
  ArrayRef<int64_t> dims = getBroadcastDimensions();
  if (static_cast<int64_t>(dims.size()) != inputType.getRank())
    return emitOpError() << "dims has " << dims.size()
                         << " entries but the input has rank "
                         << inputType.getRank();
  if (failed(verifyAxisList(*this, dims, resultType.getRank(), "dims")))
    return failure();
  SmallVector<std::optional<int64_t>> values;
  if (failed(verifyTargets(*this, getTarget(), resultType.getShape(),
                           "broadcast_in_dim target", values)))
    return failure();
  for (auto [inAxis, outAxis] : llvm::enumerate(dims)) {
    if (inputType.isDynamicDim(inAxis) || inputType.getDimSize(inAxis) == 1)
      continue;
    int64_t size = inputType.getDimSize(inAxis);
    std::optional<int64_t> target = values[outAxis];
    if (!target && !resultType.isDynamicDim(outAxis))
      target = resultType.getDimSize(outAxis);
    if (target && *target != size)
      return emitOpError() << "input axis " << inAxis << " has size " << size
                           << " but broadcast_in_dim target extent " << outAxis
                           << " is " << *target;
  }
  return success();
}

LogicalResult DynamicTruncateOp::verify() {
  auto inputType = llvm::cast<RankedTensorType>(getInput().getType());
  auto resultType = llvm::cast<RankedTensorType>(getResult().getType());
  if (failed(verifySameElementType(*this, inputType, resultType)) ||
      failed(verifyAxis(*this, inputType, getAxis())))
    return failure();
  if (inputType.getRank() != resultType.getRank())
    return emitOpError() << "result rank " << resultType.getRank()
                         << " differs from input rank " << inputType.getRank();
  for (int64_t i = 0, e = inputType.getRank(); i < e; ++i) {
    if (inputType.isDynamicDim(i) || resultType.isDynamicDim(i))
      continue;
    int64_t in = inputType.getDimSize(i), out = resultType.getDimSize(i);
    if (i == getAxis() ? out > in : out != in)
      return emitOpError() << "result dimension " << i << " is " << out
                           << " but the input dimension is " << in;
  }
  return success();
}

LogicalResult GatherOp::verify() {
  auto operandType = llvm::cast<RankedTensorType>(getOperand().getType());
  auto indicesType = llvm::cast<RankedTensorType>(getIndices().getType());
  auto resultType = llvm::cast<RankedTensorType>(getResult().getType());
  if (failed(verifySameElementType(*this, operandType, resultType)))
    return failure();
  Type indexElement = indicesType.getElementType();
  if (!indexElement.isIndex() && !indexElement.isSignlessInteger())
    return emitOpError() << "indices must have integer or index elements, got "
                         << indexElement;
  if (indicesType.getRank() < 1)
    return emitOpError() << "indices must have rank >= 1 (the last axis holds "
                            "the index vector)";
  int64_t rank = operandType.getRank();
  ArrayRef<int64_t> startMap = getStartIndexMap();
  ArrayRef<int64_t> collapsed = getCollapsedSliceDims();
  if (failed(verifyAxisList(*this, startMap, rank, "start_index_map")) ||
      failed(verifyAxisList(*this, collapsed, rank, "collapsed_slice_dims")))
    return failure();
  if (!llvm::is_sorted(collapsed))
    return emitOpError() << "collapsed_slice_dims must be sorted";
  int64_t vectorSize = indicesType.getShape().back();
  if (!ShapedType::isDynamic(vectorSize) &&
      vectorSize != static_cast<int64_t>(startMap.size()))
    return emitOpError() << "index vectors have " << vectorSize
                         << " entries but start_index_map has "
                         << startMap.size();
  int64_t batchRank = indicesType.getRank() - 1;
  int64_t expectedRank = batchRank + rank - collapsed.size();
  if (resultType.getRank() != expectedRank)
    return emitOpError() << "result rank " << resultType.getRank()
                         << " differs from the expected rank " << expectedRank;
  if (getSliceSizes().getRank() != rank)
    return emitOpError() << "slice_sizes has " << getSliceSizes().getRank()
                         << " extents but the operand has rank " << rank;
  // Slice sizes live in the operand's axis space; check them against the
  // result dims they produce (collapsed axes produce none).
  SmallVector<int64_t> sliceResultShape;
  for (int64_t axis = 0, out = batchRank; axis < rank; ++axis) {
    if (llvm::is_contained(collapsed, axis))
      sliceResultShape.push_back(1);
    else
      sliceResultShape.push_back(resultType.getDimSize(out++));
  }
  SmallVector<std::optional<int64_t>> values;
  if (failed(verifyTargets(*this, getSliceSizes(), sliceResultShape,
                           "gather slice_sizes", values)))
    return failure();
  for (auto [axis, value] : llvm::enumerate(values)) {
    if (!value || operandType.isDynamicDim(axis))
      continue;
    if (*value > operandType.getDimSize(axis))
      return emitOpError() << "gather slice_sizes extent " << axis << " is "
                           << *value << " but operand dimension " << axis
                           << " is " << operandType.getDimSize(axis);
  }
  for (int64_t axis : collapsed)
    if (!values[axis] || *values[axis] != 1)
      return emitOpError() << "collapsed axis " << axis
                           << " needs slice size 1";
  for (int64_t i = 0; i < batchRank; ++i) {
    int64_t in = indicesType.getDimSize(i), out = resultType.getDimSize(i);
    if (!ShapedType::isDynamic(in) && !ShapedType::isDynamic(out) && in != out)
      return emitOpError() << "result dimension " << i << " is " << out
                           << " but indices dimension " << i << " is " << in;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Result shape reification (ReifyRankedShapedTypeOpInterface)
//===----------------------------------------------------------------------===//
//
// Every result dimension of a shape-sensitive op is an op-local expression
// over the op's operands: the target extent of a reshape or broadcast_in_dim,
// `min(scalar(1, truncate_size), dim(0, axis))` for the truncated axis of a
// dynamic_truncate, `dim(1, i)` for a gather's batch dimension `i` and the
// slice size of a kept operand axis. Reification computes that expression
// with `index` arithmetic, so `tensor.dim` of the result resolves to it:
//
//   %r = symshape.reshape %x to [dim(0, 0) * dim(0, 1), 768]
//       : (tensor<?x?x768xf32>) -> tensor<?x768xf32>
//   %n = tensor.dim %r, %c0 : tensor<?x768xf32>
//
// becomes
//
//   %d0 = tensor.dim %x, %c0 : tensor<?x?x768xf32>
//   %d1 = tensor.dim %x, %c1 : tensor<?x?x768xf32>
//   %n = arith.muli %d0, %d1 : index
//
// A size naming a symbol (`batch`) is not reified: named axes are bound by
// the function's arguments (`symshape.axes`), not by the op's operands.

namespace {
/// Whether `expr` can be computed from `operands`: it names no symbol, and
/// its `dim`/`scalar` leaves refer to operands of the right kind (always so
/// on a verified op).
bool isReifiable(ExprAttr expr, ValueRange operands) {
  bool reifiable = true;
  int64_t numOperands = operands.size();
  expr.walkLeaves([&](ExprAttr leaf) {
    switch (leaf.getKind()) {
    case ExprKind::Constant:
      return;
    case ExprKind::Symbol:
      reifiable = false;
      return;
    case ExprKind::InputAxis: {
      auto type = leaf.getValue() < numOperands
                      ? llvm::dyn_cast<RankedTensorType>(
                            operands[leaf.getValue()].getType())
                      : RankedTensorType();
      reifiable &= type && leaf.getAxis() < type.getRank();
      return;
    }
    case ExprKind::RuntimeScalar:
      reifiable &= leaf.getValue() < numOperands &&
                   isIntegerScalarTensor(operands[leaf.getValue()].getType());
      return;
    default:
      llvm_unreachable("not a leaf kind");
    }
  });
  return reifiable;
}

/// Emits `index` arithmetic computing an op-local expression, with the
/// dialect's integer semantics: `floordiv` floors, `ceildiv` rounds up, `mod`
/// has the sign of the divisor, `scalar(i, clamp_nonneg)` and
/// `scalar(i, truncate_size)` are `max(value, 0)`. Constants and static
/// sizes fold to attributes. A zero divisor at run time makes the op itself
/// undefined, and so the value computed for it.
class SizeEmitter {
public:
  SizeEmitter(OpBuilder &builder, Location loc, ValueRange operands)
      : builder(builder), loc(loc), operands(operands) {}

  /// The expression's value (the caller checked `isReifiable`).
  OpFoldResult emit(ExprAttr expr) {
    switch (expr.getKind()) {
    case ExprKind::Constant:
      return builder.getIndexAttr(expr.getValue());
    case ExprKind::InputAxis:
      return tensor::getMixedSize(builder, loc, operands[expr.getValue()],
                                  expr.getAxis());
    case ExprKind::RuntimeScalar:
      return emitScalar(operands[expr.getValue()],
                        *symbolizeScalarSemantics(expr.getName()));
    case ExprKind::Symbol:
      llvm_unreachable("symbols are not reifiable");
    default: {
      // Left operand first: the emitted ops follow the text.
      OpFoldResult lhs = emit(expr.getLhs());
      return emitBinary(expr.getKind(), lhs, emit(expr.getRhs()));
    }
    }
  }

private:
  /// The element of a 0-d integer tensor as an index. Narrow integers are
  /// sign-extended to i64 first (IREE zero-extends a narrow `index_cast`).
  Value emitScalar(Value scalar, ScalarSemantics semantics) {
    Value value = tensor::ExtractOp::create(builder, loc, scalar, ValueRange());
    if (!value.getType().isIndex()) {
      if (value.getType().getIntOrFloatBitWidth() < 64)
        value = arith::ExtSIOp::create(builder, loc, builder.getI64Type(), value);
      value = arith::IndexCastOp::create(builder, loc, builder.getIndexType(),
                                         value);
    }
    if (semantics == ScalarSemantics::index)
      return value;
    return builder.createOrFold<arith::MaxSIOp>(loc, value, constant(0));
  }

  OpFoldResult emitBinary(ExprKind kind, OpFoldResult lhs, OpFoldResult rhs) {
    std::optional<int64_t> lhsValue = getConstantIntValue(lhs);
    std::optional<int64_t> rhsValue = getConstantIntValue(rhs);
    if (lhsValue && rhsValue)
      if (std::optional<int64_t> value = evalBinary(kind, *lhsValue, *rhsValue))
        return builder.getIndexAttr(*value);
    Value a = getValueOrCreateConstantIndexOp(builder, loc, lhs);
    Value b = getValueOrCreateConstantIndexOp(builder, loc, rhs);
    switch (kind) {
    case ExprKind::Add:
      return builder.createOrFold<arith::AddIOp>(loc, a, b);
    case ExprKind::Sub:
      return builder.createOrFold<arith::SubIOp>(loc, a, b);
    case ExprKind::Mul:
      return builder.createOrFold<arith::MulIOp>(loc, a, b);
    case ExprKind::FloorDiv:
      return builder.createOrFold<arith::FloorDivSIOp>(loc, a, b);
    case ExprKind::CeilDiv:
      return builder.createOrFold<arith::CeilDivSIOp>(loc, a, b);
    case ExprKind::Mod: {
      // a mod b = a - b * (a floordiv b), with the sign of b.
      Value quotient = builder.createOrFold<arith::FloorDivSIOp>(loc, a, b);
      Value product = builder.createOrFold<arith::MulIOp>(loc, b, quotient);
      return builder.createOrFold<arith::SubIOp>(loc, a, product);
    }
    case ExprKind::Min:
      return builder.createOrFold<arith::MinSIOp>(loc, a, b);
    case ExprKind::Max:
      return builder.createOrFold<arith::MaxSIOp>(loc, a, b);
    default:
      llvm_unreachable("not a binary kind");
    }
  }

  Value constant(int64_t value) {
    return arith::ConstantIndexOp::create(builder, loc, value);
  }

  OpBuilder &builder;
  Location loc;
  ValueRange operands;
};

/// The size of result dimension `dim` as an op-local expression over the
/// op's operands (the dimension is in range), or null when the op does not
/// define one (an unverified op).
ExprAttr resultSize(ReshapeOp op, int64_t dim) {
  ArrayRef<ExtentAttr> target = op.getTarget().getExtents();
  return dim < static_cast<int64_t>(target.size()) ? target[dim].getExpr()
                                                   : ExprAttr();
}

ExprAttr resultSize(BroadcastInDimOp op, int64_t dim) {
  ArrayRef<ExtentAttr> target = op.getTarget().getExtents();
  return dim < static_cast<int64_t>(target.size()) ? target[dim].getExpr()
                                                   : ExprAttr();
}

/// `min(scalar(1, truncate_size), dim(0, axis))` on the truncated axis,
/// `dim(0, dim)` elsewhere.
ExprAttr resultSize(DynamicTruncateOp op, int64_t dim) {
  MLIRContext *ctx = op.getContext();
  ExprAttr input = ExprAttr::getInputAxis(ctx, 0, dim);
  if (dim != op.getAxis())
    return input;
  return ExprAttr::getBinary(
      ExprKind::Min,
      ExprAttr::getRuntimeScalar(ctx, 1, ScalarSemantics::truncate_size),
      input);
}

/// `dim(1, dim)` (an axis of the indices) for a batch dimension, else the
/// slice size of the operand axis it keeps (collapsed axes are skipped).
ExprAttr resultSize(GatherOp op, int64_t dim) {
  int64_t batchRank =
      llvm::cast<RankedTensorType>(op.getIndices().getType()).getRank() - 1;
  if (dim < batchRank)
    return ExprAttr::getInputAxis(op.getContext(), 1, dim);
  ArrayRef<int64_t> collapsed = op.getCollapsedSliceDims();
  int64_t kept = dim - batchRank;
  for (auto [axis, extent] : llvm::enumerate(op.getSliceSizes().getExtents())) {
    if (llvm::is_contained(collapsed, static_cast<int64_t>(axis)))
      continue;
    if (kept-- == 0)
      return extent.getExpr();
  }
  return {};
}

/// How result dimension `dim` of `op` is reified: a static dimension by its
/// constant size, a dynamic one by `resultSize` when that is reifiable. Null
/// when the dimension is out of range or not reifiable.
template <typename OpTy>
ExprAttr reifiableSize(OpTy op, int64_t dim) {
  auto type = llvm::cast<RankedTensorType>(op.getResult().getType());
  if (dim < 0 || dim >= type.getRank())
    return {};
  if (!type.isDynamicDim(dim))
    return ExprAttr::getConstant(op.getContext(), type.getDimSize(dim));
  ExprAttr size = resultSize(op, dim);
  return size && isReifiable(size, op->getOperands()) ? size : ExprAttr();
}

/// Emits `size` for result dimension `dim`: an attribute for a static
/// dimension, a value for a dynamic one.
template <typename OpTy>
OpFoldResult emitSize(OpTy op, OpBuilder &builder, int64_t dim, ExprAttr size) {
  OpFoldResult value =
      SizeEmitter(builder, op.getLoc(), op->getOperands()).emit(size);
  if (!llvm::cast<RankedTensorType>(op.getResult().getType()).isDynamicDim(dim))
    return value;
  return getValueOrCreateConstantIndexOp(builder, op.getLoc(), value);
}

/// Reifies every result dimension, or none (creating nothing) when one is
/// not reifiable.
template <typename OpTy>
LogicalResult reifyShapes(OpTy op, OpBuilder &builder,
                          ReifiedRankedShapedTypeDims &shapes) {
  int64_t rank = llvm::cast<RankedTensorType>(op.getResult().getType()).getRank();
  SmallVector<ExprAttr> sizes;
  for (int64_t dim = 0; dim < rank; ++dim) {
    sizes.push_back(reifiableSize(op, dim));
    if (!sizes.back())
      return failure();
  }
  SmallVector<OpFoldResult> &shape = shapes.emplace_back();
  for (auto [dim, size] : llvm::enumerate(sizes))
    shape.push_back(emitSize(op, builder, dim, size));
  return success();
}

/// Reifies one result dimension; fails (creating nothing) when it is out of
/// range or not reifiable.
template <typename OpTy>
FailureOr<OpFoldResult> reifyDim(OpTy op, OpBuilder &builder, int resultIndex,
                                 int dim) {
  ExprAttr size = resultIndex == 0 ? reifiableSize(op, dim) : ExprAttr();
  if (!size)
    return failure();
  return emitSize(op, builder, dim, size);
}

/// ReifyRankedShapedTypeOpInterface for a shape-sensitive tensor op.
/// `reifyDimOfResult` builds only the requested dimension.
template <typename OpTy>
struct ReifyResultShapeModel
    : public ReifyRankedShapedTypeOpInterface::ExternalModel<
          ReifyResultShapeModel<OpTy>, OpTy> {
  LogicalResult reifyResultShapes(Operation *op, OpBuilder &builder,
                                  ReifiedRankedShapedTypeDims &shapes) const {
    return reifyShapes(llvm::cast<OpTy>(op), builder, shapes);
  }

  FailureOr<OpFoldResult> reifyDimOfResult(Operation *op, OpBuilder &builder,
                                           int resultIndex, int dim) const {
    return reifyDim(llvm::cast<OpTy>(op), builder, resultIndex, dim);
  }
};
} // namespace

static void attachReifyModels(MLIRContext &ctx) {
  ReshapeOp::attachInterface<ReifyResultShapeModel<ReshapeOp>>(ctx);
  BroadcastInDimOp::attachInterface<ReifyResultShapeModel<BroadcastInDimOp>>(
      ctx);
  DynamicTruncateOp::attachInterface<ReifyResultShapeModel<DynamicTruncateOp>>(
      ctx);
  GatherOp::attachInterface<ReifyResultShapeModel<GatherOp>>(ctx);
}
