// RUN: symshape-opt %s | symshape-opt | FileCheck %s
// RUN: symshape-opt --mlir-print-op-generic %s | symshape-opt | FileCheck %s

// Expression printing keeps the structure with minimal parentheses (INT64_MIN
// reads back: a negated literal may be 2^63; `true` is a symbol); the
// three guarantees print as `e`, `ub(e)` and `?`.

// CHECK-LABEL: func.func @expressions
// CHECK-SAME: e0 = #symshape.expr<batch * 2 + seq floordiv 4 - 1>
// CHECK-SAME: e1 = #symshape.expr<(batch + 1) * 2>
// CHECK-SAME: e2 = #symshape.expr<a - (b - c)>
// CHECK-SAME: e3 = #symshape.expr<a - b - c>
// CHECK-SAME: e4 = #symshape.expr<min(scalar(1, truncate_size), dim(0, 1)) * 2>
// CHECK-SAME: e5 = #symshape.expr<max(_d0, 3) ceildiv 8 mod 5>
// CHECK-SAME: e6 = #symshape.expr<-3>
// CHECK-SAME: e7 = #symshape.expr<0 - batch>
// CHECK-SAME: e8 = #symshape.expr<a floordiv (b * c)>
// CHECK-SAME: e9 = #symshape.expr<scalar(0, index) + scalar(2, clamp_nonneg)>
// CHECK-SAME: f0 = #symshape.expr<-9223372036854775808 * a>
// CHECK-SAME: f1 = #symshape.expr<a - -9223372036854775808>
// CHECK-SAME: f2 = #symshape.expr<9223372036854775807 + true>
func.func @expressions() attributes {
    e0 = #symshape.expr<batch * 2 + seq floordiv 4 - 1>,
    e1 = #symshape.expr<(batch + 1) * 2>,
    e2 = #symshape.expr<a - (b - c)>,
    e3 = #symshape.expr<(a - b) - c>,
    e4 = #symshape.expr<min(scalar(1, truncate_size), dim(0, 1)) * 2>,
    e5 = #symshape.expr<(max(_d0, 3) ceildiv 8) mod 5>,
    e6 = #symshape.expr<-3>,
    e7 = #symshape.expr<-batch>,
    e8 = #symshape.expr<a floordiv (b * c)>,
    e9 = #symshape.expr<scalar(0, index) + scalar(2, clamp_nonneg)>,
    f0 = #symshape.expr<-9223372036854775808 * a>,
    f1 = #symshape.expr<a - - 9223372036854775808>,
    f2 = #symshape.expr<9223372036854775807 + true>} {
  return
}

// CHECK-LABEL: func.func @extents
// CHECK-SAME: s0 = #symshape.shape<[batch, 512, ub(seq), ?]>
// CHECK-SAME: s1 = #symshape.shape<[]>
// CHECK-SAME: x0 = #symshape.extent<batch>
// CHECK-SAME: x1 = #symshape.extent<ub(dim(0, 1))>
// CHECK-SAME: x2 = #symshape.extent<?>
func.func @extents() attributes {
    x0 = #symshape.extent<batch>,
    x1 = #symshape.extent<ub(dim(0, 1))>,
    x2 = #symshape.extent<?>,
    s0 = #symshape.shape<[batch, 512, ub(seq), ?]>,
    s1 = #symshape.shape<[]>} {
  return
}

// Axes on a declaration's arguments are checked against its type.
// CHECK-LABEL: func.func private @declaration
// CHECK-SAME: (tensor<?xf32> {symshape.axes = #symshape.shape<[b]>})
func.func private @declaration(tensor<?xf32> {symshape.axes = #symshape.shape<[b]>})

// A function may let calls pad a declared axis (`symshape.bucket`), also one
// that appears only inside an expression.
// CHECK-LABEL: func.func @bucketed
// CHECK-SAME: attributes {symshape.bucket = ["batch", "n"]}
func.func @bucketed(%x: tensor<?x?xf32> {symshape.axes = #symshape.shape<[batch, 2 * n]>})
    attributes {symshape.bucket = ["batch", "n"]} {
  return
}

// Inference writes the value range of the fresh symbols a function's
// annotations mention (`symshape.ranges`): `[lo, hi]`, `hi` unknown when
// unbounded.
// CHECK-LABEL: func.func @ranges
// CHECK-SAME: attributes {symshape.ranges = {_d0 = #symshape.shape<[min(1, batch), max(1, batch)]>, _d3 = #symshape.shape<[0, ?]>}}
func.func @ranges()
    attributes {symshape.ranges = {_d0 = #symshape.shape<[min(1, batch), max(1, batch)]>,
                                   _d3 = #symshape.shape<[0, ?]>}} {
  return
}

// Comments around an expression are fine; only one inside it is rejected.
// CHECK-LABEL: func.func @comments
// CHECK-SAME: e = #symshape.expr<a + 1>
func.func @comments() attributes {e = // before
    #symshape.expr<a + 1> // after
} {
  return
}

// CHECK-LABEL: func.func @extent_type
// CHECK-SAME: !symshape.extent
func.func @extent_type(%e: !symshape.extent) -> !symshape.extent {
  return %e : !symshape.extent
}
