#include "coordinator/client/request_options.h"

namespace iashim::client {

std::string_view PriorityName(JobPriority priority) {
  return priority == JobPriority::kOpportunistic ? "opportunistic" : "guaranteed";
}

}  // namespace iashim::client
