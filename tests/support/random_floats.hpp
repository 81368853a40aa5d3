// Uniform random floats from a seed: the inputs of tests that compare an
// implementation with a reference.
#pragma once

#include <random>
#include <vector>

inline std::vector<float> random_floats(std::size_t count, unsigned seed, float low = -1.f,
                                        float high = 1.f) {
  std::mt19937 engine(seed);
  std::uniform_real_distribution<float> uniform(low, high);
  std::vector<float> values(count);
  for (auto& v : values) v = uniform(engine);
  return values;
}
