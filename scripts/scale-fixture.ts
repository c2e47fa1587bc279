/**
 * What the scale benchmarks share: funded test wallets on a devnet, a strategy file of N one-minute DCAs over them,
 * and a process's RSS and CPU read from /proc.
 */
import { readFileSync } from 'node:fs';
import { type Hex, createPublicClient, createTestClient, createWalletClient, erc20Abi, http, keccak256, parseEther, parseUnits, toHex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { chainFor } from '../src/chains.ts';
import type { DeploymentAddressBook } from '../src/config/address-book.ts';

/** USER_HZ: /proc/<pid>/stat counts CPU time in 1/100 s. */
export const ticksPerSecond = 100;

/** W deterministic test keys, each given native gas and 1,000 cUSD by the devnet's first account. */
export async function fundWallets(book: DeploymentAddressBook, count: number): Promise<Hex[]> {
  const chain = chainFor(book.chainId, book.rpcUrl);
  const publicClient = createPublicClient({ chain, transport: http(book.rpcUrl) });
  const keys = Array.from({ length: count }, (_, i) => keccak256(toHex(`routekeeper bench wallet ${i}`)));
  const testClient = createTestClient({ mode: 'anvil', transport: http(book.rpcUrl) });
  const funder = createWalletClient({ chain, transport: http(book.rpcUrl), account: privateKeyToAccount(book.accounts[0]?.privateKey as Hex) });
  const cUSD = book.tokens.cUSD?.address as Hex;
  for (const key of keys) {
    const address = privateKeyToAccount(key).address;
    await testClient.setBalance({ address, value: parseEther('1000') });
    const hash = await funder.writeContract({ address: cUSD, abi: erc20Abi, functionName: 'transfer', args: [address, parseUnits('1000', 18)] });
    await publicClient.waitForTransactionReceipt({ hash });
  }
  return keys;
}

/**
 * N DCAs every minute over the wallets BENCH_KEY_0…; twenty different amounts (some quotes shared, most not).
 * `spread`: the file's `defaults.spread` ("0s": every strategy starts at the slot itself).
 */
export function strategyFile(strategies: number, walletCount: number, concurrency?: number, spread?: string): string {
  const defaults = [
    ...(concurrency === undefined ? [] : [`maxConcurrency: ${concurrency}`]),
    ...(spread === undefined ? [] : [`spread: ${spread}`]),
    'approvals: unlimited',
  ];
  const lines = [`defaults: { ${defaults.join(', ')} }`, 'wallets:'];
  for (let w = 0; w < walletCount; w++) lines.push(`  w${w}: { privateKeyEnv: BENCH_KEY_${w} }`);
  lines.push('strategies:');
  for (let i = 0; i < strategies; i++)
    lines.push(`  - { id: dca-${i}, kind: dca, wallet: w${i % walletCount}, every: 1m, sell: { token: cUSD, amount: "0.0${(i % 20) + 10}" }, buy: CELO }`);
  return `${lines.join('\n')}\n`;
}

export type Sample = { at: number; rssMB: number; cpuTicks: number };

/** A process's resident memory and CPU time so far; undefined once it is gone. */
export function sample(pid: number): Sample | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const rssKB = Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0);
    return { at: Date.now(), rssMB: rssKB / 1024, cpuTicks: Number(fields[11]) + Number(fields[12]) };
  } catch {
    return undefined;
  }
}
