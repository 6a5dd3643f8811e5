// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include <iostream>
#include <string>
#include <vector>

#include "cli.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return karpenter::cli::RunCli(args, std::cout, std::cerr);
}
