// String helpers that accept std::string_view. This abseil is built with its
// own absl::string_view (ABSL_OPTION_USE_STD_STRING_VIEW 0), which StrCat and
// StrSplit take but std::string_view does not convert to.
#ifndef IASHIM_COORDINATOR_CLUSTERSIM_TEXT_H_
#define IASHIM_COORDINATOR_CLUSTERSIM_TEXT_H_

#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace iashim::clustersim {
namespace text_internal {

template <typename T>
decltype(auto) Piece(const T& v) {
  if constexpr (std::is_same_v<T, std::string_view>) {
    return absl::string_view(v.data(), v.size());
  } else {
    return (v);
  }
}

}  // namespace text_internal

// absl::StrCat, also for std::string_view arguments.
template <typename... Args>
std::string Cat(const Args&... args) {
  return absl::StrCat(text_internal::Piece(args)...);
}

// absl::StrAppend, likewise.
template <typename... Args>
void Append(std::string* out, const Args&... args) {
  absl::StrAppend(out, text_internal::Piece(args)...);
}

// This abseil's string_view is its own type, not std::string_view.
inline absl::string_view Av(std::string_view s) { return absl::string_view(s.data(), s.size()); }

// `text` split at every `separator` (an empty text gives one empty piece).
inline std::vector<std::string_view> Split(std::string_view text, char separator) {
  std::vector<std::string_view> pieces;
  size_t start = 0;
  while (true) {
    const size_t end = text.find(separator, start);
    if (end == std::string_view::npos) {
      pieces.push_back(text.substr(start));
      return pieces;
    }
    pieces.push_back(text.substr(start, end - start));
    start = end + 1;
  }
}

}  // namespace iashim::clustersim

#endif  // IASHIM_COORDINATOR_CLUSTERSIM_TEXT_H_
