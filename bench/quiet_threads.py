"""Tells the peers' thread pools not to spin after a call, so that they do
not starve the call that comes next: OpenMP (``OMP_WAIT_POLICY=PASSIVE``,
``GOMP_SPINCOUNT=0``, ``KMP_BLOCKTIME=0``) and OpenBLAS
(``OPENBLAS_THREAD_TIMEOUT``). Imported first by the benchmarks, before
numpy loads its BLAS; a variable the caller already set is kept.
onnxruntime's own pool is left as users get it."""

import os

for _name, _value in (("OMP_WAIT_POLICY", "PASSIVE"), ("GOMP_SPINCOUNT", "0"),
                      ("OPENBLAS_THREAD_TIMEOUT", "1"), ("KMP_BLOCKTIME", "0")):
    os.environ.setdefault(_name, _value)
