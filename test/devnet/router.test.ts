import { type Address, type Hex, encodePacked, keccak256, parseEventLogs, parseUnits } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { routerAbi } from '../../src/contracts/abi.ts';
import { encodePoolExtras } from '../../src/contracts/encoding.ts';
import type { SwapPayload } from '../../src/contracts/payload.ts';
import * as artifacts from '../../src/devnet/artifacts/contracts.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { constantProductOut, readPool, reservesFrom } from '../helpers/uniswap.ts';

const fork = useDevnetFork();

/** path of symbols and the pools between them, as the router wants them. */
function route(symbols: string[], poolNames: string[]) {
  const adapter = fork.addressBook.contracts.adapters.uniswapV2 as Address;
  const pools = poolNames.map((name) => {
    const pool = fork.addressBook.pools.find((p) => p.name === name);
    if (!pool) throw new Error(`no pool ${name}`);
    return pool;
  });
  return {
    path: symbols.map((s) => fork.token(s)),
    pairs: pools.map(() => adapter),
    extras: pools.map((p) => encodePoolExtras(p.address, p.feePerMille)),
  };
}

async function latestTimestamp() {
  return (await fork.publicClient.getBlock()).timestamp;
}

function user() {
  const account = fork.addressBook.accounts[0];
  if (!account) throw new Error('no funded account');
  return { address: account.address, wallet: fork.wallet(account.privateKey) };
}

async function approveRouter(symbol: string, amount: bigint) {
  const { wallet } = user();
  await fork.confirm(
    await wallet.writeContract({
      address: fork.token(symbol),
      abi: artifacts.TestToken.abi,
      functionName: 'approve',
      args: [fork.addressBook.contracts.router, amount],
    }),
  );
}

type Payload = SwapPayload;

async function payloadFor(symbols: string[], poolNames: string[], inputAmount: bigint, overrides: Partial<Payload> = {}) {
  const r = route(symbols, poolNames);
  const quoted = await fork.publicClient.readContract({
    address: fork.addressBook.contracts.router,
    abi: routerAbi,
    functionName: 'getOutputAmount',
    args: [r.path, r.pairs, r.extras, inputAmount],
  });
  const payload: Payload = {
    ...r,
    inputAmount,
    minOutputAmount: quoted,
    expectedOutputAmount: quoted,
    to: user().address,
    deadline: (await latestTimestamp()) + 300n,
    partner: 0n,
    sig: '0x',
    ...overrides,
  };
  return { payload, quoted };
}

async function swap(payload: Payload) {
  await approveRouter(symbolOf(payload.path[0] as Address), payload.inputAmount);
  const hash = await user().wallet.writeContract({
    address: fork.addressBook.contracts.router,
    abi: routerAbi,
    functionName: 'swapExactInputForOutput',
    args: [payload],
  });
  return fork.confirm(hash);
}

function symbolOf(address: Address): string {
  const entry = Object.entries(fork.addressBook.tokens).find(([, t]) => t.address.toLowerCase() === address.toLowerCase());
  if (!entry) throw new Error(`unknown token ${address}`);
  return entry[0];
}

function simulateSwap(payload: Payload) {
  return fork.publicClient.simulateContract({
    account: user().address,
    address: fork.addressBook.contracts.router,
    abi: routerAbi,
    functionName: 'swapExactInputForOutput',
    args: [payload],
  });
}

async function signPartner(signerKey: Hex, partner: bigint, deadline: bigint, tokenIn: Address, tokenOut: Address) {
  const digest = keccak256(encodePacked(['uint256', 'uint256', 'address', 'address'], [partner, deadline, tokenIn, tokenOut]));
  return privateKeyToAccount(signerKey).signMessage({ message: { raw: digest } });
}

describe('router + Uniswap V2 adapter', () => {
  const cases = [
    { name: '1 hop, 18 decimals', symbols: ['CELO', 'cUSD'], pools: ['CELO/cUSD'], amount: parseUnits('1234.5', 18) },
    { name: '2 hops', symbols: ['cEUR', 'cUSD', 'CELO'], pools: ['cUSD/cEUR', 'CELO/cUSD'], amount: parseUnits('250', 18) },
    {
      name: '3 hops from 6 decimals',
      symbols: ['USDC', 'cUSD', 'CELO', 'RWD'],
      pools: ['cUSD/USDC', 'CELO/cUSD', 'RWD/CELO'],
      amount: parseUnits('777.123456', 6),
    },
  ];
  for (const c of cases) {
    it(`pays exactly getOutputAmount and the constant-product amount (${c.name})`, async () => {
      // Independent expectation, hop by hop, from the pools' reserves.
      let expected = c.amount;
      for (const [i, name] of c.pools.entries()) {
        const [reserveIn, reserveOut] = reservesFrom(await readPool(fork, name), fork.token(c.symbols[i] as string));
        expected = constantProductOut(expected, reserveIn, reserveOut);
      }
      const { payload, quoted } = await payloadFor(c.symbols, c.pools, c.amount);
      expect(quoted).toBe(expected);

      const tokenIn = fork.token(c.symbols[0] as string);
      const tokenOut = fork.token(c.symbols.at(-1) as string);
      const me = user().address;
      const [inBefore, outBefore] = [await fork.balanceOf(tokenIn, me), await fork.balanceOf(tokenOut, me)];
      const receipt = await swap(payload);
      expect(await fork.balanceOf(tokenIn, me)).toBe(inBefore - c.amount);
      expect(await fork.balanceOf(tokenOut, me)).toBe(outBefore + expected);

      const [event] = parseEventLogs({ abi: routerAbi, eventName: 'Swap', logs: receipt.logs });
      expect(event?.args).toEqual({ sender: me, to: me, input: tokenIn, output: tokenOut, inputAmount: c.amount, outputAmount: expected });
    });
  }

  it('caps the output at expectedOutputAmount and keeps the rest in the router', async () => {
    const amount = parseUnits('1000', 18);
    const { payload, quoted } = await payloadFor(['CELO', 'cUSD'], ['CELO/cUSD'], amount);
    const capped = quoted - 12_345n;
    const router = fork.addressBook.contracts.router;
    const cUSD = fork.token('cUSD');
    const [mineBefore, routerBefore] = [await fork.balanceOf(cUSD, user().address), await fork.balanceOf(cUSD, router)];
    await swap({ ...payload, expectedOutputAmount: capped, minOutputAmount: capped });
    expect(await fork.balanceOf(cUSD, user().address)).toBe(mineBefore + capped);
    expect(await fork.balanceOf(cUSD, router)).toBe(routerBefore + 12_345n);
  });

  it('reverts when the output is below minOutputAmount, moving nothing', async () => {
    const amount = parseUnits('1000', 18);
    const { payload, quoted } = await payloadFor(['CELO', 'cUSD'], ['CELO/cUSD'], amount);
    await approveRouter('CELO', amount);
    const before = await fork.balanceOf(fork.token('CELO'), user().address);
    await expect(simulateSwap({ ...payload, minOutputAmount: quoted + 1n, expectedOutputAmount: quoted + 1n })).rejects.toThrow(
      'MinimaRouter: Insufficient output amount!',
    );
    expect(await fork.balanceOf(fork.token('CELO'), user().address)).toBe(before);
  });

  it('reverts after the deadline', async () => {
    const { payload } = await payloadFor(['CELO', 'cUSD'], ['CELO/cUSD'], parseUnits('10', 18));
    await approveRouter('CELO', payload.inputAmount);
    await expect(simulateSwap({ ...payload, deadline: (await latestTimestamp()) - 1n })).rejects.toThrow('SwappaRouter: Expired!');
  });

  it('rejects a path and pairs of mismatched lengths', async () => {
    const { payload } = await payloadFor(['CELO', 'cUSD'], ['CELO/cUSD'], parseUnits('10', 18));
    await approveRouter('CELO', payload.inputAmount);
    await expect(simulateSwap({ ...payload, path: [...payload.path, fork.token('cEUR')] })).rejects.toThrow('MinimaRouter: Path and Pairs mismatch!');
  });

  it('pays the partner fee to the partner admin when the service signer signed the partner id', async () => {
    const partner = fork.addressBook.partners?.[0];
    const signer = fork.addressBook.serviceSigner;
    if (!partner || !signer) throw new Error('the devnet has no partner or service signer');
    const amount = parseUnits('500', 18);
    const { payload, quoted } = await payloadFor(['CELO', 'cUSD'], ['CELO/cUSD'], amount);
    const sig = await signPartner(signer.privateKey, BigInt(partner.id), payload.deadline, fork.token('CELO'), fork.token('cUSD'));
    const fee = (quoted * BigInt(partner.feeNumerator)) / 10_000_000_000n;
    expect(fee).toBeGreaterThan(0n);

    const cUSD = fork.token('cUSD');
    const [mineBefore, adminBefore] = [await fork.balanceOf(cUSD, user().address), await fork.balanceOf(cUSD, partner.admin)];
    await swap({ ...payload, partner: BigInt(partner.id), sig, minOutputAmount: quoted - fee });
    expect(await fork.balanceOf(cUSD, partner.admin)).toBe(adminBefore + fee);
    expect(await fork.balanceOf(cUSD, user().address)).toBe(mineBefore + quoted - fee);
  });

  it('treats a partner id with a signature from anyone else, or over other tokens, as partner 0', async () => {
    const partner = fork.addressBook.partners?.[0];
    const signer = fork.addressBook.serviceSigner;
    if (!partner || !signer) throw new Error('the devnet has no partner or service signer');
    const amount = parseUnits('500', 18);
    const { payload, quoted } = await payloadFor(['CELO', 'cUSD'], ['CELO/cUSD'], amount);
    const stranger = fork.addressBook.accounts[1]?.privateKey as Hex;
    const signatures = [
      await signPartner(stranger, BigInt(partner.id), payload.deadline, fork.token('CELO'), fork.token('cUSD')),
      await signPartner(signer.privateKey, BigInt(partner.id), payload.deadline, fork.token('CELO'), fork.token('cEUR')),
    ];
    const cUSD = fork.token('cUSD');
    for (const sig of signatures) {
      const snapshot = await fork.testClient.snapshot();
      const [mineBefore, adminBefore] = [await fork.balanceOf(cUSD, user().address), await fork.balanceOf(cUSD, partner.admin)];
      await swap({ ...payload, partner: BigInt(partner.id), sig });
      expect(await fork.balanceOf(cUSD, partner.admin)).toBe(adminBefore);
      expect(await fork.balanceOf(cUSD, user().address)).toBe(mineBefore + quoted);
      await fork.testClient.revert({ id: snapshot });
    }
  });
});
