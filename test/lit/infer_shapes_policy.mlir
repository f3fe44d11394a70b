// RUN: symshape-opt --split-input-file --symshape-infer-shapes='policy=skip' %s | FileCheck %s --check-prefixes=CHECK,SKIP
// RUN: symshape-opt --split-input-file --symshape-infer-shapes='policy=override' %s | FileCheck %s --check-prefixes=CHECK,OVERRIDE
// RUN: symshape-opt --split-input-file --symshape-infer-shapes='policy=refine' %s | FileCheck %s --check-prefixes=CHECK,REFINE
// RUN: symshape-opt --split-input-file --symshape-infer-shapes %s | FileCheck %s --check-prefixes=CHECK,REFINE
// RUN: not symshape-opt --split-input-file --symshape-infer-shapes='policy=strict' %s 2>/dev/null | FileCheck %s --check-prefix=STRICT
// RUN: not symshape-opt --split-input-file --symshape-infer-shapes='policy=strict' %s 2>&1 >/dev/null | FileCheck %s --check-prefix=STRICT-ERROR

// Each case holds an op whose existing symshape.shape annotation differs
// from what inference finds. Annotations are output, never trusted input.
// The policies decide the text: skip leaves an existing annotation as
// written, override replaces it, refine keeps one more specific than
// inference (seed 001: a constant over a named axis over a fresh symbol) as
// a claim checked at run time, so later ops see it, and replaces the others
// (rejecting contradictions); strict rejects any annotation inference does
// not establish. Under strict, a case that fails prints nothing (its errors
// are checked on stderr).

// The annotation claims more than inference (`batch` against `_d0 - _d1`,
// a size read from a signed scalar argument, not a symbol it could name):
// skip leaves the text, the others replace it, strict rejects it; math.exp
// sees the inferred `_d0 - _d1` under every policy but skip's text.
// CHECK-LABEL: func.func @more_specific
func.func @more_specific(%t: tensor<i64>) -> tensor<?x4xf32> {
  %raw = tensor.extract %t[] : tensor<i64>
  %n = arith.index_cast %raw : i64 to index
  // SKIP: tensor.empty({{.*}}) {symshape.shape = #symshape.shape<[batch, 4]>}
  // OVERRIDE: tensor.empty({{.*}}) {symshape.shape = #symshape.shape<[_d0 - _d1, 4]>}
  // REFINE: tensor.empty({{.*}}) {symshape.shape = #symshape.shape<[_d0 - _d1, 4]>}
  // STRICT-ERROR: [[@LINE+1]]:8: error: result #0 dimension 0: annotation 'batch' does not follow from the inferred extent '_d0 - _d1' (policy=strict)
  %e = tensor.empty(%n) {symshape.shape = #symshape.shape<[batch, 4]>} : tensor<?x4xf32>
  // SKIP: math.exp {{.*}}{symshape.shape = #symshape.shape<[_d0 - _d1, 4]>}
  // OVERRIDE: math.exp {{.*}}{symshape.shape = #symshape.shape<[_d0 - _d1, 4]>}
  // REFINE: math.exp {{.*}}{symshape.shape = #symshape.shape<[_d0 - _d1, 4]>}
  %f = math.exp %e : tensor<?x4xf32>
  return %f : tensor<?x4xf32>
}

// -----

// The annotation is more specific than inference (`batch` against the fresh
// symbol of an unsigned cast): skip leaves the text, override replaces it,
// strict rejects it. Refine keeps it, and math.exp sees `batch`: no
// argument declares `batch`, so it is only a name for that size.
// CHECK-LABEL: func.func @names_a_fresh_symbol
func.func @names_a_fresh_symbol(%t: tensor<i64>) -> tensor<?x4xf32> {
  %raw = tensor.extract %t[] : tensor<i64>
  %n = arith.index_castui %raw : i64 to index
  // SKIP: tensor.empty({{.*}}) {symshape.shape = #symshape.shape<[batch, 4]>}
  // OVERRIDE: tensor.empty({{.*}}) {symshape.shape = #symshape.shape<[_d2, 4]>}
  // REFINE: tensor.empty({{.*}}) {symshape.shape = #symshape.shape<[batch, 4]>}
  // STRICT-ERROR: [[@LINE+1]]:8: error: result #0 dimension 0: annotation 'batch' does not follow from the inferred extent '_d2' (policy=strict)
  %e = tensor.empty(%n) {symshape.shape = #symshape.shape<[batch, 4]>} : tensor<?x4xf32>
  // SKIP: math.exp {{.*}}{symshape.shape = #symshape.shape<[_d2, 4]>}
  // OVERRIDE: math.exp {{.*}}{symshape.shape = #symshape.shape<[_d2, 4]>}
  // REFINE: math.exp {{.*}}{symshape.shape = #symshape.shape<[batch, 4]>}
  %f = math.exp %e : tensor<?x4xf32>
  return %f : tensor<?x4xf32>
}

// -----

// A more specific annotation over an axis an argument declares: refine keeps
// it as an equation checked right after the op (resolve_checks.mlir), and
// the axis adopts `batch`, as the addition with %x shows (no check there).
// CHECK-LABEL: func.func @more_specific_declared
func.func @more_specific_declared(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>},
                                  %t: tensor<i64>) -> tensor<?x4xf32> {
  %raw = tensor.extract %t[] : tensor<i64>
  %n = arith.index_cast %raw : i64 to index
  // REFINE: tensor.empty({{.*}}) {symshape.shape = #symshape.shape<[batch, 4]>}
  // STRICT-ERROR: [[@LINE+1]]:8: error: result #0 dimension 0: annotation 'batch' does not follow from the inferred extent '_d0 - _d1' (policy=strict)
  %e = tensor.empty(%n) {symshape.shape = #symshape.shape<[batch, 4]>} : tensor<?x4xf32>
  // REFINE: arith.addf {{.*}}{symshape.shape = #symshape.shape<[batch, 4]>}
  %f = arith.addf %e, %x : tensor<?x4xf32>
  return %f : tensor<?x4xf32>
}

// -----

// The annotation is less specific (`?`, or an upper bound inference
// improves on): skip leaves the text (math.tanh still sees the inferred
// extents); strict accepts it (it follows).
// CHECK-LABEL: func.func @less_specific
// STRICT-LABEL: func.func @less_specific
func.func @less_specific(%x: tensor<?x?xf32> {symshape.axes = #symshape.shape<[batch, seq]>})
    -> tensor<?x?xf32> {
  // SKIP: math.exp {{.*}}{symshape.shape = #symshape.shape<[?, ub(2 * seq)]>}
  // OVERRIDE: math.exp {{.*}}{symshape.shape = #symshape.shape<[batch, seq]>}
  // REFINE: math.exp {{.*}}{symshape.shape = #symshape.shape<[batch, seq]>}
  // STRICT: math.exp {{.*}}{symshape.shape = #symshape.shape<[batch, seq]>}
  %e = math.exp %x {symshape.shape = #symshape.shape<[?, ub(2 * seq)]>} : tensor<?x?xf32>
  // SKIP: math.tanh {{.*}}{symshape.shape = #symshape.shape<[batch, seq]>}
  // OVERRIDE: math.tanh {{.*}}{symshape.shape = #symshape.shape<[batch, seq]>}
  // REFINE: math.tanh {{.*}}{symshape.shape = #symshape.shape<[batch, seq]>}
  // STRICT: math.tanh {{.*}}{symshape.shape = #symshape.shape<[batch, seq]>}
  %t = math.tanh %e : tensor<?x?xf32>
  return %t : tensor<?x?xf32>
}

// -----

// Two different exact extents that the provers cannot tell apart: skip
// leaves the text, refine and override write the inferred one (no
// contradiction is proven), strict rejects the annotation.
// CHECK-LABEL: func.func @undecided
func.func @undecided(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[batch]>}) -> tensor<?xf32> {
  // SKIP: math.exp {{.*}}{symshape.shape = #symshape.shape<[seq]>}
  // OVERRIDE: math.exp {{.*}}{symshape.shape = #symshape.shape<[batch]>}
  // REFINE: math.exp {{.*}}{symshape.shape = #symshape.shape<[batch]>}
  // STRICT-ERROR: [[@LINE+1]]:8: error: result #0 dimension 0: annotation 'seq' does not follow from the inferred extent 'batch' (policy=strict)
  %e = math.exp %x {symshape.shape = #symshape.shape<[seq]>} : tensor<?xf32>
  return %e : tensor<?xf32>
}

// -----

// The annotation agrees with inference: every policy gives the same result.
// CHECK-LABEL: func.func @agreeing
// STRICT-LABEL: func.func @agreeing
func.func @agreeing(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[batch]>}) -> tensor<?xf32> {
  // CHECK: math.exp {{.*}}{symshape.shape = #symshape.shape<[batch]>}
  // STRICT: math.exp {{.*}}{symshape.shape = #symshape.shape<[batch]>}
  %e = math.exp %x {symshape.shape = #symshape.shape<[batch]>} : tensor<?xf32>
  return %e : tensor<?xf32>
}
