#!/usr/bin/python3
"""The PyTorch side of importers_tests' safetensors interop tests.

Writes and checks safetensors files with struct, json, numpy and torch only,
sharing no code with Parity's C++ reader and writer:

  safetensors_peer.py write OUT   writes the TENSORS below, filled with pattern()
  safetensors_peer.py check IN    checks a file Parity wrote from the same list

The tensor list and pattern() mirror tests/importers/safetensors_fixture.cpp.
"""
import json
import struct
import sys

import numpy as np
import torch

TORCH_DTYPES = {
    "F64": torch.float64, "F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16,
    "I64": torch.int64, "I32": torch.int32, "I16": torch.int16, "I8": torch.int8,
    "U8": torch.uint8, "BOOL": torch.bool,
}
NUMPY_DTYPES = {
    "F64": np.float64, "F32": np.float32, "F16": np.float16, "I64": np.int64, "I32": np.int32,
    "I16": np.int16, "I8": np.int8, "U8": np.uint8, "BOOL": np.bool_,
}

TENSORS = [
    ("f64", "F64", [2, 3]),
    ("f32", "F32", [4, 5]),
    ("f16", "F16", [3, 3]),
    ("bf16", "BF16", [7]),
    ("i64", "I64", [5]),
    ("i32", "I32", [2, 2]),
    ("i16", "I16", [3]),
    ("i8", "I8", [9]),
    ("u8", "U8", [10]),
    ("bool", "BOOL", [6]),
    ("layer1.0.bn1.num_batches_tracked", "I64", []),
    ("scalar.f32", "F32", []),
    ("scalar.bf16", "BF16", []),
    ("scalar.bool", "BOOL", []),
    ("empty.f32", "F32", [0]),
    ("empty.i8", "I8", [3, 0]),
    ("empty.f64", "F64", [0, 2, 1]),
]
METADATA = {"format": "pt", "note": "naïve ✓ 测试"}


def pattern(code, shape):
    count = 1
    for dim in shape:
        count *= dim
    i = torch.arange(count, dtype=torch.int64)
    real = (i % 17).double() * 0.25 - 2.0
    k = (i * 7) % 23 - 11
    values = {
        "I64": k * 2**33, "I32": k * 65536, "I16": k * 1000, "I8": k,
        "U8": ((i * 7) % 23) * 10, "BOOL": i % 3 == 0,
    }.get(code, real)
    return values.to(TORCH_DTYPES[code]).reshape(shape)


def raw_bytes(tensor):
    if tensor.dtype == torch.bfloat16:  # numpy has no bfloat16: take its bits
        tensor = tensor.view(torch.int16)
    array = tensor.contiguous().numpy()
    return array.astype(array.dtype.newbyteorder("<")).tobytes()


def write(path):
    tensors = {name: pattern(code, shape) for name, code, shape in TENSORS}
    tensors["special.f16"] = torch.tensor([float("inf"), -0.0, 65504.0, 2.0**-24],
                                          dtype=torch.float16)
    tensors["special.bf16"] = torch.tensor([float("-inf"), float("nan"), 3.0e38],
                                           dtype=torch.bfloat16)
    codes = {t: c for t, c in ((v, k) for k, v in TORCH_DTYPES.items())}
    # Choices unlike Parity's writer: data in name order, header in reverse name
    # order, no padding of the header, json's default separators and \u escapes.
    header = {"__metadata__": METADATA}
    offsets = {}
    data = b""
    for name in sorted(tensors):
        raw = raw_bytes(tensors[name])
        offsets[name] = [len(data), len(data) + len(raw)]
        data += raw
    for name in sorted(tensors, reverse=True):
        header[name] = {"dtype": codes[tensors[name].dtype], "shape": list(tensors[name].shape),
                        "data_offsets": offsets[name]}
    text = json.dumps(header).encode("utf-8")
    with open(path, "wb") as out:
        out.write(struct.pack("<Q", len(text)))
        out.write(text)
        out.write(data)


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def check(path):
    with open(path, "rb") as f:
        blob = f.read()
    (length,) = struct.unpack("<Q", blob[:8])
    if length % 8:
        fail("header length %d is not a multiple of 8" % length)
    header = json.loads(blob[8:8 + length].decode("utf-8"))
    data = blob[8 + length:]
    metadata = header.pop("__metadata__", None)
    if metadata != METADATA:
        fail("metadata %r" % (metadata,))
    if list(header) != [name for name, _, _ in TENSORS]:
        fail("header order %r" % (list(header),))
    spans = sorted(tuple(entry["data_offsets"]) for entry in header.values())
    cursor = 0
    for begin, end in spans:
        if begin != cursor:
            fail("data offsets leave a hole or overlap at %d" % cursor)
        cursor = end
    if cursor != len(data):
        fail("data offsets cover %d of %d bytes" % (cursor, len(data)))
    for name, code, shape in TENSORS:
        entry = header[name]
        if entry["dtype"] != code or entry["shape"] != shape:
            fail("%s is %s %r" % (name, entry["dtype"], entry["shape"]))
        begin, end = entry["data_offsets"]
        dtype = TORCH_DTYPES[code]
        item = torch.empty((), dtype=dtype).element_size()
        if (8 + length + begin) % item:
            fail("%s is not aligned to %d bytes" % (name, item))
        raw = bytearray(data[begin:end])
        if raw:
            tensor = torch.frombuffer(raw, dtype=dtype).reshape(shape)
        else:
            tensor = torch.empty(shape, dtype=dtype)
        expected = pattern(code, shape)
        if not torch.equal(tensor, expected):
            fail("%s holds %r, expected %r" % (name, tensor, expected))
        if code in NUMPY_DTYPES:
            array = np.frombuffer(bytes(raw), dtype=np.dtype(NUMPY_DTYPES[code]).newbyteorder("<"))
            if not np.array_equal(array.reshape(shape), expected.numpy()):
                fail("%s differs from numpy's reading" % name)
    print("OK %d tensors" % len(TENSORS))


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("write", "check"):
        sys.exit(__doc__)
    {"write": write, "check": check}[sys.argv[1]](sys.argv[2])
