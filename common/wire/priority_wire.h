// Priority on the wire: the schema's enum and the one C++ type
// (common/text/priority.h) share their numbering, and convert here only.
#ifndef IASHIM_COMMON_WIRE_PRIORITY_WIRE_H_
#define IASHIM_COMMON_WIRE_PRIORITY_WIRE_H_

#include "common/text/priority.h"
#include "schemas/telemetry_generated.h"

namespace iashim {

inline wire::Priority ToWire(Priority p) {
  return p == Priority::kOpportunistic ? wire::Priority::Opportunistic : wire::Priority::Guaranteed;
}

// Anything but Opportunistic (a newer sender's value) is guaranteed: the safe side.
inline Priority FromWire(wire::Priority p) {
  return p == wire::Priority::Opportunistic ? Priority::kOpportunistic : Priority::kGuaranteed;
}

}  // namespace iashim

#endif  // IASHIM_COMMON_WIRE_PRIORITY_WIRE_H_
