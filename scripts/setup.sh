#!/usr/bin/env bash
# Creates ./.venv (if missing) and installs symshape-mlir into it with the
# extras named in $SYMSHAPE_EXTRAS (default: test). Safe to re-run: the C++
# build directory (build/) is reused, so a re-run only rebuilds what changed.
set -euo pipefail
cd "$(dirname "$0")/.."

python=${PYTHON:-python3}
extras=${SYMSHAPE_EXTRAS:-test}
if [ ! -x .venv/bin/python ]; then
  "$python" -m venv .venv
fi
pip=(.venv/bin/python -m pip --disable-pip-version-check -q)
"${pip[@]}" install --upgrade pip
# The build requirements are pinned in pyproject.toml; install them into the
# venv and build without isolation so the build directory can be reused.
mapfile -t build_requires < <(.venv/bin/python - <<'PY'
import tomllib
with open("pyproject.toml", "rb") as f:
    print("\n".join(tomllib.load(f)["build-system"]["requires"]))
PY
)
"${pip[@]}" install "${build_requires[@]}"
"${pip[@]}" install --no-build-isolation ".[${extras}]"
