// Keeps large heap blocks mapped between AllReduces. Open MPI's MPI_Allreduce
// allocates a scratch buffer that grows with the message on every call (half
// the message on 2 ranks), and glibc's malloc serves a block above its mmap
// threshold (which adapts, but never past 32 MiB) or one that does not fit a
// thread arena's 64 MiB heaps with fresh pages from mmap, returned by munmap
// on free: every AllReduce of a large bucket zero-filled its scratch buffer
// page by page (on 2 ranks 8,200 page faults for 64 MB) on the rank's cores,
// beside backward. On the development VM a 60 MB bucket's AllReduce during
// backward took 73-78 ms against 34-45 ms without, and buckets over 32 MiB
// slowed backward by 0.56 ns a byte reduced beside them against 0.23 ns for
// smaller ones (docs/results.md).
#pragma once

namespace parity::trainer {

// Every thread allocates from the main heap (brk, any size), blocks of up to
// 1 GiB are never mmap'ed, and freed memory is not given back below 1 GiB of
// free space at the heap's top: a scratch buffer is faulted in once and
// reused. Process-wide; call before MPI starts threads of its own (each would
// take an arena). Without glibc: nothing.
void keep_scratch_buffers_mapped();

}  // namespace parity::trainer
