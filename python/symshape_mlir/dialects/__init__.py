"""Python op classes of the symshape dialect (generated from its ODS)."""
