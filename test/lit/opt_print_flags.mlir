// RUN: symshape-opt --mlir-print-op-generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: symshape-opt --mlir-print-op-generic %s | symshape-opt | FileCheck %s --check-prefix=OUTPUT
// RUN: symshape-opt --mlir-print-debuginfo %s | FileCheck %s --check-prefix=DEBUGINFO
// RUN: symshape-opt %s -o %t && FileCheck %s --check-prefix=OUTPUT < %t
// RUN: symshape-opt %s | symshape-opt | FileCheck %s --check-prefix=OUTPUT

// Several top-level operations go in an implicit module located at
// file:0:0; aliases, symshape ops and locations survive; printing follows
// the flags.

// GENERIC: "builtin.module"() ({
// GENERIC: "func.func"() <{function_type = (index) -> index, sym_name = "first"}>
// GENERIC: "symshape.dim"(%{{.*}}) <{axis = 0 : i64}> : (tensor<?xf32>) -> !symshape.extent

// DEBUGINFO-DAG: #[[MODULE:loc[0-9]*]] = loc("{{.*}}opt_print_flags.mlir":0:0)
// DEBUGINFO-DAG: loc("{{.*}}opt_print_flags.mlir":[[@LINE+8]]:1)
// DEBUGINFO-DAG: loc("{{.*}}opt_print_flags.mlir":[[@LINE+8]]:3)

// OUTPUT-LABEL: func.func @first
// OUTPUT-LABEL: func.func @second
// OUTPUT:         affine.apply #{{.*}}(%{{.*}})
// OUTPUT-LABEL: func.func @extent
// OUTPUT:         symshape.dim %{{.*}}, 0 : tensor<?xf32>
func.func @first(%n: index) -> index {
  return %n : index
}
#map = affine_map<(d0) -> (d0 + 1)>
func.func @second(%n: index) -> index {
  %0 = affine.apply #map(%n)
  return %0 : index
}
func.func @extent(%t: tensor<?xf32>) -> !symshape.extent {
  %0 = symshape.dim %t, 0 : tensor<?xf32>
  return %0 : !symshape.extent
}
