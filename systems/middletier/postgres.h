// bin/middletier's PostgreSQL side (middletier_main.cc): a libpq connection
// at SERIALIZABLE (the substitute for DBMS-X's OCC, Ding et al. §5.6), and the
// SmallBank database: its tables, loaded with the workload's initial balances
// (workloads/smallbank's SmallBankGenerator), and the six procedures as one
// PL/pgSQL function, sb_txn, whose reads and writes are those describe()
// predicts.
//
// Thread safety: a Connection is used by one thread at a time.
#pragma once

#include <libpq-fe.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include "systems/middletier/options.h"

namespace ccb::middletier {

struct ResultDeleter {
  void operator()(PGresult* r) const { PQclear(r); }
};
using Result = std::unique_ptr<PGresult, ResultDeleter>;

class Connection {
 public:
  // Connects (std::runtime_error naming the host and port otherwise).
  explicit Connection(const PgServer& server);
  ~Connection() { PQfinish(conn_); }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Runs sql (one or more statements); throws on any error.
  Result exec(const std::string& sql) {
    Result r(PQexec(conn_, sql.c_str()));
    check(r, sql);
    return r;
  }
  void prepare(const char* name, const char* sql) {
    Result r(PQprepare(conn_, name, sql, 0, nullptr));
    check(r, sql);
  }
  Result exec_prepared(const char* name, int n, const char* const* params) {
    return Result(PQexecPrepared(conn_, name, n, params, nullptr, nullptr, 0));
  }
  // COPY table FROM STDIN with the given text-format rows.
  void copy_in(const std::string& table, const std::string& rows) {
    check(Result(PQexec(conn_, ("COPY " + table + " FROM STDIN").c_str())), "COPY " + table, PGRES_COPY_IN);
    if (PQputCopyData(conn_, rows.data(), static_cast<int>(rows.size())) != 1 || PQputCopyEnd(conn_, nullptr) != 1)
      throw std::runtime_error("COPY " + table + ": " + PQerrorMessage(conn_));
    check(Result(PQgetResult(conn_)), "COPY " + table);
    while (PGresult* extra = PQgetResult(conn_)) PQclear(extra);
  }

 private:
  void check(const Result& r, const std::string& what, ExecStatusType want = PGRES_COMMAND_OK) {
    const ExecStatusType s = PQresultStatus(r.get());
    if (s == want || (want == PGRES_COMMAND_OK && s == PGRES_TUPLES_OK)) return;
    throw std::runtime_error("PostgreSQL: " + what.substr(0, 80) + ": " + PQresultErrorMessage(r.get()));
  }
  PGconn* conn_ = nullptr;
};

// Replaces the SmallBank tables (accounts, savings, checking) and loads them
// with the workload's initial balances for `customers` customers, then
// creates sb_txn; returns the loaded total.
int64_t load_database(Connection& c, uint64_t customers);

// The sum of all balances now stored.
int64_t stored_total(Connection& c);

}  // namespace ccb::middletier
