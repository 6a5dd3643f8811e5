// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "drain/id_table.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace karpenter::drain::internal {
namespace {

// Probe's `eq`: whether id `id` names `name`.
struct NameIs {
  const std::vector<std::string>* names;
  absl::string_view name;
  bool operator()(uint32_t id) const { return (*names)[id] == name; }
};

// An IdTable with its strings, as the queue keeps them: id i names
// names_[i]. `hash` is the hash function, so tests can force collisions.
class Table {
 public:
  explicit Table(uint64_t (*hash)(absl::string_view)) : hash_(hash) {}

  // The id of `name`, or IdTable::kEmpty.
  uint32_t Find(absl::string_view name) const {
    return table_.At(table_.Probe(hash_(name), NameIs{&names_, name}));
  }
  // Adds `name` (absent) under a new id; returns the id.
  uint32_t Insert(absl::string_view name) {
    table_.Reserve();
    const size_t cell = table_.Probe(hash_(name), NameIs{&names_, name});
    REQUIRE(table_.At(cell) == IdTable::kEmpty);
    const uint32_t id = static_cast<uint32_t>(names_.size());
    names_.emplace_back(name);
    table_.InsertAt(cell, hash_(name), id);
    return id;
  }
  void Erase(uint32_t id) { table_.Erase(hash_(names_[id]), id); }
  size_t size() const { return table_.size(); }

 private:
  uint64_t (*hash_)(absl::string_view);
  IdTable table_;
  std::vector<std::string> names_;
};

// The table only reads its storage; one large enough for huge pages works as
// a small one does.
TEST_CASE("ProbeMemory: small and huge-page allocations are usable",
          "[drain][id_table]") {
  for (size_t bytes : {size_t{64}, ProbeMemory::kHugePage + 1}) {
    ProbeMemory m(bytes);
    REQUIRE(m.get() != nullptr);
    static_cast<char*>(m.get())[0] = 1;
    static_cast<char*>(m.get())[bytes - 1] = 2;
    ProbeMemory moved(std::move(m));
    CHECK(m.get() == nullptr);
    CHECK(static_cast<char*>(moved.get())[bytes - 1] == 2);
  }
}

uint64_t GoodHash(absl::string_view s) {
  return absl::Hash<absl::string_view>()(s);
}

// Only 8 distinct tags, all with the same top bits: every key lands in one
// long run, which exercises probing past tag matches and the backward shift.
uint64_t BadHash(absl::string_view s) {
  return (uint64_t{0xF0000000} | (GoodHash(s) & 7)) << 32;
}

// Homes in the table's last cells, so runs wrap around to cell 0.
uint64_t WrappingHash(absl::string_view s) {
  return (uint64_t{0xFFFFFFF0} | (GoodHash(s) & 0xF)) << 32;
}

TEST_CASE("IdTable: finds what was inserted and nothing else",
          "[drain][id_table]") {
  Table t(GoodHash);
  CHECK(t.size() == 0);
  CHECK(t.Find("a") == IdTable::kEmpty);
  const uint32_t a = t.Insert("a");
  const uint32_t b = t.Insert("b");
  CHECK(t.size() == 2);
  CHECK(t.Find("a") == a);
  CHECK(t.Find("b") == b);
  CHECK(t.Find("c") == IdTable::kEmpty);
  t.Erase(a);
  CHECK(t.size() == 1);
  CHECK(t.Find("a") == IdTable::kEmpty);
  CHECK(t.Find("b") == b);
}

TEST_CASE("IdTable: growing keeps every entry", "[drain][id_table]") {
  Table t(GoodHash);
  std::vector<uint32_t> ids;
  for (int i = 0; i < 5000; ++i) ids.push_back(t.Insert(absl::StrCat("u", i)));
  CHECK(t.size() == 5000);
  for (int i = 0; i < 5000; ++i) {
    REQUIRE(t.Find(absl::StrCat("u", i)) == ids[i]);
  }
  CHECK(t.Find("u5000") == IdTable::kEmpty);
}

// A random mix of inserts and erases against std::map, with good hashes,
// colliding ones and ones whose runs wrap around the end of the table.
TEST_CASE("IdTable: matches a map under inserts and erases",
          "[drain][id_table]") {
  struct Case {
    const char* name;
    uint64_t (*hash)(absl::string_view);
  };
  for (const Case& c : {Case{"good", GoodHash}, Case{"colliding", BadHash},
                        Case{"wrapping", WrappingHash}}) {
    INFO(c.name);
    Table t(c.hash);
    std::map<std::string, uint32_t> model;
    std::mt19937 rng(5);
    for (int step = 0; step < 4000; ++step) {
      const std::string name = absl::StrCat("pod-", rng() % 300);
      auto it = model.find(name);
      if (it == model.end()) {
        model[name] = t.Insert(name);
      } else if (rng() % 2 == 0) {
        t.Erase(it->second);
        model.erase(it);
      }
      REQUIRE(t.size() == model.size());
      if (step % 97 == 0) {
        for (int i = 0; i < 300; ++i) {
          const std::string probe = absl::StrCat("pod-", i);
          auto m = model.find(probe);
          REQUIRE(t.Find(probe) ==
                  (m == model.end() ? IdTable::kEmpty : m->second));
        }
      }
    }
  }
}

}  // namespace
}  // namespace karpenter::drain::internal
