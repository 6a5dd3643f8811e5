// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
// The karpenter CLI; subcommands land with their cores.
#include <cstdio>

int main(int argc, char** argv) {
  (void)argv;
  if (argc < 2) {
    std::fprintf(stderr, "usage: karpenter <command> [args]\n");
    return 2;
  }
  return 2;
}
