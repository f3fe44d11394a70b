// A self-attention block in plain upstream dialects, with every reshape
// written the way ONNX exporters write it: the shape is a tensor of i64
// whose `-1` entry is computed at run time as
// `numel divsi product(entries != -1)` (selected with `arith.select`).
// symshape-to-iree proves every element count (an exact division by a
// symbolic product cancels: `(768 * b * s) floordiv (768 * b) = s`) and
// guards each division: at batch 0 the `-1` of a head split is 0 / 0 and
// the call fails with a clean error instead of a SIGFPE.
//
// Reference: per batch, q = x wq, k = x wk, v = x wv split into 4 heads of
// 16, softmax(q k^T / 4) v, heads merged, projected by wo, plus x.
// Bindings: batch, seq.
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row3 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @attention_onnx(%x: tensor<?x?x64xf32> {symshape.axes = #symshape.shape<[batch, seq, 64]>},
                          %wq: tensor<64x64xf32>, %wk: tensor<64x64xf32>,
                          %wv: tensor<64x64xf32>, %wo: tensor<64x64xf32>)
    -> tensor<?x?x64xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant -1.0e30 : f32
  %scale = arith.constant 0.25 : f32
  %c1 = arith.constant 0 : index
  %d2 = tensor.dim %x, %c1 : tensor<?x?x64xf32>
  %c3 = arith.constant 1 : index
  %d4 = tensor.dim %x, %c3 : tensor<?x?x64xf32>
  %c5 = arith.constant 64 : index
  // Reshape(x, [-1, 64])
  %c6 = arith.constant 0 : index
  %d7 = tensor.dim %x, %c6 : tensor<?x?x64xf32>
  %c8 = arith.constant 1 : index
  %d9 = tensor.dim %x, %c8 : tensor<?x?x64xf32>
  %c10 = arith.constant 64 : index
  %n11 = arith.muli %d7, %d9 : index
  %n12 = arith.muli %n11, %c10 : index
  %n13 = arith.index_cast %n12 : index to i64
  %m14 = arith.constant -1 : i64
  %o15 = arith.constant 1 : i64
  %k16 = arith.constant 64 : i64
  %f17 = arith.cmpi eq, %m14, %m14 : i64
  %k18 = arith.select %f17, %o15, %m14 : i64
  %f19 = arith.cmpi eq, %k16, %m14 : i64
  %k20 = arith.select %f19, %o15, %k16 : i64
  %p21 = arith.muli %k18, %k20 : i64
  %q22 = arith.divsi %n13, %p21 : i64
  %r23 = arith.select %f17, %q22, %m14 : i64
  %r24 = arith.select %f19, %q22, %k16 : i64
  %shape25 = tensor.from_elements %r23, %r24 : tensor<2xi64>
  %t26 = tensor.reshape %x(%shape25) : (tensor<?x?x64xf32>, tensor<2xi64>) -> tensor<?x64xf32>
  %c27 = arith.constant 0 : index
  %d28 = tensor.dim %t26, %c27 : tensor<?x64xf32>
  %c29 = arith.constant 64 : index
  %e30 = tensor.empty(%d28) : tensor<?x64xf32>
  %z31 = linalg.fill ins(%zero : f32) outs(%e30 : tensor<?x64xf32>) -> tensor<?x64xf32>
  %mm32 = linalg.matmul ins(%t26, %wq : tensor<?x64xf32>, tensor<64x64xf32>) outs(%z31 : tensor<?x64xf32>) -> tensor<?x64xf32>
  %c33 = arith.constant 0 : index
  %d34 = tensor.dim %t26, %c33 : tensor<?x64xf32>
  %c35 = arith.constant 64 : index
  %e36 = tensor.empty(%d34) : tensor<?x64xf32>
  %z37 = linalg.fill ins(%zero : f32) outs(%e36 : tensor<?x64xf32>) -> tensor<?x64xf32>
  %mm38 = linalg.matmul ins(%t26, %wk : tensor<?x64xf32>, tensor<64x64xf32>) outs(%z37 : tensor<?x64xf32>) -> tensor<?x64xf32>
  %c39 = arith.constant 0 : index
  %d40 = tensor.dim %t26, %c39 : tensor<?x64xf32>
  %c41 = arith.constant 64 : index
  %e42 = tensor.empty(%d40) : tensor<?x64xf32>
  %z43 = linalg.fill ins(%zero : f32) outs(%e42 : tensor<?x64xf32>) -> tensor<?x64xf32>
  %mm44 = linalg.matmul ins(%t26, %wv : tensor<?x64xf32>, tensor<64x64xf32>) outs(%z43 : tensor<?x64xf32>) -> tensor<?x64xf32>
  // Reshape(q, [batch, -1, 4, 16]) with batch from Shape(x)
  %c45 = arith.constant 0 : index
  %d46 = tensor.dim %mm32, %c45 : tensor<?x64xf32>
  %c47 = arith.constant 64 : index
  %n48 = arith.muli %d46, %c47 : index
  %n49 = arith.index_cast %n48 : index to i64
  %m50 = arith.constant -1 : i64
  %o51 = arith.constant 1 : i64
  %s52 = arith.index_cast %d2 : index to i64
  %k53 = arith.constant 4 : i64
  %k54 = arith.constant 16 : i64
  %f55 = arith.cmpi eq, %s52, %m50 : i64
  %k56 = arith.select %f55, %o51, %s52 : i64
  %f57 = arith.cmpi eq, %m50, %m50 : i64
  %k58 = arith.select %f57, %o51, %m50 : i64
  %p59 = arith.muli %k56, %k58 : i64
  %f60 = arith.cmpi eq, %k53, %m50 : i64
  %k61 = arith.select %f60, %o51, %k53 : i64
  %p62 = arith.muli %p59, %k61 : i64
  %f63 = arith.cmpi eq, %k54, %m50 : i64
  %k64 = arith.select %f63, %o51, %k54 : i64
  %p65 = arith.muli %p62, %k64 : i64
  %q66 = arith.divsi %n49, %p65 : i64
  %r67 = arith.select %f55, %q66, %s52 : i64
  %r68 = arith.select %f57, %q66, %m50 : i64
  %r69 = arith.select %f60, %q66, %k53 : i64
  %r70 = arith.select %f63, %q66, %k54 : i64
  %shape71 = tensor.from_elements %r67, %r68, %r69, %r70 : tensor<4xi64>
  %t72 = tensor.reshape %mm32(%shape71) : (tensor<?x64xf32>, tensor<4xi64>) -> tensor<?x?x4x16xf32>
  %c73 = arith.constant 0 : index
  %d74 = tensor.dim %t72, %c73 : tensor<?x?x4x16xf32>
  %c75 = arith.constant 1 : index
  %d76 = tensor.dim %t72, %c75 : tensor<?x?x4x16xf32>
  %c77 = arith.constant 4 : index
  %c78 = arith.constant 16 : index
  %e79 = tensor.empty(%d74, %d76) : tensor<?x4x?x16xf32>
  %tr80 = linalg.transpose ins(%t72 : tensor<?x?x4x16xf32>) outs(%e79 : tensor<?x4x?x16xf32>) permutation = [0, 2, 1, 3]
  // Reshape(q, [-1, seq, 16])
  %c81 = arith.constant 0 : index
  %d82 = tensor.dim %tr80, %c81 : tensor<?x4x?x16xf32>
  %c83 = arith.constant 4 : index
  %c84 = arith.constant 2 : index
  %d85 = tensor.dim %tr80, %c84 : tensor<?x4x?x16xf32>
  %c86 = arith.constant 16 : index
  %n87 = arith.muli %d82, %c83 : index
  %n88 = arith.muli %n87, %d85 : index
  %n89 = arith.muli %n88, %c86 : index
  %n90 = arith.index_cast %n89 : index to i64
  %m91 = arith.constant -1 : i64
  %o92 = arith.constant 1 : i64
  %s93 = arith.index_cast %d4 : index to i64
  %k94 = arith.constant 16 : i64
  %f95 = arith.cmpi eq, %m91, %m91 : i64
  %k96 = arith.select %f95, %o92, %m91 : i64
  %f97 = arith.cmpi eq, %s93, %m91 : i64
  %k98 = arith.select %f97, %o92, %s93 : i64
  %p99 = arith.muli %k96, %k98 : i64
  %f100 = arith.cmpi eq, %k94, %m91 : i64
  %k101 = arith.select %f100, %o92, %k94 : i64
  %p102 = arith.muli %p99, %k101 : i64
  %q103 = arith.divsi %n90, %p102 : i64
  %r104 = arith.select %f95, %q103, %m91 : i64
  %r105 = arith.select %f97, %q103, %s93 : i64
  %r106 = arith.select %f100, %q103, %k94 : i64
  %shape107 = tensor.from_elements %r104, %r105, %r106 : tensor<3xi64>
  %t108 = tensor.reshape %tr80(%shape107) : (tensor<?x4x?x16xf32>, tensor<3xi64>) -> tensor<?x?x16xf32>
  // Reshape(k, [batch, -1, 4, 16]) with batch from Shape(x)
  %c109 = arith.constant 0 : index
  %d110 = tensor.dim %mm38, %c109 : tensor<?x64xf32>
  %c111 = arith.constant 64 : index
  %n112 = arith.muli %d110, %c111 : index
  %n113 = arith.index_cast %n112 : index to i64
  %m114 = arith.constant -1 : i64
  %o115 = arith.constant 1 : i64
  %s116 = arith.index_cast %d2 : index to i64
  %k117 = arith.constant 4 : i64
  %k118 = arith.constant 16 : i64
  %f119 = arith.cmpi eq, %s116, %m114 : i64
  %k120 = arith.select %f119, %o115, %s116 : i64
  %f121 = arith.cmpi eq, %m114, %m114 : i64
  %k122 = arith.select %f121, %o115, %m114 : i64
  %p123 = arith.muli %k120, %k122 : i64
  %f124 = arith.cmpi eq, %k117, %m114 : i64
  %k125 = arith.select %f124, %o115, %k117 : i64
  %p126 = arith.muli %p123, %k125 : i64
  %f127 = arith.cmpi eq, %k118, %m114 : i64
  %k128 = arith.select %f127, %o115, %k118 : i64
  %p129 = arith.muli %p126, %k128 : i64
  %q130 = arith.divsi %n113, %p129 : i64
  %r131 = arith.select %f119, %q130, %s116 : i64
  %r132 = arith.select %f121, %q130, %m114 : i64
  %r133 = arith.select %f124, %q130, %k117 : i64
  %r134 = arith.select %f127, %q130, %k118 : i64
  %shape135 = tensor.from_elements %r131, %r132, %r133, %r134 : tensor<4xi64>
  %t136 = tensor.reshape %mm38(%shape135) : (tensor<?x64xf32>, tensor<4xi64>) -> tensor<?x?x4x16xf32>
  %c137 = arith.constant 0 : index
  %d138 = tensor.dim %t136, %c137 : tensor<?x?x4x16xf32>
  %c139 = arith.constant 1 : index
  %d140 = tensor.dim %t136, %c139 : tensor<?x?x4x16xf32>
  %c141 = arith.constant 4 : index
  %c142 = arith.constant 16 : index
  %e143 = tensor.empty(%d138, %d140) : tensor<?x4x?x16xf32>
  %tr144 = linalg.transpose ins(%t136 : tensor<?x?x4x16xf32>) outs(%e143 : tensor<?x4x?x16xf32>) permutation = [0, 2, 1, 3]
  // Reshape(k, [-1, seq, 16])
  %c145 = arith.constant 0 : index
  %d146 = tensor.dim %tr144, %c145 : tensor<?x4x?x16xf32>
  %c147 = arith.constant 4 : index
  %c148 = arith.constant 2 : index
  %d149 = tensor.dim %tr144, %c148 : tensor<?x4x?x16xf32>
  %c150 = arith.constant 16 : index
  %n151 = arith.muli %d146, %c147 : index
  %n152 = arith.muli %n151, %d149 : index
  %n153 = arith.muli %n152, %c150 : index
  %n154 = arith.index_cast %n153 : index to i64
  %m155 = arith.constant -1 : i64
  %o156 = arith.constant 1 : i64
  %s157 = arith.index_cast %d4 : index to i64
  %k158 = arith.constant 16 : i64
  %f159 = arith.cmpi eq, %m155, %m155 : i64
  %k160 = arith.select %f159, %o156, %m155 : i64
  %f161 = arith.cmpi eq, %s157, %m155 : i64
  %k162 = arith.select %f161, %o156, %s157 : i64
  %p163 = arith.muli %k160, %k162 : i64
  %f164 = arith.cmpi eq, %k158, %m155 : i64
  %k165 = arith.select %f164, %o156, %k158 : i64
  %p166 = arith.muli %p163, %k165 : i64
  %q167 = arith.divsi %n154, %p166 : i64
  %r168 = arith.select %f159, %q167, %m155 : i64
  %r169 = arith.select %f161, %q167, %s157 : i64
  %r170 = arith.select %f164, %q167, %k158 : i64
  %shape171 = tensor.from_elements %r168, %r169, %r170 : tensor<3xi64>
  %t172 = tensor.reshape %tr144(%shape171) : (tensor<?x4x?x16xf32>, tensor<3xi64>) -> tensor<?x?x16xf32>
  // Reshape(v, [batch, -1, 4, 16]) with batch from Shape(x)
  %c173 = arith.constant 0 : index
  %d174 = tensor.dim %mm44, %c173 : tensor<?x64xf32>
  %c175 = arith.constant 64 : index
  %n176 = arith.muli %d174, %c175 : index
  %n177 = arith.index_cast %n176 : index to i64
  %m178 = arith.constant -1 : i64
  %o179 = arith.constant 1 : i64
  %s180 = arith.index_cast %d2 : index to i64
  %k181 = arith.constant 4 : i64
  %k182 = arith.constant 16 : i64
  %f183 = arith.cmpi eq, %s180, %m178 : i64
  %k184 = arith.select %f183, %o179, %s180 : i64
  %f185 = arith.cmpi eq, %m178, %m178 : i64
  %k186 = arith.select %f185, %o179, %m178 : i64
  %p187 = arith.muli %k184, %k186 : i64
  %f188 = arith.cmpi eq, %k181, %m178 : i64
  %k189 = arith.select %f188, %o179, %k181 : i64
  %p190 = arith.muli %p187, %k189 : i64
  %f191 = arith.cmpi eq, %k182, %m178 : i64
  %k192 = arith.select %f191, %o179, %k182 : i64
  %p193 = arith.muli %p190, %k192 : i64
  %q194 = arith.divsi %n177, %p193 : i64
  %r195 = arith.select %f183, %q194, %s180 : i64
  %r196 = arith.select %f185, %q194, %m178 : i64
  %r197 = arith.select %f188, %q194, %k181 : i64
  %r198 = arith.select %f191, %q194, %k182 : i64
  %shape199 = tensor.from_elements %r195, %r196, %r197, %r198 : tensor<4xi64>
  %t200 = tensor.reshape %mm44(%shape199) : (tensor<?x64xf32>, tensor<4xi64>) -> tensor<?x?x4x16xf32>
  %c201 = arith.constant 0 : index
  %d202 = tensor.dim %t200, %c201 : tensor<?x?x4x16xf32>
  %c203 = arith.constant 1 : index
  %d204 = tensor.dim %t200, %c203 : tensor<?x?x4x16xf32>
  %c205 = arith.constant 4 : index
  %c206 = arith.constant 16 : index
  %e207 = tensor.empty(%d202, %d204) : tensor<?x4x?x16xf32>
  %tr208 = linalg.transpose ins(%t200 : tensor<?x?x4x16xf32>) outs(%e207 : tensor<?x4x?x16xf32>) permutation = [0, 2, 1, 3]
  // Reshape(v, [-1, seq, 16])
  %c209 = arith.constant 0 : index
  %d210 = tensor.dim %tr208, %c209 : tensor<?x4x?x16xf32>
  %c211 = arith.constant 4 : index
  %c212 = arith.constant 2 : index
  %d213 = tensor.dim %tr208, %c212 : tensor<?x4x?x16xf32>
  %c214 = arith.constant 16 : index
  %n215 = arith.muli %d210, %c211 : index
  %n216 = arith.muli %n215, %d213 : index
  %n217 = arith.muli %n216, %c214 : index
  %n218 = arith.index_cast %n217 : index to i64
  %m219 = arith.constant -1 : i64
  %o220 = arith.constant 1 : i64
  %s221 = arith.index_cast %d4 : index to i64
  %k222 = arith.constant 16 : i64
  %f223 = arith.cmpi eq, %m219, %m219 : i64
  %k224 = arith.select %f223, %o220, %m219 : i64
  %f225 = arith.cmpi eq, %s221, %m219 : i64
  %k226 = arith.select %f225, %o220, %s221 : i64
  %p227 = arith.muli %k224, %k226 : i64
  %f228 = arith.cmpi eq, %k222, %m219 : i64
  %k229 = arith.select %f228, %o220, %k222 : i64
  %p230 = arith.muli %p227, %k229 : i64
  %q231 = arith.divsi %n218, %p230 : i64
  %r232 = arith.select %f223, %q231, %m219 : i64
  %r233 = arith.select %f225, %q231, %s221 : i64
  %r234 = arith.select %f228, %q231, %k222 : i64
  %shape235 = tensor.from_elements %r232, %r233, %r234 : tensor<3xi64>
  %t236 = tensor.reshape %tr208(%shape235) : (tensor<?x4x?x16xf32>, tensor<3xi64>) -> tensor<?x?x16xf32>
  %c237 = arith.constant 0 : index
  %d238 = tensor.dim %t172, %c237 : tensor<?x?x16xf32>
  %c239 = arith.constant 1 : index
  %d240 = tensor.dim %t172, %c239 : tensor<?x?x16xf32>
  %c241 = arith.constant 16 : index
  %e242 = tensor.empty(%d238, %d240) : tensor<?x16x?xf32>
  %tr243 = linalg.transpose ins(%t172 : tensor<?x?x16xf32>) outs(%e242 : tensor<?x16x?xf32>) permutation = [0, 2, 1]
  %c244 = arith.constant 0 : index
  %d245 = tensor.dim %t108, %c244 : tensor<?x?x16xf32>
  %c246 = arith.constant 1 : index
  %d247 = tensor.dim %t108, %c246 : tensor<?x?x16xf32>
  %c248 = arith.constant 16 : index
  %e249 = tensor.empty(%d245, %d247, %d247) : tensor<?x?x?xf32>
  %z250 = linalg.fill ins(%zero : f32) outs(%e249 : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %scores251 = linalg.batch_matmul ins(%t108, %tr243 : tensor<?x?x16xf32>, tensor<?x16x?xf32>) outs(%z250 : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %e252 = tensor.empty(%d245, %d247) : tensor<?x?xf32>
  %z253 = linalg.fill ins(%ninf : f32) outs(%e252 : tensor<?x?xf32>) -> tensor<?x?xf32>
  %max254 = linalg.generic {indexing_maps = [#id3, #row3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%scores251 : tensor<?x?x?xf32>) outs(%z253 : tensor<?x?xf32>) {
  ^bb0(%a: f32, %m: f32):
    %r = arith.maximumf %a, %m : f32
    linalg.yield %r : f32
  } -> tensor<?x?xf32>
  %e255 = tensor.empty(%d245, %d247, %d247) : tensor<?x?x?xf32>
  %exp256 = linalg.generic {indexing_maps = [#id3, #row3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%scores251, %max254 : tensor<?x?x?xf32>, tensor<?x?xf32>) outs(%e255 : tensor<?x?x?xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %s = arith.mulf %d, %scale : f32
    %e = math.exp %s : f32
    linalg.yield %e : f32
  } -> tensor<?x?x?xf32>
  %e257 = tensor.empty(%d245, %d247) : tensor<?x?xf32>
  %z258 = linalg.fill ins(%zero : f32) outs(%e257 : tensor<?x?xf32>) -> tensor<?x?xf32>
  %sum259 = linalg.generic {indexing_maps = [#id3, #row3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%exp256 : tensor<?x?x?xf32>) outs(%z258 : tensor<?x?xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<?x?xf32>
  %e260 = tensor.empty(%d245, %d247, %d247) : tensor<?x?x?xf32>
  %probs261 = linalg.generic {indexing_maps = [#id3, #row3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%exp256, %sum259 : tensor<?x?x?xf32>, tensor<?x?xf32>) outs(%e260 : tensor<?x?x?xf32>) {
  ^bb0(%a: f32, %t: f32, %o: f32):
    %r = arith.divf %a, %t : f32
    linalg.yield %r : f32
  } -> tensor<?x?x?xf32>
  %e262 = tensor.empty(%d245, %d247) : tensor<?x?x16xf32>
  %z263 = linalg.fill ins(%zero : f32) outs(%e262 : tensor<?x?x16xf32>) -> tensor<?x?x16xf32>
  %ctx264 = linalg.batch_matmul ins(%probs261, %t236 : tensor<?x?x?xf32>, tensor<?x?x16xf32>) outs(%z263 : tensor<?x?x16xf32>) -> tensor<?x?x16xf32>
  // Reshape(ctx, [-1, 4, seq, 16])
  %c265 = arith.constant 0 : index
  %d266 = tensor.dim %ctx264, %c265 : tensor<?x?x16xf32>
  %c267 = arith.constant 1 : index
  %d268 = tensor.dim %ctx264, %c267 : tensor<?x?x16xf32>
  %c269 = arith.constant 16 : index
  %n270 = arith.muli %d266, %d268 : index
  %n271 = arith.muli %n270, %c269 : index
  %n272 = arith.index_cast %n271 : index to i64
  %m273 = arith.constant -1 : i64
  %o274 = arith.constant 1 : i64
  %k275 = arith.constant 4 : i64
  %s276 = arith.index_cast %d4 : index to i64
  %k277 = arith.constant 16 : i64
  %f278 = arith.cmpi eq, %m273, %m273 : i64
  %k279 = arith.select %f278, %o274, %m273 : i64
  %f280 = arith.cmpi eq, %k275, %m273 : i64
  %k281 = arith.select %f280, %o274, %k275 : i64
  %p282 = arith.muli %k279, %k281 : i64
  %f283 = arith.cmpi eq, %s276, %m273 : i64
  %k284 = arith.select %f283, %o274, %s276 : i64
  %p285 = arith.muli %p282, %k284 : i64
  %f286 = arith.cmpi eq, %k277, %m273 : i64
  %k287 = arith.select %f286, %o274, %k277 : i64
  %p288 = arith.muli %p285, %k287 : i64
  %q289 = arith.divsi %n272, %p288 : i64
  %r290 = arith.select %f278, %q289, %m273 : i64
  %r291 = arith.select %f280, %q289, %k275 : i64
  %r292 = arith.select %f283, %q289, %s276 : i64
  %r293 = arith.select %f286, %q289, %k277 : i64
  %shape294 = tensor.from_elements %r290, %r291, %r292, %r293 : tensor<4xi64>
  %t295 = tensor.reshape %ctx264(%shape294) : (tensor<?x?x16xf32>, tensor<4xi64>) -> tensor<?x4x?x16xf32>
  %c296 = arith.constant 0 : index
  %d297 = tensor.dim %t295, %c296 : tensor<?x4x?x16xf32>
  %c298 = arith.constant 4 : index
  %c299 = arith.constant 2 : index
  %d300 = tensor.dim %t295, %c299 : tensor<?x4x?x16xf32>
  %c301 = arith.constant 16 : index
  %e302 = tensor.empty(%d297, %d300) : tensor<?x?x4x16xf32>
  %tr303 = linalg.transpose ins(%t295 : tensor<?x4x?x16xf32>) outs(%e302 : tensor<?x?x4x16xf32>) permutation = [0, 2, 1, 3]
  // Reshape(ctx, [batch, seq, -1])
  %c304 = arith.constant 0 : index
  %d305 = tensor.dim %tr303, %c304 : tensor<?x?x4x16xf32>
  %c306 = arith.constant 1 : index
  %d307 = tensor.dim %tr303, %c306 : tensor<?x?x4x16xf32>
  %c308 = arith.constant 4 : index
  %c309 = arith.constant 16 : index
  %n310 = arith.muli %d305, %d307 : index
  %n311 = arith.muli %n310, %c308 : index
  %n312 = arith.muli %n311, %c309 : index
  %n313 = arith.index_cast %n312 : index to i64
  %m314 = arith.constant -1 : i64
  %o315 = arith.constant 1 : i64
  %s316 = arith.index_cast %d2 : index to i64
  %s317 = arith.index_cast %d4 : index to i64
  %f318 = arith.cmpi eq, %s316, %m314 : i64
  %k319 = arith.select %f318, %o315, %s316 : i64
  %f320 = arith.cmpi eq, %s317, %m314 : i64
  %k321 = arith.select %f320, %o315, %s317 : i64
  %p322 = arith.muli %k319, %k321 : i64
  %f323 = arith.cmpi eq, %m314, %m314 : i64
  %k324 = arith.select %f323, %o315, %m314 : i64
  %p325 = arith.muli %p322, %k324 : i64
  %q326 = arith.divsi %n313, %p325 : i64
  %r327 = arith.select %f318, %q326, %s316 : i64
  %r328 = arith.select %f320, %q326, %s317 : i64
  %r329 = arith.select %f323, %q326, %m314 : i64
  %shape330 = tensor.from_elements %r327, %r328, %r329 : tensor<3xi64>
  %t331 = tensor.reshape %tr303(%shape330) : (tensor<?x?x4x16xf32>, tensor<3xi64>) -> tensor<?x?x64xf32>
  // Reshape(merged, [-1, 64])
  %c332 = arith.constant 0 : index
  %d333 = tensor.dim %t331, %c332 : tensor<?x?x64xf32>
  %c334 = arith.constant 1 : index
  %d335 = tensor.dim %t331, %c334 : tensor<?x?x64xf32>
  %c336 = arith.constant 64 : index
  %n337 = arith.muli %d333, %d335 : index
  %n338 = arith.muli %n337, %c336 : index
  %n339 = arith.index_cast %n338 : index to i64
  %m340 = arith.constant -1 : i64
  %o341 = arith.constant 1 : i64
  %k342 = arith.constant 64 : i64
  %f343 = arith.cmpi eq, %m340, %m340 : i64
  %k344 = arith.select %f343, %o341, %m340 : i64
  %f345 = arith.cmpi eq, %k342, %m340 : i64
  %k346 = arith.select %f345, %o341, %k342 : i64
  %p347 = arith.muli %k344, %k346 : i64
  %q348 = arith.divsi %n339, %p347 : i64
  %r349 = arith.select %f343, %q348, %m340 : i64
  %r350 = arith.select %f345, %q348, %k342 : i64
  %shape351 = tensor.from_elements %r349, %r350 : tensor<2xi64>
  %t352 = tensor.reshape %t331(%shape351) : (tensor<?x?x64xf32>, tensor<2xi64>) -> tensor<?x64xf32>
  %c353 = arith.constant 0 : index
  %d354 = tensor.dim %t352, %c353 : tensor<?x64xf32>
  %c355 = arith.constant 64 : index
  %e356 = tensor.empty(%d354) : tensor<?x64xf32>
  %z357 = linalg.fill ins(%zero : f32) outs(%e356 : tensor<?x64xf32>) -> tensor<?x64xf32>
  %mm358 = linalg.matmul ins(%t352, %wo : tensor<?x64xf32>, tensor<64x64xf32>) outs(%z357 : tensor<?x64xf32>) -> tensor<?x64xf32>
  // Reshape(out, [batch, -1, 64])
  %c359 = arith.constant 0 : index
  %d360 = tensor.dim %mm358, %c359 : tensor<?x64xf32>
  %c361 = arith.constant 64 : index
  %n362 = arith.muli %d360, %c361 : index
  %n363 = arith.index_cast %n362 : index to i64
  %m364 = arith.constant -1 : i64
  %o365 = arith.constant 1 : i64
  %s366 = arith.index_cast %d2 : index to i64
  %k367 = arith.constant 64 : i64
  %f368 = arith.cmpi eq, %s366, %m364 : i64
  %k369 = arith.select %f368, %o365, %s366 : i64
  %f370 = arith.cmpi eq, %m364, %m364 : i64
  %k371 = arith.select %f370, %o365, %m364 : i64
  %p372 = arith.muli %k369, %k371 : i64
  %f373 = arith.cmpi eq, %k367, %m364 : i64
  %k374 = arith.select %f373, %o365, %k367 : i64
  %p375 = arith.muli %p372, %k374 : i64
  %q376 = arith.divsi %n363, %p375 : i64
  %r377 = arith.select %f368, %q376, %s366 : i64
  %r378 = arith.select %f370, %q376, %m364 : i64
  %r379 = arith.select %f373, %q376, %k367 : i64
  %shape380 = tensor.from_elements %r377, %r378, %r379 : tensor<3xi64>
  %t381 = tensor.reshape %mm358(%shape380) : (tensor<?x64xf32>, tensor<3xi64>) -> tensor<?x?x64xf32>
  %e382 = tensor.empty(%d2, %d4) : tensor<?x?x64xf32>
  %res383 = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%t381, %x : tensor<?x?x64xf32>, tensor<?x?x64xf32>) outs(%e382 : tensor<?x?x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<?x?x64xf32>
  return %res383 : tensor<?x?x64xf32>
}
