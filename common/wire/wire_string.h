// A string field of a received message as a std::string: empty when the
// sender left it out (FlatBuffers gives null for an absent field).
#ifndef IASHIM_COMMON_WIRE_WIRE_STRING_H_
#define IASHIM_COMMON_WIRE_WIRE_STRING_H_

#include <string>

#include "flatbuffers/flatbuffers.h"

namespace iashim::wire {

inline std::string StringOf(const flatbuffers::String* s) {
  return s == nullptr ? std::string() : s->str();
}

}  // namespace iashim::wire

#endif  // IASHIM_COMMON_WIRE_WIRE_STRING_H_
