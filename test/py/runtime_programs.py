"""Symshape programs shared by the runtime tests."""

from __future__ import annotations

ADD = """
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @add(%a: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>},
               %b: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>})
    -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x4xf32>
  %init = tensor.empty(%n) : tensor<?x4xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<?x4xf32>, tensor<?x4xf32>) outs(%init : tensor<?x4xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}
"""

MATMUL_FLAT = """
func.func @mm(%a: tensor<?x?xf32> {symshape.axes = #symshape.shape<[m, k]>},
              %b: tensor<?x?xf32> {symshape.axes = #symshape.shape<[k, n]>}) -> tensor<?xf32> {
  %zero = arith.constant 0.0 : f32
  %m = symshape.dim %a, 0 : tensor<?x?xf32>
  %n = symshape.dim %b, 1 : tensor<?x?xf32>
  %mi = symshape.to_index %m
  %ni = symshape.to_index %n
  %e = tensor.empty(%mi, %ni) : tensor<?x?xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %p = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>)
                     outs(%f : tensor<?x?xf32>) -> tensor<?x?xf32>
  %flat = symshape.reshape %p to [m * n] : (tensor<?x?xf32>) -> tensor<?xf32>
  return %flat : tensor<?xf32>
}
"""

# The result size is a function argument: planned from the scalar's value.
FILL = """
func.func @fill(%n: index, %v: f32) -> tensor<?xf32> {
  %e = tensor.empty(%n) : tensor<?xf32>
  %f = linalg.fill ins(%v : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  return %f : tensor<?xf32>
}
"""

# The result size is read from a tensor's element inside the function: it
# cannot be known on the host before the call.
FROM_DATA = """
func.func @from_data(%sizes: tensor<2xi64>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %squares = arith.muli %sizes, %sizes : tensor<2xi64>
  %e = tensor.extract %squares[%c0] : tensor<2xi64>
  %k = arith.index_cast %e : i64 to index
  %t = tensor.empty(%k) : tensor<?xf32>
  %f = linalg.fill ins(%zero : f32) outs(%t : tensor<?xf32>) -> tensor<?xf32>
  return %f : tensor<?xf32>
}
"""

STATIC = """
#id = affine_map<(d0) -> (d0)>
func.func @scale(%a: tensor<8xf32>, %s: f32) -> tensor<8xf32> {
  %init = tensor.empty() : tensor<8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<8xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%x: f32, %out: f32):
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}
"""
