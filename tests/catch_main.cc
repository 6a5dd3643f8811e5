// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
