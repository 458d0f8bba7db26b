"""publish_bytes: atomic publish with ordinary file permissions.

Expectations are POSIX's: a file created by ``open(path, "w")`` gets
``0o666 & ~umask``; replacing an existing file keeps its mode. mkstemp's own
0600 must not leak into the published file.
"""

import os
import stat

import pytest

from animsmith.io.write import publish_bytes

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")


def _mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.fixture
def umask():
    saved = os.umask(0o022)
    os.umask(saved)

    def set_mask(mask):
        os.umask(mask)

    yield set_mask
    os.umask(saved)


@pytest.mark.parametrize("mask, expected", [(0o022, 0o644), (0o002, 0o664), (0o077, 0o600), (0o027, 0o640)])
def test_new_file_gets_0666_minus_umask(tmp_path, umask, mask, expected):
    umask(mask)
    path = tmp_path / "out.glb"
    publish_bytes(str(path), b"abc")
    assert path.read_bytes() == b"abc"
    assert _mode(path) == expected
    # the same as an ordinary open() under this umask
    ref = tmp_path / "ref.bin"
    with open(ref, "wb") as fh:
        fh.write(b"x")
    assert _mode(path) == _mode(ref)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.glb", "ref.bin"]  # no temp left


def test_existing_file_keeps_its_mode(tmp_path, umask):
    umask(0o022)
    path = tmp_path / "out.glb"
    path.write_bytes(b"old")
    os.chmod(path, 0o640)
    publish_bytes(str(path), b"new bytes")
    assert path.read_bytes() == b"new bytes"
    assert _mode(path) == 0o640
    os.chmod(path, 0o604)
    publish_bytes(str(path), b"again")
    assert _mode(path) == 0o604


def test_write_glb_file_is_world_readable_under_default_umask(tmp_path, umask):
    from animsmith.io.write import write_glb
    from animsmith.model import Asset, Skeleton

    umask(0o022)
    path = tmp_path / "a.glb"
    write_glb(Asset(skeleton=Skeleton.build(["root"], [-1], [[0, 1, 0]]), clips=[]), str(path))
    assert _mode(path) == 0o644
