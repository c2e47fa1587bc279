/** The ledger's tables, as numbered migrations: a database is brought up to the last one at open. */
export const migrations: string[] = [
  `
  CREATE TABLE intents (
    id          TEXT PRIMARY KEY,        -- strategy id + ':' + schedule slot: one run, at most one trade
    strategy_id TEXT NOT NULL,
    slot        TEXT NOT NULL,
    kind        TEXT NOT NULL,           -- swap | deposit | withdraw | claim
    wallet      TEXT NOT NULL,
    chain_id    INTEGER NOT NULL,
    token_in    TEXT NOT NULL,
    amount_in   TEXT NOT NULL,           -- raw uint256, decimal
    request     TEXT NOT NULL,           -- JSON: what was asked (tokens, amounts, limits)
    status      TEXT NOT NULL,           -- pending | refused | dry-run | submitted | confirmed | failed
    reason      TEXT,                    -- why refused or failed
    quote       TEXT,                    -- JSON: the quote that passed the guards
    outcome     TEXT,                    -- JSON: what happened on chain (or would have, for dry-run)
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
  );
  CREATE INDEX intents_status ON intents(status);
  CREATE INDEX intents_spend ON intents(strategy_id, wallet, token_in, created_at);

  CREATE TABLE attempts (
    id                       INTEGER PRIMARY KEY AUTOINCREMENT,
    intent_id                TEXT NOT NULL REFERENCES intents(id),
    purpose                  TEXT NOT NULL,   -- approve | trade | cancel
    wallet                   TEXT NOT NULL,
    chain_id                 INTEGER NOT NULL,
    nonce                    INTEGER NOT NULL,
    max_fee_per_gas          TEXT NOT NULL,
    max_priority_fee_per_gas TEXT NOT NULL,
    gas_limit                TEXT NOT NULL,
    raw_tx                   TEXT NOT NULL,   -- the signed bytes, stored before broadcast
    hash                     TEXT NOT NULL UNIQUE,
    status                   TEXT NOT NULL,   -- signed | broadcast | mined | reverted | replaced | dropped
    block_number             INTEGER,
    gas_used                 TEXT,
    effective_gas_price      TEXT,
    error                    TEXT,
    created_at               INTEGER NOT NULL,
    updated_at               INTEGER NOT NULL
  );
  CREATE INDEX attempts_intent ON attempts(intent_id);
  CREATE INDEX attempts_nonce ON attempts(chain_id, wallet, nonce);

  CREATE TABLE events (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    at         INTEGER NOT NULL,
    kind       TEXT NOT NULL,
    intent_id  TEXT,
    details    TEXT NOT NULL
  );

  CREATE TABLE owner_lock (
    id        INTEGER PRIMARY KEY CHECK (id = 1),
    owner     TEXT NOT NULL,
    pid       INTEGER NOT NULL,
    host      TEXT NOT NULL,
    heartbeat INTEGER NOT NULL
  );
  `,
];
