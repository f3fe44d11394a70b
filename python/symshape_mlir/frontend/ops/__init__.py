"""The traced ops, by family: elementwise, linalg (matmul), reductions, shapes, nn."""
