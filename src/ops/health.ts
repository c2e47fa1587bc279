/**
 * What /healthz answers, honestly: healthy only while the chain and the routing service were reached recently
 * (probed every `probeEveryMs`, and seen by every run) and no strategy has failed its last `failedRunsLimit`
 * runs. Anything else is unhealthy, with the reason per component and per strategy. The same facts are metrics.
 */
import { Gauge, type Registry } from 'prom-client';
import { scrub } from './secrets.ts';

export type Component = 'chain' | 'routing' | 'database';

type Seen = { lastOkAt?: number; lastError?: string; lastErrorAt?: number };

export type StrategyHealth = {
  lastRunAt?: number;
  lastOutcome?: string;
  lastSuccessAt?: number;
  lastError?: string;
  consecutiveFailures: number;
};

export type HealthOptions = {
  /** A component not reached for this long is down. */
  staleAfterMs: number;
  /** A strategy whose last this-many runs failed is unhealthy. */
  failedRunsLimit: number;
  now?: () => number;
};

export const defaultHealthOptions: HealthOptions = { staleAfterMs: 60_000, failedRunsLimit: 3 };

export type HealthReport = {
  ok: boolean;
  /** Why it is unhealthy, one line per component or strategy. */
  reasons: string[];
  components: Partial<Record<Component, Seen & { ok: boolean }>>;
  strategies: Record<string, StrategyHealth & { ok: boolean }>;
};

export class HealthMonitor {
  readonly #options: HealthOptions;
  readonly #now: () => number;
  readonly #components: Partial<Record<Component, Seen>>;
  readonly #strategies = new Map<string, StrategyHealth>();
  readonly #gauges: { up: Gauge; lastRun: Gauge; lastSuccess: Gauge; failures: Gauge } | undefined;

  /** `components`: what must answer for the daemon to be healthy (the database where other daemons share it, or always). */
  constructor(
    strategyIds: readonly string[],
    options: HealthOptions = defaultHealthOptions,
    registry?: Registry,
    components: readonly Component[] = ['chain', 'routing'],
  ) {
    this.#options = options;
    this.#components = Object.fromEntries(components.map((component) => [component, {}]));
    this.#now = options.now ?? Date.now;
    for (const id of strategyIds) this.#strategies.set(id, { consecutiveFailures: 0 });
    if (registry) {
      const registers = [registry];
      this.#gauges = {
        up: new Gauge({
          name: 'routekeeper_component_up',
          help: '1 while the component was reached recently, else 0',
          labelNames: ['component'],
          registers,
          // Worked out when scraped: "recently" depends on the time of the scrape, not of the last probe.
          collect: () => this.#updateComponentGauges(),
        }),
        lastRun: new Gauge({
          name: 'routekeeper_strategy_last_run_timestamp_seconds',
          help: 'When the strategy last ran (Unix seconds)',
          labelNames: ['strategy'],
          registers,
        }),
        lastSuccess: new Gauge({
          name: 'routekeeper_strategy_last_success_timestamp_seconds',
          help: 'When a run of the strategy last succeeded (Unix seconds)',
          labelNames: ['strategy'],
          registers,
        }),
        failures: new Gauge({
          name: 'routekeeper_strategy_consecutive_failures',
          help: 'Runs of the strategy that failed in a row',
          labelNames: ['strategy'],
          registers,
        }),
      };
      this.#updateComponentGauges();
      for (const id of this.#strategies.keys()) this.#updateStrategyGauges(id);
    }
  }

  /** The component answered. */
  reached(component: Component): void {
    const seen = this.#components[component];
    if (!seen) return;
    seen.lastOkAt = this.#now();
    this.#updateComponentGauges();
  }

  /** The component could not be reached (or failed inside). */
  unreachable(component: Component, error: string): void {
    const seen = this.#components[component];
    if (!seen) return;
    Object.assign(seen, { lastError: scrub(error), lastErrorAt: this.#now() });
    this.#updateComponentGauges();
  }

  /** A strategy's run ended: `error` when it failed (before trading, or its trade failed or is unknown). */
  ran(strategyId: string, outcome: string, error?: string): void {
    const state = this.#strategies.get(strategyId) ?? { consecutiveFailures: 0 };
    const at = this.#now();
    Object.assign(state, { lastRunAt: at, lastOutcome: outcome });
    if (error === undefined) Object.assign(state, { lastSuccessAt: at, consecutiveFailures: 0 });
    else Object.assign(state, { lastError: scrub(error), consecutiveFailures: state.consecutiveFailures + 1 });
    this.#strategies.set(strategyId, state);
    // Only this strategy's gauges: with thousands of strategies, touching all of them per run is the daemon's busiest work.
    this.#updateStrategyGauges(strategyId);
  }

  report(): HealthReport {
    const reasons: string[] = [];
    const components: HealthReport['components'] = {};
    for (const [name, seen] of Object.entries(this.#components) as [Component, Seen][]) {
      const ok = this.#componentOk(seen);
      components[name] = { ...seen, ok };
      if (!ok) {
        const last = seen.lastOkAt === undefined ? 'never reached' : `last reached ${Math.round((this.#now() - seen.lastOkAt) / 1000)} s ago`;
        reasons.push(`${name}: ${last}${seen.lastError ? `; last error: ${seen.lastError}` : ''}`);
      }
    }
    const strategies: HealthReport['strategies'] = {};
    for (const [id, state] of this.#strategies) {
      const ok = state.consecutiveFailures < this.#options.failedRunsLimit;
      strategies[id] = { ...state, ok };
      if (!ok) reasons.push(`strategy ${id}: its last ${state.consecutiveFailures} runs failed; last error: ${state.lastError}`);
    }
    return { ok: reasons.length === 0, reasons, components, strategies };
  }

  #componentOk(seen: Seen): boolean {
    if (seen.lastOkAt === undefined || this.#now() - seen.lastOkAt > this.#options.staleAfterMs) return false;
    return seen.lastErrorAt === undefined || seen.lastErrorAt < seen.lastOkAt;
  }

  #updateComponentGauges(): void {
    if (!this.#gauges) return;
    for (const [name, seen] of Object.entries(this.#components)) this.#gauges.up.set({ component: name }, this.#componentOk(seen) ? 1 : 0);
  }

  #updateStrategyGauges(id: string): void {
    const state = this.#strategies.get(id);
    if (!this.#gauges || !state) return;
    if (state.lastRunAt !== undefined) this.#gauges.lastRun.set({ strategy: id }, state.lastRunAt / 1000);
    if (state.lastSuccessAt !== undefined) this.#gauges.lastSuccess.set({ strategy: id }, state.lastSuccessAt / 1000);
    this.#gauges.failures.set({ strategy: id }, state.consecutiveFailures);
  }
}

/** Asks the chain, the routing service and the database every `everyMs` whether they answer; returns a stop function. */
export function probeEvery(monitor: HealthMonitor, probes: Partial<Record<Component, () => Promise<unknown>>>, everyMs: number): () => void {
  const probe = () => {
    for (const [name, ask] of Object.entries(probes) as [Component, () => Promise<unknown>][]) {
      ask().then(
        () => monitor.reached(name),
        (error: unknown) => monitor.unreachable(name, error instanceof Error ? (error.message.split('\n')[0] ?? error.name) : String(error)),
      );
    }
  };
  probe();
  const timer = setInterval(probe, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
