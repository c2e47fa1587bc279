/** Why a guard refused a trade, as a closed list: the trade's record, the ledger and the guards all name these. */
export type RefusalReason =
  | 'contract-not-allowed'
  | 'quote-mismatch'
  /** A route names a pair adapter that is not known for the chain. */
  | 'unknown-adapter'
  /** A route names a pool that no known factory made and no list holds (or with another fee than the pool's). */
  | 'unknown-pool'
  /** A route passes through a token that is not on the chain's token list. */
  | 'unknown-token'
  /** A quote carries a partner id that is neither 0 nor ours. */
  | 'unknown-partner'
  /** A token movement of the simulated transaction that no rule accounts for (see guard/flows.ts). */
  | 'token-flow'
  /** A pool the trade swaps in (or prices by) is further from its time-weighted average than the tolerance. */
  | 'manipulated'
  /** The L2's sequencer is down, or came back too recently for prices to be trusted. */
  | 'sequencer'
  /** A deposit's or withdraw's farm data does not name exactly the position's pool (and gauge). */
  | 'farm-mismatch'
  /** No independent price for a token of the trade: nothing to hold the quote to. */
  | 'no-price'
  /** The quote pays less than the independent price reference, beyond the strategy's tolerance. */
  | 'price'
  /** A swap through a Mento exchange would take a token past one of the Broker's trading limits. */
  | 'trading-limit'
  /** A Mento exchange's rate feed is halted by the BreakerBox (its circuit breaker). */
  | 'halted'
  /** A position trade's position is not the wallet's, or not of the trade's tokens. */
  | 'position'
  /** The strategy or the wallet is paused after an anomaly. */
  | 'paused'
  /** A trade read back from the ledger before it was signed that the current strategy file does not ask for. */
  | 'strategy-file'
  | 'deadline'
  | 'threshold'
  | 'ready-transaction-mismatch'
  | 'fee-cap'
  | 'budget'
  | 'simulation';
