"""Builds and installs the `pocketmt` Python package offline (docs/python.md):

    /usr/bin/python3 -m pip install --break-system-packages --no-build-isolation ./python

The compiled module is built by the project's own CMake build (the repository root, one level
up), configured for the runtime and the module only and for the interpreter running pip, then
copied into the package. Needs the Debian packages of scripts/install-deps.sh; nothing is
downloaded (hence --no-build-isolation: pip would otherwise fetch setuptools from PyPI).
"""

import re
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent.parent  # the repository: CMakeLists.txt, runtime/, python/


def project_version() -> str:
    """The version of the top-level project() call, which the runtime reports too."""
    match = re.search(r"project\(PocketMT VERSION ([0-9.]+)", (ROOT / "CMakeLists.txt").read_text())
    if not match:
        sys.exit(f"setup.py: no project(PocketMT VERSION ...) in {ROOT / 'CMakeLists.txt'}")
    return match.group(1)


class CMakeBuild(build_ext):
    """Builds pocketmt._native with CMake instead of compiling sources itself."""

    def build_extension(self, ext: Extension) -> None:
        build_dir = Path(self.build_temp).resolve() / "cmake"
        configure = [
            "cmake", "-S", str(ROOT), "-B", str(build_dir),
            "-DCMAKE_BUILD_TYPE=Release",
            "-DPMT_BUILD_PYTHON=ON",  # missing pybind11 / Python headers: an error, not a skip
            "-DPMT_BUILD_CONVERTER=OFF", "-DPMT_BUILD_TESTS=OFF", "-DPMT_BUILD_BENCH=OFF",
            "-DPMT_BUILD_EXAMPLES=OFF",
            f"-DPython3_EXECUTABLE={sys.executable}",
        ]
        subprocess.run(configure, check=True)
        # CMAKE_BUILD_PARALLEL_LEVEL in the environment sets the jobs; one by default.
        subprocess.run(["cmake", "--build", str(build_dir), "--target", "pocketmt_native"], check=True)
        built = next((build_dir / "python" / "pocketmt").glob("_native*.so"))
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built, target)


if not (ROOT / "runtime" / "CMakeLists.txt").is_file():
    sys.exit(f"setup.py: {ROOT} is not the PocketMT repository; install from its python/ folder")

setup(
    name="pocketmt",
    version=project_version(),
    description="PocketMT: embedded int8 Transformer translation (Python bindings)",
    packages=["pocketmt"],
    package_data={"pocketmt": ["py.typed", "_native.pyi"]},
    ext_modules=[Extension("pocketmt._native", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    python_requires=">=3.8",
    zip_safe=False,
)
