#include "integrations/slurm/release_channel.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "absl/strings/str_cat.h"
#include "common/text/names.h"
#include "common/text/text.h"

namespace iashim::slurm {

std::string FormatReleaseLine(const ReleaseEntry& entry) {
  if (!ValidJobName(entry.job) || !ValidJobToken(entry.token) || entry.local_task < 0) return "";
  return absl::StrCat(entry.local_task, " ", entry.job, " ", entry.token, "\n");
}

std::vector<ReleaseEntry> TakeReleaseLines(std::string& buffer) {
  std::vector<ReleaseEntry> out;
  size_t start = 0;
  for (size_t nl = buffer.find('\n'); nl != std::string::npos; nl = buffer.find('\n', start)) {
    const std::string_view line = std::string_view(buffer).substr(start, nl - start);
    start = nl + 1;
    std::vector<std::string_view> fields;
    for (size_t from = 0; from <= line.size();) {
      size_t space = line.find(' ', from);
      if (space == std::string_view::npos) space = line.size();
      fields.push_back(line.substr(from, space - from));
      from = space + 1;
    }
    if (fields.size() != 3) continue;
    const std::optional<int64_t> task = ParseInt(fields[0], 0, 1 << 20);
    if (!task || !ValidJobName(fields[1]) || !ValidJobToken(fields[2])) continue;
    out.push_back({static_cast<int>(*task), std::string(fields[1]), std::string(fields[2])});
  }
  buffer.erase(0, start);
  return out;
}

ReleaseChannel::~ReleaseChannel() {
  if (read_fd_ >= 0) close(read_fd_);
  if (write_fd_ >= 0) close(write_fd_);
}

bool ReleaseChannel::Open() {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) return false;
  read_fd_ = fds[0];
  write_fd_ = fds[1];
  return true;
}

bool ReleaseChannel::Send(const ReleaseEntry& entry) {
  const std::string line = FormatReleaseLine(entry);
  if (write_fd_ < 0 || line.empty()) return false;
  ssize_t n;
  do {
    n = write(write_fd_, line.data(), line.size());
  } while (n < 0 && errno == EINTR);
  return n == static_cast<ssize_t>(line.size());
}

void ReleaseChannel::Collect() {
  if (read_fd_ < 0) return;
  char chunk[4096];
  for (;;) {
    const ssize_t n = read(read_fd_, chunk, sizeof chunk);
    if (n > 0) {
      pending_.append(chunk, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    break;  // EAGAIN: nothing more now
  }
  for (ReleaseEntry& e : TakeReleaseLines(pending_)) entries_[e.local_task] = std::move(e);
}

bool ReleaseChannel::Take(int local_task, ReleaseEntry* entry) {
  const auto it = entries_.find(local_task);
  if (it == entries_.end()) return false;
  *entry = std::move(it->second);
  entries_.erase(it);
  return true;
}

std::vector<ReleaseEntry> ReleaseChannel::TakeAll() {
  std::vector<ReleaseEntry> out;
  for (auto& [task, e] : entries_) out.push_back(std::move(e));
  entries_.clear();
  return out;
}

}  // namespace iashim::slurm
