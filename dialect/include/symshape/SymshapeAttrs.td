//===- SymshapeAttrs.td - symshape attributes and types -----*- tablegen -*-===//

#ifndef SYMSHAPE_ATTRS_TD
#define SYMSHAPE_ATTRS_TD

include "symshape/SymshapeBase.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

class Symshape_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Symshape_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def Symshape_ExprAttr : Symshape_Attr<"Expr", "expr"> {
  let summary = "A symbolic extent expression";
  let description = [{
    An integer expression over constants, named symbols, op-local input axis
    sizes and op-local runtime scalars:

    ```
    expr   := term (('+' | '-') term)*
    term   := factor (('*' | 'floordiv' | 'ceildiv' | 'mod') factor)*
    factor := INT | '-' factor | IDENT | '(' expr ')'
            | 'min' '(' expr ',' expr ')' | 'max' '(' expr ',' expr ')'
            | 'dim' '(' INT ',' INT ')'            // size of operand #i, axis a
            | 'scalar' '(' INT ',' SEMANTICS ')'   // value of 0-d operand #i
    ```

    Arithmetic is integer arithmetic with floor division (`floordiv`),
    ceiling division and a remainder with the sign of the divisor (`mod`).

    `INT` is ASCII decimal digits within int64 (no hexadecimal, no
    `true`/`false`); a literal right after a unary minus may be 2^63, so
    INT64_MIN reads back. `IDENT` is an identifier other than a reserved
    word. A `//` comment may not appear inside the expression's text.
    Parentheses, `min(`/`max(` and unary minus nest at most 256 levels, and
    an expression has at most 10,000 infix operators. The Python reader
    (`symshape_mlir.extent.parse_expr`) accepts exactly the same language.

    Example:

    ```mlir
    #symshape.expr<min(scalar(1, truncate_size), dim(0, 1)) * 2 + seq floordiv 4>
    ```
  }];
  let parameters = (ins
    "ExprKind":$kind,
    "int64_t":$value,
    "int64_t":$axis,
    StringRefParameter<"symbol name or semantics">:$name,
    ArrayRefParameter<"::mlir::Attribute", "operands">:$children
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    using Kind = ::mlir::symshape::ExprKind;
    static ExprAttr getConstant(::mlir::MLIRContext *ctx, int64_t value);
    static ExprAttr getSymbol(::mlir::MLIRContext *ctx, ::llvm::StringRef name);
    static ExprAttr getInputAxis(::mlir::MLIRContext *ctx, int64_t operand,
                                 int64_t axis);
    static ExprAttr getRuntimeScalar(::mlir::MLIRContext *ctx, int64_t operand,
                                     ScalarSemantics semantics);
    static ExprAttr getBinary(Kind kind, ExprAttr lhs, ExprAttr rhs);
    ExprAttr getLhs() const { return ::llvm::cast<ExprAttr>(getChildren()[0]); }
    ExprAttr getRhs() const { return ::llvm::cast<ExprAttr>(getChildren()[1]); }
    bool isConstant() const { return getKind() == Kind::Constant; }
    /// Parses the expression body (no `<` `>`).
    static ExprAttr parseBody(::mlir::AsmParser &parser);
    /// Prints the expression body (no `<` `>`).
    void printBody(::llvm::raw_ostream &os) const;
    /// Calls `fn` on every leaf of the expression.
    void walkLeaves(::llvm::function_ref<void(ExprAttr)> fn) const;
  }];
}

def Symshape_ExtentAttr : Symshape_Attr<"Extent", "extent"> {
  let summary = "An extent expression with its guarantee";
  let description = [{
    `e` is an exact extent (the expression is the runtime size), `ub(e)` an
    upper bound (runtime size <= e), and `?` an unknown extent.

    ```mlir
    #symshape.extent<batch * 2>
    #symshape.extent<ub(dim(0, 1))>
    #symshape.extent<?>
    ```
  }];
  let parameters = (ins
    "Guarantee":$guarantee,
    OptionalParameter<"ExprAttr">:$expr
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    static ExtentAttr getExact(ExprAttr expr);
    static ExtentAttr getUpperBound(ExprAttr expr);
    static ExtentAttr getUnknown(::mlir::MLIRContext *ctx);
    bool isExact() const { return getGuarantee() == Guarantee::Exact; }
    static ExtentAttr parseBody(::mlir::AsmParser &parser);
    void printBody(::llvm::raw_ostream &os) const;
  }];
}

def Symshape_ShapeAttr : Symshape_Attr<"Shape", "shape"> {
  let summary = "A list of extents with guarantees (rank is exact)";
  let description = [{
    ```mlir
    #symshape.shape<[batch, 512, ub(seq), ?]>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"ExtentAttr", "extents">:$extents);
  let hasCustomAssemblyFormat = 1;
  let extraClassDeclaration = [{
    int64_t getRank() const { return getExtents().size(); }
    static ShapeAttr parseBody(::mlir::AsmParser &parser);
    void printBody(::llvm::raw_ostream &os) const;
  }];
}

def Symshape_ExtentType : TypeDef<Symshape_Dialect, "Extent"> {
  let mnemonic = "extent";
  let summary = "A runtime tensor extent";
  let description = [{
    A non-negative runtime size, produced by the extent ops. Lowers to
    `index`.

    ```mlir
    %n = symshape.dim %t, 0 : tensor<?x4xf32>
    ```
  }];
}

#endif // SYMSHAPE_ATTRS_TD
