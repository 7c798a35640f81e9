// The simulated validator loop (validator_sim.h), the graph source of
// bench_fvs --source=validator: its rules are checked against an independent
// replay of the version history (a shadow map updated from each batch's
// commit order and timestamps).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "partitioners/reorder/validator_sim.h"
#include "tests/reorder/test_util.h"

namespace ccb::reorder {
namespace {

// Every transaction reads and writes the one key A.
SimTxn single_key_txn() {
  SimTxn t;
  t.desc.write_set = {7};
  t.reads = {7};
  return t;
}

// Skewed random transactions over a small key space (key = objects * u^3, so
// low keys are hot): 2 read-only, 1 read-modify-write and 2 write-only keys,
// all distinct.
ValidatorSim::Source skewed_source(uint64_t seed, uint64_t objects = 200) {
  auto rng = std::make_shared<std::mt19937_64>(seed);
  return [rng, objects] {
    std::uniform_real_distribution<double> u(0, 1);
    std::vector<GlobalKey> keys;
    while (keys.size() < 5) {
      const double x = u(*rng);
      const GlobalKey k = static_cast<GlobalKey>(objects * x * x * x);
      if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
    }
    SimTxn t;
    t.desc.read_set = {keys[1], keys[2]};
    t.desc.write_set = {keys[0], keys[3], keys[4]};
    t.reads = {keys[0], keys[1], keys[2]};
    return t;
  };
}

std::vector<GlobalKey> read_keys(const ObservedReads& r) {
  std::vector<GlobalKey> out;
  for (const ReadVersion& v : r) out.push_back(v.key);
  return out;
}

// Hand trace with 2 in flight and batches of 1: t0 commits (A = 1) and its
// client issues t2, which reads A at 1; t1 read A at 0, so pre-validation
// rejects it and it restarts with the same key, reading A at 1, behind t2.
TEST(ValidatorSimTest, HandTraceOfCommitsPrevalidationFailuresAndRestarts) {
  ValidatorSimOptions o;
  o.concurrency = 2;
  o.batch = 1;
  ValidatorSim sim(o, single_key_txn);

  const SimBatch* b = &sim.step();
  ASSERT_EQ(b->txns.size(), 1u);
  EXPECT_EQ(b->txns[0].id, 0u);
  EXPECT_EQ(b->reads[0][0].version, 0u);
  EXPECT_TRUE(b->result.nonviable.empty());
  EXPECT_EQ(b->committed, std::vector<uint32_t>{0});
  EXPECT_EQ(b->first_commit_ts, 1u);
  EXPECT_EQ(b->result.graph.num_nodes, 1u);
  EXPECT_EQ(sim.latest_version(7), 1u);

  b = &sim.step();  // t1 read A at 0; t0 overwrote it
  EXPECT_EQ(b->txns[0].id, 1u);
  EXPECT_EQ(b->reads[0][0].version, 0u);
  EXPECT_EQ(b->result.nonviable, std::vector<uint32_t>{0});
  EXPECT_TRUE(b->committed.empty());
  EXPECT_EQ(b->result.graph.num_nodes, 0u);  // the recorded graph holds viable transactions only

  b = &sim.step();  // t2, issued after t0's commit
  EXPECT_EQ(b->txns[0].id, 2u);
  EXPECT_EQ(b->reads[0][0].version, 1u);
  EXPECT_EQ(b->committed, std::vector<uint32_t>{0});
  EXPECT_EQ(b->first_commit_ts, 2u);

  b = &sim.step();  // t1 again: same id and keys, one restart, read at its re-issue (A = 1)
  EXPECT_EQ(b->txns[0].id, 1u);
  EXPECT_EQ(b->txns[0].restarts, 1u);
  EXPECT_EQ(b->txns[0].write_set, std::vector<GlobalKey>{7});
  EXPECT_EQ(b->reads[0][0].version, 1u);
  EXPECT_EQ(b->result.nonviable, std::vector<uint32_t>{0});  // t2 wrote A = 2 since
  EXPECT_EQ(sim.commits(), 2u);
}

// Without pre-validation the non-viable transaction stays in the graph and
// the final validation aborts it.
TEST(ValidatorSimTest, WithoutPrevalidationTheFinalValidationAborts) {
  ValidatorSimOptions o;
  o.concurrency = 2;
  o.batch = 1;
  o.prevalidate = false;
  ValidatorSim sim(o, single_key_txn);
  sim.step();
  const SimBatch& b = sim.step();
  EXPECT_EQ(b.txns[0].id, 1u);
  EXPECT_TRUE(b.result.nonviable.empty());
  EXPECT_EQ(b.result.graph.num_nodes, 1u);
  EXPECT_EQ(b.result.commit_order, std::vector<uint32_t>{0});
  EXPECT_EQ(b.final_aborts, 1u);
  EXPECT_TRUE(b.committed.empty());
}

// Replays a contended run and checks every rule: FIFO arrival (the
// replacement of stream position p arrives at p + concurrency), restarts keep
// id and keys, reads see the versions committed at (re)issue, pre-validation
// fails exactly the transactions with an overwritten read, every transaction
// of the recorded graph is viable, the graph is that of the viable members,
// and commits follow the commit order with consecutive timestamps.
TEST(ValidatorSimTest, ReplayedHistoryObeysEveryRule) {
  for (const bool prevalidate : {true, false}) {
    SCOPED_TRACE(prevalidate ? "pre-validation on" : "pre-validation off");
    ValidatorSimOptions o;
    o.concurrency = 60;
    o.batch = 8;
    o.prevalidate = prevalidate;
    ValidatorSim sim(o, skewed_source(5));

    std::map<GlobalKey, uint64_t> shadow;  // key -> latest committed version
    auto version = [&](GlobalKey k) { return shadow.count(k) ? shadow[k] : 0; };
    struct Expected {
      bool restart;
      TxnDesc desc;                  // what a restart must repeat
      std::vector<GlobalKey> reads;  // its read keys
      std::map<GlobalKey, uint64_t> versions;  // the state it was issued in
    };
    std::map<uint64_t, Expected> by_position;  // arrival position -> what arrives there
    std::set<uint64_t> committed_ids;
    uint64_t ts = 0, restarts_seen = 0, nonviable_seen = 0, max_id = 0;

    for (int step = 0; step < 300; ++step) {
      const SimBatch& b = sim.step();
      ASSERT_EQ(b.first_position, uint64_t(step) * o.batch);
      std::vector<uint8_t> nonviable(o.batch, 0);
      for (uint32_t p : b.result.nonviable) nonviable[p] = 1;
      std::vector<uint32_t> viable_members;
      for (uint32_t p = 0; p < o.batch; ++p) {
        const TxnDesc& t = b.txns[p];
        const auto it = by_position.find(b.first_position + p);
        if (it != by_position.end()) {
          const Expected& e = it->second;
          if (e.restart) {
            ++restarts_seen;
            EXPECT_EQ(t.id, e.desc.id);
            EXPECT_EQ(t.restarts, e.desc.restarts + 1);
            EXPECT_EQ(t.read_set, e.desc.read_set);
            EXPECT_EQ(t.write_set, e.desc.write_set);
            EXPECT_EQ(read_keys(b.reads[p]), e.reads);
          } else {
            EXPECT_GT(t.id, max_id);  // a new transaction
            EXPECT_EQ(t.restarts, 0u);
          }
          for (const ReadVersion& r : b.reads[p]) {
            EXPECT_EQ(r.version, e.versions.count(r.key) ? e.versions.at(r.key) : 0);
          }
          by_position.erase(it);
        }
        EXPECT_EQ(committed_ids.count(t.id), 0u) << "a committed transaction came back";
        max_id = std::max(max_id, t.id);
        bool overwritten = false;
        for (const ReadVersion& r : b.reads[p]) overwritten = overwritten || version(r.key) > r.version;
        if (prevalidate) {
          EXPECT_EQ(nonviable[p] != 0, overwritten) << "position " << p;
          nonviable_seen += nonviable[p];
        } else {
          EXPECT_EQ(nonviable[p], 0);
        }
        if (!nonviable[p]) viable_members.push_back(p);
      }
      // The recorded graph: the dependency graph of the viable members.
      // (build_dependency_graph reads empty members as "all", hence the branch.)
      if (viable_members.empty()) {
        EXPECT_EQ(b.result.graph.num_nodes, 0u);
      } else {
        const DepGraph expect = build_dependency_graph(b.txns, b.reads, viable_members).graph;
        EXPECT_EQ(testing::adjacency(b.result.graph), testing::adjacency(expect));
      }
      if (prevalidate) {
        EXPECT_EQ(b.committed, b.result.commit_order);  // no pipeline lag: the final validation passes
        EXPECT_EQ(b.final_aborts, 0u);
      }
      // Commits in order, consecutive timestamps; each read still current.
      EXPECT_EQ(b.first_commit_ts, ts + 1);
      std::vector<uint8_t> committed(o.batch, 0);
      for (uint32_t p : b.committed) {
        for (const ReadVersion& r : b.reads[p]) EXPECT_EQ(version(r.key), r.version);
        ++ts;
        for (GlobalKey k : b.txns[p].write_set) shadow[k] = ts;
        committed[p] = 1;
        committed_ids.insert(b.txns[p].id);
      }
      for (uint32_t p = 0; p < o.batch; ++p) {
        by_position[b.first_position + p + o.concurrency] =
            Expected{!committed[p], b.txns[p], read_keys(b.reads[p]), shadow};
      }
      for (const auto& [k, v] : shadow) ASSERT_EQ(sim.latest_version(k), v);
    }
    EXPECT_EQ(sim.commits(), ts);
    EXPECT_GT(restarts_seen, 100u);  // the run is contended enough to test restarts
    if (prevalidate) {
      EXPECT_GT(nonviable_seen, 100u);
    }
  }
}

TEST(ValidatorSimTest, RecordedGraphsAreDeterministicPerSeed) {
  auto record = [](uint64_t seed) {
    ValidatorSimOptions o;
    o.concurrency = 60;
    o.batch = 8;
    ValidatorSim sim(o, skewed_source(seed));
    std::vector<std::vector<std::vector<bool>>> graphs;
    std::vector<uint64_t> ids;
    for (int i = 0; i < 100; ++i) {
      const SimBatch& b = sim.step();
      graphs.push_back(testing::adjacency(b.result.graph));
      for (const TxnDesc& t : b.txns) ids.push_back(t.id);
    }
    return std::make_pair(graphs, ids);
  };
  const auto a = record(3), b = record(3), c = record(4);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
}

TEST(ValidatorSimTest, BadOptionsNameTheField) {
  auto message = [](ValidatorSimOptions o) {
    try {
      ValidatorSim sim(o, single_key_txn);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  ValidatorSimOptions o;
  o.batch = 0;
  EXPECT_EQ(message(o).rfind("batch:", 0), 0u) << message(o);
  o.batch = 40;
  o.concurrency = 39;
  EXPECT_EQ(message(o).rfind("concurrency:", 0), 0u) << message(o);
  o.concurrency = 300;
  o.reorder.fvs.multi_factor = 0;
  EXPECT_EQ(message(o).rfind("multi_factor", 0), 0u) << message(o);
}

}  // namespace
}  // namespace ccb::reorder
