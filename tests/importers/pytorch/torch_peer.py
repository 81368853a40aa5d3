"""PyTorch peer of pytorch_importer_tests: writes, with torch.save, the
checkpoints Parity's reader must read, and for each a reference dump of what it
holds, made without Parity or pickle: <case>.ref.json lists each tensor's name,
dtype, shape and the range of its bytes in <case>.ref.bin (C order,
little-endian). It also writes plain pickles of every protocol with a
canonical rendering of their value (plain.txt), and hostile files.

usage: torch_peer.py OUTPUT_DIR MARKER_PATH
       torch_peer.py --load CHECKPOINT OUTPUT_DIR CASE

With --load it reads a checkpoint Parity wrote, as torch.load(weights_only=True)
does, checks that it is a state_dict (an OrderedDict of tensors) and writes
its reference dump as CASE.ref.json and CASE.ref.bin.
"""
import collections
import io
import json
import os
import pickle
import struct
import subprocess
import sys
import zipfile

import torch
import torchvision

DTYPE_NAMES = {
    torch.float64: "float64", torch.float32: "float32", torch.float16: "float16",
    torch.bfloat16: "bfloat16", torch.int64: "int64", torch.int32: "int32",
    torch.int16: "int16", torch.int8: "int8", torch.uint8: "uint8", torch.bool: "bool",
}


def tensor_bytes(tensor):
    flat = tensor.detach().reshape(-1).contiguous()
    return flat.view(torch.uint8).numpy().tobytes() if flat.numel() else b""


def tensors_of(obj, path=""):
    """(name, tensor) in the order and with the names Parity gives them."""
    join = lambda key: f"{path}.{key}" if path else str(key)
    if isinstance(obj, torch.Tensor):
        yield path, obj
    elif isinstance(obj, dict):
        for key, value in obj.items():
            yield from tensors_of(value, join(key))
    elif isinstance(obj, (list, tuple)):
        for index, value in enumerate(obj):
            yield from tensors_of(value, join(index))


def write_reference(out, case, obj, root_name=None):
    entries, blob = [], b""
    for name, tensor in tensors_of(obj):
        data = tensor_bytes(tensor)
        entries.append({"name": name or root_name, "dtype": DTYPE_NAMES[tensor.dtype],
                        "shape": list(tensor.shape), "offset": len(blob), "size": len(data)})
        blob += data
    with open(os.path.join(out, case + ".ref.json"), "w") as f:
        json.dump(entries, f)
    with open(os.path.join(out, case + ".ref.bin"), "wb") as f:
        f.write(blob)


def save_both(out, case, obj, **kwargs):
    torch.save(obj, os.path.join(out, case + ".pth"), **kwargs)
    torch.save(obj, os.path.join(out, case + "_legacy.pth"),
               _use_new_zipfile_serialization=False, **kwargs)
    write_reference(out, case, obj)


def resnet18():
    torch.manual_seed(18)
    model = torchvision.models.resnet18(num_classes=10)
    for module in model.modules():  # non-trivial running statistics
        if isinstance(module, torch.nn.BatchNorm2d):
            module.running_mean.uniform_(-1, 1)
            module.running_var.uniform_(0.5, 2)
            module.num_batches_tracked.fill_(7)
    return model.state_dict()


def every_dtype():
    values = torch.arange(-6, 6)
    tensors = {name: values.to(dtype).reshape(3, 4) for dtype, name in DTYPE_NAMES.items()}
    tensors["float32_special"] = torch.tensor([float("inf"), float("-inf"), -0.0, 1e-45, 3.4e38])
    tensors["float16_special"] = torch.tensor([65504.0, -0.0, 2.0 ** -24], dtype=torch.float16)
    tensors["bfloat16_special"] = torch.tensor([3.0e38, -1.5, 2.0 ** -133], dtype=torch.bfloat16)
    tensors["int64_extremes"] = torch.tensor([2 ** 63 - 1, -2 ** 63, 0])
    tensors["scalar"] = torch.tensor(2.5)
    tensors["empty"] = torch.zeros(0, 3)
    return tensors


def views():
    base = torch.arange(60, dtype=torch.float32).reshape(6, 10)
    shared = torch.arange(12, dtype=torch.int32)
    large = torch.arange(1 << 19, dtype=torch.float32)  # 2 MiB
    return collections.OrderedDict([
        ("transposed", base.t()),
        ("stepped", base[::2, 1::3]),
        ("offset", base[4:]),
        ("row", base[3]),
        ("expanded", torch.arange(3.0).expand(4, 3)),
        ("shared_a", shared[:6]),
        ("shared_b", shared[4:].reshape(2, 4)),
        ("shared_whole", shared),
        ("sparse", large[::4096]),
        ("permuted", torch.arange(24, dtype=torch.int16).reshape(2, 3, 4).permute(2, 0, 1)),
    ])


def nested():
    torch.manual_seed(3)
    model = torch.nn.Sequential(torch.nn.Conv2d(2, 3, 3), torch.nn.BatchNorm2d(3))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    model(torch.randn(2, 2, 5, 5)).sum().backward()
    optimizer.step()
    weight = torch.nn.Parameter(torch.randn(2, 2))
    return {
        "state_dict": model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "epoch": 3,
        "config": {"lr": 0.1, "name": "run", "device": torch.device("cpu"),
                   "shape": torch.Size([2, 3]), "tags": {"a", "b"}, "blob": b"\x00\xff"},
        "list": [torch.ones(2), (torch.zeros(1, dtype=torch.int64), 1, "x")],
        "parameters": {"weight": weight, "tied": weight},
    }


def rewrite_zip(source, target, compression=zipfile.ZIP_STORED, transform=None, extra=None):
    """Copies a zip member by member (names kept), optionally changing bytes."""
    with zipfile.ZipFile(source) as src, zipfile.ZipFile(target, "w", compression) as out:
        for info in src.infolist():
            data = src.read(info)
            if transform:
                data = transform(info.filename, data)
            with out.open(info.filename, "w", force_zip64=True) as f:
                f.write(data)
        for name, data in (extra or {}).items():
            out.writestr(name, data)


def write_zip64(out):
    # Limits of 0 make Python's zipfile write every ZIP64 record and field.
    saved = zipfile.ZIP64_LIMIT, zipfile.ZIP_FILECOUNT_LIMIT
    zipfile.ZIP64_LIMIT, zipfile.ZIP_FILECOUNT_LIMIT = 0, 0
    try:
        rewrite_zip(os.path.join(out, "dtypes.pth"), os.path.join(out, "zip64.pth"))
    finally:
        zipfile.ZIP64_LIMIT, zipfile.ZIP_FILECOUNT_LIMIT = saved


def write_big_endian(out):
    tensors = collections.OrderedDict([
        ("f32", torch.tensor([1.5, -2.0, 3.25])), ("i16", torch.tensor([1, -2, 300], dtype=torch.int16)),
        ("f64", torch.tensor([1e300, -0.5])), ("u8", torch.tensor([1, 2, 3], dtype=torch.uint8)),
        ("bf16", torch.tensor([1.0, -3.0], dtype=torch.bfloat16)),
        ("i64", torch.tensor([2 ** 40, -5])),
    ])
    little = os.path.join(out, "bigendian_source.pth")
    torch.save(tensors, little)
    # Storage keys are given in order of first use: key i is the i-th tensor.
    sizes = {str(i): t.element_size() for i, t in enumerate(tensors.values())}
    prefix = zipfile.ZipFile(little).namelist()[0].split("/")[0]

    def swap(name, data):
        key = name.split("/data/")[-1] if "/data/" in name else None
        if key not in sizes:
            return data
        size = sizes[key]
        return b"".join(data[i:i + size][::-1] for i in range(0, len(data), size))

    rewrite_zip(little, os.path.join(out, "bigendian.pth"), transform=swap,
                extra={prefix + "/byteorder": "big"})
    os.remove(little)
    write_reference(out, "bigendian", tensors)


def write_not_checkpoints(out):
    torch.jit.script(torch.nn.Linear(2, 2)).save(os.path.join(out, "scripted.pt"))
    with zipfile.ZipFile(os.path.join(out, "other.zip"), "w") as z:
        z.writestr("folder/readme.txt", "not a checkpoint")
    prefix = zipfile.ZipFile(os.path.join(out, "dtypes.pth")).namelist()[0].split("/")[0]
    rewrite_zip(os.path.join(out, "dtypes.pth"), os.path.join(out, "badorder.pth"),
                extra={prefix + "/byteorder": "middle"})


def write_short_storage(out):
    source = os.path.join(out, "dtypes.pth")
    rewrite_zip(source, os.path.join(out, "short_storage.pth"),
                transform=lambda name, data: data[:-2] if name.endswith("/data/0") else data)


class Call:
    """Pickles as a call of `function` with `args`: what an attack looks like."""

    def __init__(self, function, *args):
        self.function, self.args = function, args

    def __reduce__(self):
        return self.function, self.args


def write_hostile(out, marker):
    attacks = {
        "system": Call(os.system, f"touch {marker}"),
        "eval": Call(eval, f"open({marker!r}, 'w')"),
        "popen": Call(subprocess.Popen, ["touch", marker]),
        "getattr": Call(getattr, Call(__import__, "os"), "system"),
    }
    for name, attack in attacks.items():
        for protocol in (2, 4):
            with open(os.path.join(out, f"evil_{name}_p{protocol}.pkl"), "wb") as f:
                pickle.dump({"weight": attack}, f, protocol=protocol)
    # The attack inside real checkpoint containers.
    evil_pickle = pickle.dumps({"weight": attacks["system"]}, protocol=2)
    rewrite_zip(os.path.join(out, "dtypes.pth"), os.path.join(out, "evil_system.pth"),
                transform=lambda name, data: evil_pickle if name.endswith("/data.pkl") else data)
    with open(os.path.join(out, "evil_eval_legacy.pth"), "wb") as f:
        for header in (0x1950a86a20f9469cfc6c, 1001, {"protocol_version": 1001}):
            pickle.dump(header, f, protocol=2)
        pickle.dump({"weight": attacks["eval"]}, f, protocol=2)
        pickle.dump([], f, protocol=2)


# ---- plain pickles of every protocol, and their canonical rendering ----

def plain_value():
    shared = [1, 2]
    return {
        "ints": [0, 1, -1, 255, 256, 65535, 65536, -129, 2 ** 31 - 1, -2 ** 31, 2 ** 63 - 1, -2 ** 63],
        "floats": (0.5, -0.0, 1e300, float("inf"), float("-inf"), 2.0 ** -1074),
        "strs": ["", "plain", "naïve ✓ 测试 \U0001f600", "quote ' \" back \\ new\nline"],
        "bytes": [b"", b"\x00\x01\xff", bytes(range(256))],
        "flags": (None, True, False),
        "nested": {"a": shared, "b": shared, 3: (1, (2, (3,))), (1, 2): "tuple key"},
        "sets": [{7}, frozenset([8])],
        "big": list(range(300)),
    }


def render(value):
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return "f" + struct.pack(">d", value).hex()
    if isinstance(value, str):
        return "s" + value.encode("utf-8", "surrogatepass").hex()
    if isinstance(value, bytes):
        return "b" + value.hex()
    if isinstance(value, tuple):
        return "(" + ",".join(map(render, value)) + ")"
    if isinstance(value, list):
        return "[" + ",".join(map(render, value)) + "]"
    if isinstance(value, (set, frozenset)):
        return "{" + ",".join(map(render, value)) + "}"
    if isinstance(value, dict):
        return "{" + ",".join(render(k) + ":" + render(v) for k, v in value.items()) + "}"
    raise TypeError(type(value))


def write_plain(out):
    value = plain_value()
    for protocol in range(6):
        with open(os.path.join(out, f"plain_p{protocol}.pkl"), "wb") as f:
            pickle.dump(value, f, protocol=protocol)
    with open(os.path.join(out, "plain.txt"), "w") as f:
        f.write(render(value))


def load(checkpoint, out, case):
    state = torch.load(checkpoint, weights_only=True)
    if type(state) is not collections.OrderedDict:
        sys.exit(f"torch.load gave a {type(state).__name__}, not an OrderedDict")
    for name, tensor in state.items():
        if type(tensor) is not torch.Tensor or not tensor.is_contiguous():
            sys.exit(f"{name} is not a contiguous tensor")
    write_reference(out, case, state)
    print("OK")


def main():
    if sys.argv[1] == "--load":
        return load(*sys.argv[2:5])
    out, marker = sys.argv[1], sys.argv[2]
    save_both(out, "resnet18", resnet18())
    save_both(out, "dtypes", every_dtype())
    save_both(out, "views", views())
    save_both(out, "nested", nested())
    small = collections.OrderedDict([("w", torch.arange(6.0).reshape(2, 3)),
                                     ("b", torch.tensor([1, 2], dtype=torch.int64))])
    for protocol in range(1, 6):
        save_both(out, f"protocol{protocol}", small, pickle_protocol=protocol)
    weights = torch.linspace(-1, 1, 7).reshape(7, 1)
    torch.save(weights, os.path.join(out, "weights.pt"))
    write_reference(out, "weights", weights, root_name="weights")
    bias = torch.nn.Parameter(torch.tensor([0.25, -0.5]))
    torch.save(bias, os.path.join(out, "bias.pt"), _use_new_zipfile_serialization=False)
    write_reference(out, "bias", bias, root_name="bias")
    write_zip64(out)
    rewrite_zip(os.path.join(out, "dtypes.pth"), os.path.join(out, "deflated.pth"),
                compression=zipfile.ZIP_DEFLATED)
    write_big_endian(out)
    write_short_storage(out)
    write_not_checkpoints(out)
    write_hostile(out, marker)
    write_plain(out)
    print("OK")


if __name__ == "__main__":
    main()
