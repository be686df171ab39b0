// What every column, mark and word on iashim-top's screen means, in one
// place: `--help` prints it and the `?` key shows it in place of the table,
// so the two cannot disagree. Each line fits 78 columns.
#ifndef IASHIM_COORDINATOR_TOP_LEGEND_H_
#define IASHIM_COORDINATOR_TOP_LEGEND_H_

#include <string>
#include <vector>

namespace iashim::top {

const std::vector<std::string>& LegendLines();

}  // namespace iashim::top

#endif  // IASHIM_COORDINATOR_TOP_LEGEND_H_
