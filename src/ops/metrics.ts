/**
 * Prometheus metrics (prom-client), on a registry of the daemon's own. Names follow Prometheus conventions:
 * seconds as floats, `_total` counters, amounts in whole tokens; Node's default process metrics keep their
 * standard names (`process_cpu_seconds_total`, `nodejs_heap_size_used_bytes`) so stock dashboards read them.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const metric = { registers: [registry] };
  return {
    registry,
    ticks: new Counter({ name: 'routekeeper_ticks_total', help: 'Strategy runs started', labelNames: ['strategy'], ...metric }),
    slotsMissed: new Counter({
      name: 'routekeeper_slots_missed_total',
      help: 'Schedule slots that did not run, each recorded in the ledger with why',
      labelNames: ['strategy'],
      ...metric,
    }),
    quotes: new Counter({ name: 'routekeeper_quotes_total', help: 'Quotes asked for, by outcome', labelNames: ['outcome'], ...metric }),
    refusals: new Counter({ name: 'routekeeper_guard_refusals_total', help: 'Quotes refused by a guard, by reason', labelNames: ['reason'], ...metric }),
    transactions: new Counter({ name: 'routekeeper_transactions_total', help: 'Runs of trades by final status', labelNames: ['status'], ...metric }),
    anomalies: new Counter({
      name: 'routekeeper_anomalies_total',
      help: 'Trades whose outcome cannot be trusted (each pauses its strategy and wallet)',
      labelNames: ['strategy'],
      ...metric,
    }),
    leasesHeld: new Gauge({ name: 'routekeeper_wallet_leases_held', help: 'Wallets this daemon holds the lease of (and may sign for)', ...metric }),
    leasesLost: new Counter({
      name: 'routekeeper_wallet_leases_lost_total',
      help: 'Wallet leases this daemon could not renew (its work for the wallet stopped)',
      ...metric,
    }),
    leasesTakenOver: new Counter({
      name: 'routekeeper_wallet_leases_taken_over_total',
      help: 'Wallet leases taken from a holder whose process was gone, without waiting for them to run out',
      ...metric,
    }),
    replacements: new Counter({ name: 'routekeeper_replacements_total', help: 'Stuck transactions replaced or cancelled', labelNames: ['kind'], ...metric }),
    gasSpent: new Counter({
      name: 'routekeeper_gas_spent_native_total',
      help: 'Gas paid by mined transactions, in whole native coin (CELO on Celo)',
      labelNames: ['strategy'],
      ...metric,
    }),
    runs: new Counter({
      name: 'routekeeper_runs_total',
      help: 'Strategy runs finished, by outcome (traded, nothing, refused, failed, unknown, anomaly, paused, waiting, dry-run, interrupted)',
      labelNames: ['strategy', 'outcome'],
      ...metric,
    }),
    failures: new Counter({
      name: 'routekeeper_strategy_failures_total',
      help: 'Runs that failed (before trading, or a trade failed or ended unknown)',
      labelNames: ['strategy'],
      ...metric,
    }),
    volume: new Counter({
      name: 'routekeeper_volume_total',
      help: 'Amounts moved by confirmed trades, in whole tokens: side="sold" what left the wallet, side="bought" what came in',
      labelNames: ['strategy', 'token', 'side'],
      ...metric,
    }),
    runSeconds: new Histogram({
      name: 'routekeeper_run_duration_seconds',
      help: 'Time of a strategy run, from observation to the last receipt',
      labelNames: ['strategy'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
      ...metric,
    }),
    stepSeconds: new Histogram({
      name: 'routekeeper_step_duration_seconds',
      help: 'Time of each execution step (quote, guards, simulate, approve, send)',
      labelNames: ['step'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      ...metric,
    }),
    balance: new Gauge({
      name: 'routekeeper_wallet_balance',
      help: 'Wallet balances in whole tokens, by wallet name',
      labelNames: ['wallet', 'token'],
      ...metric,
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
