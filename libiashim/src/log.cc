#include "libiashim/src/log.h"

#include <unistd.h>

#include <atomic>
#include <cstdarg>
#include <cstdio>

namespace iashim {
namespace {
std::atomic<int> g_level{static_cast<int>(LogLevel::kWarn)};
}  // namespace

void SetLogLevel(LogLevel level) { g_level.store(static_cast<int>(level), std::memory_order_relaxed); }

bool LogEnabled(LogLevel level) {
  return static_cast<int>(level) <= g_level.load(std::memory_order_relaxed);
}

void Log(LogLevel level, const char* format, ...) {
  if (!LogEnabled(level)) return;
  char line[1024];
  int n = std::snprintf(line, sizeof line, "iashim: ");
  va_list args;
  va_start(args, format);
  const int body = std::vsnprintf(line + n, sizeof line - n - 1, format, args);
  va_end(args);
  if (body < 0) return;
  n = std::min<int>(n + body, sizeof line - 2);
  line[n++] = '\n';
  // Best effort: a failed or short write to stderr is not worth failing for.
  [[maybe_unused]] ssize_t ignored = ::write(STDERR_FILENO, line, n);
}

}  // namespace iashim
