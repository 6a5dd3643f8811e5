// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "cli.h"
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

bool FdStreamReader::WaitReady(absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  struct pollfd p = {};
  p.fd = fd_;
  p.events = POLLIN;
  for (;;) {
    const int64_t ms = std::min<int64_t>(
        INT_MAX, absl::ToInt64Milliseconds(absl::Ceil(
                     std::max(absl::ZeroDuration(), deadline - absl::Now()),
                     absl::Milliseconds(1))));
    const int n = ::poll(&p, 1, static_cast<int>(ms));
    if (n >= 0) {
      return n > 0 && (p.revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL));
    }
    if (errno != EINTR) return false;
  }
}

absl::Time StreamReader::Now() { return CliNow(); }

ChunkStreamReader::ChunkStreamReader(std::vector<std::string> chunks)
    : chunks_(std::move(chunks)) {}

ChunkStreamReader::ChunkStreamReader(std::vector<std::string> chunks,
                                     absl::Time start,
                                     std::vector<absl::Duration> quiet)
    : chunks_(std::move(chunks)), clock_(start), quiet_(std::move(quiet)) {}

absl::Status ChunkStreamReader::Read(std::string& chunk) {
  while (next_ < chunks_.size() && chunks_[next_].empty()) ++next_;
  if (next_ == chunks_.size()) {
    chunk.clear();
    return absl::OkStatus();
  }
  quiet_left_ = next_ < quiet_.size() ? quiet_[next_] : absl::ZeroDuration();
  chunk = std::move(chunks_[next_++]);
  return absl::OkStatus();
}

bool ChunkStreamReader::AtEnd() const {
  size_t rest = next_;
  while (rest < chunks_.size() && chunks_[rest].empty()) ++rest;
  return rest == chunks_.size();
}

bool ChunkStreamReader::Ready() { return AtEnd(); }

bool ChunkStreamReader::WaitReady(absl::Duration timeout) {
  if (AtEnd()) return true;
  if (!clock_.has_value()) return true;
  if (quiet_left_ <= timeout) {
    *clock_ += quiet_left_;
    quiet_left_ = absl::ZeroDuration();
    return true;
  }
  *clock_ += timeout;
  quiet_left_ -= timeout;
  return false;
}

absl::Time ChunkStreamReader::Now() {
  return clock_.has_value() ? *clock_ : CliNow();
}

}  // namespace karpenter::cli
