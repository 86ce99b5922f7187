"""Run autocat inside other engines and AutoML libraries; each submodule is optional."""
