// The Catch2 main of the tests that run as ranks under mpirun: MPI starts
// before the first test case (through the trainer's own communicator) and
// ends after the last. Every rank runs every case; mpirun's exit code is
// non-zero when any rank failed. A warning logged during a test fails it,
// as in every other suite.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <cstdio>
#include <string>

#include "mpi_world.hpp"
#include "parity/core/log.hpp"
#include "parity/trainer/dist/mpi_communicator.hpp"

namespace {
parity::trainer::Communicator* world_communicator = nullptr;
}  // namespace

parity::trainer::Communicator& mpi_world() { return *world_communicator; }

int main(int argc, char** argv) {
  int warnings = 0;
  parity::log::set_sink([&](parity::log::Level level, std::string_view message) {
    std::fprintf(stderr, "parity: %s: %.*s\n", std::string(parity::log::level_name(level)).c_str(),
                 static_cast<int>(message.size()), message.data());
    if (level >= parity::log::Level::kWarning) ++warnings;
  });
  const auto communicator = parity::trainer::make_mpi_communicator();
  world_communicator = communicator.get();
  const int failures = Catch::Session().run(argc, argv);
  if (warnings > 0)
    std::fprintf(stderr, "FAILED: %d unexpected warning(s) or error(s) were logged\n", warnings);
  return failures + warnings;
}
