/**
 * What a route pays, hop by hop, read from the chain without the router's view: our HopQuoter
 * (src/contracts/solidity/HopQuoter.sol) calls each hop's adapter `getOutputAmount` of the previous hop's output as an
 * ordinary call, so adapters that quote by swapping and reverting (Swappa's PairUniswapV3 through Uniswap's QuoterV2)
 * answer too, where the router's `view` `getOutputAmount` (a static call) reverts. Its code is never deployed: it is
 * placed by state override at an address no key or deployment can reach, in the simulation the checks already make.
 */
import { type Address, type Hex, decodeErrorResult, decodeFunctionResult, encodeFunctionData } from 'viem';
import { HopQuoter } from './solidity-code.ts';

/**
 * Where the quoter's code is placed: the last 20 bytes of keccak256("routekeeper hop quoter"), an address nothing
 * on any chain was deployed to (no key controls it, and CREATE and CREATE2 addresses are not chosen).
 */
export const hopQuoterAddress: Address = '0x50DC08111F758cEf771ba77e8bD31bE152e9d5E2';

/** The route a quote walks: the router's own fields. */
export type QuotedRoute = { path: readonly Address[]; pairs: readonly Address[]; extras: readonly Hex[] };

/** A read of our quoter: where its code is placed, the code, and the call. */
export type HopQuoteRead = { to: Address; code: Hex; data: Hex };

export function hopQuoteRead(route: QuotedRoute, amountIn: bigint): HopQuoteRead {
  return {
    to: hopQuoterAddress,
    code: HopQuoter.runtimeCode,
    data: encodeFunctionData({ abi: HopQuoter.abi, functionName: 'quoteHops', args: [route.path, route.pairs, route.extras, amountIn] }),
  };
}

/** Each hop's output, in route order (the last is what the route pays). */
export function decodeHopQuotes(returned: Hex): readonly bigint[] {
  return decodeFunctionResult({ abi: HopQuoter.abi, functionName: 'quoteHops', data: returned });
}

/**
 * Which hop's adapter failed to quote, and why in its own words (its revert string, or its raw revert data);
 * undefined when the revert is not the quoter's own.
 */
export function failedHopOf(revertData: Hex | undefined): { hop: number; reason: string } | undefined {
  if (!revertData || revertData.length < 10) return undefined;
  try {
    const decoded = decodeErrorResult({ abi: HopQuoter.abi, data: revertData });
    if (decoded.errorName !== 'HopQuoteFailed') return undefined;
    const [hop, reason] = decoded.args;
    return { hop: Number(hop), reason: revertText(reason) };
  } catch {
    return undefined;
  }
}

/** A revert's `Error(string)` or `Panic(uint256)` as text, anything else as its data. */
function revertText(data: Hex): string {
  if (data === '0x') return 'reverted without a reason';
  try {
    const decoded = decodeErrorResult({ data });
    return decoded.errorName === 'Error' ? String(decoded.args[0]) : `${decoded.errorName}(${decoded.args.join(', ')})`;
  } catch {
    return data.length > 74 ? `${data.slice(0, 74)}…` : data;
  }
}
