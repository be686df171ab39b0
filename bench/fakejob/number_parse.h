// Strict, locale-independent number parsing: the whole token must be a
// number, so "12abc", "", "1e999" and "nan" are all rejected.
#ifndef IASHIM_BENCH_FAKEJOB_NUMBER_PARSE_H_
#define IASHIM_BENCH_FAKEJOB_NUMBER_PARSE_H_

#include <cstdint>
#include <optional>

#include "absl/strings/string_view.h"

namespace iashim::fakejob {

// A finite decimal or exponent-form double.
std::optional<double> ParseFiniteDouble(absl::string_view token);

// A base-10 signed integer that fits in int64_t.
std::optional<int64_t> ParseInt64(absl::string_view token);

}  // namespace iashim::fakejob

#endif  // IASHIM_BENCH_FAKEJOB_NUMBER_PARSE_H_
