// CRC-32C (Castagnoli), the checksum of every frame on disk. Our own: the
// abseil this project builds against (20220623) predates absl/crc. Table
// driven, a byte at a time: fast enough for a journal of small records and a
// snapshot read once at start-up.
#ifndef IASHIM_COORDINATOR_STATE_CRC32C_H_
#define IASHIM_COORDINATOR_STATE_CRC32C_H_

#include <cstdint>
#include <string_view>

namespace iashim::state {

// Continues a CRC-32C: Crc32c(b, Crc32c(a)) == Crc32c(a + b). Start with 0.
uint32_t Crc32c(std::string_view data, uint32_t crc = 0);

}  // namespace iashim::state

#endif  // IASHIM_COORDINATOR_STATE_CRC32C_H_
