"""End to end, compile only: every resolved program builds for the GPU targets.

Each ``test/e2e`` program, resolved by ``symshape-opt`` as in
``test_e2e_programs.py``, is compiled for ``cuda`` (PTX for ``sm_89``),
``metal`` (MSL) and ``rocm`` (``gfx942``); the artifact must hold an
executable of that target's format and no other. Running on CUDA is covered
by ``test_e2e_programs.py``'s ``cuda`` driver (skipped without a device).
"""

from __future__ import annotations

import pytest

from symshape_mlir.backend import TARGETS

from test_e2e_programs import PROGRAMS, program_module

COMPILE_ONLY_TARGETS = ("cuda", "metal", "rocm")
# One program per file is enough: the whole file is compiled.
FILES = {program.file: name for name, program in reversed(list(PROGRAMS.items()))}


@pytest.mark.parametrize("target", COMPILE_ONLY_TARGETS)
@pytest.mark.parametrize("file", sorted(FILES))
def test_program_compiles_for_target(file: str, target: str) -> None:
    """The resolved program compiles and the artifact holds only this target's executables."""
    module = program_module(PROGRAMS[FILES[file]], target)
    formats = module.executable_formats
    assert formats, f"{file} for {target}: no executable in the artifact"
    pattern = TARGETS[target].executable_format
    assert all(pattern.fullmatch(f) for f in formats), (target, formats)
