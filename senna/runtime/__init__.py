"""Inference with NumPy only: kernels (pure functions), models, the tagging pipeline."""
