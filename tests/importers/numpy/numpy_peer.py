#!/usr/bin/python3
"""The NumPy side of numpy_importer_tests.

Writes fixtures with NumPy and Python's zipfile and zlib, and checks files
Parity wrote with np.load, sharing no code with Parity's C++ readers and
writers:

  numpy_peer.py fixtures DIR   writes every fixture below into DIR
  numpy_peer.py check DIR      checks the files the C++ tests wrote into DIR

pattern() mirrors pattern_value() in tests/importers/safetensors_fixture.cpp.
"""
import io
import os
import sys
import warnings
import zipfile
import zlib

import numpy as np

# Parity's dtype name -> NumPy's dtype, for every dtype both have.
DTYPES = {
    "float64": np.float64, "float32": np.float32, "float16": np.float16,
    "int64": np.int64, "int32": np.int32, "int16": np.int16, "int8": np.int8,
    "uint8": np.uint8, "bool": np.bool_,
}
SHAPE = (2, 3, 4)


def pattern(name, shape):
    i = np.arange(int(np.prod(shape)), dtype=np.int64)
    k = (i * 7) % 23 - 11
    values = {
        "int64": k * 2**33, "int32": k * 65536, "int16": k * 1000, "int8": k,
        "uint8": ((i * 7) % 23) * 10, "bool": i % 3 == 0,
    }.get(name, (i % 17) * 0.25 - 2.0)
    return values.astype(DTYPES[name]).reshape(shape)


def write_npy_fixtures(out):
    for name in DTYPES:
        array = pattern(name, SHAPE)
        np.save(os.path.join(out, f"c_{name}.npy"), array)
        np.save(os.path.join(out, f"fortran_{name}.npy"), np.asfortranarray(array))
        np.save(os.path.join(out, f"big_{name}.npy"), array.astype(array.dtype.newbyteorder(">")))
        np.save(os.path.join(out, f"scalar_{name}.npy"), pattern(name, ()))
    big_fortran = np.asfortranarray(pattern("int32", (3, 5)).astype(">i4"))
    np.save(os.path.join(out, "big_fortran_int32.npy"), big_fortran)
    np.save(os.path.join(out, "empty_float32.npy"), np.zeros((0, 3), np.float32))
    np.save(os.path.join(out, "empty_fortran_int16.npy"), np.asfortranarray(np.zeros((3, 0, 2), np.int16)))
    for version in ((1, 0), (2, 0), (3, 0)):
        with open(os.path.join(out, f"version{version[0]}.npy"), "wb") as f:
            np.lib.format.write_array(f, pattern("float32", SHAPE), version=version)
    with open(os.path.join(out, "version3_fortran.npy"), "wb") as f:
        np.lib.format.write_array(f, np.asfortranarray(pattern("int64", SHAPE)), version=(3, 0))


def all_patterns():
    return {name: pattern(name, SHAPE) for name in DTYPES}


def write_npz_fixtures(out):
    arrays = all_patterns()
    arrays["scalar"] = pattern("float64", ())
    arrays["empty"] = np.zeros((0, 4), np.int8)
    arrays["fortran"] = np.asfortranarray(pattern("float32", (3, 5)))
    arrays["big"] = pattern("int16", (7,)).astype(">i2")
    # np.savez opens every member with zipfile's force_zip64=True: each local
    # header carries a ZIP64 extra field even for these small arrays.
    np.savez(os.path.join(out, "savez.npz"), **arrays)
    np.savez_compressed(os.path.join(out, "savez_compressed.npz"), **arrays)
    np.savez(os.path.join(out, "positional.npz"), pattern("int32", (4,)), pattern("uint8", (2,)))
    # A large compressible member: reading its header must not inflate it all.
    np.savez_compressed(os.path.join(out, "large_compressed.npz"),
                        zeros=np.zeros((1024, 1024), np.float64))
    # With zipfile's limits lowered, NumPy's own savez writes every ZIP64
    # structure: extra fields in local and central headers (sizes and
    # offsets), the ZIP64 end record and its locator.
    saved = zipfile.ZIP64_LIMIT, zipfile.ZIP_FILECOUNT_LIMIT
    zipfile.ZIP64_LIMIT, zipfile.ZIP_FILECOUNT_LIMIT = 16, 1
    try:
        np.savez(os.path.join(out, "zip64.npz"), **arrays)
        np.savez_compressed(os.path.join(out, "zip64_compressed.npz"), **arrays)
    finally:
        zipfile.ZIP64_LIMIT, zipfile.ZIP_FILECOUNT_LIMIT = saved


class Unseekable(io.RawIOBase):
    """A write-only stream without seek: zipfile then writes data descriptors."""

    def __init__(self, f):
        self.f = f

    def writable(self):
        return True

    def write(self, data):
        return self.f.write(data)


def raw_deflate(data):
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    return compressor.compress(data) + compressor.flush()


def write_zip_fixtures(out):
    members = [("stored.bin", b"hello, stored world\n" * 3, zipfile.ZIP_STORED),
               ("deflated.bin", bytes(range(256)) * 40, zipfile.ZIP_DEFLATED),
               ("empty.bin", b"", zipfile.ZIP_STORED),
               ("dir/nested.txt", "naïve ✓".encode(), zipfile.ZIP_DEFLATED)]
    with zipfile.ZipFile(os.path.join(out, "plain.zip"), "w") as z:
        for name, data, method in members:
            z.writestr(name, data, compress_type=method)
        # The comment holds an end record's signature: the reader must find the
        # real one (Python's zipfile itself cannot, and refuses this file).
        z.comment = b"a comment with PK\x05\x06 inside"
    with open(os.path.join(out, "descriptors.zip"), "wb") as f:
        with zipfile.ZipFile(Unseekable(f), "w") as z:
            for name, data, method in members:
                info = zipfile.ZipInfo(name)
                info.compress_type = method
                with z.open(info, "w") as member:
                    member.write(data)
    with zipfile.ZipFile(os.path.join(out, "duplicate.zip"), "w") as z:
        z.writestr("same.bin", b"first")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            z.writestr("same.bin", b"second")

    # A zip bomb: 64 MiB of zeros deflate to about 64 KiB, and the directory
    # and local header claim the member holds 1000 bytes.
    zeros = bytes(64 << 20)
    compressed = raw_deflate(zeros)
    with zipfile.ZipFile(os.path.join(out, "bomb.zip"), "w") as z:
        z.writestr("bomb.bin", b"x" * 1000, compress_type=zipfile.ZIP_DEFLATED)
    patch_member(os.path.join(out, "bomb.zip"), compressed, zlib.crc32(b"x" * 1000), 1000)
    # The honest form of it, which a caller's limit must stop before inflating.
    with zipfile.ZipFile(os.path.join(out, "zeros.zip"), "w") as z:
        z.writestr("zeros.bin", zeros, compress_type=zipfile.ZIP_DEFLATED)
    # Deflated data that inflates to fewer bytes than the 5000 declared.
    with zipfile.ZipFile(os.path.join(out, "short.zip"), "w") as z:
        z.writestr("short.bin", b"y" * 5000, compress_type=zipfile.ZIP_DEFLATED)
    patch_member(os.path.join(out, "short.zip"), raw_deflate(b"y" * 4000), zlib.crc32(b"y" * 5000),
                 5000)


def patch_member(path, compressed, crc, size):
    """Rewrites a one-member archive with `compressed` as the member's data
    and the given CRC-32 and uncompressed size in both headers."""
    with zipfile.ZipFile(path) as z:
        info = z.infolist()[0]
    name = info.filename.encode()
    local = (b"PK\x03\x04" + (20).to_bytes(2, "little") + bytes(2) + (8).to_bytes(2, "little") +
             bytes(2) + (33).to_bytes(2, "little") + crc.to_bytes(4, "little") +
             len(compressed).to_bytes(4, "little") + size.to_bytes(4, "little") +
             len(name).to_bytes(2, "little") + bytes(2) + name)
    # Made by, the local header's fields, then no comment, disk 0, no
    # attributes, local header at offset 0.
    central = b"PK\x01\x02" + (20).to_bytes(2, "little") + local[4:30] + bytes(14) + name
    end = (b"PK\x05\x06" + bytes(4) + (1).to_bytes(2, "little") * 2 +
           len(central).to_bytes(4, "little") + (len(local) + len(compressed)).to_bytes(4, "little") +
           bytes(2))
    with open(path, "wb") as f:
        f.write(local + compressed + central + end)
    with zipfile.ZipFile(path) as z:  # zipfile agrees it is a well-formed archive
        assert z.infolist()[0].file_size == size


def fixtures(out):
    write_npy_fixtures(out)
    write_npz_fixtures(out)
    write_zip_fixtures(out)
    print("OK fixtures")


def expect_equal(label, got, want):
    if got.dtype != want.dtype or got.shape != want.shape:
        raise SystemExit(f"{label}: {got.dtype}{got.shape}, want {want.dtype}{want.shape}")
    if got.tobytes() != want.tobytes():
        raise SystemExit(f"{label}: values differ")


def check(folder):
    """Parity wrote, from the same patterns: parity_NAME.npy for every dtype
    (shape SHAPE), parity_scalar.npy, parity_empty.npy, parity.npz and
    parity_zip64.npz (all dtypes plus scalar and empty)."""
    arrays = all_patterns()
    extra = {"scalar": pattern("float64", ()), "empty": np.zeros((0, 4), np.int8)}
    for name, want in {**arrays, **extra}.items():
        path = os.path.join(folder, f"parity_{name}.npy")
        expect_equal(path, np.load(path), want)
        buffer = io.BytesIO()
        np.save(buffer, want)
        with open(path, "rb") as f:
            if f.read() != buffer.getvalue():
                raise SystemExit(f"{path}: not byte-identical to np.save's file")
    for archive in ("parity.npz", "parity_zip64.npz"):
        path = os.path.join(folder, archive)
        with zipfile.ZipFile(path) as z:
            if z.testzip() is not None:
                raise SystemExit(f"{path}: CRC mismatch")
        with np.load(path) as npz:
            want = {**arrays, **extra}
            if list(npz.files) != list(want):
                raise SystemExit(f"{path}: members {npz.files}, want {list(want)}")
            for name, array in want.items():
                expect_equal(f"{path}:{name}", npz[name], array)
    print(f"OK {len(arrays) + len(extra)} arrays")


if __name__ == "__main__":
    {"fixtures": fixtures, "check": check}[sys.argv[1]](sys.argv[2])
