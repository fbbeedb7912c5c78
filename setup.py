"""Build hook for the optional C extension ``protocol._speedups`` (everything else is in
pyproject.toml). Without a C compiler the package installs without it, and
``protocol.diff`` uses its Python version."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension("protocol._speedups", sources=["protocol/_speedups.c"], optional=True),
    ]
)
