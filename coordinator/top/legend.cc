#include "coordinator/top/legend.h"

namespace iashim::top {

const std::vector<std::string>& LegendLines() {
  static const std::vector<std::string> kLines = {
      "Columns (narrow terminals drop J/IT, BUDGET, BASE, RUN, STATE, PID first):",
      "  PRIO    guar: guaranteed, its speed is protected; opp: opportunistic;",
      "          g+g: a guaranteed gang beside a guaranteed job, neither held",
      "          for the other until it ends (its target may not hold)",
      "  STATE   conn: its shim reports; disc: its shim stopped reporting (the row",
      "          is dim, its last state); lost: it fell silent without a goodbye",
      "          (killed, crashed, or its node died); placed: placed, its process",
      "          not started. Jobs that exit cleanly leave at once; a disc job is",
      "          left out 10s later (the GPU line counts it)",
      "  SHARE   share of GPU time in its budget (1.00 = unthrottled)",
      "  KERN/S  kernel launches per second (k thousands, M millions)",
      "  BUSY%   its part of the GPU's busy time: the time its kernels run",
      "          (sampled), scaled so a GPU's jobs add up to the GPU's busy %",
      "  J/IT    joules per iteration: its GPU's energy split among the GPU's jobs",
      "          by their GPU time (idle power evenly), over its iterations",
      "  SLOWDN  iteration time against its solo baseline: +12% = 12% slower",
      "  RUN     a guaranteed job's slowdown over its whole run so far: the",
      "          target holds for the run (- for an opportunistic job)",
      "  BASE    where its solo baseline came from: alone (it ran alone), probe",
      "          (its co-runners were held for a few seconds to measure it), saved",
      "          (an earlier run of the same kind), hold (a probe is on), - none yet",
      "  MEM     held/quota in the larger's unit; 13.0G/- = no quota",
      "  BUDGET  age of the budget the coordinator sent; - = none sent",
      "  COMMAND program and arguments (when the terminal is wide enough)",
      "Marks:",
      "  !       (SLOWDN) a guaranteed job slowed past its target; its row is red",
      "          (bold without colour)",
      "  -       unknown, or none",
      "  ~       a name or command cut to fit",
      "  ?       a character that is not printable ASCII",
      "  ^ v     the sort column, ascending / descending",
      "  DRAINED (GPU line) placement puts no new job there (iashim drain)",
      "  NODE LOST (GPU line) every job of its node fell silent without a",
      "          goodbye: the node died or was cut off; its jobs show as lost",
      "  N W     (GPU line) the board's power over the last control period",
      "  reserved (under a GPU line) held for a job that a dry run placed there",
      "          at submission, until it starts or the hold expires",
      "  stale   no snapshot for 3s: the coordinator, or the way to it, is down",
      "  bad N   messages this tool dropped: not a valid snapshot of its version",
      "  seq N   the number of the snapshot shown",
  };
  return kLines;
}

}  // namespace iashim::top
