#include "refusal.hpp"

#include <catch2/catch.hpp>

void check_refused(const ProcessResult& result, const std::string& message) {
  INFO("stdout: " << result.out << "\nstderr: " << result.err);
  CHECK(result.exit_code == 2);
  CHECK_THAT(result.err, Catch::Contains(message));
  CHECK_THAT(result.err, !Catch::Contains("terminate called"));
  CHECK(result.out.empty());
}
