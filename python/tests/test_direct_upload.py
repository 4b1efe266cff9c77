"""Direct uploads and links through the Python connector (docs/filestore.md, "Direct uploads and
downloads (S3)"), against a Roost of its own whose store ``photos`` keeps its blobs on an S3
server (s3rver from the repository's node_modules); the server's own checks are in
packages/server/test/http/filestore-direct.test.ts."""
from __future__ import annotations

import io
import subprocess
import tempfile
import unittest
import urllib.request
from pathlib import Path

from roost_client import RoostError
from tests.roost_server import ADMIN, REPO, RoostServer, unique

# s3rver on a free port with the bucket `photos`; it prints the port and runs until its stdin closes.
S3RVER = """
const { default: S3rver } = await import('s3rver');
const server = new S3rver({
  address: '127.0.0.1', port: 0, directory: process.argv[1], silent: true, configureBuckets: [{ name: 'photos' }],
});
const { port } = await server.run();
console.log(port);
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
"""


class DirectUploadTest(unittest.TestCase):
    s3: subprocess.Popen[str]
    roost: RoostServer
    s3_dir: tempfile.TemporaryDirectory[str]

    @classmethod
    def setUpClass(cls) -> None:
        cls.s3_dir = tempfile.TemporaryDirectory(prefix="roost-s3-")
        cls.s3 = subprocess.Popen(
            ["node", "--input-type=module", "-e", S3RVER, cls.s3_dir.name],
            cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )
        assert cls.s3.stdout is not None
        endpoint = f"http://127.0.0.1:{int(cls.s3.stdout.readline())}"
        blobs = {
            "kind": "s3", "endpoint": endpoint, "bucket": "photos", "forcePathStyle": True,
            "accessKeyId": "S3RVER", "secretAccessKey": "S3RVER", "prefix": "blobs/",
        }
        cls.roost = RoostServer({
            "logLevel": "info",
            "fileStores": {
                "files": {},
                "photos": {"blobs": blobs, "maxFileBytes": 1024, "direct": {"downloads": True}},
            },
        })
        cls.roost.start()

    @classmethod
    def tearDownClass(cls) -> None:
        cls.roost.stop()
        assert cls.s3.stdin is not None
        cls.s3.stdin.close()
        cls.s3.wait(10)
        if cls.s3.stdout is not None:
            cls.s3.stdout.close()
        cls.s3_dir.cleanup()

    def setUp(self) -> None:
        token = self.roost.users().token(ADMIN[0], ADMIN[2])["token"]
        self.photos = self.roost.filestore("photos", token=token)
        self.files = self.roost.filestore("files", token=token)

    def test_a_file_goes_to_the_bucket_and_its_link_reads_it_back(self) -> None:
        with tempfile.TemporaryDirectory() as folder:
            source = Path(folder) / "note.txt"
            source.write_bytes(b"straight to the bucket")
            name = f"{unique('note')}.txt"
            entry = self.photos.direct_upload(name, source)
        self.assertEqual((entry["name"], entry["size"], entry["mime"]), (name, 22, "text/plain"))
        link = self.photos.link(name)
        with urllib.request.urlopen(link["url"]) as response:
            self.assertEqual(response.read(), b"straight to the bucket")

    def test_refusals_raise_the_server_codes(self) -> None:
        with self.assertRaises(RoostError) as caught:
            self.photos.direct_upload("big.bin", io.BytesIO(bytes(1025)))
        self.assertEqual((caught.exception.status, caught.exception.code), (0, "invalid_source"))
        with tempfile.TemporaryDirectory() as folder:
            big = Path(folder) / "big.bin"
            big.write_bytes(bytes(1025))
            with self.assertRaises(RoostError) as caught:
                self.photos.direct_upload("big.bin", big)
            self.assertEqual((caught.exception.status, caught.exception.code), (413, "storage_limit"))
            with self.assertRaises(RoostError) as caught:
                self.files.direct_upload("big.bin", big)
            self.assertEqual((caught.exception.status, caught.exception.code), (404, "direct_not_enabled"))
