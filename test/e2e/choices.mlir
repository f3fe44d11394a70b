// Choices between tensors of different run-time sizes, a loop starting
// from a slice while another result copies the whole input, an insertion
// into a tensor a loop starts from, two insertions into copies that CSE
// makes one, equal sums beside their operand, a loop adding a slice at a
// run-time offset, a matmul of a choice (of a tensor or a view) by one of
// the tensors chosen from, a loop result reshaped to a size that folds to
// a constant, two choices on one condition,
// a returned choice a second choice reads,
// and reshaped ones read before, in and after a loop: IREE 3.13
// miscompiles or rejects each in plain upstream form
// (symshape-resolve{target=iree} shields them; see
// python/symshape_mlir/lowering/iree/).
// Reference: `x if k > 0 else y` for @choose and @branch; `y` and
// `(k + 1) * y[:, :cols // 2]` for @loop_from_slice; `ones(x.shape)` and
// `(k + 1) * ones(x.shape)` for @insert_beside_loop; `y` with `a` over its
// first row, `y` with `b` over its last row and `(k + 1) * y` for
// @inserts_into_one_copy; `2 * v`, `3 * v` and `3 * v` for
// @sums_beside_their_operand; `(k + 1) * y[at : at + rows // 2]` for
// @loop_over_offset_slice; `(x if k > 0 else 2 * y) @ (2 * y)` for
// @choose_into_matmul; `(v.reshape(m, m) if k > 0 else 2 * y) @ (2 * y)`
// for @view_into_matmul; `(k + 1) * y` flattened and transposed for
// @reshaped_loop_result; `y` and `y if k > 0 else x` for
// @choices_on_one_condition; `full((rows * cols // 2, 2), k + 3)` for
// @ones_around_a_loop; `x[:max(t, 0)]`, `c`, `c if k > 2 else x[:max(t, 0)]`
// with `c = x if k > 2 else x[:max(t, 0)]` for @returned_choice_read_again.

// A scalar-condition select: the whole of %x or the whole of %y.
func.func @choose(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>},
                  %y: tensor<?xf32> {symshape.axes = #symshape.shape<[m]>},
                  %k: tensor<i64>) -> tensor<?xf32> {
  %zero = arith.constant 0 : i64
  %kv = tensor.extract %k[] : tensor<i64>
  %c = arith.cmpi sgt, %kv, %zero : i64
  %r = arith.select %c, %x, %y : tensor<?xf32>
  return %r : tensor<?xf32>
}

// The same choice as a branch (canonicalize folds it into the select above).
func.func @branch(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>},
                  %y: tensor<?xf32> {symshape.axes = #symshape.shape<[m]>},
                  %k: tensor<i64>) -> tensor<?xf32> {
  %zero = arith.constant 0 : i64
  %kv = tensor.extract %k[] : tensor<i64>
  %c = arith.cmpi sgt, %kv, %zero : i64
  %r = scf.if %c -> (tensor<?xf32>) {
    scf.yield %x : tensor<?xf32>
  } else {
    scf.yield %y : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}

// %full copies %y; the loop starts from a copy of its left half and adds the
// half %k times.
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @loop_from_slice(%y: tensor<?x?xf32> {symshape.axes = #symshape.shape<[rows, cols]>},
                           %k: tensor<i64>) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %rows = tensor.dim %y, %c0 : tensor<?x?xf32>
  %cols = tensor.dim %y, %c1 : tensor<?x?xf32>
  %half = arith.floordivsi %cols, %c2 : index
  %slice = tensor.extract_slice %y[0, 0] [%rows, %half] [1, 1]
      : tensor<?x?xf32> to tensor<?x?xf32>
  %full_init = tensor.empty(%rows, %cols) : tensor<?x?xf32>
  %full = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<?x?xf32>) outs(%full_init : tensor<?x?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = arith.addf %in, %zero : f32
    linalg.yield %v : f32
  } -> tensor<?x?xf32>
  %init = tensor.empty(%rows, %half) : tensor<?x?xf32>
  %copy = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%slice : tensor<?x?xf32>) outs(%init : tensor<?x?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = arith.addf %in, %zero : f32
    linalg.yield %v : f32
  } -> tensor<?x?xf32>
  %kv = tensor.extract %k[] : tensor<i64>
  %trips = arith.index_cast %kv : i64 to index
  %sum = scf.for %i = %c0 to %trips step %c1 iter_args(%acc = %copy) -> (tensor<?x?xf32>) {
    %next = arith.addf %acc, %slice : tensor<?x?xf32>
    scf.yield %next : tensor<?x?xf32>
  }
  return %full, %sum : tensor<?x?xf32>, tensor<?x?xf32>
}

// %ins writes %ones over a copy of itself while a loop starts from that
// copy and adds %ones %k times.
func.func @insert_beside_loop(%x: tensor<?x?xf32> {symshape.axes = #symshape.shape<[rows, cols]>},
                              %k: tensor<i64>) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = tensor.dim %x, %c0 : tensor<?x?xf32>
  %cols = tensor.dim %x, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%rows, %cols) : tensor<?x?xf32>
  %ones = linalg.fill ins(%one : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %init = tensor.empty(%rows, %cols) : tensor<?x?xf32>
  %copy = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%ones : tensor<?x?xf32>) outs(%init : tensor<?x?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = arith.addf %in, %zero : f32
    linalg.yield %v : f32
  } -> tensor<?x?xf32>
  %ins = tensor.insert_slice %ones into %copy[0, 0] [%rows, %cols] [1, 1]
      : tensor<?x?xf32> into tensor<?x?xf32>
  %kv = tensor.extract %k[] : tensor<i64>
  %trips = arith.index_cast %kv : i64 to index
  %sum = scf.for %i = %c0 to %trips step %c1 iter_args(%acc = %copy) -> (tensor<?x?xf32>) {
    %next = arith.addf %acc, %ones : tensor<?x?xf32>
    scf.yield %next : tensor<?x?xf32>
  }
  return %ins, %sum : tensor<?x?xf32>, tensor<?x?xf32>
}

// Three equal copies of %y (CSE makes them one): a row of %a inserted into
// the first, a row of %b into the second, a loop from the third. (Its own
// axis names: the others' bindings have rows = 0, which leaves no row.)
func.func @inserts_into_one_copy(%y: tensor<?x?xf32> {symshape.axes = #symshape.shape<[h, w]>},
                                 %a: tensor<1x?xf32> {symshape.axes = #symshape.shape<[1, w]>},
                                 %b: tensor<1x?xf32> {symshape.axes = #symshape.shape<[1, w]>},
                                 %k: tensor<i64>)
    -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = tensor.dim %y, %c0 : tensor<?x?xf32>
  %cols = tensor.dim %y, %c1 : tensor<?x?xf32>
  %last = arith.subi %rows, %c1 : index
  %e1 = tensor.empty(%rows, %cols) : tensor<?x?xf32>
  %copy1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<?x?xf32>) outs(%e1 : tensor<?x?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = arith.addf %in, %zero : f32
    linalg.yield %v : f32
  } -> tensor<?x?xf32>
  %ins_a = tensor.insert_slice %a into %copy1[0, 0] [1, %cols] [1, 1]
      : tensor<1x?xf32> into tensor<?x?xf32>
  %e2 = tensor.empty(%rows, %cols) : tensor<?x?xf32>
  %copy2 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<?x?xf32>) outs(%e2 : tensor<?x?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = arith.addf %in, %zero : f32
    linalg.yield %v : f32
  } -> tensor<?x?xf32>
  %ins_b = tensor.insert_slice %b into %copy2[%last, 0] [1, %cols] [1, 1]
      : tensor<1x?xf32> into tensor<?x?xf32>
  %e3 = tensor.empty(%rows, %cols) : tensor<?x?xf32>
  %copy3 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<?x?xf32>) outs(%e3 : tensor<?x?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = arith.addf %in, %zero : f32
    linalg.yield %v : f32
  } -> tensor<?x?xf32>
  %kv = tensor.extract %k[] : tensor<i64>
  %trips = arith.index_cast %kv : i64 to index
  %sum = scf.for %i = %c0 to %trips step %c1 iter_args(%acc = %copy3) -> (tensor<?x?xf32>) {
    %next = arith.addf %acc, %y : tensor<?x?xf32>
    scf.yield %next : tensor<?x?xf32>
  }
  return %ins_a, %ins_b, %sum : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>
}

// 2v, v + 2v, and v + 2v again as a linalg.map with its operands swapped.
func.func @sums_beside_their_operand(%v: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>})
    -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %two = arith.addf %v, %v : tensor<?xf32>
  %three = arith.addf %v, %two : tensor<?xf32>
  %n = tensor.dim %v, %c0 : tensor<?xf32>
  %init = tensor.empty(%n) : tensor<?xf32>
  %also = linalg.map { arith.addf } ins(%two, %v : tensor<?xf32>, tensor<?xf32>)
      outs(%init : tensor<?xf32>)
  return %two, %three, %also : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>
}

// A loop that starts from the top half of %y's rows from row %at on (%at in
// [0, rows - rows / 2]) and adds that slice %k times.
func.func @loop_over_offset_slice(%y: tensor<?x2xf32> {symshape.axes = #symshape.shape<[rows, 2]>},
                                  %at: tensor<i64>, %k: tensor<i64>) -> tensor<?x2xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %rows = tensor.dim %y, %c0 : tensor<?x2xf32>
  %half = arith.floordivsi %rows, %c2 : index
  %atv = tensor.extract %at[] : tensor<i64>
  %start = arith.index_cast %atv : i64 to index
  %slice = tensor.extract_slice %y[%start, 0] [%half, 2] [1, 1] : tensor<?x2xf32> to tensor<?x2xf32>
  %kv = tensor.extract %k[] : tensor<i64>
  %trips = arith.index_cast %kv : i64 to index
  %sum = scf.for %i = %c0 to %trips step %c1 iter_args(%acc = %slice) -> (tensor<?x2xf32>) {
    %next = arith.addf %acc, %slice : tensor<?x2xf32>
    scf.yield %next : tensor<?x2xf32>
  }
  return %sum : tensor<?x2xf32>
}

// A matmul of a choice between %x and 2 * %y by 2 * %y (a square %y; IREE
// once put the select it made of the branch between the dispatch of 2 * %y
// and the matmul's, in one partition).
func.func @choose_into_matmul(%x: tensor<?x?xf32> {symshape.axes = #symshape.shape<[n, m]>},
                              %y: tensor<?x?xf32> {symshape.axes = #symshape.shape<[m, m]>},
                              %k: tensor<i64>) -> tensor<?x?xf32> {
  %zero = arith.constant 0 : i64
  %f0 = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %twice = arith.addf %y, %y : tensor<?x?xf32>
  %kv = tensor.extract %k[] : tensor<i64>
  %c = arith.cmpi sgt, %kv, %zero : i64
  %lhs = scf.if %c -> (tensor<?x?xf32>) {
    scf.yield %x : tensor<?x?xf32>
  } else {
    scf.yield %twice : tensor<?x?xf32>
  }
  %rows = tensor.dim %lhs, %c0 : tensor<?x?xf32>
  %cols = tensor.dim %y, %c1 : tensor<?x?xf32>
  %init = tensor.empty(%rows, %cols) : tensor<?x?xf32>
  %zeros = linalg.fill ins(%f0 : f32) outs(%init : tensor<?x?xf32>) -> tensor<?x?xf32>
  %mm = linalg.matmul ins(%lhs, %twice : tensor<?x?xf32>, tensor<?x?xf32>)
      outs(%zeros : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %mm : tensor<?x?xf32>
}

// The same with a view of %v in the first branch: IREE makes views metadata
// on the buffer, so this branch chooses as much as the one above.
func.func @view_into_matmul(%v: tensor<?xf32> {symshape.axes = #symshape.shape<[m * m]>},
                            %y: tensor<?x?xf32> {symshape.axes = #symshape.shape<[m, m]>},
                            %k: tensor<i64>) -> tensor<?x?xf32> {
  %zero = arith.constant 0 : i64
  %f0 = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %twice = arith.addf %y, %y : tensor<?x?xf32>
  %kv = tensor.extract %k[] : tensor<i64>
  %c = arith.cmpi sgt, %kv, %zero : i64
  %m = tensor.dim %y, %c0 : tensor<?x?xf32>
  %lhs = scf.if %c -> (tensor<?x?xf32>) {
    %square = tensor.expand_shape %v [[0, 1]] output_shape [%m, %m]
        : tensor<?xf32> into tensor<?x?xf32>
    scf.yield %square : tensor<?x?xf32>
  } else {
    scf.yield %twice : tensor<?x?xf32>
  }
  %init = tensor.empty(%m, %m) : tensor<?x?xf32>
  %zeros = linalg.fill ins(%f0 : f32) outs(%init : tensor<?x?xf32>) -> tensor<?x?xf32>
  %mm = linalg.matmul ins(%lhs, %twice : tensor<?x?xf32>, tensor<?x?xf32>)
      outs(%zeros : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %mm : tensor<?x?xf32>
}

// A loop result reshaped to the size of a one-element slice (a size that
// folds to 1 only once the slice is cast back) and also transposed. (Its own
// axis names: p * q must be 1, which the others' bindings are not.)
func.func @reshaped_loop_result(%y: tensor<?x?xf32> {symshape.axes = #symshape.shape<[p, q]>},
                                %v: tensor<?xf32> {symshape.axes = #symshape.shape<[q]>},
                                %k: tensor<i64>) -> (tensor<?xf32>, tensor<?x?xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = tensor.extract_slice %v[0] [1] [1] : tensor<?xf32> to tensor<1xf32>
  %unit = tensor.cast %one : tensor<1xf32> to tensor<?xf32>
  %rows = tensor.dim %y, %c0 : tensor<?x?xf32>
  %cols = tensor.dim %y, %c1 : tensor<?x?xf32>
  %init = tensor.empty(%rows, %cols) : tensor<?x?xf32>
  %copy = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<?x?xf32>) outs(%init : tensor<?x?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %zero : f32
    linalg.yield %s : f32
  } -> tensor<?x?xf32>
  %kv = tensor.extract %k[] : tensor<i64>
  %trips = arith.index_cast %kv : i64 to index
  %sum = scf.for %i = %c0 to %trips step %c1 iter_args(%acc = %copy) -> (tensor<?x?xf32>) {
    %next = arith.addf %acc, %y : tensor<?x?xf32>
    scf.yield %next : tensor<?x?xf32>
  }
  %flat = symshape.reshape %sum, %unit to [dim(1, 0)] : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %tinit = tensor.empty(%cols, %rows) : tensor<?x?xf32>
  %t = linalg.transpose ins(%sum : tensor<?x?xf32>) outs(%tinit : tensor<?x?xf32>) permutation = [1, 0]
  return %flat, %t : tensor<?xf32>, tensor<?x?xf32>
}

// Two branches on one condition, the first choosing %y either way, the
// second %y or %x (IREE merges the branches; the merged first branch must
// not yield one tensor for both results).
func.func @choices_on_one_condition(%x: tensor<?x?xf32> {symshape.axes = #symshape.shape<[r, c]>},
                                    %y: tensor<?x?xf32> {symshape.axes = #symshape.shape<[r, c]>},
                                    %k: tensor<i64>) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %zero = arith.constant 0 : i64
  %kv = tensor.extract %k[] : tensor<i64>
  %c = arith.cmpi sgt, %kv, %zero : i64
  %a = scf.if %c -> (tensor<?x?xf32>) {
    scf.yield %y : tensor<?x?xf32>
  } else {
    scf.yield %y : tensor<?x?xf32>
  }
  %b = scf.if %c -> (tensor<?x?xf32>) {
    scf.yield %y : tensor<?x?xf32>
  } else {
    scf.yield %x : tensor<?x?xf32>
  }
  return %a, %b : tensor<?x?xf32>, tensor<?x?xf32>
}

// Ones reshaped into pairs at run-time sizes (IREE makes them a splat), read
// before a loop, in its body and after it.
func.func @ones_around_a_loop(%x: tensor<?x?xf32> {symshape.axes = #symshape.shape<[rows, cols]>},
                              %k: tensor<i64>) -> tensor<?x2xf32> {
  %one = arith.constant 1.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %rows = tensor.dim %x, %c0 : tensor<?x?xf32>
  %cols = tensor.dim %x, %c1 : tensor<?x?xf32>
  %init = tensor.empty(%rows, %cols) : tensor<?x?xf32>
  %ones = linalg.fill ins(%one : f32) outs(%init : tensor<?x?xf32>) -> tensor<?x?xf32>
  %numel = arith.muli %rows, %cols : index
  %half = arith.divsi %numel, %c2 : index
  %h64 = arith.index_cast %half : index to i64
  %two64 = arith.index_cast %c2 : index to i64
  %shape = tensor.from_elements %h64, %two64 : tensor<2xi64>
  %pairs = tensor.reshape %ones(%shape) : (tensor<?x?xf32>, tensor<2xi64>) -> tensor<?x2xf32>
  %start = arith.addf %pairs, %pairs : tensor<?x2xf32>
  %kv = tensor.extract %k[] : tensor<i64>
  %trips = arith.index_cast %kv : i64 to index
  %sum = scf.for %i = %c0 to %trips step %c1 iter_args(%acc = %start) -> (tensor<?x2xf32>) {
    %next = arith.addf %acc, %pairs : tensor<?x2xf32>
    scf.yield %next : tensor<?x2xf32>
  }
  %total = arith.addf %pairs, %sum : tensor<?x2xf32>
  return %total : tensor<?x2xf32>
}

// A choice the function returns that a second choice on the same condition
// reads again, one branch an empty truncation (fuzzer p104004389): IREE 3.13
// exported the first choice in a buffer sized by its empty branch.
func.func @returned_choice_read_again(
    %x: tensor<?x?xf32> {symshape.axes = #symshape.shape<[a, b]>},
    %t: tensor<i32>, %k: tensor<i64>) -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) {
  %head = symshape.dynamic_truncate %x, %t axis 0 stage exact
      : (tensor<?x?xf32>, tensor<i32>) -> tensor<?x?xf32>
  %kv = tensor.extract %k[] : tensor<i64>
  %two = arith.constant 2 : i64
  %c = arith.cmpi sgt, %kv, %two : i64
  %first = scf.if %c -> (tensor<?x?xf32>) {
    scf.yield %x : tensor<?x?xf32>
  } else {
    scf.yield %head : tensor<?x?xf32>
  }
  %second = scf.if %c -> (tensor<?x?xf32>) {
    scf.yield %first : tensor<?x?xf32>
  } else {
    scf.yield %head : tensor<?x?xf32>
  }
  return %head, %first, %second : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>
}
