// Short, fixed-width renderings of the numbers iashim-top shows: durations,
// byte counts, rates, percentages. Every function returns plain ASCII and
// answers "-" for values that mean "unknown" (negative, NaN, infinite), because
// a coordinator bug must show up as a dash, not as a garbled or widened column.
#ifndef IASHIM_COORDINATOR_TOP_FORMAT_H_
#define IASHIM_COORDINATOR_TOP_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace iashim::top {

// Whether a figure from the wire is known: "unknown" is a negative number
// (or, from a buggy sender, NaN).
bool Known(double v);

// An age in at most 5 characters: "0.3s", "9.9s", "42s", "12m", "3h", "2d".
std::string FormatAge(double seconds);

// An uptime with two units: "45s", "12m05s", "3h07m", "2d04h".
std::string FormatUptime(double seconds);

// Bytes with a binary unit: "512 B", "1.5 KiB", "12.0 GiB".
std::string FormatBytes(uint64_t bytes);

// Two byte counts in the unit of the larger, for "used of total":
// "12.0/32.0 GiB". The shared unit makes the two comparable at a glance.
std::string FormatBytesPair(uint64_t used, uint64_t total);

// Table form of `used` against a quota in at most 10 characters:
// "12.0/32.0G", "512/1024M"; a quota of 0 (none) gives "12.0G/-".
std::string FormatMemCompact(uint64_t used, uint64_t quota);

// A fraction as a percentage number without the sign, one decimal:
// 0.453 -> "45.3". Clamped to [0, 999.9] so it never widens its column.
std::string FormatPercent(double fraction);

// A rate in at most 6 characters: "0.5", "850", "12.3k", "4.1M".
std::string FormatRate(double per_second);

// A budget share with two decimals: "0.50", "1.00".
std::string FormatShare(double share);

// A slowdown against the solo baseline (0.12 = 12% slower) as "+12%"; "-" when
// unknown (negative: the coordinator sends -1 when it has no baseline).
std::string FormatSlowdown(double slowdown);

// A command line with the program's directory left out: the shim reports
// argv joined by spaces, and "/home/u/venv/bin/python3 train.py --lr 0.1"
// cut to a column would show only the path; "python3 train.py --lr 0.1"
// shows what runs. Only the first word is shortened (arguments that are
// paths may be what tells two jobs apart).
std::string ShortCommand(std::string_view command);

// `text` cut to `width` characters, the last one replaced by "~" when cut,
// so a truncated name never passes for a complete one.
std::string Truncate(std::string_view text, size_t width);

// `text` with every byte that is not printable ASCII replaced by "?" (a UTF-8
// sequence becomes one "?"). Job names and commands come from users; a control
// character or escape sequence in one must not move the terminal's cursor,
// and a multi-byte character would make column widths wrong.
std::string Printable(std::string_view text);

}  // namespace iashim::top

#endif  // IASHIM_COORDINATOR_TOP_FORMAT_H_
