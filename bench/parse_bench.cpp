// How long decoding one backing file takes: the full parse_region (prologue, entry walk,
// names, values), parse_region_keeping (what observation asks), parse_prologue alone, and
// snap_lines on an already parsed region; and decode_floor, what no decoder can do without: a
// copy of the region's used bytes and one pass over its entry headers (each entry's length,
// name offset, vector length, type and data offset loaded, the walk moved by the length). The
// ratio of parse_region to decode_floor is a goal of its own (bench/peers.py prints it).
//
//   bench_parse [benchmark flags] [FILE...]
//
// Each file is read into memory once; without FILE, tests/data/jdk17-default.hsperf (a
// real JDK 17 region: 32 KiB, 187 entries). The target is a full decode under 20 us.
#include <benchmark/benchmark.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "model/facts.hpp"
#include "model/perfdata.hpp"
#include "report/snap.hpp"

namespace {

namespace pd = hsperfguard::perfdata;

struct Sample {
  std::string name;  // file name, used in the benchmark names
  std::vector<std::byte> bytes;
  pd::Region region;  // parsed once, for the benchmarks that start from a region
};

std::vector<std::byte> load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  const std::vector<char> chars((std::istreambuf_iterator<char>(in)),
                                std::istreambuf_iterator<char>());
  std::vector<std::byte> bytes(chars.size());
  std::memcpy(bytes.data(), chars.data(), chars.size());
  return bytes;
}

void set_common_counters(benchmark::State& state, const Sample& s) {
  const auto entries = static_cast<double>(s.region.entries.size());
  state.counters["entries"] = entries;
  state.counters["entries_per_s"] =
      benchmark::Counter(entries, benchmark::Counter::kIsIterationInvariantRate);
}

void parse_region(benchmark::State& state, const Sample* s) {
  for (auto _ : state) {
    pd::Region region = pd::parse_region(s->bytes);
    benchmark::DoNotOptimize(region);
  }
  set_common_counters(state, *s);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * s->region.prologue->used);
}

// What the audit's and the reaper's observation does per file: every entry checked, the few
// counters the rules read kept.
void parse_region_keeping(benchmark::State& state, const Sample* s) {
  for (auto _ : state) {
    pd::Region region = pd::parse_region_keeping(s->bytes, hsperfguard::kObservedCounters);
    benchmark::DoNotOptimize(region);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * s->region.prologue->used);
}

// The floor: the used bytes copied out of the file's bytes (as a parser that keeps the text
// must), then a walk over the entry headers with no check beyond staying inside `used` and
// moving forward. A little-endian region is assumed (the samples are; main checks it).
std::int32_t load_i32(const std::byte* at) {
  std::int32_t v;
  std::memcpy(&v, at, sizeof v);
  return v;
}

void decode_floor(benchmark::State& state, const Sample* s) {
  const auto used = static_cast<std::size_t>(s->region.prologue->used);
  const auto entry_offset = static_cast<std::size_t>(s->region.prologue->entry_offset);
  std::vector<std::byte> copy(used);
  for (auto _ : state) {
    std::memcpy(copy.data(), s->bytes.data(), used);
    benchmark::ClobberMemory();
    std::int64_t sum = 0;
    std::size_t entries = 0;
    for (std::size_t at = entry_offset; at + pd::kEntryHeaderSize <= used;) {
      const std::byte* h = copy.data() + at;
      const std::int32_t length = load_i32(h);
      sum += load_i32(h + 4) + load_i32(h + 8) + static_cast<std::int32_t>(h[12]) + load_i32(h + 16);
      ++entries;
      if (length <= 0) break;
      at += static_cast<std::size_t>(length);
    }
    benchmark::DoNotOptimize(sum);
    benchmark::DoNotOptimize(entries);
  }
  set_common_counters(state, *s);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * s->region.prologue->used);
}

void parse_prologue(benchmark::State& state, const Sample* s) {
  for (auto _ : state) {
    pd::PrologueResult prologue = pd::parse_prologue(s->bytes);
    benchmark::DoNotOptimize(prologue);
  }
}

void snap_lines(benchmark::State& state, const Sample* s) {
  for (auto _ : state) {
    std::vector<std::string> lines = hsperfguard::snap_lines(s->region, true);
    benchmark::DoNotOptimize(lines);
  }
  set_common_counters(state, *s);
}

// What `inspect --format snap` does once the bytes are in memory.
void parse_region_and_snap_lines(benchmark::State& state, const Sample* s) {
  for (auto _ : state) {
    std::vector<std::string> lines = hsperfguard::snap_lines(pd::parse_region(s->bytes), true);
    benchmark::DoNotOptimize(lines);
  }
  set_common_counters(state, *s);
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);  // removes the flags it knows; files remain
  std::vector<std::string> paths(argv + 1, argv + argc);
  if (paths.empty())
    paths.push_back(std::string(HSPERFGUARD_SOURCE_DIR) + "/tests/data/jdk17-default.hsperf");

  std::vector<Sample> samples;
  samples.reserve(paths.size());  // the benchmarks keep pointers into this vector
  for (const auto& path : paths) {
    Sample s;
    s.name = std::filesystem::path(path).filename().string();
    s.bytes = load(path);
    s.region = pd::parse_region(s.bytes);
    if (!s.region.valid()) {
      std::cerr << "bench_parse: " << path << ": not a valid PerfData region"
                << (s.region.error ? ": " + s.region.error->reason : std::string()) << "\n";
      return 1;
    }
    if (s.region.prologue->byte_order != pd::ByteOrder::little) {
      std::cerr << "bench_parse: " << path << ": a big-endian region (decode_floor reads little-endian)\n";
      return 1;
    }
    samples.push_back(std::move(s));
  }
  for (const Sample& s : samples) {
    benchmark::RegisterBenchmark(("parse_region/" + s.name).c_str(), parse_region, &s);
    benchmark::RegisterBenchmark(("decode_floor/" + s.name).c_str(), decode_floor, &s);
    benchmark::RegisterBenchmark(("parse_region_keeping/" + s.name).c_str(), parse_region_keeping,
                                 &s);
    benchmark::RegisterBenchmark(("parse_prologue/" + s.name).c_str(), parse_prologue, &s);
    benchmark::RegisterBenchmark(("snap_lines/" + s.name).c_str(), snap_lines, &s);
    benchmark::RegisterBenchmark(("parse_region+snap_lines/" + s.name).c_str(),
                                 parse_region_and_snap_lines, &s);
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
