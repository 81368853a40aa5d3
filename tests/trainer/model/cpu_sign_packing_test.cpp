// The CPU backend packs a gradient's sign bits where oneDNN keeps it, in a
// blocked layout, without a reorder (for the gradient-sign probe): the bits
// must be those of the tensor's plain logical order, as importers::pack_signs
// packs a host copy, whatever the layout and its padding.
#include <catch2/catch.hpp>

#include <dnnl.hpp>
#include <limits>

#include "parity/importers/grad_probe/sign_bits.hpp"
#include "parity/trainer/backend/cpu_backend.hpp"
#include "random_floats.hpp"
#include "sign_packing.hpp"

using namespace parity::trainer;

namespace {

Backend& backend() {
  static const std::unique_ptr<Backend> instance = make_cpu_backend({});
  return *instance;
}

// Random values with every kind of sign the bits must tell apart, among them
// zeros of both signs, infinities, NaN and subnormals.
std::vector<float> signed_values(std::size_t count, unsigned seed) {
  std::vector<float> values = random_floats(count, seed, -1.f, 1.f);
  constexpr float kSpecial[] = {0.0f, -0.0f, std::numeric_limits<float>::infinity(),
                                -std::numeric_limits<float>::infinity(),
                                std::numeric_limits<float>::quiet_NaN(),
                                std::numeric_limits<float>::denorm_min(),
                                -std::numeric_limits<float>::denorm_min()};
  for (std::size_t i = 0; i < count; i += 5) values[i] = kSpecial[(i / 5) % 7];
  return values;
}

void check_signs(ParamTensors& param, const Dims& shape, unsigned seed) {
  const std::vector<float> values = signed_values(std::size_t(element_count(shape)), seed);
  backend().write(param.grad, values);
  std::vector<std::uint64_t> expected(std::size_t(parity::importers::sign_words(element_count(shape))));
  parity::importers::pack_signs(values, expected);
  // Stale bits must not survive: every word is overwritten.
  std::vector<std::uint64_t> words(expected.size(), ~std::uint64_t{0});
  REQUIRE(backend().pack_signs(param.grad, words));
  CHECK(words == expected);
}

}  // namespace

TEST_CASE("the CPU backend packs gradient signs in logical order from its own layouts", "[unit]") {
  struct ConvCase {
    std::int64_t in, out, kernel, stride;
  };
  // The first convolution (3 channels), 3x3 and 1x1 ones in blocked
  // layouts, and channel counts that leave a block half padded.
  const ConvCase convs[] = {{3, 64, 7, 2}, {64, 64, 3, 1}, {64, 256, 1, 1},
                            {16, 32, 3, 2}, {24, 40, 3, 1}, {10, 6, 1, 1}};
  unsigned seed = 1;
  for (const ConvCase& c : convs) {
    DYNAMIC_SECTION("conv " << c.in << "->" << c.out << " k" << c.kernel) {
      auto op = backend().conv2d({c.in, c.out, c.kernel, c.stride, c.kernel / 2, {2, c.in, 16, 16},
                                  c.in != 3});
      const ParamSlot weight = op->parameters()[0];
      check_signs(*weight.tensors, weight.shape, seed++);
    }
  }
  SECTION("linear weight and bias") {
    auto op = backend().linear({2048, 10, {2, 2048, 1, 1}});
    for (const ParamSlot& slot : op->parameters()) check_signs(*slot.tensors, slot.shape, seed++);
  }
  SECTION("batch norm scale and shift") {
    auto op = backend().batch_norm({100, 1e-5, 0.1, true, {2, 100, 4, 4}});
    for (const ParamSlot& slot : op->parameters()) check_signs(*slot.tensors, slot.shape, seed++);
  }
}

// The layouts a backend on another CPU picks (8-blocked on AVX2, blocked over
// channels for activations), each made by oneDNN's own reorder from the
// plain values: the offset path and the 16-row path against the same bits.
TEST_CASE("sign packing reads every oneDNN layout in logical order", "[unit]") {
  using tag = dnnl::memory::format_tag;
  const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  struct Case {
    dnnl::memory::dims dims;
    tag layout;
  };
  const Case cases[] = {
      {{40, 24, 3, 3}, tag::OIhw16i16o}, {{40, 24, 3, 3}, tag::OIhw8i8o},
      {{37, 5, 7, 7}, tag::Ohwi16o},     {{30, 20, 1, 1}, tag::OIhw4i16o4i},
      {{3, 40, 5, 5}, tag::nChw16c},     {{3, 40, 5, 5}, tag::nChw8c},
      {{3, 40, 5, 5}, tag::nhwc},        {{7, 300}, tag::ba},
  };
  unsigned seed = 100;
  for (const Case& c : cases) {
    const dnnl::memory::desc plain(c.dims, dnnl::memory::data_type::f32,
                                   c.dims.size() == 4 ? tag::abcd : tag::ab);
    DYNAMIC_SECTION("dims " << c.dims.size() << "-d, first " << c.dims[0] << ", tag "
                            << static_cast<int>(c.layout)) {
      const dnnl::memory::desc blocked(c.dims, dnnl::memory::data_type::f32, c.layout);
      std::int64_t count = 1;
      for (const auto d : c.dims) count *= d;
      std::vector<float> values = signed_values(std::size_t(count), seed++);
      dnnl::memory source(plain, engine, values.data());
      dnnl::memory target(blocked, engine);
      dnnl::reorder(source, target).execute(stream, source, target);
      stream.wait();
      std::vector<std::uint64_t> expected(std::size_t(parity::importers::sign_words(count)));
      parity::importers::pack_signs(values, expected);
      std::vector<std::uint64_t> words(expected.size(), ~std::uint64_t{0});
      parity::trainer::cpu::pack_signs_in_layout(
          blocked, static_cast<const float*>(target.get_data_handle()), words);
      CHECK(words == expected);
    }
  }
}
