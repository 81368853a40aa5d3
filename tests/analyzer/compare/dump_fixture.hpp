// Dumps of a small ResNet-like network, written with the importers'
// DumpWriter as parity-train and dump_reference.py write them: forward,
// backward and update records of a few steps. Each record's values depend
// only on its key (step, phase, role, name), so two dumps agree wherever
// nothing was planted, whatever order they list their records in.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "parity/importers/dump/dump_manifest.hpp"

namespace fixture {

// A record of the network, without index, dtype, file and stats.
std::vector<parity::importers::DumpRecord> small_network(int steps = 1);

// Changes the values of the record with this phase, name and role (any step).
struct Plant {
  std::string phase, name, role;
  std::function<void(std::vector<float>&)> change;
};

struct DumpSpec {
  std::vector<parity::importers::DumpRecord> records = small_network();
  std::vector<Plant> plants;
  bool stats_only = false;
  bool float64 = false;  // write every record as float64
  parity::importers::RunSettings settings;  // the header's
};

std::filesystem::path write_dump(const std::filesystem::path& dir, const DumpSpec& spec);

// The record's values before any plant.
std::vector<float> values_of(const parity::importers::DumpRecord& record);

// The index of the record with this phase, name and role in step 0.
std::int64_t index_of(const std::vector<parity::importers::DumpRecord>& records,
                      const std::string& phase, const std::string& name, const std::string& role);

// Replaces line `line` (1-based) of DIR/manifest.jsonl.
void replace_manifest_line(const std::filesystem::path& dir, int line, const std::string& text);
std::string manifest_line(const std::filesystem::path& dir, int line);

// Runs `code` with /usr/bin/python3 (which has NumPy), with `dir` as argv[1].
void run_numpy(const std::string& code, const std::filesystem::path& dir);

}  // namespace fixture
