// Small text helpers shared by the shim, simgpu and the tools: strict number
// and size parsing, and the kernel-name hash that identifies kernels on the wire.
// Nothing here allocates except where a std::string is returned.
#ifndef IASHIM_TEXT_H_
#define IASHIM_TEXT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace iashim {

std::string_view Trim(std::string_view s);
bool EqualsIgnoreCase(std::string_view a, std::string_view b);

// "8GiB", "512MiB", "16GB", "1048576" (bytes). Binary (KiB/MiB/GiB/TiB) and
// decimal (KB/MB/GB/TB) units, case-insensitive; no unit means bytes.
std::optional<uint64_t> ParseByteSize(std::string_view text);

// A whole decimal integer within [min, max]; nothing else on the line.
std::optional<int64_t> ParseInt(std::string_view text, int64_t min, int64_t max);

// A decimal number ("0.3", "1", "2.5e-1") within [min, max]; nothing else on
// the line, no NaN or infinity.
std::optional<double> ParseDouble(std::string_view text, double min, double max);

// "1.5 GiB", "512.0 MiB", "12 B": for messages people read.
std::string FormatBytes(uint64_t bytes);

// Joules in at most 6 characters, for tables: "0.85", "57.3", "5412",
// "12.3k", "4.1M" (at most 8 for absurd values); "-" for a negative
// (unknown), NaN or infinite value.
std::string FormatJoules(double joules);

// "2026-12-07T17:21:05.123Z": a time in ns since the Unix epoch, in UTC to
// the millisecond, for logs and the events status shows.
std::string FormatUtcTime(int64_t unix_ns);

// Text from another process, made safe for a log or a record: at most
// `max_bytes`, control characters replaced by '?'.
std::string Printable(std::string_view text, size_t max_bytes);

}  // namespace iashim

#endif  // IASHIM_TEXT_H_
