/** A person-readable account of a devnet: tokens, pools with their reserves and prices, contracts, accounts. */
import { type Address, createPublicClient, formatUnits, http } from 'viem';
import type { DeploymentAddressBook } from '../config/address-book.ts';
import { uniswapV3PoolAbi } from '../contracts/abi.ts';
import * as artifacts from './artifacts/contracts.ts';

export async function describeDevnet(book: DeploymentAddressBook): Promise<string> {
  const client = createPublicClient({ transport: http(book.rpcUrl) });
  const decimalsOf = (symbol: string) => book.tokens[symbol]?.decimals ?? 18;
  const poolLines = await Promise.all(
    book.pools.map(async (pool) => {
      const [reserve0, reserve1] = await client.readContract({
        address: pool.address,
        abi: artifacts.UniswapV2Pair.abi,
        functionName: 'getReserves',
      });
      const human0 = Number(formatUnits(reserve0, decimalsOf(pool.token0)));
      const human1 = Number(formatUnits(reserve1, decimalsOf(pool.token1)));
      return `  ${pool.name.padEnd(10)} ${pool.address}  ${fmt(human0)} ${pool.token0} / ${fmt(human1)} ${pool.token1}  (1 ${pool.token0} = ${fmt(human1 / human0)} ${pool.token1})`;
    }),
  );
  const v3Lines = await Promise.all(
    (book.uniswapV3?.pools ?? []).map(async (pool) => {
      const [sqrtPriceX96] = await client.readContract({ address: pool.address, abi: uniswapV3PoolAbi, functionName: 'slot0' });
      // token1 per token0 in whole units: (√price / 2⁹⁶)² scaled by the decimals.
      const price = (Number(sqrtPriceX96) / 2 ** 96) ** 2 * 10 ** (decimalsOf(pool.token0) - decimalsOf(pool.token1));
      return `  ${pool.name.padEnd(16)} ${pool.address}  (1 ${pool.token0} = ${fmt(price)} ${pool.token1})`;
    }),
  );
  const line = (label: string, address: Address) => `  ${label.padEnd(18)} ${address}`;
  return [
    'routekeeper devnet: a LOCAL chain with test tokens. Nothing here is worth real money.',
    `  RPC URL            ${book.rpcUrl}`,
    ...(book.routingServiceUrl ? [`  routing service    ${book.routingServiceUrl}`] : []),
    `  chain id           ${book.chainId}`,
    '',
    'Tokens:',
    ...Object.entries(book.tokens).map(([symbol, token]) => `  ${symbol.padEnd(6)} ${token.address}  ${token.decimals} decimals`),
    '',
    'Pools (Uniswap V2, 0.3%):',
    ...poolLines,
    '',
    ...(v3Lines.length > 0 ? ['Pools (Uniswap V3):', ...v3Lines, ''] : []),
    ...(book.mento
      ? [
          `Mento exchanges (Broker ${book.mento.broker}, provider ${book.mento.biPoolManager}):`,
          ...book.mento.exchanges.map((exchange) => `  ${exchange.name.padEnd(10)} ${exchange.id}  ${exchange.pricing}`),
          '',
        ]
      : []),
    'Contracts:',
    line('router', book.contracts.router),
    line('OneClickFarm', book.contracts.oneClickFarm),
    ...Object.entries(book.contracts.adapters).map(([name, address]) => line(`adapter ${name}`, address)),
    ...Object.entries(book.contracts.farms).map(([name, address]) => line(`farm ${name}`, address)),
    ...Object.values(book.contracts.gauges).map((gauge) => line(`gauge ${gauge.name}`, gauge.address)),
    '',
    'Funded accounts (public anvil test keys, never use them elsewhere):',
    ...book.accounts.map((account) => `  ${account.address}  ${account.privateKey}`),
  ].join('\n');
}

function fmt(value: number): string {
  return value.toLocaleString('en-US', { maximumSignificantDigits: 6 });
}
