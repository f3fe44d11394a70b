# Points the relative imports of mlir-tblgen's Python output at the upstream
# `mlir` package, so the generated op classes can live in symshape_mlir.
# Usage: cmake -DFILE=<generated.py> -P RewriteGeneratedImports.cmake
file(READ "${FILE}" text)
string(REPLACE "from ._ods_common import" "from mlir.dialects._ods_common import" text "${text}")
string(REPLACE "from ..ir import" "from mlir.ir import" text "${text}")
file(WRITE "${FILE}" "${text}")
