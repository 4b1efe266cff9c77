"""The connector as a wheel and an sdist (python/build_dist.py), installed into a fresh virtual
environment and used from there against a running Roost: what a project that installs it gets."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
import unittest
import zipfile
from pathlib import Path

from tests.roost_server import ADMIN, server

PYTHON_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PYTHON_DIR))
import build_dist  # noqa: E402  (the build script lives beside the package, not in it)


class PackagingTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.work = Path(tempfile.mkdtemp(prefix="roost-wheel-"))
        cls.wheel, cls.sdist = build_dist.build(cls.work / "dist")

    @classmethod
    def tearDownClass(cls) -> None:
        shutil.rmtree(cls.work, ignore_errors=True)

    def test_the_wheel_and_the_sdist_hold_the_package_its_types_marker_and_the_license(self) -> None:
        self.assertEqual(self.wheel.name, "roost_client-0.1.0-py3-none-any.whl")
        with zipfile.ZipFile(self.wheel) as wheel:
            names = wheel.namelist()
            record = wheel.read("roost_client-0.1.0.dist-info/RECORD").decode()
            metadata = wheel.read("roost_client-0.1.0.dist-info/METADATA").decode()
        for name in [
            "roost_client/__init__.py", "roost_client/py.typed", "roost_client-0.1.0.dist-info/licenses/LICENSE"
        ]:
            self.assertIn(name, names)
        # RECORD names every other file with its hash (pip checks them on install).
        for name in names:
            self.assertIn(name + ",", record)
        self.assertIn("Name: roost-client", metadata)
        self.assertIn("Requires-Python: >=3.10", metadata)
        with tarfile.open(self.sdist) as sdist:
            members = sdist.getnames()
        self.assertIn("roost-client-0.1.0/PKG-INFO", members)
        self.assertIn("roost-client-0.1.0/LICENSE", members)
        self.assertIn("roost-client-0.1.0/roost_client/users.py", members)
        self.assertFalse([m for m in members if "/tests/" in m], "the sdist leaves the tests out")
        # The same sources make the same wheel.
        again, _ = build_dist.build(self.work / "again")
        self.assertEqual(again.read_bytes(), self.wheel.read_bytes())

    def test_pip_installs_the_wheel_in_a_fresh_venv_and_it_talks_to_roost(self) -> None:
        env = self.work / "venv"
        subprocess.run([sys.executable, "-m", "venv", str(env)], check=True, capture_output=True, timeout=120)
        python = env / "bin" / "python"
        pip = [str(python), "-m", "pip", "install", "--no-index", "--disable-pip-version-check", "--quiet"]
        subprocess.run([*pip, str(self.wheel)], check=True, capture_output=True, text=True, timeout=120)
        script = (
            "import json, sys, roost_client\n"
            "users = roost_client.users(base_url=sys.argv[1])\n"
            "users.token(sys.argv[2], sys.argv[3])\n"
            "print(json.dumps({'file': roost_client.__file__, 'name': users.name()['name']}))\n"
        )
        # From an empty folder, so that only the installed package can be imported.
        answer = subprocess.run(
            [str(python), "-c", script, server().base_url, ADMIN[0], ADMIN[2]],
            cwd=self.work,
            check=True,
            capture_output=True,
            text=True,
            timeout=60,
        )
        found = json.loads(answer.stdout)
        self.assertEqual(found["name"], ADMIN[0])
        self.assertIn(str(env), found["file"])
        self.assertIn("site-packages", found["file"])


if __name__ == "__main__":
    unittest.main()
