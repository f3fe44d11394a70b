// RUN: not symshape-opt %s --no-such-pass 2>&1 | FileCheck %s --check-prefix=FLAG
// RUN: not symshape-opt %s --split-inptu-file 2>&1 | FileCheck %s --check-prefix=TYPO
// RUN: not symshape-opt %s --pass-pipeline='builtin.module(cse,no-such-pass)' 2>&1 | FileCheck %s --check-prefix=PIPELINE
// RUN: not symshape-opt %s --pass-pipeline='builtin.module(cse' 2>&1 | FileCheck %s --check-prefix=MALFORMED
// RUN: not symshape-opt %s --pass-pipeline='func.func(cse)' 2>&1 | FileCheck %s --check-prefix=ANCHOR
// RUN: not symshape-opt %s --pass-pipeline='builtin.module(cse)' --canonicalize 2>&1 | FileCheck %s --check-prefix=BOTH
// RUN: not symshape-opt %s --split-input-file=yes 2>&1 | FileCheck %s --check-prefix=FLAG-VALUE
// RUN: not symshape-opt %s --verify-diagnostics=some 2>&1 | FileCheck %s --check-prefix=LEVEL
// RUN: not symshape-opt %s %s 2>&1 | FileCheck %s --check-prefix=TWO-INPUTS

// Unknown passes and malformed pipelines are reported before anything runs,
// with exit status 1 and no output.

// FLAG: symshape-opt: error: unknown command line argument '--no-such-pass': neither an option of symshape-opt nor a registered pass
// TYPO: symshape-opt: error: unknown command line argument '--split-inptu-file'
// PIPELINE: symshape-opt: error: 'no-such-pass' does not refer to a registered pass or pass pipeline
// MALFORMED: symshape-opt: error: invalid pass pipeline 'builtin.module(cse': expected ',' or ')' in the pipeline nested on 'builtin.module' at column 19
// ANCHOR: symshape-opt: error: pass pipeline 'func.func(cse)' must be anchored on 'builtin.module', not 'func.func'
// BOTH: symshape-opt: error: --pass-pipeline cannot be combined with pass flags (--canonicalize)
// FLAG-VALUE: symshape-opt: error: option '--split-input-file' takes no value
// LEVEL: symshape-opt: error: argument --verify-diagnostics: invalid choice: 'some'
// TWO-INPUTS: symshape-opt: error: unrecognized arguments
func.func @f() {
  return
}
