"""Experiments of the published studies renolab reproduces, one module per study."""
