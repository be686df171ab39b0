// One-line messages on stderr, prefixed "iashim: ". Written with a single
// write(2) so lines from several threads or processes never interleave, and
// without iostreams so logging works during static initialisation and exit.
#ifndef IASHIM_LOG_H_
#define IASHIM_LOG_H_

#include "libiashim/src/config.h"

namespace iashim {

void SetLogLevel(LogLevel level);
bool LogEnabled(LogLevel level);

// printf-style; the line is cut at 1 KiB. Warnings always print.
void Log(LogLevel level, const char* format, ...) __attribute__((format(printf, 2, 3)));

}  // namespace iashim

#define IASHIM_WARN(...) ::iashim::Log(::iashim::LogLevel::kWarn, __VA_ARGS__)
#define IASHIM_INFO(...) ::iashim::Log(::iashim::LogLevel::kInfo, __VA_ARGS__)
#define IASHIM_DEBUG(...) ::iashim::Log(::iashim::LogLevel::kDebug, __VA_ARGS__)

#endif  // IASHIM_LOG_H_
