/**
 * The ledger's tables in PostgreSQL, as numbered migrations (the version in `ledger_migrations`). The first is the
 * SQLite ledger as its seventh migration left it, column for column, so one set of queries serves both; a
 * `seq` column orders rows as they were inserted, where SQLite has its rowid.
 */
export const postgresMigrations: string[] = [
  `
  CREATE TABLE intents (
    id                  TEXT PRIMARY KEY,
    seq                 BIGSERIAL NOT NULL,
    strategy_id         TEXT NOT NULL,
    slot                TEXT NOT NULL,
    run_id              BIGINT,
    kind                TEXT NOT NULL,
    wallet              TEXT NOT NULL,
    chain_id            INTEGER NOT NULL,
    token_in            TEXT NOT NULL,
    token_out           TEXT NOT NULL,
    amount_in           TEXT NOT NULL,
    slippage_bps        INTEGER NOT NULL,
    min_amount_out      TEXT,
    status              TEXT NOT NULL,
    target              TEXT,
    spender             TEXT,
    call_data           TEXT,
    router              TEXT,
    farm                TEXT,
    expected_out        TEXT,
    min_out             TEXT,
    deadline            TEXT,
    simulated_out       TEXT,
    reference_out       TEXT,
    amount_out          TEXT,
    reported_out        TEXT,
    partner_fee         TEXT,
    tx_hash             TEXT,
    block_number        BIGINT,
    gas_used            TEXT,
    effective_gas_price TEXT,
    reason              TEXT,
    refusal             TEXT,
    error_class         TEXT,
    retryable           INTEGER NOT NULL DEFAULT 0,
    anomaly             TEXT,
    created_at          BIGINT NOT NULL,
    updated_at          BIGINT NOT NULL
  );
  CREATE INDEX intents_status ON intents (status);
  CREATE INDEX intents_spend ON intents (strategy_id, wallet, token_in, created_at);
  CREATE INDEX intents_by_run ON intents (run_id);
  CREATE INDEX intents_by_strategy ON intents (strategy_id, created_at);
  CREATE INDEX intents_by_wallet_token ON intents (wallet, token_in, created_at);
  CREATE INDEX intents_by_update ON intents (updated_at, id);

  CREATE TABLE attempts (
    id                       BIGSERIAL PRIMARY KEY,
    intent_id                TEXT NOT NULL REFERENCES intents(id),
    purpose                  TEXT NOT NULL,
    wallet                   TEXT NOT NULL,
    chain_id                 INTEGER NOT NULL,
    nonce                    INTEGER NOT NULL,
    max_fee_per_gas          TEXT NOT NULL,
    max_priority_fee_per_gas TEXT NOT NULL,
    gas_limit                TEXT NOT NULL,
    raw_tx                   TEXT NOT NULL,
    hash                     TEXT NOT NULL UNIQUE,
    status                   TEXT NOT NULL,
    block_number             BIGINT,
    gas_used                 TEXT,
    effective_gas_price      TEXT,
    error                    TEXT,
    created_at               BIGINT NOT NULL,
    updated_at               BIGINT NOT NULL
  );
  CREATE INDEX attempts_intent ON attempts (intent_id);
  CREATE INDEX attempts_nonce ON attempts (chain_id, wallet, nonce);

  CREATE TABLE events (
    id        BIGSERIAL PRIMARY KEY,
    at        BIGINT NOT NULL,
    kind      TEXT NOT NULL,
    intent_id TEXT,
    details   TEXT NOT NULL
  );

  CREATE TABLE owner_lock (
    id        INTEGER PRIMARY KEY CHECK (id = 1),
    owner     TEXT NOT NULL,
    pid       INTEGER NOT NULL,
    host      TEXT NOT NULL,
    heartbeat BIGINT NOT NULL
  );

  CREATE TABLE pauses (
    scope     TEXT NOT NULL CHECK (scope IN ('strategy', 'wallet')),
    key       TEXT NOT NULL,
    reason    TEXT NOT NULL,
    intent_id TEXT,
    paused_at BIGINT NOT NULL,
    PRIMARY KEY (scope, key)
  );

  CREATE TABLE chain (
    id           INTEGER PRIMARY KEY CHECK (id = 1),
    chain_id     INTEGER NOT NULL,
    genesis_hash TEXT NOT NULL,
    bound_at     BIGINT NOT NULL
  );

  CREATE TABLE runs (
    id          BIGSERIAL PRIMARY KEY,
    strategy_id TEXT NOT NULL,
    slot        TEXT NOT NULL,
    started_at  BIGINT NOT NULL,
    finished_at BIGINT,
    outcome     TEXT,
    note        TEXT
  );
  CREATE INDEX runs_by_strategy ON runs (strategy_id, started_at);

  CREATE TABLE tokens (
    address  TEXT PRIMARY KEY,
    symbol   TEXT NOT NULL,
    decimals INTEGER NOT NULL
  );

  CREATE TABLE prices (
    seq     BIGSERIAL PRIMARY KEY,
    at      BIGINT NOT NULL,
    block   BIGINT NOT NULL,
    token   TEXT NOT NULL,
    usd_e18 TEXT NOT NULL,
    source  TEXT NOT NULL
  );
  CREATE INDEX prices_by_token ON prices (token, at);

  CREATE TABLE balances (
    seq     BIGSERIAL PRIMARY KEY,
    at      BIGINT NOT NULL,
    block   BIGINT NOT NULL,
    wallet  TEXT NOT NULL,
    token   TEXT NOT NULL,
    balance TEXT NOT NULL
  );
  CREATE INDEX balances_by_wallet ON balances (wallet, token, at);

  CREATE TABLE strategies (
    id          TEXT PRIMARY KEY,
    kind        TEXT NOT NULL,
    wallet_name TEXT NOT NULL,
    wallet      TEXT NOT NULL,
    definition  TEXT NOT NULL,
    first_seen  BIGINT NOT NULL,
    last_seen   BIGINT NOT NULL
  );

  CREATE TABLE ledger_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
  );
  `,
  // 2: which daemon holds each wallet (leases with a fencing epoch; see leases.ts).
  `
  CREATE TABLE wallet_leases (
    chain_id   INTEGER NOT NULL,
    wallet     TEXT NOT NULL,
    holder     TEXT NOT NULL,
    epoch      BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    PRIMARY KEY (chain_id, wallet)
  );
  `,
  // 3: the daemons sharing this ledger (see daemons.ts), and under which lease each attempt was signed.
  `
  CREATE TABLE daemons (
    holder          TEXT PRIMARY KEY,
    host            TEXT NOT NULL,
    pid             INTEGER NOT NULL,
    started_at      BIGINT NOT NULL,
    renewed_at      BIGINT NOT NULL,
    wallets         INTEGER NOT NULL,
    ready           INTEGER NOT NULL,
    strategy_file   TEXT NOT NULL,
    strategy_digest TEXT NOT NULL
  );
  ALTER TABLE attempts ADD COLUMN lease_holder TEXT;
  ALTER TABLE attempts ADD COLUMN lease_epoch BIGINT;
  `,
  // 4: the quote is no longer a state of its own; a trade left \`quoted\` is resumed as claimed (quoted anew).
  `
  UPDATE intents SET status = 'claimed' WHERE status = 'quoted';
  `,
  // 5: authentication tags of what authorizes a signature (model/record-tags.ts), made with a key the ledger never sees.
  `
  ALTER TABLE intents ADD COLUMN request_tag TEXT;
  ALTER TABLE intents ADD COLUMN call_tag TEXT;
  `,
  // 6: a state, a kind, a purpose or an outcome the code does not know is refused by the database itself.
  `
  ALTER TABLE intents ADD CONSTRAINT intents_status_known CHECK (status IN ('claimed', 'checked', 'signed', 'broadcast', 'unknown', 'confirmed', 'anomaly', 'refused', 'failed', 'dry-run'));
  ALTER TABLE intents ADD CONSTRAINT intents_kind_known CHECK (kind IN ('swap', 'deposit', 'withdraw', 'claim'));
  ALTER TABLE attempts ADD CONSTRAINT attempts_status_known CHECK (status IN ('signed', 'broadcast', 'mined', 'reverted', 'replaced', 'dropped'));
  ALTER TABLE attempts ADD CONSTRAINT attempts_purpose_known CHECK (purpose IN ('approve', 'trade', 'cancel'));
  ALTER TABLE runs ADD CONSTRAINT runs_outcome_known CHECK (outcome IS NULL OR outcome IN ('traded', 'nothing', 'refused', 'failed', 'unknown', 'anomaly', 'paused', 'waiting', 'dry-run', 'skipped', 'interrupted', 'missed'));
  `,
  // 7: a run that an error stopped before it traded is \`error\`, no longer \`failed\` with its note saying so.
  `
  ALTER TABLE runs DROP CONSTRAINT runs_outcome_known;
  UPDATE runs SET outcome = 'error' WHERE outcome = 'failed' AND note LIKE 'failed before trading%';
  ALTER TABLE runs ADD CONSTRAINT runs_outcome_known CHECK (outcome IS NULL OR outcome IN ('traded', 'nothing', 'refused', 'failed', 'error', 'unknown', 'anomaly', 'paused', 'waiting', 'dry-run', 'skipped', 'interrupted', 'missed'));
  `,
  // 8: trades on a Uniswap V3 position (collect, add-liquidity): the position, the second token's amounts.
  `
  ALTER TABLE intents ADD COLUMN position_manager TEXT;
  ALTER TABLE intents ADD COLUMN position_id TEXT;
  ALTER TABLE intents ADD COLUMN amount_in_1 TEXT;
  ALTER TABLE intents ADD COLUMN min_out_1 TEXT;
  ALTER TABLE intents ADD COLUMN moved_0 TEXT;
  ALTER TABLE intents ADD COLUMN moved_1 TEXT;
  ALTER TABLE intents ADD COLUMN moved_liquidity TEXT;
  ALTER TABLE intents DROP CONSTRAINT intents_kind_known;
  ALTER TABLE intents ADD CONSTRAINT intents_kind_known CHECK (kind IN ('swap', 'deposit', 'withdraw', 'claim', 'collect', 'add-liquidity'));
  `,
  // 9: removing a V3 position's liquidity, and opening a new position (a re-range, an exit).
  `
  ALTER TABLE intents ADD COLUMN remove_liquidity TEXT;
  ALTER TABLE intents ADD COLUMN burn_position INTEGER;
  ALTER TABLE intents ADD COLUMN fee_tier INTEGER;
  ALTER TABLE intents ADD COLUMN tick_lower INTEGER;
  ALTER TABLE intents ADD COLUMN tick_upper INTEGER;
  ALTER TABLE intents ADD COLUMN moved_position_id TEXT;
  ALTER TABLE intents DROP CONSTRAINT intents_kind_known;
  ALTER TABLE intents ADD CONSTRAINT intents_kind_known CHECK (kind IN ('swap', 'deposit', 'withdraw', 'claim', 'collect', 'add-liquidity', 'remove-liquidity', 'mint'));
  `,
  // 10: V3 positions as their strategies' runs observed them, for the status's time in range and value against holding.
  `
  CREATE TABLE position_marks (
    seq            BIGSERIAL PRIMARY KEY,
    at             BIGINT NOT NULL,
    block          BIGINT NOT NULL,
    block_time     BIGINT NOT NULL,
    strategy_id    TEXT NOT NULL,
    position_id    TEXT NOT NULL,
    tick_lower     INTEGER NOT NULL,
    tick_upper     INTEGER NOT NULL,
    tick           INTEGER NOT NULL,
    amount0        TEXT NOT NULL,
    amount1        TEXT NOT NULL,
    seconds_inside BIGINT
  );
  CREATE INDEX position_marks_by_strategy ON position_marks (strategy_id, at);
  `,
  // 11: what a removal's liquidity freed, apart from the fees it collected with it.
  `
  ALTER TABLE intents ADD COLUMN moved_freed_0 TEXT;
  ALTER TABLE intents ADD COLUMN moved_freed_1 TEXT;
  `,
  // 12: each signed transaction tagged by the wallet as it is signed; the ledger id, where each wallet's record starts
  // and the tags' mark written once. The trigger is the owner's: a daemons' role (\`migrate --grant\`) cannot drop it.
  `
  ALTER TABLE attempts ADD COLUMN tag TEXT;
  INSERT INTO ledger_meta (key, value) SELECT 'attempts-tagged-after', COALESCE(MAX(id), 0)::text FROM attempts;
  -- One line: the migrations are split into statements at a semicolon that ends a line.
  CREATE FUNCTION ledger_meta_written_once() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF OLD.key IN ('ledger-id', 'attempts-tagged-after') OR OLD.key LIKE 'signed-from:%' THEN RAISE EXCEPTION 'written once: the ledger id, where a wallet''s record starts and the tags'' mark are never changed or deleted (%)', OLD.key; END IF; RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END; END $$;
  CREATE TRIGGER ledger_meta_written_once BEFORE UPDATE OR DELETE ON ledger_meta FOR EACH ROW EXECUTE FUNCTION ledger_meta_written_once();
  `,
  // 13: moving a V3 position in one transaction (a re-range, an exit), and what its mint put into the new position.
  `
  ALTER TABLE intents ADD COLUMN moved_added_0 TEXT;
  ALTER TABLE intents ADD COLUMN moved_added_1 TEXT;
  ALTER TABLE intents DROP CONSTRAINT intents_kind_known;
  ALTER TABLE intents ADD CONSTRAINT intents_kind_known CHECK (kind IN ('swap', 'deposit', 'withdraw', 'claim', 'collect', 'add-liquidity', 'remove-liquidity', 'mint', 'move-position'));
  `,
  // 14: what a V3 position owed in fees when a run observed it, apart from what its liquidity held.
  `
  ALTER TABLE position_marks ADD COLUMN fees0 TEXT;
  ALTER TABLE position_marks ADD COLUMN fees1 TEXT;
  `,
  // 15: a slice of an order worked in slices names the order as it started (what splitting is measured against).
  `
  ALTER TABLE intents ADD COLUMN order_amount TEXT;
  ALTER TABLE intents ADD COLUMN order_one_route_out TEXT;
  `,
];
