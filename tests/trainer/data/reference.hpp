// Runs data_reference.py (torchvision and PIL, through Debian's
// /usr/bin/python3) and reads back what it wrote: raw arrays in a folder and
// "name value ..." lines on stdout. A failed run fails the test with the
// script's error and, when a module is missing, what to install.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "parity/trainer/data/dataset.hpp"
#include "parity/trainer/data/float_image.hpp"

struct Reference {
  std::filesystem::path dir;
  std::vector<std::vector<std::string>> lines;  // stdout, split at spaces

  // The words after `name` on its first line; fails the test if absent.
  std::vector<std::string> values(const std::string& name) const;
  // Every line starting with `name`, without the name.
  std::vector<std::vector<std::string>> all(const std::string& name) const;
  std::vector<std::int64_t> shape(const std::string& name) const;
  // name.f32 as a CHW image (3-D shape).
  parity::trainer::FloatImage image(const std::string& name) const;
  // name.u8 of shape C x H x W as a sample (HWC pixels).
  parity::trainer::Sample chw_sample(const std::string& name) const;
  std::vector<float> floats(const std::string& name) const;
  std::vector<std::uint8_t> bytes(const std::string& name) const;
};

// Runs `data_reference.py command dir args...`; `dir` must exist.
Reference run_reference(const std::string& command, const std::filesystem::path& dir,
                        const std::vector<std::string>& args = {});

// The outputs of `data_reference.py transforms` (torchvision) and
// `data_reference.py jpeg` (JPEGs written and decoded by PIL), made once per
// test process in a temporary folder.
const Reference& torch_transforms_reference();
const Reference& pil_jpeg_reference();

// Largest |a - b| over two equally long float vectors (infinity if the sizes differ).
double max_abs_difference(const std::vector<float>& a, const std::vector<float>& b);
