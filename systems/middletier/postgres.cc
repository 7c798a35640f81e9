#include "systems/middletier/postgres.h"

#include <cstdlib>
#include <stdexcept>
#include <string>

#include "workloads/smallbank/smallbank_generator.h"

namespace ccb::middletier {

Connection::Connection(const PgServer& server) {
  const std::string port = std::to_string(server.port);
  // SERIALIZABLE for every transaction of the session: the isolation level
  // the substitute needs, independent of the server's default.
  const char* keys[] = {"host", "port", "user", "dbname", "options", "application_name", nullptr};
  const char* values[] = {server.host.c_str(), port.c_str(), server.user.c_str(), server.database.c_str(),
                          "-c default_transaction_isolation=serializable", "ccbench-middletier", nullptr};
  conn_ = PQconnectdbParams(keys, values, 0);
  if (PQstatus(conn_) != CONNECTION_OK) {
    const std::string why = PQerrorMessage(conn_);
    PQfinish(conn_);
    throw std::runtime_error("cannot connect to PostgreSQL at host '" + server.host + "' port " + port + ": " + why);
  }
}

// The six SmallBank procedures of workloads/smallbank/smallbank.h, in SQL:
// the same reads and writes (and the H-Store customer lookup first), so the
// predicted access sets of describe() are the ones the server sees. Returns
// the net money the procedure brought in (deposits) or took out (checks), or
// NULL when it rolled itself back (insufficient funds).
constexpr const char* kProcedure = R"SQL(
CREATE OR REPLACE FUNCTION sb_txn(t integer, c1 integer, c2 integer, v integer) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE s bigint; k bigint; d bigint;
BEGIN
  PERFORM 1 FROM accounts WHERE custid = c1;
  IF t IN (3, 5) THEN PERFORM 1 FROM accounts WHERE custid = c2; END IF;
  CASE t
  WHEN 0 THEN  -- Balance
    SELECT bal INTO s FROM savings WHERE custid = c1;
    SELECT bal INTO k FROM checking WHERE custid = c1;
    RETURN 0;
  WHEN 1 THEN  -- DepositChecking
    UPDATE checking SET bal = bal + v WHERE custid = c1;
    RETURN v;
  WHEN 2 THEN  -- TransactSavings
    SELECT bal INTO s FROM savings WHERE custid = c1;
    IF s + v < 0 THEN RETURN NULL; END IF;
    UPDATE savings SET bal = s + v WHERE custid = c1;
    RETURN v;
  WHEN 3 THEN  -- Amalgamate
    SELECT bal INTO s FROM savings WHERE custid = c1;
    SELECT bal INTO k FROM checking WHERE custid = c1;
    UPDATE savings SET bal = 0 WHERE custid = c1;
    UPDATE checking SET bal = 0 WHERE custid = c1;
    UPDATE checking SET bal = bal + s + k WHERE custid = c2;
    RETURN 0;
  WHEN 4 THEN  -- WriteCheck (overdraft: a penalty of one unit)
    SELECT bal INTO s FROM savings WHERE custid = c1;
    SELECT bal INTO k FROM checking WHERE custid = c1;
    d := CASE WHEN s + k < v THEN v + 1 ELSE v END;
    UPDATE checking SET bal = k - d WHERE custid = c1;
    RETURN -d;
  WHEN 5 THEN  -- SendPayment
    SELECT bal INTO k FROM checking WHERE custid = c1;
    IF k < v THEN RETURN NULL; END IF;
    UPDATE checking SET bal = k - v WHERE custid = c1;
    UPDATE checking SET bal = bal + v WHERE custid = c2;
    RETURN 0;
  END CASE;
END $$;
)SQL";

int64_t load_database(Connection& c, uint64_t customers) {
  c.exec("SET client_min_messages = warning; DROP TABLE IF EXISTS accounts, savings, checking; "
         "CREATE TABLE accounts (custid integer PRIMARY KEY, name text NOT NULL); "
         "CREATE TABLE savings (custid integer PRIMARY KEY, bal bigint NOT NULL); "
         "CREATE TABLE checking (custid integer PRIMARY KEY, bal bigint NOT NULL);");
  std::string accounts, savings, checking;
  int64_t total = 0;
  for (uint64_t id = 0; id < customers; ++id) {
    const std::string key = std::to_string(id);
    accounts += key + "\tcust" + key + "\n";
    const int64_t s = SmallBankGenerator::initial_balance(id, 0), k = SmallBankGenerator::initial_balance(id, 1);
    savings += key + "\t" + std::to_string(s) + "\n";
    checking += key + "\t" + std::to_string(k) + "\n";
    total += s + k;
  }
  c.copy_in("accounts", accounts);
  c.copy_in("savings", savings);
  c.copy_in("checking", checking);
  c.exec("VACUUM ANALYZE accounts, savings, checking");
  c.exec(kProcedure);
  return total;
}

int64_t stored_total(Connection& c) {
  Result r = c.exec("SELECT (SELECT sum(bal) FROM savings) + (SELECT sum(bal) FROM checking)");
  return std::strtoll(PQgetvalue(r.get(), 0, 0), nullptr, 10);
}

}  // namespace ccb::middletier
