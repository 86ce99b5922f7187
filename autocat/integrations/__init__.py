"""Integrations with other frameworks: each submodule imports its framework lazily.

``import autocat`` imports none of them; import the one you need, e.g.
``from autocat.integrations import flaml``.
"""
