// PyTorch checkpoints (.pth, .pt) read and written without Python: the zip format that
// torch.save writes since PyTorch 1.6 (format "pytorch") and the legacy
// stream it wrote before, and still writes with
// _use_new_zipfile_serialization=False (format "pytorch-legacy"). Opening
// reads only the pickle, through Parity's safe pickle reader (pickle.hpp:
// nothing in the file is ever executed); read() then fetches one tensor's
// bytes. Layouts, naming and limits: docs/formats/pytorch.md.
#pragma once

#include <filesystem>
#include <memory>
#include <span>

#include "parity/importers/tensor_source.hpp"

namespace parity::importers {

// Tensors are named by their dotted path through dicts and lists
// ("state_dict.conv1.weight", "optimizer.state.0.momentum_buffer"); a file
// holding one tensor names it after the file's stem. Throws parity::Error
// naming the file (and the tensor, member or offset) for a file that is
// neither format, a pickle that names a global off the allow-list, a tensor
// of a dtype Parity does not hold, storage sizes that disagree with the
// file, or any damage.
std::unique_ptr<TensorSource> open_torch_checkpoint(const std::filesystem::path& path);

// Writes `tensors` as torch.save writes a state_dict since PyTorch 1.6: a zip
// of archive/data.pkl (pickle protocol 2: an OrderedDict of name -> tensor,
// each tensor a _rebuild_tensor_v2 call on a persistent storage),
// archive/data/N (tensor N's bytes, 64-byte aligned), archive/byteorder and
// archive/version. torch.load reads it, with weights_only=True too. Throws
// parity::Error, leaving no file behind, for an inconsistent tensor, two
// tensors of one name, or any I/O failure.
void write_torch_checkpoint(const std::filesystem::path& path,
                            std::span<const NamedTensor> tensors);

}  // namespace parity::importers
