"""Build the connector's wheel and sdist into python/dist/ with the standard library and setuptools.

    python3 python/build_dist.py [output directory, default python/dist]

Where PyPI can be reached, ``python3 -m build python`` makes the same two files; this script is
for machines that have only Python itself (setuptools comes with it, the ``wheel`` package does
not). The sdist is setuptools' own (``build_meta.build_sdist``); the wheel, a pure-Python
``py3-none-any`` one, is written as the wheel format (PEP 427) describes: the package's files,
then ``*.dist-info/`` with METADATA (from the sdist's PKG-INFO, so both say the same), WHEEL,
top_level.txt, LICENSE and RECORD with each file's sha256. See docs/decisions.md, "Python
connector".
"""

from __future__ import annotations

import base64
import hashlib
import io
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
DIST = HERE / "dist"
# Every entry of the wheel gets this time, so that the same sources make the same file.
FIXED_TIME = (2026, 1, 1, 0, 0, 0)


def build_sdist(dist: Path) -> Path:
    # In a process of its own: setuptools keeps state between builds in one process, and talks.
    script = "import sys\nfrom setuptools import build_meta\nprint(build_meta.build_sdist(sys.argv[1]))"
    try:
        done = subprocess.run(
            [sys.executable, "-c", script, str(dist)], cwd=HERE, check=True, capture_output=True, text=True
        )
    finally:
        # setuptools leaves its egg-info beside the sources.
        shutil.rmtree(HERE / "roost_client.egg-info", ignore_errors=True)
    return dist / done.stdout.strip().splitlines()[-1]


def pkg_info(sdist: Path) -> str:
    with tarfile.open(sdist) as archive:
        member = next(m for m in archive.getmembers() if m.name.count("/") == 1 and m.name.endswith("/PKG-INFO"))
        data = archive.extractfile(member)
        assert data is not None
        return data.read().decode("utf-8")


def record_line(path: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")
    return f"{path},sha256={digest},{len(data)}"


def build_wheel(metadata: str, dist: Path) -> Path:
    project = tomllib.loads((HERE / "pyproject.toml").read_text("utf-8"))["project"]
    name, version = project["name"].replace("-", "_"), project["version"]
    dist_info = f"{name}-{version}.dist-info"
    files: list[tuple[str, bytes]] = []
    for path in sorted((HERE / "roost_client").rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            files.append((path.relative_to(HERE).as_posix(), path.read_bytes()))
    wheel_meta = "Wheel-Version: 1.0\nGenerator: roost build_dist.py\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    files.append((f"{dist_info}/METADATA", metadata.encode("utf-8")))
    files.append((f"{dist_info}/WHEEL", wheel_meta.encode("utf-8")))
    files.append((f"{dist_info}/top_level.txt", b"roost_client\n"))
    files.append((f"{dist_info}/licenses/LICENSE", (HERE / "LICENSE").read_bytes()))
    record = [record_line(path, data) for path, data in files] + [f"{dist_info}/RECORD,,"]
    files.append((f"{dist_info}/RECORD", ("\n".join(record) + "\n").encode("utf-8")))

    target = dist / f"{name}-{version}-py3-none-any.whl"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as wheel:
        for path, data in files:
            info = zipfile.ZipInfo(path, FIXED_TIME)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            wheel.writestr(info, data)
    target.write_bytes(buffer.getvalue())
    return target


def build(dist: Path = DIST) -> tuple[Path, Path]:
    """Build both into ``dist`` (emptied of older builds first); answers (wheel, sdist)."""
    dist.mkdir(parents=True, exist_ok=True)
    for old in dist.glob("roost*"):
        old.unlink()
    sdist = build_sdist(dist)
    return build_wheel(pkg_info(sdist), dist), sdist


def main() -> int:
    wheel, sdist = build(Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else DIST)
    print(f"built {wheel} and {sdist}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
