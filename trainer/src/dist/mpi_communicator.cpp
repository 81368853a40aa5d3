#include "parity/trainer/dist/mpi_communicator.hpp"

#include <cstdlib>

#include "parity/core/error.hpp"
#include "parity/trainer/dist/scratch_allocation.hpp"

#ifdef PARITY_HAVE_MPI
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <string>
#include <vector>
#endif

namespace parity::trainer {

bool launched_by_mpi() {
  // Open MPI's mpirun, MPICH/Hydra and PMIx launchers, Slurm's srun.
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "SLURM_NTASKS"})
    if (std::getenv(name)) return true;
  return false;
}

int launcher_local_rank(int rank) {
  for (const char* name : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"})
    if (const char* value = std::getenv(name)) {
      char* end = nullptr;
      const long local = std::strtol(value, &end, 10);
      if (end != value && *end == '\0' && local >= 0 && local <= rank) return int(local);
    }
  return rank;
}

#ifdef PARITY_HAVE_MPI

bool mpi_available() { return true; }

namespace {

std::string mpi_error_text(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  return std::string(text, static_cast<std::size_t>(length));
}

void check(int code, const char* call) {
  if (code != MPI_SUCCESS)
    throw Error(
        std::string(call) + " failed: " + mpi_error_text(code), "MPI",
        "check that every rank runs the same command and that mpirun's ranks can reach each other");
}

class MpiCommunicator final : public Communicator {
 public:
  MpiCommunicator() {
    // Before MPI starts threads of its own, each of which would take an arena.
    keep_scratch_buffers_mapped();
    int initialized = 0;
    check(MPI_Initialized(&initialized), "MPI_Initialized");
    if (!initialized) {
      int provided = MPI_THREAD_SINGLE;
      check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided), "MPI_Init_thread");
      owns_mpi_ = true;
      if (provided < MPI_THREAD_SERIALIZED)
        throw Error("this MPI library cannot be called from more than one thread",
                    "MPI_Init_thread",
                    "use an MPI built with thread support (Debian's Open MPI is)");
    }
    // Errors come back as codes (turned into parity::Error), not as an abort.
    check(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
    check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
    check(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_Comm_size");
  }
  ~MpiCommunicator() override {
    if (owns_mpi_) MPI_Finalize();
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string describe() const override {
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int length = 0;
    MPI_Get_library_version(version, &length);
    std::string library(version, static_cast<std::size_t>(length));
    library = library.substr(0, library.find_first_of(",\n"));
    return library + ", " + std::to_string(size_) + " ranks";
  }

  void allreduce_mean(std::span<float> values) override {
    for (std::span<float> part : chunks(values))
      check(MPI_Allreduce(MPI_IN_PLACE, part.data(), static_cast<int>(part.size()), MPI_FLOAT,
                          MPI_SUM, MPI_COMM_WORLD),
            "MPI_Allreduce");
    const float scale = 1.0f / static_cast<float>(size_);
    for (float& value : values) value *= scale;
  }

  void broadcast(std::span<float> values, int root) override {
    for (std::span<float> part : chunks(values))
      check(MPI_Bcast(part.data(), static_cast<int>(part.size()), MPI_FLOAT, root, MPI_COMM_WORLD),
            "MPI_Bcast");
  }

  bool any(bool flag) override {
    int value = flag ? 1 : 0;
    check(MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD),
          "MPI_Allreduce");
    return value != 0;
  }

  void abort(int exit_code) override {
    MPI_Abort(MPI_COMM_WORLD, exit_code);
    std::_Exit(exit_code);
  }

 private:
  // MPI counts are ints: a message over 2^31 - 1 floats goes in parts.
  static std::vector<std::span<float>> chunks(std::span<float> values) {
    constexpr std::size_t kMaxCount = INT_MAX;
    std::vector<std::span<float>> parts;
    for (std::size_t offset = 0; offset < values.size(); offset += kMaxCount)
      parts.push_back(values.subspan(offset, std::min(kMaxCount, values.size() - offset)));
    return parts;
  }

  int rank_ = 0, size_ = 1;
  bool owns_mpi_ = false;
};

}  // namespace

std::unique_ptr<Communicator> make_mpi_communicator() {
  return std::make_unique<MpiCommunicator>();
}

#else  // no MPI in this build

bool mpi_available() { return false; }

std::unique_ptr<Communicator> make_mpi_communicator() {
  throw Error(
      "this parity-train was built without MPI, so it cannot train on several ranks", "mpirun",
      "install libopenmpi-dev (scripts/setup.sh does) and rebuild with -DPARITY_WITH_MPI=ON");
}

#endif

}  // namespace parity::trainer
