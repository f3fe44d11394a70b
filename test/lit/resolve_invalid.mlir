// RUN: symshape-opt --split-input-file --symshape-resolve --verify-diagnostics %s

// Constructs symshape-resolve cannot lower are located errors.

// A named symbol needs an argument axis that declares it.
func.func @unbound_symbol(%x: tensor<?xf32>) -> tensor<?x1xf32> {
  // expected-error @below {{symbol 'batch' is not bound by any function argument's 'symshape.axes'}}
  %r = symshape.reshape %x to [batch, 1] : (tensor<?xf32>) -> tensor<?x1xf32>
  return %r : tensor<?x1xf32>
}

// -----

// Extent values stay inside a function; return an index instead.
func.func @extent_escapes(%x: tensor<?xf32>) -> !symshape.extent {
  // expected-error @below {{the extent computed by 'symshape.dim' is used by 'func.return': extent values cannot cross function or region boundaries; use symshape.to_index}}
  %d = symshape.dim %x, 0 : tensor<?xf32>
  return %d : !symshape.extent
}

// -----

// A symshape attribute stored under a user's attribute name has no lowering.
// expected-error @below {{attribute 'note' of 'func.func' holds a symshape attribute that symshape-resolve cannot lower}}
func.func @user_attribute() attributes {note = #symshape.expr<batch>} {
  return
}

// -----

// An extent passed as a function argument has no index value to lower to.
// expected-error @below {{an extent value that is a function or block argument cannot be lowered: extent values cannot cross function or region boundaries; pass an index and use symshape.from_index}}
func.func @extent_argument(%e: !symshape.extent) -> index {
  %i = symshape.to_index %e
  return %i : index
}
