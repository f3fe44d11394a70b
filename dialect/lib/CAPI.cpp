//===- CAPI.cpp - C API of the symshape dialect ---------------------------===//

#include "symshape-c/Dialects.h"
#include "symshape/Symshape.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/CAPI/Support.h"
#include "mlir/CAPI/Utils.h"
#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace mlir::symshape;

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Symshape, symshape,
                                      mlir::symshape::SymshapeDialect)

static_assert(SYMSHAPE_EXPR_MAX_NESTING == kMaxExprNesting &&
                  SYMSHAPE_EXPR_MAX_OPERATORS == kMaxExprOperators,
              "the C API states the parser's limits");

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

bool symshapeAttributeIsAScalarSemantics(MlirAttribute attr) {
  return llvm::isa<ScalarSemanticsAttr>(unwrap(attr));
}

bool symshapeAttributeIsATruncateStage(MlirAttribute attr) {
  return llvm::isa<TruncateStageAttr>(unwrap(attr));
}

MlirStringRef symshapeEnumAttrGetCaseName(MlirAttribute attr) {
  Attribute a = unwrap(attr);
  if (auto semantics = llvm::dyn_cast<ScalarSemanticsAttr>(a))
    return wrap(stringifyScalarSemantics(semantics.getValue()));
  if (auto stage = llvm::dyn_cast<TruncateStageAttr>(a))
    return wrap(stringifyTruncateStage(stage.getValue()));
  return wrap(StringRef());
}

namespace {
/// Whether `root` or an attribute or type nested in it belongs to the
/// symshape dialect.
template <typename Root> bool mentionsSymshape(Root root) {
  auto visit = [](auto element) {
    return llvm::isa<SymshapeDialect>(&element.getDialect())
               ? WalkResult::interrupt()
               : WalkResult::advance();
  };
  return root
      .walk([&](Attribute a) { return visit(a); },
            [&](Type t) { return visit(t); })
      .wasInterrupted();
}
} // namespace

bool symshapeAttributeMentionsSymshape(MlirAttribute attr) {
  return mentionsSymshape(unwrap(attr));
}

bool symshapeAttributePrintBody(MlirAttribute attr,
                                MlirStringCallback callback, void *userData) {
  mlir::detail::CallbackOstream stream(callback, userData);
  Attribute attribute = unwrap(attr);
  if (auto expr = llvm::dyn_cast<ExprAttr>(attribute))
    expr.printBody(stream);
  else if (auto extent = llvm::dyn_cast<ExtentAttr>(attribute))
    extent.printBody(stream);
  else if (auto shape = llvm::dyn_cast<ShapeAttr>(attribute))
    shape.printBody(stream);
  else
    return false;
  stream.flush();
  return true;
}

bool symshapeTypeIsAExtent(MlirType type) {
  return llvm::isa<ExtentType>(unwrap(type));
}

bool symshapeTypeMentionsSymshape(MlirType type) {
  return mentionsSymshape(unwrap(type));
}

//===----------------------------------------------------------------------===//
// Builders
//===----------------------------------------------------------------------===//

namespace {
/// The context, when the symshape dialect is loaded in it (building an
/// attribute of an unloaded dialect asserts).
MLIRContext *symshapeContext(MlirContext ctx) {
  MLIRContext *context = unwrap(ctx);
  if (!context || !context->getLoadedDialect<SymshapeDialect>())
    return nullptr;
  return context;
}
} // namespace

int32_t symshapeExprKindFromName(MlirStringRef name) {
  std::optional<ExprKind> kind = symbolizeExprKind(unwrap(name));
  return kind ? static_cast<int32_t>(*kind) : -1;
}

int32_t symshapeGuaranteeFromName(MlirStringRef name) {
  std::optional<Guarantee> guarantee = symbolizeGuarantee(unwrap(name));
  return guarantee ? static_cast<int32_t>(*guarantee) : -1;
}

MlirAttribute symshapeExprAttrGetConstant(MlirContext ctx, int64_t value) {
  MLIRContext *context = symshapeContext(ctx);
  if (!context)
    return {nullptr};
  return wrap(ExprAttr::getConstant(context, value));
}

MlirAttribute symshapeExprAttrGetSymbol(MlirContext ctx, MlirStringRef name) {
  MLIRContext *context = symshapeContext(ctx);
  if (!context || !isValidSymbolName(unwrap(name)))
    return {nullptr};
  return wrap(ExprAttr::getSymbol(context, unwrap(name)));
}

MlirAttribute symshapeExprAttrGetInputAxis(MlirContext ctx, int64_t operand,
                                           int64_t axis) {
  MLIRContext *context = symshapeContext(ctx);
  if (!context || operand < 0 || axis < 0)
    return {nullptr};
  return wrap(ExprAttr::getInputAxis(context, operand, axis));
}

MlirAttribute symshapeExprAttrGetRuntimeScalar(MlirContext ctx, int64_t operand,
                                               MlirStringRef semantics) {
  MLIRContext *context = symshapeContext(ctx);
  std::optional<ScalarSemantics> sem =
      symbolizeScalarSemantics(unwrap(semantics));
  if (!context || operand < 0 || !sem)
    return {nullptr};
  return wrap(ExprAttr::getRuntimeScalar(context, operand, *sem));
}

MlirAttribute symshapeExprAttrGetBinary(uint32_t kind, MlirAttribute lhs,
                                        MlirAttribute rhs) {
  std::optional<ExprKind> k = symbolizeExprKind(kind);
  auto l = llvm::dyn_cast_if_present<ExprAttr>(unwrap(lhs));
  auto r = llvm::dyn_cast_if_present<ExprAttr>(unwrap(rhs));
  if (!k || !isBinaryKind(*k) || !l || !r || l.getContext() != r.getContext())
    return {nullptr};
  return wrap(ExprAttr::getBinary(*k, l, r));
}

MlirAttribute symshapeExtentAttrGet(MlirContext ctx, uint32_t guarantee,
                                    MlirAttribute expr) {
  MLIRContext *context = symshapeContext(ctx);
  std::optional<Guarantee> g = symbolizeGuarantee(guarantee);
  if (!context || !g)
    return {nullptr};
  if (*g == Guarantee::Unknown)
    return mlirAttributeIsNull(expr)
               ? wrap(ExtentAttr::getUnknown(context))
               : MlirAttribute{nullptr};
  auto e = llvm::dyn_cast_if_present<ExprAttr>(unwrap(expr));
  if (!e || e.getContext() != context)
    return {nullptr};
  return wrap(ExtentAttr::get(context, *g, e));
}

MlirAttribute symshapeShapeAttrGet(MlirContext ctx, intptr_t rank,
                                   MlirAttribute const *extents) {
  MLIRContext *context = symshapeContext(ctx);
  if (!context || rank < 0)
    return {nullptr};
  SmallVector<ExtentAttr> items;
  items.reserve(rank);
  for (intptr_t i = 0; i < rank; ++i) {
    auto extent = llvm::dyn_cast_if_present<ExtentAttr>(unwrap(extents[i]));
    if (!extent || extent.getContext() != context)
      return {nullptr};
    items.push_back(extent);
  }
  return wrap(ShapeAttr::get(context, items));
}

//===----------------------------------------------------------------------===//
// Parser
//===----------------------------------------------------------------------===//

MlirAttribute symshapeParseBody(MlirContext ctx, int kind, MlirStringRef text,
                                SymshapeParseErrorCallback onError,
                                void *userData) {
  static const char *const prefixes[] = {"#symshape.expr<", "#symshape.extent<",
                                         "#symshape.shape<"};
  MLIRContext *context = symshapeContext(ctx);
  if (!context || kind < 0 || kind > 2)
    return {nullptr};
  std::string prefix = prefixes[kind];
  std::string source = prefix + std::string(text.data, text.length) + ">";
  std::string message;
  intptr_t offset = -1;
  Attribute attr;
  {
    ScopedDiagnosticHandler handler(context, [&](Diagnostic &diag) {
      if (offset < 0 && diag.getSeverity() == DiagnosticSeverity::Error) {
        message = diag.str();
        offset = 0;
        if (auto loc = llvm::dyn_cast<FileLineColLoc>(diag.getLocation()))
          offset = static_cast<intptr_t>(loc.getColumn()) - 1 -
                   static_cast<intptr_t>(prefix.size());
      }
      return success();
    });
    attr = parseAttribute(source, context);
  }
  if (attr)
    return wrap(attr);
  StringRef body(text.data, text.length);
  if (offset < 0) {
    // The lexer found no matching '>': an unbalanced bracket or quote.
    message = "unbalanced brackets or quotes";
    offset = body.size();
  }
  offset = std::clamp<intptr_t>(offset, 0, body.size());
  // Errors about the brackets the text was wrapped in, said of the text.
  if (message == "expected '>'" ||
      StringRef(message).starts_with("found trailing characters")) {
    message = "unexpected trailing input";
    size_t next = body.find_first_not_of(" \t\r\n", offset);
    offset = next == StringRef::npos ? body.size() : next;
  } else if (static_cast<size_t>(offset) < body.size() &&
             body[offset] == '%') {
    message = "'%' is not an operator; write 'mod'";
  }
  onError(wrap(StringRef(message)), offset, userData);
  return {nullptr};
}
