// History files: round trips, every truncation and every corrupted byte is
// rejected, and the check_history CLI's exit codes.
#include "engine/verify/history_io.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "engine/verify/checker.h"
#include "tests/verify/history_builder.h"

namespace ccb::verify {
namespace {

namespace fs = std::filesystem;
using testing::HistoryBuilder;

constexpr GlobalKey kX = make_global_key(1, 10);
constexpr GlobalKey kY = make_global_key(2, 11);

class HistoryIoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("ccb_verify_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  static std::vector<char> slurp(const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }
  static void spit(const std::string& p, const std::vector<char>& bytes) {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  // read_history must throw HistoryIoError whose message contains `what`.
  static void expect_rejected(const std::string& p, const std::string& what) {
    try {
      read_history(p);
      ADD_FAILURE() << "read_history accepted " << p;
    } catch (const HistoryIoError& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  }

  fs::path dir_;
};

History sample() {
  return HistoryBuilder()
      .txn(1).rmw(kX, 0).read(kY, 0)
      .txn(0xABCDEF0123ull).read(kX, 1).write(kY, 0)
      .txn(7).insert(make_global_key(255, (uint64_t{1} << 56) - 1))
      .build();
}

void expect_equal(const History& a, const History& b) {
  ASSERT_EQ(a.txns.size(), b.txns.size());
  ASSERT_EQ(a.accesses.size(), b.accesses.size());
  for (size_t i = 0; i < a.txns.size(); ++i) {
    EXPECT_EQ(a.txns[i].txn_id, b.txns[i].txn_id);
    EXPECT_EQ(a.txns[i].first_access, b.txns[i].first_access);
    EXPECT_EQ(a.txns[i].n_accesses, b.txns[i].n_accesses);
  }
  for (size_t i = 0; i < a.accesses.size(); ++i) {
    EXPECT_EQ(a.accesses[i].key, b.accesses[i].key);
    EXPECT_EQ(a.accesses[i].read_version, b.accesses[i].read_version);
    EXPECT_EQ(a.accesses[i].prev_version, b.accesses[i].prev_version);
  }
}

// The documented checksum (history_io.h), re-implemented from the text.
uint64_t doc_checksum(std::initializer_list<uint64_t> fields) {
  uint64_t h = 0x6363625F68697374ull;
  for (uint64_t v : fields) {
    h = (h ^ v) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
  }
  return h;
}

void put_le(std::vector<char>& b, size_t at, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) b[at + i] = static_cast<char>(v >> (8 * i));
}

TEST_F(HistoryIoTest, RoundTrip) {
  const History h = sample();
  write_history(path("h.bin"), h);
  expect_equal(read_history(path("h.bin")), h);
  EXPECT_FALSE(fs::exists(path("h.bin.tmp")));
  // 48-byte header + 3 txns * 20 + 5 accesses * 24 + 16-byte trailer.
  EXPECT_EQ(fs::file_size(path("h.bin")), 48u + 60u + 120u + 16u);

  write_history(path("empty.bin"), History{});
  const History e = read_history(path("empty.bin"));
  EXPECT_TRUE(e.txns.empty());
  EXPECT_TRUE(e.accesses.empty());
}

TEST_F(HistoryIoTest, HeaderMatchesTheDocumentedLayout) {
  write_history(path("h.bin"), sample());
  const std::vector<char> b = slurp(path("h.bin"));
  ASSERT_GE(b.size(), 48u);
  EXPECT_EQ(std::string(b.data(), 8), std::string("CCBHIST\0", 8));
  EXPECT_EQ(b[8], 1);    // format version, little-endian
  EXPECT_EQ(b[12], 48);  // header size
  EXPECT_EQ(b[16], 3);   // n_txns
  EXPECT_EQ(b[24], 5);   // n_accesses
  EXPECT_EQ(std::string(b.data() + b.size() - 8, 8), std::string("CCBHEND\0", 8));
}

TEST_F(HistoryIoTest, EveryTruncationIsRejected) {
  write_history(path("h.bin"), sample());
  const std::vector<char> full = slurp(path("h.bin"));
  for (size_t len = 0; len < full.size(); ++len) {
    spit(path("t.bin"), std::vector<char>(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(len)));
    expect_rejected(path("t.bin"), "truncated");
  }
}

TEST_F(HistoryIoTest, EveryCorruptedByteIsRejected) {
  write_history(path("h.bin"), sample());
  const std::vector<char> full = slurp(path("h.bin"));
  for (size_t i = 0; i < full.size(); ++i) {
    for (int bit : {0, 7}) {
      std::vector<char> bad = full;
      bad[i] = static_cast<char>(bad[i] ^ (1 << bit));
      spit(path("c.bin"), bad);
      EXPECT_THROW(read_history(path("c.bin")), HistoryIoError) << "byte " << i << " bit " << bit;
    }
  }
}

TEST_F(HistoryIoTest, SpecificDefectsHaveClearMessages) {
  write_history(path("h.bin"), sample());
  const std::vector<char> full = slurp(path("h.bin"));

  std::vector<char> b = full;
  b[0] = 'X';
  spit(path("magic.bin"), b);
  expect_rejected(path("magic.bin"), "bad magic");

  b = full;
  b[8] = 2;
  spit(path("version.bin"), b);
  expect_rejected(path("version.bin"), "format version 2 is not supported");

  b = full;
  b[16] = 4;  // n_txns without fixing the header checksum
  spit(path("count.bin"), b);
  expect_rejected(path("count.bin"), "header checksum");

  b = full;
  b[60] ^= 1;  // inside the first transaction record
  spit(path("payload.bin"), b);
  expect_rejected(path("payload.bin"), "payload checksum");

  b = full;
  b.push_back('!');
  spit(path("trailing.bin"), b);
  expect_rejected(path("trailing.bin"), "trailing data");

  expect_rejected(path("missing.bin"), "cannot open");
}

TEST_F(HistoryIoTest, HugeCountsInAConsistentHeaderAreRejectedBeforeAllocating) {
  // A well-formed header that promises 2^40 accesses in a 64-byte file.
  std::vector<char> b(64, 0);
  std::copy_n("CCBHIST\0", 8, b.begin());
  const uint64_t n_txns = 1, n_acc = uint64_t{1} << 40, payload = 20 * n_txns + 24 * n_acc;
  put_le(b, 8, 1, 4);
  put_le(b, 12, 48, 4);
  put_le(b, 16, n_txns, 8);
  put_le(b, 24, n_acc, 8);
  put_le(b, 32, payload, 8);
  put_le(b, 40, doc_checksum({1, 48, n_txns, n_acc, payload}), 8);
  spit(path("huge.bin"), b);
  expect_rejected(path("huge.bin"), "truncated");

  // Counts whose byte size overflows 64 bits.
  const uint64_t big = ~uint64_t{0} / 8;
  put_le(b, 24, big, 8);
  put_le(b, 32, 0, 8);
  put_le(b, 40, doc_checksum({1, 48, n_txns, big, 0}), 8);
  spit(path("overflow.bin"), b);
  expect_rejected(path("overflow.bin"), "inconsistent counts");
}

TEST_F(HistoryIoTest, AccessRangeOutsideTheRecordsIsRejected) {
  History h = sample();
  h.txns[1].n_accesses = 100;  // write_history does not validate; the reader must
  write_history(path("range.bin"), h);
  expect_rejected(path("range.bin"), "points outside");
}

TEST_F(HistoryIoTest, UnwritablePathThrows) {
  EXPECT_THROW(write_history(path("no/such/dir/h.bin"), sample()), HistoryIoError);
}

// Runs check_history with the given arguments; returns its exit status.
int run_cli(const std::string& args) {
  const std::string cmd = std::string(CCB_CHECK_HISTORY_BIN) + " " + args + " >/dev/null 2>&1";
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST_F(HistoryIoTest, CheckHistoryExitCodes) {
  write_history(path("ok.bin"), HistoryBuilder().txn(1).rmw(kX, 0).txn(2).rmw(kX, 1).build());
  write_history(path("skew.bin"),
                HistoryBuilder().txn(1).rmw(kX, 0).read(kY, 0).txn(2).read(kX, 0).rmw(kY, 0).build());
  EXPECT_EQ(run_cli("--history=" + path("ok.bin")), 0);
  EXPECT_EQ(run_cli("--json --history=" + path("ok.bin")), 0);
  EXPECT_EQ(run_cli("--history=" + path("skew.bin")), 3);
  EXPECT_EQ(run_cli("--json --history " + path("skew.bin")), 3);

  std::vector<char> b = slurp(path("ok.bin"));
  b.resize(b.size() - 1);
  spit(path("cut.bin"), b);
  EXPECT_EQ(run_cli("--history=" + path("cut.bin")), 2);
  EXPECT_EQ(run_cli("--history=" + path("missing.bin")), 2);
  EXPECT_EQ(run_cli(""), 2);
  EXPECT_EQ(run_cli("--bogus --history=" + path("ok.bin")), 2);
  EXPECT_EQ(run_cli(path("ok.bin")), 2);  // a stray argument: the file is a flag's value
  EXPECT_EQ(run_cli("--help"), 0);
}

TEST_F(HistoryIoTest, CheckHistoryJsonNamesTheWitness) {
  write_history(path("skew.bin"),
                HistoryBuilder().txn(1).rmw(kX, 0).read(kY, 0).txn(2).read(kX, 0).rmw(kY, 0).build());
  const std::string out = path("out.json");
  const std::string cmd = std::string(CCB_CHECK_HISTORY_BIN) + " --json --history=" + path("skew.bin") + " > " + out;
  const int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 3);
  const std::vector<char> bytes = slurp(out);
  const std::string json(bytes.begin(), bytes.end());
  EXPECT_EQ(json.front(), '{');
  EXPECT_EQ(json.back(), '\n');
  EXPECT_NE(json.find("\"serializable\": false"), std::string::npos) << json;
  EXPECT_NE(json.find("\"kind\": \"cycle\""), std::string::npos);
  EXPECT_NE(json.find("\"kind\": \"rw\""), std::string::npos);
}

}  // namespace
}  // namespace ccb::verify
