#include "inflight_window.h"

#include <algorithm>

namespace iashim {

void InflightWindow::OnSubmit(uint64_t seq) { submitted_ = std::max(submitted_, seq); }

void InflightWindow::OnComplete(uint64_t upto_seq) { completed_ = std::max(completed_, upto_seq); }

}  // namespace iashim
