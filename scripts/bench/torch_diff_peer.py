"""The peer of the weight-diff benchmark: the same comparison done with
Debian's PyTorch. Loads two state_dict files with torch.load, pairs equal
names, and computes per pair what `parity diff` reports (max abs difference
and its index, max relative difference, mean abs difference, cosine
similarity, share within torch.testing's tolerance) in float64.

  torch_diff_peer.py A.pth B.pth     prints: seconds <s> (load + compare)"""
import sys
import time

import torch


def compare(a, b):
    x, y = a.double().flatten(), b.double().flatten()
    diff = (x - y).abs()
    rtol, atol = (1.3e-6, 1e-5) if a.dtype == torch.float32 else (0, 0)
    within = (diff <= atol + rtol * y.abs()).double().mean().item() if diff.numel() else 1.0
    if diff.numel() == 0:
        return (0.0, -1, 0.0, 0.0, 1.0, within)
    index = int(diff.argmax())
    rel = (diff / y.abs()).nan_to_num(0.0).max().item()
    norms = x.norm() * y.norm()
    cosine = (x.dot(y) / norms).item() if norms > 0 else 1.0
    return (diff[index].item(), index, rel, diff.mean().item(), cosine, within)


def main():
    torch.set_num_threads(int(sys.argv[3]) if len(sys.argv) > 3 else torch.get_num_threads())
    start = time.perf_counter()
    a = torch.load(sys.argv[1])
    b = torch.load(sys.argv[2])
    results = {name: compare(tensor, b[name]) for name, tensor in a.items() if name in b}
    elapsed = time.perf_counter() - start
    print(f"pairs {len(results)}")
    print(f"seconds {elapsed:.4f}")


if __name__ == "__main__":
    main()
