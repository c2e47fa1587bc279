/**
 * What `pause <id>` and `resume <id>` act on: a strategy by its id, a wallet by its address or by the name
 * the strategy file gives it (as the ledger recorded it at the daemon's last start).
 */
import { isAddress } from 'viem';
import type { Ledger, Pause } from '../ledger/ledger.ts';
import { UsageError } from './errors.ts';

export type PauseTarget = { scope: Pause['scope']; key: string; label: string };

type Given = { id?: string; strategy?: string; wallet?: string };

/** The arguments' own mistakes, found before any ledger is opened. */
export function checkPauseArguments(command: string, given: Given): void {
  const chosen = [given.id, given.strategy, given.wallet].filter((value) => value !== undefined);
  if (chosen.length > 1) throw new UsageError(`${command}: give one strategy id or wallet, not ${chosen.length}`);
  if (given.wallet !== undefined && !isAddress(given.wallet, { strict: false }))
    throw new UsageError(`${command}: --wallet '${given.wallet}' is not an address`);
}

export async function pauseTarget(command: string, ledger: Ledger, given: Given): Promise<PauseTarget | undefined> {
  checkPauseArguments(command, given);
  if (given.strategy !== undefined) return { scope: 'strategy', key: given.strategy, label: `strategy ${given.strategy}` };
  if (given.wallet !== undefined) return { scope: 'wallet', key: given.wallet, label: `wallet ${given.wallet}` };
  const id = given.id;
  if (id === undefined) return undefined;
  if (isAddress(id, { strict: false })) return { scope: 'wallet', key: id, label: `wallet ${id}` };
  const strategies = await ledger.strategies.all();
  // A strategy id wins over a wallet of the same name; --wallet <address> reaches the wallet.
  if (strategies.some((strategy) => strategy.id === id) || (await ledger.pauses.all()).some((pause) => pause.scope === 'strategy' && pause.key === id)) {
    return { scope: 'strategy', key: id, label: `strategy ${id}` };
  }
  const wallet = strategies.find((strategy) => strategy.walletName === id);
  if (wallet) return { scope: 'wallet', key: wallet.wallet, label: `wallet ${id} (${wallet.wallet})` };
  const known = [...new Set([...strategies.map((strategy) => strategy.id), ...strategies.map((strategy) => `${strategy.walletName} (wallet)`)])];
  throw new UsageError(
    `${command}: no strategy or wallet '${id}' in the ledger${known.length ? `; known: ${known.join(', ')}` : ' (no daemon has started with it yet)'}`,
  );
}
