#include "parity/trainer/dist/scratch_allocation.hpp"

#if __has_include(<malloc.h>)
#include <malloc.h>
#endif

namespace parity::trainer {

void keep_scratch_buffers_mapped() {
#if defined(M_ARENA_MAX) && defined(M_MMAP_THRESHOLD) && defined(M_TRIM_THRESHOLD)  // glibc
  constexpr int kOneGiB = 1 << 30;
  // One arena: a thread arena's heaps hold at most 64 MiB, and a larger block
  // would be mmap'ed whatever the threshold.
  mallopt(M_ARENA_MAX, 1);
  mallopt(M_MMAP_THRESHOLD, kOneGiB);
  mallopt(M_TRIM_THRESHOLD, kOneGiB);
#endif
}

}  // namespace parity::trainer
