// Binary history files; the format is specified in history_io.h.
#include "engine/verify/history_io.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

namespace ccb::verify {
namespace {

constexpr char kMagic[8] = {'C', 'C', 'B', 'H', 'I', 'S', 'T', '\0'};
constexpr char kEndMagic[8] = {'C', 'C', 'B', 'H', 'E', 'N', 'D', '\0'};
constexpr uint64_t kHeaderBytes = 48;
constexpr uint64_t kTrailerBytes = 16;
constexpr uint64_t kTxnBytes = 20;
constexpr uint64_t kAccessBytes = 24;
constexpr uint64_t kChecksumSeed = 0x6363625F68697374ull;  // "ccb_hist"
constexpr size_t kChunk = size_t{1} << 20;

struct Checksum {
  uint64_t h = kChecksumSeed;
  void add(uint64_t v) {
    h = (h ^ v) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
  }
};

// Explicit little-endian encoding: the file layout does not depend on the
// compiler's struct padding or the host byte order.
void put_u64(unsigned char* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}
void put_u32(unsigned char* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}
uint64_t get_u64(const unsigned char* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= uint64_t{p[i]} << (8 * i);
  return v;
}
uint32_t get_u32(const unsigned char* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= uint32_t{p[i]} << (8 * i);
  return v;
}

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

std::string errno_text() { return std::strerror(errno); }

// Buffered writer of fixed-size records.
class Writer {
 public:
  Writer(std::FILE* f, const std::string& path) : f_(f), path_(path) { buf_.reserve(kChunk + 64); }
  unsigned char* reserve(size_t n) {
    if (buf_.size() + n > kChunk) flush();
    const size_t at = buf_.size();
    buf_.resize(at + n);
    return buf_.data() + at;
  }
  void flush() {
    if (!buf_.empty() && std::fwrite(buf_.data(), 1, buf_.size(), f_) != buf_.size())
      throw HistoryIoError("cannot write history file " + path_ + ": " + errno_text());
    buf_.clear();
  }

 private:
  std::FILE* f_;
  const std::string& path_;
  std::vector<unsigned char> buf_;
};

// Buffered reader that knows how many payload bytes are left, so it never
// reads past what the header promised.
class Reader {
 public:
  Reader(std::FILE* f, const std::string& path) : f_(f), path_(path) {}
  const unsigned char* take(size_t n) {
    if (pos_ + n > buf_.size()) refill(n);
    const unsigned char* p = buf_.data() + pos_;
    pos_ += n;
    return p;
  }

 private:
  void refill(size_t need) {
    buf_.erase(buf_.begin(), buf_.begin() + static_cast<std::ptrdiff_t>(pos_));
    pos_ = 0;
    const size_t have = buf_.size();
    buf_.resize(std::max(kChunk, need));
    const size_t got = std::fread(buf_.data() + have, 1, buf_.size() - have, f_);
    buf_.resize(have + got);
    if (buf_.size() < need)
      throw HistoryIoError("history file " + path_ + " is truncated (it ended while reading records)");
  }
  std::FILE* f_;
  const std::string& path_;
  std::vector<unsigned char> buf_;
  size_t pos_ = 0;
};

// a * b + c without overflow, or false.
bool mul_add(uint64_t a, uint64_t b, uint64_t c, uint64_t* out) {
  unsigned __int128 r = static_cast<unsigned __int128>(a) * b + c;
  if (r > std::numeric_limits<uint64_t>::max()) return false;
  *out = static_cast<uint64_t>(r);
  return true;
}

}  // namespace

void write_history(const std::string& path, const History& h) {
  const std::string tmp = path + ".tmp";
  {
    File f(std::fopen(tmp.c_str(), "wb"));
    if (!f) throw HistoryIoError("cannot create history file " + tmp + ": " + errno_text());
    Writer w(f.get(), tmp);

    const uint64_t n_txns = h.txns.size(), n_acc = h.accesses.size();
    const uint64_t payload = kTxnBytes * n_txns + kAccessBytes * n_acc;
    unsigned char* hd = w.reserve(kHeaderBytes);
    std::memcpy(hd, kMagic, 8);
    put_u32(hd + 8, kHistoryFormatVersion);
    put_u32(hd + 12, static_cast<uint32_t>(kHeaderBytes));
    put_u64(hd + 16, n_txns);
    put_u64(hd + 24, n_acc);
    put_u64(hd + 32, payload);
    Checksum hc;
    hc.add(kHistoryFormatVersion);
    hc.add(kHeaderBytes);
    hc.add(n_txns);
    hc.add(n_acc);
    hc.add(payload);
    put_u64(hd + 40, hc.h);

    Checksum pc;
    for (const TxnRecord& t : h.txns) {
      unsigned char* p = w.reserve(kTxnBytes);
      put_u64(p, t.txn_id);
      put_u64(p + 8, t.first_access);
      put_u32(p + 16, t.n_accesses);
      pc.add(t.txn_id);
      pc.add(t.first_access);
      pc.add(t.n_accesses);
    }
    for (const AccessRecord& a : h.accesses) {
      unsigned char* p = w.reserve(kAccessBytes);
      put_u64(p, a.key);
      put_u64(p + 8, a.read_version);
      put_u64(p + 16, a.prev_version);
      pc.add(a.key);
      pc.add(a.read_version);
      pc.add(a.prev_version);
    }
    unsigned char* tr = w.reserve(kTrailerBytes);
    put_u64(tr, pc.h);
    std::memcpy(tr + 8, kEndMagic, 8);
    w.flush();
    if (std::fflush(f.get()) != 0 || std::ferror(f.get()))
      throw HistoryIoError("cannot write history file " + tmp + ": " + errno_text());
    std::FILE* raw = f.release();
    if (std::fclose(raw) != 0) throw HistoryIoError("cannot close history file " + tmp + ": " + errno_text());
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    throw HistoryIoError("cannot rename " + tmp + " to " + path + ": " + errno_text());
}

History read_history(const std::string& path) {
  File f(std::fopen(path.c_str(), "rb"));
  if (!f) throw HistoryIoError("cannot open history file " + path + ": " + errno_text());
  if (std::fseek(f.get(), 0, SEEK_END) != 0)
    throw HistoryIoError("cannot seek in history file " + path + ": " + errno_text());
  const long end = std::ftell(f.get());
  if (end < 0) throw HistoryIoError("cannot size history file " + path + ": " + errno_text());
  std::rewind(f.get());
  const uint64_t file_size = static_cast<uint64_t>(end);
  auto bad = [&](const std::string& why) { return HistoryIoError("history file " + path + ": " + why); };

  if (file_size < kHeaderBytes)
    throw bad("truncated: " + std::to_string(file_size) + " bytes, shorter than the " + std::to_string(kHeaderBytes) +
              "-byte header");
  unsigned char hd[kHeaderBytes];
  if (std::fread(hd, 1, kHeaderBytes, f.get()) != kHeaderBytes) throw bad("cannot read the header: " + errno_text());
  if (std::memcmp(hd, kMagic, 8) != 0) throw bad("not a history file (bad magic)");
  const uint32_t version = get_u32(hd + 8);
  if (version != kHistoryFormatVersion)
    throw bad("format version " + std::to_string(version) + " is not supported (this build reads version " +
              std::to_string(kHistoryFormatVersion) + ")");
  const uint32_t header_bytes = get_u32(hd + 12);
  const uint64_t n_txns = get_u64(hd + 16), n_acc = get_u64(hd + 24), payload = get_u64(hd + 32);
  Checksum hc;
  hc.add(version);
  hc.add(header_bytes);
  hc.add(n_txns);
  hc.add(n_acc);
  hc.add(payload);
  if (hc.h != get_u64(hd + 40)) throw bad("corrupted header (header checksum mismatch)");
  if (header_bytes != kHeaderBytes) throw bad("unexpected header size " + std::to_string(header_bytes));
  uint64_t expect_payload = 0, expect_size = 0;
  if (!mul_add(kTxnBytes, n_txns, 0, &expect_payload) ||
      !mul_add(kAccessBytes, n_acc, expect_payload, &expect_payload) || expect_payload != payload ||
      !mul_add(1, payload, kHeaderBytes + kTrailerBytes, &expect_size))
    throw bad("inconsistent counts in the header");
  if (file_size < expect_size)
    throw bad("truncated: " + std::to_string(file_size) + " bytes, but the header promises " +
              std::to_string(expect_size));
  if (file_size > expect_size)
    throw bad("trailing data: " + std::to_string(file_size) + " bytes, but the header promises " +
              std::to_string(expect_size));

  History h;
  h.txns.resize(n_txns);
  h.accesses.resize(n_acc);
  Reader r(f.get(), path);
  Checksum pc;
  for (TxnRecord& t : h.txns) {
    const unsigned char* p = r.take(kTxnBytes);
    t.txn_id = get_u64(p);
    t.first_access = get_u64(p + 8);
    t.n_accesses = get_u32(p + 16);
    pc.add(t.txn_id);
    pc.add(t.first_access);
    pc.add(t.n_accesses);
  }
  for (AccessRecord& a : h.accesses) {
    const unsigned char* p = r.take(kAccessBytes);
    a.key = get_u64(p);
    a.read_version = get_u64(p + 8);
    a.prev_version = get_u64(p + 16);
    pc.add(a.key);
    pc.add(a.read_version);
    pc.add(a.prev_version);
  }
  const unsigned char* tr = r.take(kTrailerBytes);
  if (get_u64(tr) != pc.h) throw bad("corrupted records (payload checksum mismatch)");
  if (std::memcmp(tr + 8, kEndMagic, 8) != 0) throw bad("bad end marker");
  for (size_t i = 0; i < h.txns.size(); ++i) {
    const TxnRecord& t = h.txns[i];
    if (t.first_access > n_acc || t.n_accesses > n_acc - t.first_access)
      throw bad("transaction record " + std::to_string(i) + " (id " + std::to_string(t.txn_id) +
                ") points outside the " + std::to_string(n_acc) + " access records");
  }
  return h;
}

}  // namespace ccb::verify
