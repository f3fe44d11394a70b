// RUN: symshape-opt --split-input-file --symshape-infer-shapes --symshape-resolve=target=iree %s | FileCheck %s

// IREE 3.13 can give a loop's initial tensor the buffer of another result
// of the same dispatch group; behind a barrier it keeps its own. Its size
// is an opaque copy: IREE renumbers a dispatch's second copy of one size
// (here the carried tensor's and %a's) as its first workload.
// CHECK-LABEL: func.func @loop
// CHECK-SAME:    (%[[A:[^:]*]]: tensor<?xf32>, %[[K:[^:]*]]: index)
// CHECK:         %[[D:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<?xf32>
// CHECK:         %[[S:.*]] = "util.optimization_barrier"(%[[D]]) : (index) -> index
// CHECK:         %[[BA:.*]] = "util.optimization_barrier"(%[[A]]) : (tensor<?xf32>) -> tensor<?xf32>
// CHECK:         %[[T:.*]] = "flow.tensor.tie_shape"(%[[BA]], %[[S]]) : (tensor<?xf32>, index) -> tensor<?xf32>
// CHECK:         %[[R:.*]] = scf.for %{{.*}} = %{{.*}} to %[[K]] step %{{.*}} iter_args(%{{.*}} = %[[T]]) -> (tensor<?xf32>)
// CHECK:           arith.addf %{{.*}}, %[[A]] : tensor<?xf32>
// The barrier hides the start's size: the result, proved the same size, is
// tied to it.
// CHECK:         %[[TR:.*]] = "flow.tensor.tie_shape"(%[[R]], %[[S]]) : (tensor<?xf32>, index) -> tensor<?xf32>
// CHECK:         return %[[TR]]
func.func @loop(%a: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>}, %k: index) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %k step %c1 iter_args(%acc = %a) -> (tensor<?xf32>) {
    %s = arith.addf %acc, %a : tensor<?xf32>
    scf.yield %s : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}

// -----

// A fill a loop body reads from outside and that is read outside the loop
// too: IREE 3.13 clones the splat it makes of it into the partitions around
// the loop and leaves the original, read in the body, outside any. Every
// reader reads it through a barrier made right after it; other tensors (%a)
// are read as they are.
// CHECK-LABEL: func.func @captured_fill
// CHECK-SAME:    (%[[A:[^:]*]]: tensor<?xf32>, %[[K:[^:]*]]: index)
// CHECK:         %[[ONES:.*]] = linalg.fill
// CHECK:         %[[D:.*]] = tensor.dim %[[ONES]], %{{.*}} : tensor<?xf32>
// CHECK:         %[[B:.*]] = "util.optimization_barrier"(%[[ONES]]) : (tensor<?xf32>) -> tensor<?xf32>
// CHECK:         %[[T:.*]] = "flow.tensor.tie_shape"(%[[B]], %[[D]]) : (tensor<?xf32>, index) -> tensor<?xf32>
// CHECK:         scf.for
// CHECK:           %[[S:.*]] = arith.addf %{{.*}}, %[[T]] : tensor<?xf32>
// CHECK:           arith.addf %[[S]], %[[A]] : tensor<?xf32>
// CHECK:         %[[O:.*]] = arith.addf %{{.*}}, %[[T]] : tensor<?xf32>
// CHECK:         %[[P:.*]] = arith.addf %[[O]], %[[A]] : tensor<?xf32>
// CHECK:         return %[[P]]
func.func @captured_fill(%a: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>}, %k: index) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %ones = linalg.fill ins(%one : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %r = scf.for %i = %c0 to %k step %c1 iter_args(%acc = %a) -> (tensor<?xf32>) {
    %s = arith.addf %acc, %ones : tensor<?xf32>
    %t = arith.addf %s, %a : tensor<?xf32>
    scf.yield %t : tensor<?xf32>
  }
  %o = arith.addf %r, %ones : tensor<?xf32>
  %p = arith.addf %o, %a : tensor<?xf32>
  return %p : tensor<?xf32>
}
