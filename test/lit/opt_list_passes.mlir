// RUN: symshape-opt --list-passes | FileCheck %s
// RUN: symshape-opt --help | FileCheck %s --check-prefix=HELP

// The symshape passes are listed with their one-line summaries, then a note
// on upstream passes.
// CHECK:      Available Passes:
// CHECK:        --symshape-strip-annotations - Remove symshape.* annotations
// CHECK:      Every upstream MLIR pass and pass pipeline

// HELP: usage: symshape-opt
// HELP: --pass-pipeline PIPELINE
// HELP: --split-input-file
// HELP: --verify-diagnostics
// HELP: pass flags
// HELP: --symshape-strip-annotations
// HELP: Remove symshape.* annotations
