// RUN: symshape-opt --split-input-file -verify-diagnostics --symshape-specialize='bindings="batch=0"' %s
//
// The bindings text is a pass option: its errors are reported when the
// pipeline is built, before the input is read (as for every pass option).
// RUN: not symshape-opt --symshape-specialize='bindings="batch=-1"' %s 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: not symshape-opt --symshape-specialize='bindings="batch=32,seq"' %s 2>&1 | FileCheck %s --check-prefix=NO-VALUE
// RUN: not symshape-opt --symshape-specialize='bindings="batch=3x"' %s 2>&1 | FileCheck %s --check-prefix=NOT-INTEGER
// RUN: not symshape-opt --symshape-specialize='bindings="batch=1_000"' %s 2>&1 | FileCheck %s --check-prefix=UNDERSCORE
// RUN: not symshape-opt --symshape-specialize='bindings="batch=18446744073709551616"' %s 2>&1 | FileCheck %s --check-prefix=TOO-LARGE
// RUN: not symshape-opt --symshape-specialize='bindings="2d=3"' %s 2>&1 | FileCheck %s --check-prefix=NOT-A-NAME
// RUN: not symshape-opt --symshape-specialize='bindings="batch=1,batch=2"' %s 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not symshape-opt --symshape-specialize='bindings="seq=-2,heads"' %s 2>&1 | FileCheck %s --check-prefix=ALL
// RUN: not symshape-opt --pass-pipeline='builtin.module(symshape-specialize{bindings="batch=-1"})' %s 2>&1 | FileCheck %s --check-prefix=NEGATIVE

// NEGATIVE:    symshape-opt: error: symshape-specialize: invalid bindings 'batch=-1': axis 'batch' is bound to -1: extents are non-negative
// NO-VALUE:    symshape-opt: error: symshape-specialize: invalid bindings 'batch=32,seq': entry 'seq' is not NAME=VALUE
// TOO-LARGE:   symshape-opt: error: symshape-specialize: invalid bindings 'batch=18446744073709551616': axis 'batch' is bound to 18446744073709551616: beyond the int64 range
// UNDERSCORE:  symshape-opt: error: symshape-specialize: invalid bindings 'batch=1_000': entry 'batch=1_000': '1_000' is not an integer
// NOT-INTEGER: symshape-opt: error: symshape-specialize: invalid bindings 'batch=3x': entry 'batch=3x': '3x' is not an integer
// NOT-A-NAME:  symshape-opt: error: symshape-specialize: invalid bindings '2d=3': entry '2d=3': '2d' is not an axis name
// TWICE:       symshape-opt: error: symshape-specialize: invalid bindings 'batch=1,batch=2': axis 'batch' is bound twice (to 1 and 2)
// Every problem is reported at once:
// ALL:         symshape-opt: error: symshape-specialize: invalid bindings 'seq=-2,heads': axis 'seq' is bound to -2: extents are non-negative; entry 'heads' is not NAME=VALUE

// A bound name must be an axis the module declares.
// expected-error @below {{unknown axis 'batch' in bindings (axes declared by symshape.axes: seq)}}
module {
  func.func @other_axis(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[seq]>}) -> tensor<?xf32> {
    return %x : tensor<?xf32>
  }
}

// -----

// expected-error @below {{unknown axis 'batch' in bindings (axes declared by symshape.axes: none)}}
module {
  func.func @no_axes(%x: tensor<?xf32>) -> tensor<?xf32> {
    return %x : tensor<?xf32>
  }
}

// -----

// A target that divides by zero under the bindings is an error: substituting
// would turn `(8 * batch floordiv (2 * batch)) * batch` into 0 and lose the
// division the program makes at run time.
func.func @zero_divisor(%x: tensor<?x8xf32> {symshape.axes = #symshape.shape<[batch, 8]>})
    -> tensor<?xf32> {
  // expected-error @below {{'symshape.reshape' target extent 0 '2 * batch * (8 * batch floordiv (2 * batch))' divides by zero under the bindings (batch = 0): '8 * batch floordiv (2 * batch)'}}
  %r = symshape.reshape %x to [batch * 8 floordiv (2 * batch) * 2 * batch]
      : (tensor<?x8xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// The same in an argument's declared axes.
// expected-error @below {{symshape.axes extent 1 'batch * (8 floordiv batch)' divides by zero under the bindings (batch = 0): '8 floordiv batch'}}
func.func @zero_divisor_in_axes(%x: tensor<?x?xf32> {symshape.axes = #symshape.shape<[batch, 8 floordiv batch * batch]>})
    -> tensor<?x?xf32> {
  return %x : tensor<?x?xf32>
}

