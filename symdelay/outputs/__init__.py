"""Outputs: LaTeX documents, figures and the report. Nothing here computes mathematics."""
