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

#include <stdexcept>
#include <string>
#include <vector>

namespace nb = nanobind;

namespace {
nb::object capsuleOf(nb::handle object, const char *expected) {
  if (!nb::hasattr(object, MLIR_PYTHON_CAPI_PTR_ATTR))
    throw nb::type_error(expected);
  return nb::getattr(object, MLIR_PYTHON_CAPI_PTR_ATTR);
}

/// The C API object an `mlir.ir` object wraps, through its capsule.
template <typename T>
T unwrapObject(nb::handle object, const char *expected,
               T (*fromCapsule)(PyObject *), bool (*isNull)(T)) {
  T value = fromCapsule(capsuleOf(object, expected).ptr());
  if (isNull(value))
    throw nb::type_error(expected);
  return value;
}

MlirAttribute toAttribute(nb::handle object) {
  return unwrapObject(object, "expected an mlir.ir.Attribute",
                      mlirPythonCapsuleToAttribute, mlirAttributeIsNull);
}

MlirType toType(nb::handle object) {
  return unwrapObject(object, "expected an mlir.ir.Type",
                      mlirPythonCapsuleToType, mlirTypeIsNull);
}

nb::str toStr(MlirStringRef text) { return nb::str(text.data, text.length); }

MlirContext toContext(nb::handle object) {
  return unwrapObject(object, "expected an mlir.ir.Context",
                      mlirPythonCapsuleToContext, mlirContextIsNull);
}

/// The `mlir.ir.Attribute` holding `attr`.
nb::object fromAttribute(MlirAttribute attr) {
  nb::object capsule = nb::steal(mlirPythonAttributeToCapsule(attr));
  return nb::module_::import_(MAKE_MLIR_PYTHON_QUALNAME("ir"))
      .attr("Attribute")
      .attr(MLIR_PYTHON_CAPI_FACTORY_ATTR)(capsule);
}

/// The stable values of mlir::symshape::ExprKind (see symshape-c/Dialects.h).
enum Kind : int32_t {
  Constant = 0,
  Symbol = 1,
  InputAxis = 2,
  RuntimeScalar = 3,
  Add = 4,
  Sub = 5,
  Mul = 6,
  Mod = 9,
  Min = 10,
  Max = 11,
};

/// The printer's precedence: sums 1, products and divisions 2, the rest 3.
int precedence(int32_t kind) {
  if (kind == Add || kind == Sub)
    return 1;
  if (kind >= Mul && kind <= Mod)
    return 2;
  return 3;
}

MlirStringRef toStringRef(nb::handle object, const char *what) {
  if (!nb::isinstance<nb::str>(object))
    throw nb::type_error(what);
  Py_ssize_t size;
  const char *data = PyUnicode_AsUTF8AndSize(object.ptr(), &size);
  if (!data)
    throw nb::python_error();
  return mlirStringRefCreate(data, size);
}

/// An expression the syntax cannot hold: an integer beyond int64, or more
/// operators or deeper nesting than the parser accepts. Raised to Python as
/// `_symshape.ExprLimitError` (a ValueError), apart from malformed trees.
struct ExprLimitError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

int64_t toInt64(nb::handle object) {
  if (!PyLong_Check(object.ptr()) || PyBool_Check(object.ptr()))
    throw nb::type_error("expected an int in an expression tree");
  int overflow = 0;
  long long value = PyLong_AsLongLongAndOverflow(object.ptr(), &overflow);
  if (overflow)
    throw ExprLimitError("an integer in the expression tree is beyond the "
                         "int64 range");
  return value;
}

std::string reprOf(nb::handle object) { return nb::repr(object).c_str(); }

[[noreturn]] void invalid(const std::string &message) {
  throw nb::value_error(message.c_str());
}

nb::tuple toNode(nb::handle object) {
  if (!nb::isinstance<nb::tuple>(object) || nb::len(object) == 0)
    throw nb::type_error("expected an expression tree: a tuple such as "
                         "('add', ('sym', 'a'), ('const', 1))");
  return nb::borrow<nb::tuple>(object);
}

/// Builds an expression from the nested tuples `decodeExpr` returns,
/// iteratively (a long sum is a deep left-nested tree), rejecting what the
/// parser would reject in the attribute's printed text: more than
/// SYMSHAPE_EXPR_MAX_OPERATORS infix operators or nesting deeper than
/// SYMSHAPE_EXPR_MAX_NESTING.
MlirAttribute buildExpr(nb::handle tree, MlirContext ctx) {
  struct Item {
    nb::handle node;
    int level;      // nesting of the enclosing text
    int parentPrec; // precedence of the enclosing infix operator, or 0
    bool isRight;   // the right operand of that operator
    int32_t combine; // >= 0: build this binary kind from the last two results
  };
  std::vector<Item> work{{tree, 0, 0, false, -1}};
  std::vector<MlirAttribute> results;
  int operators = 0;
  while (!work.empty()) {
    Item item = work.back();
    work.pop_back();
    if (item.combine >= 0) {
      MlirAttribute rhs = results.back();
      results.pop_back();
      results.back() =
          symshapeExprAttrGetBinary(item.combine, results.back(), rhs);
      continue;
    }
    nb::tuple node = toNode(item.node);
    int32_t kind = symshapeExprKindFromName(
        toStringRef(node[0], "an expression tree's tag must be a str"));
    if (kind < 0)
      invalid("unknown expression kind " + reprOf(node[0]));
    int prec = precedence(kind);
    int level = item.level;
    if (prec < item.parentPrec || (prec == item.parentPrec && item.isRight))
      ++level; // printed in parentheses
    bool leaf = kind <= RuntimeScalar;
    if (nb::len(node) != (kind == Constant || kind == Symbol ? 2u : 3u))
      invalid("wrong number of fields in the expression node " +
              reprOf(node));
    MlirAttribute attr = {nullptr};
    if (kind == Constant) {
      int64_t value = toInt64(node[1]);
      if (value < 0)
        ++level; // printed after a unary minus
      attr = symshapeExprAttrGetConstant(ctx, value);
    } else if (kind == Symbol) {
      attr = symshapeExprAttrGetSymbol(
          ctx, toStringRef(node[1], "a symbol name must be a str"));
    } else if (kind == InputAxis) {
      attr = symshapeExprAttrGetInputAxis(ctx, toInt64(node[1]),
                                          toInt64(node[2]));
    } else if (kind == RuntimeScalar) {
      attr = symshapeExprAttrGetRuntimeScalar(
          ctx, toInt64(node[1]),
          toStringRef(node[2], "scalar semantics must be a str"));
    } else if (kind != Min && kind != Max &&
               ++operators > SYMSHAPE_EXPR_MAX_OPERATORS) {
      throw ExprLimitError("expression has more than " +
                           std::to_string(SYMSHAPE_EXPR_MAX_OPERATORS) +
                           " operators");
    }
    if (level > SYMSHAPE_EXPR_MAX_NESTING)
      throw ExprLimitError("expression nests deeper than " +
                           std::to_string(SYMSHAPE_EXPR_MAX_NESTING) +
                           " levels");
    if (leaf) {
      if (mlirAttributeIsNull(attr))
        invalid("invalid expression leaf " + reprOf(node) +
                " (or the symshape dialect is not loaded in the context)");
      results.push_back(attr);
      continue;
    }
    bool call = kind == Min || kind == Max; // `min(a, b)`: operands nest
    int childLevel = call ? level + 1 : level;
    int childPrec = call ? 0 : prec;
    work.push_back({node, level, 0, false, kind});
    work.push_back({node[2], childLevel, childPrec, true, -1});
    work.push_back({node[1], childLevel, childPrec, false, -1});
  }
  return results.back();
}

/// Builds an extent from a (guarantee, tree) pair as `decodeExtent` returns
/// it; the tree is None for an unknown extent.
MlirAttribute buildExtent(nb::handle object, MlirContext ctx) {
  if (!nb::isinstance<nb::tuple>(object) || nb::len(object) != 2)
    throw nb::type_error("expected an extent: a (guarantee, tree) pair");
  nb::tuple pair = nb::borrow<nb::tuple>(object);
  int32_t guarantee = symshapeGuaranteeFromName(
      toStringRef(pair[0], "a guarantee must be a str"));
  if (guarantee < 0)
    invalid("unknown guarantee " + reprOf(pair[0]));
  MlirAttribute expr = {nullptr};
  if (!pair[1].is_none())
    expr = buildExpr(pair[1], ctx);
  MlirAttribute extent = symshapeExtentAttrGet(ctx, guarantee, expr);
  if (mlirAttributeIsNull(extent))
    invalid("invalid extent " + reprOf(object) +
            ": an unknown extent has no tree, the others need one");
  return extent;
}

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

/// The tree(s) of a #symshape.expr, .extent or .shape attribute; an invalid
/// object for any other attribute.
nb::object decodeAttribute(MlirAttribute attr) {
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
  return nb::object();
}

/// A context of the module's own, for reading text where the caller has none
/// (the extent algebra is MLIR-free): created on first use with the dialect
/// loaded, never destroyed. Parsing in it is serialized by the GIL.
MlirContext parsingContext() {
  static MlirContext ctx = [] {
    MlirContext context = mlirContextCreate();
    mlirDialectHandleLoadDialect(mlirGetDialectHandle__symshape__(), context);
    return context;
  }();
  return ctx;
}

} // namespace

NB_MODULE(_symshape, m) {
  m.doc() = "Registers the symshape dialect with upstream MLIR Python objects.";
  nb::exception<ExprLimitError>(m, "ExprLimitError", PyExc_ValueError);

  m.def(
      "register_dialect",
      [](nb::handle context, bool load) {
        MlirContext ctx = toContext(context);
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
        MlirDialectRegistry reg = unwrapObject(
            registry, "expected an mlir.ir.DialectRegistry",
            mlirPythonCapsuleToDialectRegistry, mlirDialectRegistryIsNull);
        mlirDialectHandleInsertDialect(mlirGetDialectHandle__symshape__(), reg);
      },
      nb::arg("registry"),
      "Inserts the dialect into a dialect registry.");

  m.def(
      "decode",
      [](nb::handle object) -> nb::object {
        MlirAttribute attr = toAttribute(object);
        if (nb::object decoded = decodeAttribute(attr); decoded.is_valid())
          return decoded;
        throw nb::type_error("expected a #symshape.expr, #symshape.extent or "
                             "#symshape.shape attribute");
      },
      nb::arg("attribute"),
      "Decodes a symshape attribute into nested tuples (an expression), a "
      "(guarantee, expression) pair (an extent) or a list of pairs (a shape).");

  m.def(
      "build_expr",
      [](nb::handle tree, nb::handle context) {
        return fromAttribute(buildExpr(tree, toContext(context)));
      },
      nb::arg("tree"), nb::arg("context"),
      "Builds a #symshape.expr from nested tuples in the form `decode` "
      "returns. Raises ValueError or TypeError on a malformed tree.");

  m.def(
      "build_extent",
      [](nb::handle extent, nb::handle context) {
        return fromAttribute(buildExtent(extent, toContext(context)));
      },
      nb::arg("extent"), nb::arg("context"),
      "Builds a #symshape.extent from a (guarantee, tree or None) pair.");

  m.def(
      "build_shape",
      [](nb::iterable extents, nb::handle context) {
        MlirContext ctx = toContext(context);
        std::vector<MlirAttribute> attrs;
        for (nb::handle extent : extents)
          attrs.push_back(buildExtent(extent, ctx));
        MlirAttribute shape =
            symshapeShapeAttrGet(ctx, attrs.size(), attrs.data());
        if (mlirAttributeIsNull(shape))
          throw nb::value_error("the symshape dialect is not loaded in the "
                                "context");
        return fromAttribute(shape);
      },
      nb::arg("extents"), nb::arg("context"),
      "Builds a #symshape.shape from (guarantee, tree or None) pairs.");

  m.def(
      "kind_of",
      [](nb::handle object) -> nb::object {
        MlirAttribute attr = toAttribute(object);
        if (symshapeAttributeIsAExpr(attr))
          return nb::str("expr");
        if (symshapeAttributeIsAExtent(attr))
          return nb::str("extent");
        if (symshapeAttributeIsAShape(attr))
          return nb::str("shape");
        if (symshapeAttributeIsAScalarSemantics(attr))
          return nb::str("semantics");
        if (symshapeAttributeIsATruncateStage(attr))
          return nb::str("stage");
        return nb::none();
      },
      nb::arg("attribute"),
      "The kind of a symshape attribute: 'expr', 'extent', 'shape', "
      "'semantics' or 'stage'; None for any other attribute.");

  m.def(
      "mentions_symshape",
      [](nb::handle object) {
        return symshapeAttributeMentionsSymshape(toAttribute(object));
      },
      nb::arg("attribute"),
      "Whether the attribute, or one nested in it, is a symshape attribute.");

  m.def(
      "parse_body",
      [](nb::str kind, nb::str text) -> nb::tuple {
        std::string which = kind.c_str();
        int code = which == "expr" ? 0 : which == "extent" ? 1
                                   : which == "shape"  ? 2
                                                       : -1;
        if (code < 0)
          throw nb::value_error("kind must be 'expr', 'extent' or 'shape'");
        struct Failure {
          std::string message;
          intptr_t offset = 0;
        } failure;
        auto onError = [](MlirStringRef message, intptr_t offset,
                          void *userData) {
          auto *out = static_cast<Failure *>(userData);
          out->message.assign(message.data, message.length);
          out->offset = offset;
        };
        MlirAttribute attr = symshapeParseBody(
            parsingContext(), code, toStringRef(text, "expected a str"),
            onError, &failure);
        if (mlirAttributeIsNull(attr))
          return nb::make_tuple(
              nb::none(),
              nb::str(failure.message.data(), failure.message.size()),
              failure.offset);
        return nb::make_tuple(decodeAttribute(attr), nb::none(), 0);
      },
      nb::arg("kind"), nb::arg("text"),
      "Reads `text` as the body of a #symshape.expr, .extent or .shape "
      "attribute with the dialect's parser (in a context of the module's "
      "own): (decoded, None, 0), or (None, message, offset) for the first "
      "error, `offset` counting characters of UTF-8 bytes into `text`.");

  m.def(
      "print_body",
      [](nb::handle object) {
        std::string text;
        auto append = [](MlirStringRef piece, void *userData) {
          static_cast<std::string *>(userData)->append(piece.data,
                                                       piece.length);
        };
        if (!symshapeAttributePrintBody(toAttribute(object), append, &text))
          throw nb::type_error("expected a #symshape.expr, .extent or .shape "
                               "attribute");
        return nb::str(text.data(), text.size());
      },
      nb::arg("attribute"),
      "The text between the angle brackets of a #symshape.expr, .extent or "
      ".shape attribute, as the dialect prints it.");

  m.def(
      "is_extent_type",
      [](nb::handle object) { return symshapeTypeIsAExtent(toType(object)); },
      nb::arg("type"), "Whether the type is `!symshape.extent`.");

  m.def(
      "type_mentions_symshape",
      [](nb::handle object) {
        return symshapeTypeMentionsSymshape(toType(object));
      },
      nb::arg("type"),
      "Whether the type, or a type or attribute nested in it, belongs to the "
      "symshape dialect.");

  m.def(
      "enum_name",
      [](nb::handle object) {
        MlirAttribute attr = toAttribute(object);
        if (!symshapeAttributeIsAScalarSemantics(attr) &&
            !symshapeAttributeIsATruncateStage(attr))
          throw nb::type_error("expected a #symshape<semantics ...> or "
                               "#symshape<stage ...> attribute");
        return toStr(symshapeEnumAttrGetCaseName(attr));
      },
      nb::arg("attribute"),
      "The case name of a symshape enum attribute (`#symshape<semantics "
      "index>` -> 'index').");
}
