#include <catch2/catch.hpp>

#include <string>

#include "log_capture.hpp"
#include "parity/core/error.hpp"
#include "parity/core/log.hpp"

TEST_CASE("Error names what, where and a hint in one message", "[unit]") {
  const parity::Error error("truncated tensor data", "model.pth: layer1.0.conv1.weight, offset 4096",
                            "re-save the checkpoint");
  CHECK(std::string(error.what()) ==
        "truncated tensor data (model.pth: layer1.0.conv1.weight, offset 4096)\n"
        "  hint: re-save the checkpoint");
  CHECK(error.where() == "model.pth: layer1.0.conv1.weight, offset 4096");
  CHECK(std::string(parity::Error("bad").what()) == "bad");
}

TEST_CASE("log messages reach the installed sink above the minimum level", "[unit]") {
  ScopedLogCapture capture;
  parity::log::set_min_level(parity::log::Level::kWarning);
  parity::log::info("not shown");
  parity::log::warning("disk almost full");
  parity::log::set_min_level(parity::log::Level::kInfo);
  REQUIRE(capture.messages().size() == 1);
  CHECK(capture.messages()[0] == "disk almost full");
}
