"""The compiled double-dummy solver (_dds.c) of the engine's own distribution.

``pip install ./engine`` builds it where a C compiler is found; everything else about the
distribution is in pyproject.toml. Without a compiler the extension is skipped
(``optional``), the install still succeeds, and engine/double_dummy.py runs its pure-Python
search (the same results, 30-50 times slower per node): this file then says so on stderr
(``pip install -v`` shows it), ``python -m engine solver`` says so afterwards, and the
first solve warns once (``engine.double_dummy.compiled_unavailable_reason``).

The repository's own setup.py builds the same extension for the league's install.
"""

import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

FALLBACK_MESSAGE = (
    "king-league-engine: the compiled solver (engine._dds) was NOT built ({reason}); the "
    "engine falls back to its pure-Python search, 30-50 times slower per node. Install a C "
    "compiler and Python's headers (Debian: apt-get install gcc libc6-dev python3-dev) and "
    "reinstall: pip install --force-reinstall ./engine"
)


class BuildSolver(build_ext):
    """build_ext that says loudly when the optional solver could not be compiled."""

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
        except Exception as exc:  # the compiler's failures come in several types
            sys.stderr.write("\n" + FALLBACK_MESSAGE.format(reason=exc) + "\n\n")
            raise

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:  # no compiler at all: distutils' PlatformError and kin
            sys.stderr.write("\n" + FALLBACK_MESSAGE.format(reason=exc) + "\n\n")


class BuildModules(build_py):
    """build_py without this file: the package's folder is the project's root here."""

    def find_package_modules(self, package: str, package_dir: str) -> list[tuple[str, str, str]]:
        modules = super().find_package_modules(package, package_dir)
        return [module for module in modules if module[1] != "setup"]


setup(
    cmdclass={"build_ext": BuildSolver, "build_py": BuildModules},
    ext_modules=[
        Extension(
            "engine._dds",
            sources=["_dds.c"],
            depends=["_dds_places.h"],
            optional=True,
            extra_compile_args=["-O2"],
        )
    ],
)
