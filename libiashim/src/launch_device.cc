#include "libiashim/src/launch_device.h"

namespace iashim {

std::atomic<uint32_t> g_context_generation{0};
thread_local uint32_t tls_context_changes __attribute__((tls_model("initial-exec"))) = 0;

}  // namespace iashim
