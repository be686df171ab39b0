#include "coordinator/clustersim/job_kinds.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "absl/strings/str_cat.h"
#include "coordinator/clustersim/text.h"

namespace iashim::clustersim {

std::string KindOf(const JobType& type) {
  if (type.scale == 1) return type.name;
  return Cat(type.name, " x", type.scale);
}

policy::JobTraits TraitsOf(const JobType& type) {
  policy::JobTraits traits;
  traits.kind = KindOf(type);
  traits.family = std::string(policy::FamilyOf(type.name));
  return traits;
}

JobType TypeOfKind(std::string_view kind) {
  const size_t x = kind.rfind(" x");
  if (x != std::string_view::npos) {
    const std::string_view digits = kind.substr(x + 2);
    const bool numeric = !digits.empty() && digits.size() <= 6 &&
                         std::all_of(digits.begin(), digits.end(), [](char c) {
                           return std::isdigit(static_cast<unsigned char>(c)) != 0;
                         });
    int scale = 0;
    if (numeric) std::from_chars(digits.data(), digits.data() + digits.size(), scale);
    if (scale > 1) return {std::string(kind.substr(0, x)), scale};
  }
  return {std::string(kind), 1};
}

}  // namespace iashim::clustersim
