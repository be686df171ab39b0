/* The argument of a simgpu collective kernel: what a communicator tells an
 * NCCL kernel, reduced to what the simulation needs.
 *
 * A module image marks a kernel as a collective (`kernel NAME collective=allreduce`,
 * simgpu/README.md). Its launch passes a pointer to this struct as its first
 * kernel parameter (kernelParams[0]); every rank of a group launches the same
 * collectives in the same order, each on its own stream (its own device, for a
 * data-parallel job). A rank's kernel completes only once every rank of the
 * group has reached it, plus the all-reduce's transfer time. */
#ifndef SIMGPU_COLLECTIVE_H_
#define SIMGPU_COLLECTIVE_H_

#include <stdint.h>

#define SIMGPU_COLLECTIVE_GROUP_MAX 64 /* bytes of `group`, with its NUL */
#define SIMGPU_COLLECTIVE_RANKS_MAX 64

struct simgpu_collective_args {
  /* The communicator's name, the same for every rank of the group: 1..63 of
   * [A-Za-z0-9._-], NUL-terminated. Unique per job (as NCCL's unique id is). */
  char group[SIMGPU_COLLECTIVE_GROUP_MAX];
  uint32_t rank;   /* 0 .. nranks-1 */
  uint32_t nranks; /* 1 .. SIMGPU_COLLECTIVE_RANKS_MAX, the same for every rank */
  uint64_t bytes;  /* the buffer each rank all-reduces */
};

#endif /* SIMGPU_COLLECTIVE_H_ */
