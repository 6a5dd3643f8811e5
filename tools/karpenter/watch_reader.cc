// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "watch.h"

namespace karpenter::cli {

FdStreamReader::FdStreamReader(int fd, std::string name)
    : fd_(fd), name_(std::move(name)) {}

absl::Status FdStreamReader::Read(std::string& chunk) {
  chunk.resize(64 * 1024);
  for (;;) {
    const ssize_t n = ::read(fd_, chunk.data(), chunk.size());
    if (n >= 0) {
      chunk.resize(static_cast<size_t>(n));
      return absl::OkStatus();
    }
    if (errno == EINTR) continue;
    const int error = errno;
    chunk.clear();
    return absl::UnavailableError(
        absl::StrCat(name_, ": read failed: ", std::strerror(error)));
  }
}

bool FdStreamReader::Ready() {
  struct pollfd p = {};
  p.fd = fd_;
  p.events = POLLIN;
  for (;;) {
    const int n = ::poll(&p, 1, /*timeout=*/0);
    if (n >= 0) {
      // POLLHUP: the writer closed, the end is there; POLLERR and POLLNVAL:
      // the next read fails at once, which Read reports.
      return n > 0 && (p.revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL));
    }
    if (errno != EINTR) return false;
  }
}

ChunkStreamReader::ChunkStreamReader(std::vector<std::string> chunks)
    : chunks_(std::move(chunks)) {}

absl::Status ChunkStreamReader::Read(std::string& chunk) {
  while (next_ < chunks_.size() && chunks_[next_].empty()) ++next_;
  if (next_ == chunks_.size()) {
    chunk.clear();
    return absl::OkStatus();
  }
  chunk = std::move(chunks_[next_++]);
  return absl::OkStatus();
}

bool ChunkStreamReader::Ready() {
  size_t rest = next_;
  while (rest < chunks_.size() && chunks_[rest].empty()) ++rest;
  return rest == chunks_.size();
}

}  // namespace karpenter::cli
