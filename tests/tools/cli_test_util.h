// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Helpers for the in-process CLI tests: run a command line, write a temp
// input file.

#ifndef KARPENTER_TESTS_TOOLS_CLI_TEST_UTIL_H_
#define KARPENTER_TESTS_TOOLS_CLI_TEST_UTIL_H_

#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "cli.h"

namespace karpenter::cli::test {

struct Result {
  int status;
  std::string out;
  std::string err;
};

inline Result Run(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int status = RunCli(args, out, err);
  return {status, out.str(), err.str()};
}

// Writes `text` to a file under /tmp named after `name`; the pid keeps
// concurrent runs of the suite (plain and sanitized) apart.
inline std::string WriteTemp(const std::string& name, const std::string& text) {
  const std::string path =
      absl::StrCat("/tmp/karpenter_cli_test_", getpid(), "_", name);
  std::ofstream(path) << text;
  return path;
}

// A command line that must fail with exit 2 and one line on stderr
// containing `error`, and print nothing on stdout.
struct UsageCase {
  std::vector<std::string> args;
  std::string error;
};

inline void CheckUsageError(const UsageCase& c) {
  CAPTURE(c.args);
  const Result r = Run(c.args);
  CHECK(r.status == kExitUsage);
  CHECK(r.out.empty());
  CHECK(absl::StrContains(r.err, c.error));
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
}

}  // namespace karpenter::cli::test

#endif  // KARPENTER_TESTS_TOOLS_CLI_TEST_UTIL_H_
