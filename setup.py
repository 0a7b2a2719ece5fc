"""The compiled double-dummy solver (engine/_dds.c), built by ``pip install -e .``.

Everything else about the package is in pyproject.toml. ``optional=True``: a machine
without a C compiler still installs, and engine/double_dummy.py then runs its pure-Python
search (the same results, slower).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "engine._dds",
            sources=["engine/_dds.c"],
            depends=["engine/_dds_places.h"],
            optional=True,
            extra_compile_args=["-O2"],
        )
    ]
)
