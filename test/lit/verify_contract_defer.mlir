// RUN: symshape-opt --split-input-file --symshape-infer-shapes --symshape-verify-contract=mode=defer --symshape-check-guarantees %s | FileCheck %s --check-prefix=DEFER

// In defer mode every violation becomes a runtime check (cf.assert) inserted
// before the consumer; the program itself is unchanged.

// In defer mode, a reshape over a stage-1 truncation gets a runtime check of
// its element count before the reshape.
// DEFER-LABEL: func.func @deferred_reshape
// DEFER: %[[T:.*]] = symshape.dynamic_truncate
// DEFER: %[[OK:.*]] = arith.cmpi eq
// DEFER: cf.assert %[[OK]], "symshape: check failed: reshape target extent 0 (symshape.reshape at {{.*}}verify_contract_defer.mlir:[[@LINE+5]]:{{[0-9]+}})"
// DEFER-NEXT: symshape.reshape %[[T]]
func.func @deferred_reshape(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>},
                            %n: tensor<i64>) -> tensor<?xf32> {
  %t = symshape.dynamic_truncate %x, %n axis 0 : (tensor<?x4xf32>, tensor<i64>) -> tensor<?x4xf32>
  %r = symshape.reshape %t to [dim(0, 0) * 4] : (tensor<?x4xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// A broadcast whose target reads a truncated axis: each input axis is checked
// to be 1 or the target extent.
// DEFER-LABEL: func.func @deferred_broadcast
// DEFER: %[[SAME:.*]] = arith.cmpi eq
// DEFER: %[[ONE:.*]] = arith.cmpi eq
// DEFER: %[[OK:.*]] = arith.ori %[[SAME]], %[[ONE]]
// DEFER: cf.assert %[[OK]], "symshape: check failed: broadcast_in_dim target extent 0 (symshape.broadcast_in_dim
// DEFER: symshape.broadcast_in_dim
func.func @deferred_broadcast(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>},
                              %n: tensor<i64>, %col: tensor<?x1xf32> {symshape.axes = #symshape.shape<[batch, 1]>})
    -> tensor<?x4xf32> {
  %t = symshape.dynamic_truncate %x, %n axis 0 : (tensor<?x4xf32>, tensor<i64>) -> tensor<?x4xf32>
  %b = symshape.broadcast_in_dim %col, %t dims [0, 1] to [dim(1, 0), 4] : (tensor<?x1xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %b : tensor<?x4xf32>
}

// -----

// A linalg.generic init sized by an upper bound is checked against the input
// axis it shares a loop with.
#id = affine_map<(d0, d1) -> (d0, d1)>
// DEFER-LABEL: func.func @deferred_generic_init
// DEFER: %[[T:.*]] = symshape.dynamic_truncate
// DEFER: %[[E:.*]] = tensor.empty
// DEFER: %[[DT:.*]] = tensor.dim %[[T]], %{{.*}}
// DEFER: %[[DE:.*]] = tensor.dim %[[E]]
// DEFER: %[[OK:.*]] = arith.cmpi eq, %[[DT]], %[[DE]]
// DEFER: cf.assert %[[OK]], "symshape: check failed: 'linalg.generic' loop d0: operand #0 axis 0 and operand #1 axis 0 are equal (linalg.generic
// DEFER-NEXT: linalg.generic
func.func @deferred_generic_init(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>},
                                 %n: tensor<i64>) -> tensor<?x4xf32> {
  %t = symshape.dynamic_truncate %x, %n axis 0 : (tensor<?x4xf32>, tensor<i64>) -> tensor<?x4xf32>
  %cap = symshape.bound %t, 0 : tensor<?x4xf32>
  %rows = symshape.to_index %cap
  %e = tensor.empty(%rows) : tensor<?x4xf32>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : tensor<?x4xf32>) outs(%e : tensor<?x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<?x4xf32>
  return %g : tensor<?x4xf32>
}

// -----

// A tensor.reshape whose shape holds an upper bound is checked by element count.
// DEFER-LABEL: func.func @deferred_tensor_reshape
// DEFER: tensor.extract %[[S:.*]][
// DEFER: cf.assert %{{.*}}, "symshape: check failed: reshape shape element 0 (tensor.reshape
// DEFER-NEXT: tensor.reshape %{{.*}}(%[[S]])
func.func @deferred_tensor_reshape(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>},
                                   %n: tensor<i64>) -> tensor<?x4xf32> {
  %t = symshape.dynamic_truncate %x, %n axis 0 : (tensor<?x4xf32>, tensor<i64>) -> tensor<?x4xf32>
  %c0 = arith.constant 0 : index
  %rows = tensor.dim %t, %c0 : tensor<?x4xf32>
  %c4 = arith.constant 4 : index
  %s = tensor.from_elements %rows, %c4 : tensor<2xindex>
  %r = tensor.reshape %t(%s) : (tensor<?x4xf32>, tensor<2xindex>) -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}

// -----

// An expand_shape whose output size is the bound of its truncated source:
// the output sizes are exact, and the equation between them and the source
// axis is an ordinary run-time check.
// DEFER-LABEL: func.func @deferred_expand_to_bound
// DEFER: %[[T:.*]] = symshape.dynamic_truncate
// DEFER: %[[CAP:.*]] = symshape.to_index
// DEFER: %[[ROWS:.*]] = tensor.dim %[[T]]
// DEFER: %[[OK:.*]] = arith.cmpi eq, %[[ROWS]], %{{.*}}
// DEFER: cf.assert %[[OK]], "symshape: check failed: source axis 0 and the product of result axes [0, 1] are equal (tensor.expand_shape
// DEFER-NEXT: tensor.expand_shape %[[T]] {{\[\[}}0, 1]] output_shape [%[[CAP]], 1]
func.func @deferred_expand_to_bound(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>},
                                    %k: tensor<i64>) -> tensor<?x1xf32> {
  %t = symshape.dynamic_truncate %x, %k axis 0 : (tensor<?xf32>, tensor<i64>) -> tensor<?xf32>
  %cap = symshape.bound %t, 0 : tensor<?xf32>
  %rows = symshape.to_index %cap
  %e = tensor.expand_shape %t [[0, 1]] output_shape [%rows, 1] : tensor<?xf32> into tensor<?x1xf32>
  return %e : tensor<?x1xf32>
}

// -----

// An output size of expand_shape known only as a bound: its group's
// equation is the check.
// DEFER-LABEL: func.func @deferred_expand_size
// DEFER: cf.assert %{{.*}}, "symshape: check failed: expand_shape output size 0 (tensor.expand_shape
// DEFER-NEXT: tensor.expand_shape
func.func @deferred_expand_size(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>},
                                %k: tensor<i64>) -> tensor<?x1xf32> {
  %t = symshape.dynamic_truncate %x, %k axis 0 : (tensor<?xf32>, tensor<i64>) -> tensor<?xf32>
  %c0 = arith.constant 0 : index
  %rows = tensor.dim %t, %c0 : tensor<?xf32>
  %e = tensor.expand_shape %t [[0, 1]] output_shape [%rows, 1] : tensor<?xf32> into tensor<?x1xf32>
  return %e : tensor<?x1xf32>
}

// -----

// The added axis of a linalg.broadcast sized by the truncated size: deferred,
// it needs no check (the op iterates over the init's own size).
// DEFER-LABEL: func.func @deferred_broadcast_init
// DEFER-NOT: cf.assert
// DEFER: linalg.broadcast
func.func @deferred_broadcast_init(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>},
                                   %n: tensor<i64>, %v: tensor<4xf32>) -> tensor<?x4xf32> {
  %t = symshape.dynamic_truncate %x, %n axis 0 : (tensor<?x4xf32>, tensor<i64>) -> tensor<?x4xf32>
  %c0 = arith.constant 0 : index
  %rows = tensor.dim %t, %c0 : tensor<?x4xf32>
  %e = tensor.empty(%rows) : tensor<?x4xf32>
  %b = linalg.broadcast ins(%v : tensor<4xf32>) outs(%e : tensor<?x4xf32>) dimensions = [0]
  return %b : tensor<?x4xf32>
}
