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
  // A trade in typed columns: what was asked, the checked call, the outcome, and why it failed.
  // Old rows are carried over from their JSON; `pending` was before signing, `submitted` after.
  `
  ALTER TABLE intents ADD COLUMN token_out TEXT;
  ALTER TABLE intents ADD COLUMN slippage_bps INTEGER;
  ALTER TABLE intents ADD COLUMN min_amount_out TEXT;      -- the strategy's own floor, raw tokenOut
  ALTER TABLE intents ADD COLUMN target TEXT;              -- the contract called
  ALTER TABLE intents ADD COLUMN spender TEXT;             -- who pulls tokenIn (router or OneClickFarm)
  ALTER TABLE intents ADD COLUMN call_data TEXT;           -- the exact calldata that passed the checks
  ALTER TABLE intents ADD COLUMN router TEXT;
  ALTER TABLE intents ADD COLUMN farm TEXT;
  ALTER TABLE intents ADD COLUMN expected_out TEXT;
  ALTER TABLE intents ADD COLUMN min_out TEXT;             -- the minimum signed into the call
  ALTER TABLE intents ADD COLUMN deadline TEXT;            -- earliest deadline in the call, Unix seconds
  ALTER TABLE intents ADD COLUMN simulated_out TEXT;
  ALTER TABLE intents ADD COLUMN amount_out TEXT;          -- tokenOut Transfer logs to the wallet
  ALTER TABLE intents ADD COLUMN reported_out TEXT;        -- the router's Swap event, for swaps
  ALTER TABLE intents ADD COLUMN tx_hash TEXT;
  ALTER TABLE intents ADD COLUMN block_number INTEGER;
  ALTER TABLE intents ADD COLUMN gas_used TEXT;
  ALTER TABLE intents ADD COLUMN effective_gas_price TEXT;
  ALTER TABLE intents ADD COLUMN refusal TEXT;             -- the guard that refused
  ALTER TABLE intents ADD COLUMN error_class TEXT;
  ALTER TABLE intents ADD COLUMN retryable INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE intents ADD COLUMN anomaly TEXT;
  UPDATE intents SET
    token_out = json_extract(request, '$.tokenOut'),
    slippage_bps = COALESCE(json_extract(request, '$.slippageBps'), 0),
    min_amount_out = json_extract(request, '$.minAmountOut'),
    expected_out = json_extract(quote, '$.expectedOut'),
    min_out = json_extract(quote, '$.minOut'),
    deadline = json_extract(quote, '$.deadline'),
    router = json_extract(quote, '$.router'),
    farm = json_extract(quote, '$.farm'),
    amount_out = json_extract(outcome, '$.amountOut'),
    simulated_out = json_extract(outcome, '$.simulatedOut'),
    tx_hash = json_extract(outcome, '$.txHash'),
    block_number = json_extract(outcome, '$.blockNumber'),
    gas_used = json_extract(outcome, '$.gasUsed'),
    effective_gas_price = json_extract(outcome, '$.effectiveGasPrice'),
    status = CASE status WHEN 'pending' THEN 'claimed' WHEN 'submitted' THEN 'broadcast' ELSE status END;
  ALTER TABLE intents DROP COLUMN request;
  ALTER TABLE intents DROP COLUMN quote;
  ALTER TABLE intents DROP COLUMN outcome;
  `,
  // 3: the independent reference each checked call was held to, and pauses after an anomaly.
  `
  ALTER TABLE intents ADD COLUMN reference_out TEXT;       -- what the price reference said the trade should pay
  CREATE TABLE pauses (
    scope TEXT NOT NULL CHECK (scope IN ('strategy', 'wallet')),
    key TEXT NOT NULL,                                     -- the strategy id, or the wallet address in lower case
    reason TEXT NOT NULL,
    intent_id TEXT,                                        -- the trade whose anomaly paused it
    paused_at INTEGER NOT NULL,
    PRIMARY KEY (scope, key)
  );
  `,
  // 4: the chain the ledger was written on. A ledger describes transactions of one chain; opened against
  // another (a new devnet, a fork, another network with the same chain id) its open trades would be settled
  // with the wrong chain's evidence.
  `
  CREATE TABLE chain (
    id           INTEGER PRIMARY KEY CHECK (id = 1),
    chain_id     INTEGER NOT NULL,
    genesis_hash TEXT NOT NULL,                            -- the hash of block 0
    bound_at     INTEGER NOT NULL
  );
  `,
  // 5: every run of a strategy, whatever it did (traded, nothing to do, refused, failed before trading), and the
  // symbol and decimals of the tokens trades name, so the ledger can be read in human units without a node.
  `
  CREATE TABLE runs (
    id          INTEGER PRIMARY KEY,
    strategy_id TEXT NOT NULL,
    slot        TEXT NOT NULL,                             -- the slot's time, or once-<time>
    started_at  INTEGER NOT NULL,
    finished_at INTEGER,                                   -- none: the process stopped during the run
    outcome     TEXT,                                      -- traded, nothing, refused, failed, unknown, anomaly, paused, waiting, dry-run, interrupted
    note        TEXT
  );
  CREATE INDEX runs_by_strategy ON runs (strategy_id, started_at);
  CREATE TABLE tokens (
    address  TEXT PRIMARY KEY,                             -- lower case
    symbol   TEXT NOT NULL,
    decimals INTEGER NOT NULL
  );
  `,
  // 6: what the user's money is worth over time, and what the strategies were. The ledger's trades are the
  // accounting; these are its inputs: the reference prices and the wallets' balances the daemon observed (a row
  // only when a value changed), and each strategy as it was resolved at the daemon's last start.
  `
  CREATE TABLE prices (
    at      INTEGER NOT NULL,                              -- ms
    block   INTEGER NOT NULL,
    token   TEXT NOT NULL,                                 -- lower case; 'native' for the chain's coin
    usd_e18 TEXT NOT NULL,                                 -- USD per whole token, 18 decimals
    source  TEXT NOT NULL
  );
  CREATE INDEX prices_by_token ON prices (token, at);
  CREATE TABLE balances (
    at      INTEGER NOT NULL,
    block   INTEGER NOT NULL,
    wallet  TEXT NOT NULL,                                 -- lower case
    token   TEXT NOT NULL,                                 -- lower case
    balance TEXT NOT NULL                                  -- raw
  );
  CREATE INDEX balances_by_wallet ON balances (wallet, token, at);
  CREATE TABLE strategies (
    id          TEXT PRIMARY KEY,
    kind        TEXT NOT NULL,
    wallet_name TEXT NOT NULL,
    wallet      TEXT NOT NULL,                             -- the address, lower case
    definition  TEXT NOT NULL,                             -- JSON of the resolved strategy (raw amounts as strings)
    first_seen  INTEGER NOT NULL,
    last_seen   INTEGER NOT NULL                           -- the daemon start that last had it in its strategy file
  );
  CREATE TABLE ledger_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
  );
  ALTER TABLE intents ADD COLUMN partner_fee TEXT;         -- tokenOut the router paid a routing partner, for swaps
  `,
  // 7: a trade names the run that claimed it (runs and trades were tied by slot strings), and every address and
  // hash is lower case, as the ledger now writes them: lookups compare columns as they are, without lower().
  `
  ALTER TABLE intents ADD COLUMN run_id INTEGER;
  UPDATE intents SET run_id = (
    SELECT MAX(runs.id) FROM runs WHERE runs.strategy_id = intents.strategy_id AND substr(intents.slot, 1, length(runs.slot) + 1) = runs.slot || '#'
  );
  CREATE INDEX intents_by_run ON intents (run_id);
  CREATE INDEX intents_by_strategy ON intents (strategy_id, created_at);
  CREATE INDEX intents_by_wallet_token ON intents (wallet, token_in, created_at);
  CREATE INDEX intents_by_update ON intents (updated_at, id);
  UPDATE intents SET wallet = lower(wallet), token_in = lower(token_in), token_out = lower(token_out), target = lower(target),
    spender = lower(spender), router = lower(router), farm = lower(farm), tx_hash = lower(tx_hash);
  UPDATE attempts SET wallet = lower(wallet), hash = lower(hash);
  UPDATE strategies SET wallet = lower(wallet);
  UPDATE tokens SET address = lower(address);
  `,
  // 8: which daemon holds each wallet (leases with a fencing epoch; see leases.ts).
  `
  CREATE TABLE wallet_leases (
    chain_id   INTEGER NOT NULL,
    wallet     TEXT NOT NULL,                              -- lower case
    holder     TEXT NOT NULL,                              -- the daemon: host, pid and start
    epoch      INTEGER NOT NULL,                           -- rises at every change of holder
    expires_at INTEGER NOT NULL,                           -- ms, on the database's clock
    PRIMARY KEY (chain_id, wallet)
  );
  `,
  // 9: the daemons sharing this ledger (see daemons.ts; on SQLite only ever the one that holds the file), and under
  // which lease each attempt was signed.
  `
  CREATE TABLE daemons (
    holder          TEXT PRIMARY KEY,                      -- host, pid and start, as leases name it
    host            TEXT NOT NULL,
    pid             INTEGER NOT NULL,
    started_at      INTEGER NOT NULL,                      -- ms, on the database's clock
    renewed_at      INTEGER NOT NULL,                      -- ms, on the database's clock
    wallets         INTEGER NOT NULL,                      -- how many wallets it held at its last renewal
    ready           INTEGER NOT NULL,                      -- 1 once it runs strategies: only then is it given wallets
    strategy_file   TEXT NOT NULL,                         -- where it read its strategies
    strategy_digest TEXT NOT NULL                          -- the version of those strategies (sha256 of their definitions)
  );
  ALTER TABLE attempts ADD COLUMN lease_holder TEXT;       -- the daemon that signed it, under its lease of the wallet
  ALTER TABLE attempts ADD COLUMN lease_epoch INTEGER;     -- and that lease's epoch
  `,
  // 10: the quote is no longer a state of its own; a trade left \`quoted\` is resumed as claimed (quoted anew).
  `
  UPDATE intents SET status = 'claimed' WHERE status = 'quoted';
  `,
  // 11: authentication tags of what authorizes a signature (model/record-tags.ts), made with a key the ledger never sees.
  `
  ALTER TABLE intents ADD COLUMN request_tag TEXT;         -- the wallet's tag of the trade's request
  ALTER TABLE intents ADD COLUMN call_tag TEXT;            -- the wallet's tag of the checked call
  `,
  // 12: a run that an error stopped before it traded is \`error\`, no longer \`failed\` with its note saying so.
  `
  UPDATE runs SET outcome = 'error' WHERE outcome = 'failed' AND note LIKE 'failed before trading%';
  `,
  // 13: trades on a Uniswap V3 position (collect, add-liquidity): the position, the second token's amounts.
  `
  ALTER TABLE intents ADD COLUMN position_manager TEXT;    -- the chain data's NonfungiblePositionManager
  ALTER TABLE intents ADD COLUMN position_id TEXT;         -- the position's NFT id, decimal
  ALTER TABLE intents ADD COLUMN amount_in_1 TEXT;         -- token1 asked (token_in/amount_in are token0's)
  ALTER TABLE intents ADD COLUMN min_out_1 TEXT;           -- an add's least token1 (min_out: its least token0)
  ALTER TABLE intents ADD COLUMN moved_0 TEXT;             -- token0 the position manager's event says moved
  ALTER TABLE intents ADD COLUMN moved_1 TEXT;             -- token1 likewise
  ALTER TABLE intents ADD COLUMN moved_liquidity TEXT;     -- the liquidity an add bought
  `,
  // 14: removing a V3 position's liquidity, and opening a new position (a re-range, an exit).
  `
  ALTER TABLE intents ADD COLUMN remove_liquidity TEXT;    -- a removal's liquidity taken out
  ALTER TABLE intents ADD COLUMN burn_position INTEGER;    -- 1: the removal burns the emptied NFT
  ALTER TABLE intents ADD COLUMN fee_tier INTEGER;         -- a mint's pool fee
  ALTER TABLE intents ADD COLUMN tick_lower INTEGER;       -- a mint's range
  ALTER TABLE intents ADD COLUMN tick_upper INTEGER;
  ALTER TABLE intents ADD COLUMN moved_position_id TEXT;   -- the NFT a mint made, from its receipt
  `,
  // 15: V3 positions as their strategies' runs observed them, for the status's time in range and value against holding.
  `
  CREATE TABLE position_marks (
    at             INTEGER NOT NULL,
    block          INTEGER NOT NULL,
    block_time     INTEGER NOT NULL,                       -- the block's timestamp (s)
    strategy_id    TEXT NOT NULL,
    position_id    TEXT NOT NULL,                          -- the NFT's id, decimal
    tick_lower     INTEGER NOT NULL,
    tick_upper     INTEGER NOT NULL,
    tick           INTEGER NOT NULL,                       -- the pool's
    amount0        TEXT NOT NULL,                          -- raw: its liquidity's token0 at the pool's price, and the fees owed
    amount1        TEXT NOT NULL,
    seconds_inside INTEGER                                 -- the pool's counter for the range (uint32); null: not known
  );
  CREATE INDEX position_marks_by_strategy ON position_marks (strategy_id, at);
  `,
  // 16: what a removal's liquidity freed, apart from the fees it collected with it.
  `
  ALTER TABLE intents ADD COLUMN moved_freed_0 TEXT;       -- token0 the DecreaseLiquidity event freed
  ALTER TABLE intents ADD COLUMN moved_freed_1 TEXT;       -- token1 likewise
  `,
  // 17: each signed transaction tagged by the wallet as it is signed, binding it to its trade (model/record-tags.ts);
  // rows signed before are the ones up to \`attempts-tagged-after\`. That mark, where each wallet's record starts and
  // the ledger's id are written once: no writer of rows changes or deletes them (trade/signed-history.ts).
  `
  ALTER TABLE attempts ADD COLUMN tag TEXT;                -- the wallet's tag of it: trade, wallet, chain, nonce, hash, purpose
  INSERT INTO ledger_meta (key, value) SELECT 'attempts-tagged-after', CAST(COALESCE(MAX(id), 0) AS TEXT) FROM attempts;
  CREATE TRIGGER ledger_meta_written_once_update BEFORE UPDATE ON ledger_meta
    WHEN OLD.key IN ('ledger-id', 'attempts-tagged-after') OR OLD.key LIKE 'signed-from:%'
    BEGIN SELECT RAISE(ABORT, 'written once: the ledger id, where a wallet''s record starts and the tags'' mark are never changed'); END;
  CREATE TRIGGER ledger_meta_written_once_delete BEFORE DELETE ON ledger_meta
    WHEN OLD.key IN ('ledger-id', 'attempts-tagged-after') OR OLD.key LIKE 'signed-from:%'
    BEGIN SELECT RAISE(ABORT, 'written once: the ledger id, where a wallet''s record starts and the tags'' mark are never deleted'); END;
  `,
  // 18: what a position move (a re-range or an exit in one transaction) put into its new position.
  `
  ALTER TABLE intents ADD COLUMN moved_added_0 TEXT;       -- token0 the move's mint took, from its IncreaseLiquidity event
  ALTER TABLE intents ADD COLUMN moved_added_1 TEXT;       -- token1 likewise
  `,
  // 19: what a V3 position owed in fees when a run observed it, apart from what its liquidity held.
  `
  ALTER TABLE position_marks ADD COLUMN fees0 TEXT;        -- raw token0 the position owed (collect would pay); null: not recorded
  ALTER TABLE position_marks ADD COLUMN fees1 TEXT;
  `,
  // 20: a slice of an order worked in slices names the order as it started (what splitting is measured against).
  `
  ALTER TABLE intents ADD COLUMN order_amount TEXT;        -- raw: the order's whole amount
  ALTER TABLE intents ADD COLUMN order_one_route_out TEXT; -- raw: the service's quote for all of it on one route, at its start
  `,
];
