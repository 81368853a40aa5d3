"""safetensors files as dicts of torch tensors, for the PyTorch peers of our
tests: the format read and written with struct and json (Debian has no
safetensors package), independently of Parity's C++ reader and writer."""
import json
import struct

import torch

CODES = {"F64": torch.float64, "F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16,
         "I64": torch.int64, "I32": torch.int32, "I16": torch.int16, "I8": torch.int8,
         "U8": torch.uint8, "BOOL": torch.bool}
NAMES = {dtype: code for code, dtype in CODES.items()}


def read(path):
    with open(path, "rb") as f:
        blob = f.read()
    (length,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8:8 + length])
    header.pop("__metadata__", None)
    data = blob[8 + length:]
    out = {}
    for name, entry in header.items():
        begin, end = entry["data_offsets"]
        out[name] = torch.frombuffer(bytearray(data[begin:end]),
                                     dtype=CODES[entry["dtype"]]).reshape(entry["shape"])
    return out


def write(path, tensors):
    header, chunks, offset = {}, [], 0
    for name, tensor in tensors.items():
        # numpy has no bfloat16: its bytes travel as int16.
        flat = tensor.detach().contiguous()
        raw = (flat.view(torch.int16) if flat.dtype == torch.bfloat16 else flat).numpy().tobytes()
        header[name] = {"dtype": NAMES[tensor.dtype], "shape": list(tensor.shape),
                        "data_offsets": [offset, offset + len(raw)]}
        chunks.append(raw)
        offset += len(raw)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(chunks))
