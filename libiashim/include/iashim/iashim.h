/* Introspection of libiashim from inside the process it is loaded into.
 *
 * A program (or a test) that wants to know what the shim has seen declares
 * these weakly or looks them up with dlsym(RTLD_DEFAULT, "iashim_get_stats");
 * they exist only when libiashim.so is loaded. C linkage, plain C types.
 */
#ifndef IASHIM_IASHIM_H_
#define IASHIM_IASHIM_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct iashim_stats {
  uint64_t launches;           /* kernel launches recorded */
  uint64_t graph_launches;
  uint64_t syncs;              /* synchronising calls recorded */
  uint64_t records_dropped;    /* launch records lost to full per-thread buffers */
  uint64_t samples;            /* launches timed with CUDA events */
  uint64_t lookups_dlsym;      /* hooks handed out by dlsym */
  uint64_t lookups_proc_v1;    /* ... by cuGetProcAddress */
  uint64_t lookups_proc_v2;    /* ... by cuGetProcAddress_v2 */
  uint64_t lookups_per_thread; /* of those, per-thread-default-stream variants */
  uint64_t mem_refused;        /* allocations refused by IASHIM_MEM_LIMIT */
  uint64_t mem_limit;          /* IASHIM_MEM_LIMIT in bytes, 0 = none */
  uint64_t mem_used[8];        /* bytes this process holds on devices 0..7 */
  uint64_t telemetry_sent;     /* messages handed to the coordinator socket */
  uint64_t telemetry_dropped;  /* messages dropped (coordinator absent or slow) */
  uint32_t sample_every;       /* current 1-in-N sampling (0 = not sampling) */
  int32_t active;              /* 1 if the shim observes, 0 if pass-through */
  /* The budget in force and what the launch gate did. */
  double budget_share;         /* fraction of GPU time, 1 = unthrottled */
  uint32_t budget_max_inflight;/* 0 = no cap */
  int32_t budget_priority;     /* 0 guaranteed, 1 opportunistic */
  uint64_t budget_seq;         /* the coordinator's sequence number, 0 = from the environment */
  uint64_t held_launches;      /* launches the gate held back */
  uint64_t held_ns;            /* their total time held */
  /* Collectives held so that a throttled rank arrives when its gang does
   * (libiashim/src/collective_pacer.h); fields after held_ns are filled only
   * when `size` has room for them. */
  uint64_t collectives_paced;
  uint64_t collectives_paced_ns;
};

/* Drains every thread's buffered launch records, then fills `out` (`size` is
 * sizeof(struct iashim_stats) as the caller knows it: a caller built before
 * fields were added gets those it knows). Returns 0, or -1 if `out` is null or
 * `size` is less than the struct up to held_ns. Takes a lock: not for hot paths. */
int iashim_get_stats(struct iashim_stats* out, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* IASHIM_IASHIM_H_ */
