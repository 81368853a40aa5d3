// The reference backend's optimizer loops over one float64 parameter: the
// SGD update (the formula every backend shares) and the loss scaler's
// overflow check.
#pragma once

#include <span>

#include "../shared/sgd_coefficients.hpp"

namespace parity::trainer::reference {

void sgd_update(std::span<double> w, std::span<const double> grad, std::span<double> buf,
                const BasicSgdCoefficients<double>& c);
bool all_finite(std::span<const double> values);

}  // namespace parity::trainer::reference
