// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// The input side of `karpenter plan --watch` and `karpenter explain
// --watch`: a byte stream (standard input or a file, usually `kubectl get
// ... --watch --output-watch-events -o json`) read in chunks, with a way to
// ask whether more bytes can be read without waiting. The commands apply
// the stream's events (karpenter/state/watch_stream.h) to a
// karpenter/state/cluster_state.h ClusterState and decide a pass each time
// the stream pauses: no more input immediately available, and no value
// half read. That is when a kubectl watch has written everything it had,
// as an informer's handlers have caught up with their queue.
//
// Thread-safety: a StreamReader is used by one thread at a time.

#ifndef KARPENTER_TOOLS_KARPENTER_WATCH_H_
#define KARPENTER_TOOLS_KARPENTER_WATCH_H_

#include <cstddef>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace karpenter::cli {

class StreamReader {
 public:
  virtual ~StreamReader() = default;

  // Waits for the next bytes of the stream and replaces `chunk` with them;
  // at the end of the stream leaves `chunk` empty. Errors: Unavailable
  // naming the stream and the system's reason for a failed read.
  virtual absl::Status Read(std::string& chunk) = 0;

  // True if a Read now would return without waiting (bytes or the end of
  // the stream are there). Never fails: a stream that cannot be asked says
  // false.
  virtual bool Ready() = 0;

  // Waits up to `timeout` (>= 0) for Ready() to become true, and returns
  // it. Never fails. The default does not wait.
  virtual bool WaitReady(absl::Duration timeout) {
    (void)timeout;
    return Ready();
  }

  // The time a pass without --at is taken at: the system clock to the
  // second (cli.h CliNow), or a replayed stream's own clock.
  virtual absl::Time Now();
};

// Reads a file descriptor (0 for standard input) with read(2) and asks
// poll(2) with a zero timeout whether more is there. A regular file is
// always ready, so a file is one burst up to its end; a pipe or terminal
// pauses whenever its writer does. Does not own or close `fd`.
class FdStreamReader : public StreamReader {
 public:
  // `name` names the stream in errors ("stdin", "watch.json").
  FdStreamReader(int fd, std::string name);
  absl::Status Read(std::string& chunk) override;
  bool Ready() override;
  // poll(2) with the timeout, rounded up to a millisecond.
  bool WaitReady(absl::Duration timeout) override;

 private:
  int fd_;
  std::string name_;
};

// A stream given as a list of chunks, for tests and for replaying a
// recorded stream: each Read returns the next chunk (empty ones are
// skipped), and the stream pauses after every chunk (Ready() is false
// until the last chunk has been read; then the end is ready).
//
// With a clock (the second constructor), the stream replays time too: Now()
// starts at `start`, and after chunk i has been read the stream stays quiet
// for `quiet[i]` (zero if `quiet` is shorter): WaitReady(timeout) moves the
// clock on by the timeout, or by what is left of the quiet period if that is
// less (and then the next chunk is ready). Without a clock, Now() is the
// system's and WaitReady does not wait (the next chunk follows at once).
class ChunkStreamReader : public StreamReader {
 public:
  explicit ChunkStreamReader(std::vector<std::string> chunks);
  ChunkStreamReader(std::vector<std::string> chunks, absl::Time start,
                    std::vector<absl::Duration> quiet);
  absl::Status Read(std::string& chunk) override;
  bool Ready() override;
  bool WaitReady(absl::Duration timeout) override;
  absl::Time Now() override;

 private:
  // True once every chunk has been read (the end is ready).
  bool AtEnd() const;

  std::vector<std::string> chunks_;
  size_t next_ = 0;
  std::optional<absl::Time> clock_;
  std::vector<absl::Duration> quiet_;
  // What is left of the quiet period after the last chunk read.
  absl::Duration quiet_left_ = absl::ZeroDuration();
};

// `karpenter plan ...` and `karpenter explain ...` (`args` start after the
// command, as RunPlanCommand and RunExplainCommand take them) with `in`
// standing for standard input: what `--watch -f -` reads. Without --watch,
// or with a file, `in` is not read. Exit status as the commands'.
int RunPlanCommand(const std::vector<std::string>& args, StreamReader& in,
                   std::ostream& out, std::ostream& err);
int RunExplainCommand(const std::vector<std::string>& args, StreamReader& in,
                      std::ostream& out, std::ostream& err);

}  // namespace karpenter::cli

#endif  // KARPENTER_TOOLS_KARPENTER_WATCH_H_
