// Communicator: what data-parallel training needs from a collective library,
// for one rank of a group that runs the same program. MPI implements it for
// CPU ranks; NCCL (bootstrapped over MPI) for GPU ranks. Calls are
// collective: every rank makes the same calls in the same order.
#pragma once

#include <span>
#include <string>

namespace parity::trainer {

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual std::string describe() const = 0;  // "Open MPI v4.1.4, 2 ranks"

  // values = the mean of `values` over the ranks, in place. One thread at a
  // time may call the communicator (the reducer's thread during a step).
  virtual void allreduce_mean(std::span<float> values) = 0;
  // values = rank `root`'s values.
  virtual void broadcast(std::span<float> values, int root) = 0;
  // Every rank's `flag`, OR-ed: agreement on a decision only some ranks saw.
  virtual bool any(bool flag) = 0;
  // Ends the group so that the others stop too; for a rank that failed while
  // the others may be waiting in a collective. Does not return.
  virtual void abort(int exit_code) = 0;
};

}  // namespace parity::trainer
