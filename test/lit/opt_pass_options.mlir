// RUN: symshape-opt %s --symshape-strip-annotations --canonicalize='max-iterations=1 test-convergence=false' --cse | FileCheck %s
// RUN: symshape-opt %s --pass-pipeline='builtin.module(symshape-strip-annotations,func.func(canonicalize{max-iterations=1}),cse)' | FileCheck %s
// RUN: symshape-opt %s --symshape-strip-annotations --canonicalize --mlir-print-ir-after-all 2>&1 >/dev/null | FileCheck %s --check-prefix=ORDER
// RUN: symshape-opt %s --canonicalize --symshape-strip-annotations --mlir-print-ir-after-all 2>&1 >/dev/null | FileCheck %s --check-prefix=REVERSED
// RUN: not symshape-opt %s --canonicalize='max-iterations=abc' 2>&1 | FileCheck %s --check-prefix=BAD-VALUE
// RUN: not symshape-opt %s --canonicalize='no-such-option=1' 2>&1 | FileCheck %s --check-prefix=BAD-UPSTREAM-OPTION
// RUN: not symshape-opt %s --symshape-strip-annotations='no-such-option=1' 2>&1 | FileCheck %s --check-prefix=BAD-OPTION
// RUN: not symshape-opt %s --pass-pipeline='builtin.module(func.func(symshape-strip-annotations))' 2>&1 | FileCheck %s --check-prefix=NESTED

// Pass flags and --pass-pipeline mix symshape and upstream passes, with
// options, in the order given.
// CHECK-LABEL: func.func @fold
// CHECK-NEXT:    %[[C:.*]] = arith.constant 3 : index
// CHECK-NEXT:    return %[[C]], %[[C]] : index, index
func.func @fold() -> (index, index) {
  %c1 = arith.constant {symshape.shape = #symshape.shape<[]>} 1 : index
  %c2 = arith.constant 2 : index
  %0 = arith.addi %c1, %c2 : index
  %1 = arith.addi %c1, %c2 : index
  return %0, %1 : index, index
}

// ORDER:      IR Dump After StripAnnotations (symshape-strip-annotations)
// ORDER:      IR Dump After Canonicalizer (canonicalize)
// REVERSED:   IR Dump After Canonicalizer (canonicalize)
// REVERSED:   IR Dump After StripAnnotations (symshape-strip-annotations)

// BAD-VALUE: symshape-opt: error: for the --max-iterations option: 'abc' value invalid for long argument!; failed to add `canonicalize` with options `max-iterations=abc`
// BAD-UPSTREAM-OPTION: symshape-opt: error: {{.*}}no such option no-such-option
// BAD-OPTION: symshape-opt: error: symshape-strip-annotations: unknown option 'no-such-option' (options of this pass: none)
// NESTED: symshape-opt: error: 'symshape-strip-annotations' runs on the top-level 'builtin.module' and cannot be nested under 'func.func'
